"""Pack the wheel that Pyodide loads in the browser: estimators + widget modules.

Used by the mkdocs hook (hook.py), the parity tests and the benchmark.
"""

import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
WHEEL_DIR = ROOT / "build" / "wheel"


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
