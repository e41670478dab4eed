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
- Into the site, under assets/widgets/: the runtime, worker and CSS from
  static/, Pyodide's core files from the npm package `pyodide`, the Vega runtime
  from the npm package `vega`, and the wheel. Everything comes from this
  repository or its pinned npm packages, so the site requests nothing from
  another origin.
"""

import hashlib
import logging
import sys
from pathlib import Path

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
# The runtime names the wheel it loads; this placeholder in runtime.js is replaced.
WHEEL_PLACEHOLDER = "__WHEEL_URL__"
# The project's packages: forgotten before each build, watched by `mkdocs serve`.
PROJECT_PACKAGES = ("estimators", "figures", "macros", "pyodide_widgets", "site_build", "tools")

log = logging.getLogger("mkdocs.hooks.site_build")
_wheel: Path | None = None


@event_priority(100)  # before mkdocs-macros imports the macros module in its own on_config
def on_config(config):
    """Import the project afresh, and refuse to start on bad presets."""
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
    from site_build import checks, glossary

    for finding in checks.duplicate_ids(page.file.src_path, output):
        log.warning(finding)
    return glossary.focusable(output)


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
            content = path.read_text("utf-8").replace(WHEEL_PLACEHOLDER, wheel_url)
            files.append(File.generated(config, f"{DEST}/{path.name}", content=content))
        else:
            files.append(File.generated(config, f"{DEST}/{path.name}", abs_src_path=str(path)))
    for name in PYODIDE_FILES:
        files.append(File.generated(config, f"{DEST}/pyodide/{name}", abs_src_path=_require(NODE_MODULES / "pyodide" / name)))
    files.append(File.generated(config, f"{DEST}/vega.min.js", abs_src_path=_require(VEGA_FILE)))
    files.append(File.generated(config, f"{DEST}/{_wheel.name}", content=wheel_bytes))
    return files


def on_serve(server, config, builder):
    for folder in PROJECT_PACKAGES:
        if (ROOT / folder).is_dir():
            server.watch(str(ROOT / folder))
    return server
