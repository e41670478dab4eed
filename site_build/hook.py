"""mkdocs hook: the build-time side of the widgets, and the checks that stop a wrong build.

- Before each build: forget the project's modules (so `mkdocs serve` rebuilds
  with the code as it is now), load the presets (a bad presets.toml is one line
  naming file, line, table and field), lint the widgets' declared labels and
  templates for hand-typed quantities, and pack the wheel Pyodide loads.
- For each page, before mkdocs-macros renders it: the hand-typed-number lint,
  reported as file:line:col warnings, which `--strict` (build and serve alike)
  turns into a failed build; after it is rendered, no element id used twice,
  and the glossary's hover cards made keyboard-focusable.
- The glossary (site_build/glossary.toml) becomes the abbr extension's list of
  terms, so every page carries its hover cards (site_build/glossary.py).
- Reproducible: without SOURCE_DATE_EPOCH, the last commit's time stands for
  the build's (mkdocs dates the sitemap by it), so two builds of one commit match.
- A failed `mkdocs build` empties the site folder but for a BUILD-FAILED file
  that says what failed, so no stale site passes for a fresh one.
- Into the site, under assets/widgets/: the runtime, worker and CSS from
  static/, Pyodide's core files from the npm package `pyodide`, the Vega runtime
  from the npm package `vega` with `vega-interpreter` after it, and the wheel.
- A Content-Security-Policy in every page (a <meta>, so any static host
  enforces it) and in a `_headers` file for hosts that read one: scripts from
  the site and the theme's inline scripts by their sha256 only (see csp.py). Everything comes from this
  repository or its pinned npm packages, so the site requests nothing from
  another origin.
"""

import hashlib
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import jinja2
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
STATIC = Path(__file__).resolve().parent / "static"
NODE_MODULES = ROOT / "node_modules"
DEST = "assets/widgets"
# Pyodide's core: the loader, the compiled interpreter and the standard library.
# The lock file is read at start-up even though no package is loaded by name.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
VEGA_FILE = NODE_MODULES / "vega" / "build" / "vega.min.js"
# Vega's CSP-safe expression interpreter, an ES module; see vega_with_interpreter.
VEGA_INTERPRETER_FILE = NODE_MODULES / "vega-interpreter" / "build" / "vega-interpreter.js"
# The runtime names the wheel it loads; this placeholder in runtime.js is replaced.
WHEEL_PLACEHOLDER = "__WHEEL_URL__"
# ...and the size of each file the worker fetches while it boots, for its progress bar
# (pyodide.asm.mjs is imported, not fetched, so it is not counted).
SIZES_PLACEHOLDER = '"__DOWNLOAD_SIZES__"'
FETCHED_PYODIDE_FILES = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# The project's packages: forgotten before each build, watched by `mkdocs serve`.
PROJECT_PACKAGES = ("estimators", "figures", "macros", "pyodide_widgets", "site_build")

# Left in the site folder by a failed build, in place of the pages.
FAILED_MARKER = "BUILD-FAILED"

log = logging.getLogger("mkdocs.hooks.site_build")
_wheel: Path | None = None
_command: str | None = None  # "build", "gh-deploy" or "serve"
_site_dir: str | None = None
_script_hashes: set = set()  # every page's inline scripts, for the _headers policy


@event_priority(100)  # before mkdocs-macros imports the macros module in its own on_config
def on_config(config):
    """Import the project afresh, and refuse to start on bad presets."""
    global _site_dir
    _site_dir = config.site_dir
    _script_hashes.clear()
    # mkdocs puts only a hook's own folder on sys.path, and only while it loads the hook.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    for name in list(sys.modules):
        if name.split(".")[0] in PROJECT_PACKAGES:
            del sys.modules[name]
    from site_build import checks

    problem = checks.presets_problem()
    if problem:
        raise PluginError(problem)
    from site_build import glossary

    terms = glossary.load()
    if problems := glossary.findings(terms):
        raise PluginError("\n".join(problems))
    # The abbr extension cards every use of a term on every page, from the one data file.
    config.mdx_configs.setdefault("abbr", {})["glossary"] = glossary.abbreviations(terms)
    return config


def on_pre_build(config):
    global _wheel
    from site_build import checks
    from site_build.pack import build_wheel

    for finding in checks.widget_declaration_findings():
        log.warning(finding)
    _wheel = build_wheel()


@event_priority(50)  # before mkdocs-macros renders the page: the lint reads what the author typed
def on_page_markdown(markdown, page, config, files):
    from site_build import checks

    for finding in checks.page_findings(page.file.abs_src_path, page.file.src_path, markdown):
        log.warning(finding)
    return markdown


