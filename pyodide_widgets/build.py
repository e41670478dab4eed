"""mkdocs hook: put the browser runtime into the site.

Before each build it packs the wheel Pyodide loads (estimators + widget
modules) with `pip wheel`; then it adds to the site, under assets/widgets/:
the runtime and worker scripts and CSS from static/, Pyodide's core files
from the npm package `pyodide`, the Vega runtime from the npm package `vega`,
and the wheel. Everything comes from this repository or its pinned npm
packages, so the built site requests nothing from another origin.
"""

import hashlib
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
STATIC = Path(__file__).resolve().parent / "static"
WHEEL_DIR = ROOT / "build" / "wheel"
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


def _forget_project_modules():
    """Drop our packages from sys.modules so the next build imports the edited code.

    `mkdocs serve` reloads its configuration, and with it this hook, before
    each rebuild; the macros plugin would otherwise reuse the modules it
    imported for the first build.
    """
    for name in list(sys.modules):
        if name.split(".")[0] in WATCHED:
            del sys.modules[name]


_forget_project_modules()


def build_wheel() -> Path:
    """Pack estimators + pyodide_widgets into a pure-Python wheel; return its path."""
    for old in WHEEL_DIR.glob("*.whl"):
        old.unlink()
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
               "--disable-pip-version-check", "--wheel-dir", str(WHEEL_DIR), str(ROOT)]
    done = subprocess.run(command, capture_output=True, text=True)
    wheels = list(WHEEL_DIR.glob("*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise PluginError(f"building the widget wheel failed:\n{done.stdout}{done.stderr}")
    return wheels[0]


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


def on_serve(server, config, builder):
    for folder in WATCHED:
        server.watch(str(ROOT / folder))
    return server
