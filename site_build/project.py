"""The repository's own packages, found in the tree: every top-level folder
holding an `__init__.py`, so a new package needs listing nowhere.

`mkdocs serve` runs every rebuild in one process, where an imported module
would otherwise keep the code it was imported with; the hook forgets these
packages' modules before each build and watches the folders of those a build
imported (the tests, the harness and the benchmark are not among them).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def packages() -> list[str]:
    """The names of the repository's top-level packages."""
    return sorted(init.parent.name for init in ROOT.glob("*/__init__.py"))


def forget_modules():
    """Drop every imported module of the project's packages, so the next import reads the code as it is now."""
    ours = set(packages())
    for name in list(sys.modules):
        if name.split(".")[0] in ours:
            del sys.modules[name]


def imported_folders() -> list[Path]:
    """The folders of the project's packages this process has imported: after a build, what the site is made from."""
    imported = {name.split(".")[0] for name in sys.modules}
    return [ROOT / name for name in packages() if name in imported]