def on_post_page(output, page, config):
    from site_build import checks, csp, glossary

    for finding in checks.duplicate_ids(page.file.src_path, output):
        log.warning(finding)
    return csp.with_policy(glossary.focusable(output), _script_hashes)


def on_post_template(output_content, template_name, config):
    from site_build import csp

    return csp.with_policy(output_content, _script_hashes)  # 404.html; other templates have no <head>


def on_post_build(config):
    from site_build import csp, numbers

    site = Path(config.site_dir)
    for finding in numbers.one_text_findings(numbers.collected):
        log.warning(finding)
    numbers.write(numbers.collected, site)
    paths = [path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()]
    (site / "_headers").write_text(csp.headers_file(_script_hashes, paths), "utf-8")


def vega_with_interpreter() -> str:
    """vega.min.js, then vega-interpreter as a classic script on the `vega` global.

    vega-interpreter ships only as an ES module that imports three helpers of
    vega-util; vega.min.js carries vega-util whole on `window.vega`, so the
    import becomes a read of that global and the export a property of it.
    """
    module = Path(_require(VEGA_INTERPRETER_FILE)).read_text("utf-8")
    imports = re.search(r"^import \{([^}]*)\} from 'vega-util';$", module, re.M)
    export = re.search(r"^export \{ (\w+) as expressionInterpreter \};$", module, re.M)
    if not imports or not export:
        raise PluginError(f"{VEGA_INTERPRETER_FILE}: not the module layout this hook adapts; check the pinned vega-interpreter")
    body = module[imports.end():export.start()]
    script = f"(() => {{\nconst {{{imports.group(1)}}} = vega;\n{body}\nvega.expressionInterpreter = {export.group(1)};\n}})();\n"
    return Path(VEGA_FILE).read_text("utf-8") + "\n" + script


def _require(path: Path) -> str:
    if not path.is_file():
        raise PluginError(f"{path} is missing: run `npm ci` (the Makefile does it for you)")
    return str(path)


def on_files(files, config):
    wheel_bytes = _wheel.read_bytes()
    # The query string changes with the wheel's content, so a CDN never serves a stale one.
    wheel_url = f"{_wheel.name}?v={hashlib.sha256(wheel_bytes).hexdigest()[:12]}"
    for path in sorted(STATIC.iterdir()):
        if path.name == "runtime.js":
            sizes = {name: (NODE_MODULES / "pyodide" / name).stat().st_size for name in FETCHED_PYODIDE_FILES}
            sizes[_wheel.name] = len(wheel_bytes)
            content = path.read_text("utf-8").replace(WHEEL_PLACEHOLDER, wheel_url).replace(SIZES_PLACEHOLDER, json.dumps(sizes))
            files.append(File.generated(config, f"{DEST}/{path.name}", content=content))
        else:
            files.append(File.generated(config, f"{DEST}/{path.name}", abs_src_path=str(path)))
    for name in PYODIDE_FILES:
        files.append(File.generated(config, f"{DEST}/pyodide/{name}", abs_src_path=_require(NODE_MODULES / "pyodide" / name)))
    files.append(File.generated(config, f"{DEST}/vega.min.js", content=vega_with_interpreter()))
    files.append(File.generated(config, f"{DEST}/{_wheel.name}", content=wheel_bytes))
    return files


def on_env(env, config, files):
    """Keep the theme's compiled templates across builds (most of a rebuild is compiling them again).

    Jinja's bytecode cache stores each template under its name and a checksum
    of its source, so an edited template is compiled afresh, never stale.
    """
    folder = ROOT / "build" / "cache" / "jinja"
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
    return env


def on_serve(server, config, builder):
    for folder in PROJECT_PACKAGES:
        if (ROOT / folder).is_dir():
            server.watch(str(ROOT / folder))
    return server


# --- reproducible and honest builds --------------------------------------------------


def last_commit_time() -> str | None:
    """The last commit's time, seconds since the epoch, or None outside a git checkout."""
    try:
        done = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def on_startup(command, dirty):
    global _command
    _command = command
    if "SOURCE_DATE_EPOCH" not in os.environ and (epoch := last_commit_time()):
        os.environ["SOURCE_DATE_EPOCH"] = epoch


def on_build_error(error):
    # `mkdocs serve` keeps serving the last good pages; a built folder must not pass for one.
    if _command == "serve" or _site_dir is None or not os.path.isdir(_site_dir):
        return
    from mkdocs.utils import clean_directory

    clean_directory(_site_dir)
    Path(_site_dir, FAILED_MARKER).write_text(f"The build failed: {error}\n", "utf-8")
