"""Pack the wheel that Pyodide loads in the browser: estimators + widget modules.

Used by the mkdocs hook (hook.py), the parity tests and the benchmark.

The wheel is made in-process by hatchling, the build backend pyproject.toml
names (the same files, byte for byte, as `pip wheel`, without pip's ~1.5 s
subprocess), and only when its sources changed: it is kept under a hash of
pyproject.toml and every file of the packages it holds, so an edit to any of
them makes a new one and an unchanged tree reuses the last.
"""

import hashlib
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

from hatchling.builders.wheel import WheelBuilder
from mkdocs.exceptions import PluginError

from site_build.cache import tree_hash, versions
from site_build.project import PYPROJECT

ROOT = Path(__file__).resolve().parent.parent
WHEEL_DIR = ROOT / "build" / "wheel"


def sources_hash() -> str:
    """A hash of pyproject.toml and every file under the wheel's packages: what the wheel is made of."""
    config = tomllib.loads(PYPROJECT.read_text("utf-8"))
    packages = config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    inputs = tree_hash([PYPROJECT, *(ROOT / package for package in packages)]) + str(versions("hatchling"))
    return hashlib.sha256(inputs.encode()).hexdigest()[:16]


def build_wheel() -> Path:
    """The wheel of the current sources, made now only if no wheel of these exact sources was kept."""
    folder = WHEEL_DIR / sources_hash()
    wheels = list(folder.glob("*.whl"))
    if len(wheels) == 1:
        return wheels[0]
    WHEEL_DIR.mkdir(parents=True, exist_ok=True)
    # Built aside and renamed into place, so a concurrent build never sees half a wheel.
    scratch = Path(tempfile.mkdtemp(dir=WHEEL_DIR, prefix=".building-"))
    try:
        [wheel] = WheelBuilder(str(ROOT)).build(directory=str(scratch), versions=["standard"])
    except Exception as error:
        shutil.rmtree(scratch, ignore_errors=True)
        raise PluginError(f"building the widget wheel failed: {error}") from error
    for old in WHEEL_DIR.iterdir():  # earlier sources' wheels; dot-names are builds under way
        if not old.name.startswith("."):
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    try:
        os.replace(scratch, folder)
    except OSError:
        # Another build of the same sources put its wheel there first: the same bytes.
        shutil.rmtree(scratch, ignore_errors=True)
    return folder / Path(wheel).name
