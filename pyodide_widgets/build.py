"""mkdocs hook: put the browser runtime into the site.

Before each build it packs the wheel Pyodide loads (`pack.build_wheel`);
then it adds to the site, under assets/widgets/:
the runtime and worker scripts and CSS from static/, Pyodide's core files
from the npm package `pyodide`, the Vega runtime from the npm package `vega`,
and the wheel. Everything comes from this repository or its pinned npm
packages, so the built site requests nothing from another origin.
"""

import hashlib
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
# The runtime names the wheel it loads; this placeholder in runtime.js is replaced.
WHEEL_PLACEHOLDER = "__WHEEL_URL__"
# Folders whose edits should rebuild the site under `mkdocs serve`.
WATCHED = ("estimators", "figures", "macros", "pyodide_widgets")

_wheel: Path | None = None


# mkdocs puts only this file's folder on sys.path while it loads a hook.
sys.path.insert(0, str(ROOT))
from pyodide_widgets.pack import build_wheel  # noqa: E402


@event_priority(100)  # before mkdocs-macros imports the macros module in its own on_config
def on_config(config):
    """Drop our packages from sys.modules so each build imports the code as it is now.

    `mkdocs serve` rebuilds in the same process, and the macros plugin would
    otherwise reuse the estimators it imported for the first build.
    """
    for name in list(sys.modules):
        if name.split(".")[0] in WATCHED:
            del sys.modules[name]
    return config


def _require(path: Path) -> str:
    if not path.is_file():
        raise PluginError(f"{path} is missing: run `npm ci` (the Makefile does it for you)")
    return str(path)


def on_pre_build(config):
    global _wheel
    _wheel = build_wheel()


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
    for folder in WATCHED:
        server.watch(str(ROOT / folder))
    return server
