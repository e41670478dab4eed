"""The package imports and computes with nothing but the standard library (as in Pyodide)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = f"""
import json, sys
sys.path[:] = [p for p in sys.path if 'site-packages' not in p and 'dist-packages' not in p]
sys.path.insert(0, {str(ROOT)!r})
import estimators
from estimators import units
p = estimators.load_presets()
run = p.run("llama3-405b")
c = estimators.training_flops(run.params, run.tokens)
text = units.sci(c)
third_party = sorted(m for m in ("numpy", "pandas", "altair", "yaml", "jinja2", "hypothesis", "pytest")
                     if m in sys.modules)
paths = [p for p in sys.path if "site-packages" in p]
print(json.dumps({{"text": text, "third_party": third_party, "site_packages": paths}}))
"""


def test_imports_and_computes_with_only_the_standard_library():
    # -I: isolated (no user site, no PYTHON* variables, no cwd on the path); -S: no site module,
    # so no site-packages at all; the program also strips any that remain.
    result = subprocess.run([sys.executable, "-I", "-S", "-c", PROGRAM], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == {"text": "3.8e25", "third_party": [], "site_packages": []}


def test_every_module_imports_only_the_standard_library_and_itself():
    # Read each module's imports: anything not relative must be in the standard library.
    import ast

    for path in (ROOT / "estimators").glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in sys.stdlib_module_names, f"{path.name} imports {name}"
