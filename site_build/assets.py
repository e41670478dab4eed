"""What the hook adds to the site besides the pages (its on_files), each at the URL the pages load it from.

- The site's own scripts and styles, all in `browser/`. A file that mkdocs.yml
  names in `extra_css` or `extra_javascript` is served at that URL; any other
  (the worker) beside `runtime.js`, which loads it from its own folder. Into
  `runtime.js` go the wheel's URL and the size of each file the worker fetches.
- Under `assets/widgets/`: Pyodide's core files from the npm package `pyodide`,
  the Vega runtime from the npm package `vega` with `vega-interpreter` after it,
  and the wheel; under `assets/widgets/charts/`, the Vega spec of each chart a
  page names (`data-chart-spec`), from the build cache.

Everything comes from this repository or its pinned npm packages, so the site
requests nothing from another origin.
"""

import hashlib
import json
import re
import shutil
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from site_build.cache import kept_path
from site_build.render import CHART_SPECS

ROOT = Path(__file__).resolve().parent.parent
BROWSER = Path(__file__).resolve().parent / "browser"
NODE_MODULES = ROOT / "node_modules"
WIDGETS = "assets/widgets"
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


def site_files(config, wheel: Path) -> list[File]:
    """Every file above, for mkdocs to write into the site."""
    wheel_bytes = wheel.read_bytes()
    files = []
    for name, url in browser_urls(config).items():
        if name == "runtime.js":
            files.append(File.generated(config, url, content=runtime_script(wheel.name, wheel_bytes)))
        else:
            files.append(File.generated(config, url, abs_src_path=str(BROWSER / name)))
    for name in PYODIDE_FILES:
        files.append(File.generated(config, f"{WIDGETS}/pyodide/{name}", abs_src_path=_require(NODE_MODULES / "pyodide" / name)))
    files.append(File.generated(config, f"{WIDGETS}/vega.min.js", content=vega_with_interpreter()))
    files.append(File.generated(config, f"{WIDGETS}/{wheel.name}", content=wheel_bytes))
    return files


_CHART_SPEC = re.compile(r'data-chart-spec="([0-9a-f]+\.json)"')


def write_chart_specs(html: str, site_dir: str) -> None:
    """Each chart spec the page names, into the site beside the runtime that fetches it."""
    for name in set(_CHART_SPEC.findall(html)):
        source = kept_path(CHART_SPECS, name)
        if not source.is_file():
            raise PluginError(f"{name}: a chart's spec is missing from the build cache; build again with --clean")
        target = Path(site_dir) / WIDGETS / "charts" / name
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def browser_urls(config) -> dict[str, str]:
    """{file name in browser/: its URL in the site}: the one mkdocs.yml gives it, else under assets/widgets/."""
    named = {PurePosixPath(str(url)).name: str(url) for url in (*config.extra_css, *config.extra_javascript)}
    return {path.name: named.get(path.name, f"{WIDGETS}/{path.name}") for path in sorted(BROWSER.iterdir())}


def runtime_script(wheel_name: str, wheel_bytes: bytes) -> str:
    """runtime.js with the wheel's URL and the download sizes written in."""
    # The query string changes with the wheel's content, so a CDN never serves a stale one.
    wheel_url = f"{wheel_name}?v={hashlib.sha256(wheel_bytes).hexdigest()[:12]}"
    sizes = {name: (NODE_MODULES / "pyodide" / name).stat().st_size for name in FETCHED_PYODIDE_FILES}
    sizes[wheel_name] = len(wheel_bytes)
    script = (BROWSER / "runtime.js").read_text("utf-8")
    return script.replace(WHEEL_PLACEHOLDER, wheel_url).replace(SIZES_PLACEHOLDER, json.dumps(sizes))


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
