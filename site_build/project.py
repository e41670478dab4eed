"""The repository's own packages, found in the tree: every top-level folder
holding an `__init__.py`, so a new package needs listing nowhere.

`mkdocs serve` runs every rebuild in one process, where an imported module
would otherwise keep the code it was imported with; the hook forgets these
packages' modules before a build when a file of theirs changed since the last
(`stamp`), and watches the folders of those a build imported (the tests, the
harness and the benchmark are not among them). An edit to a page alone keeps
them: importing them again is a quarter of a second of every rebuild.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
# Folders of a package that hold no file of its own: Python's bytecode, the benchmark's npm packages.
_NOT_OURS = {"__pycache__", "node_modules"}


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


def stamp(config_file: Path) -> frozenset:
    """The path, modification time and size of every file of the packages, of pyproject.toml and of
    `config_file`: what the modules and the caches they keep for a build (their hashes of these
    files) are made of. Equal stamps, the same files."""
    files = [PYPROJECT, Path(config_file)]
    for package in packages():
        for folder, folders, names in os.walk(ROOT / package):
            folders[:] = [name for name in folders if name not in _NOT_OURS]
            files += [Path(folder, name) for name in names]
    return frozenset((str(path), (info := path.stat()).st_mtime_ns, info.st_size) for path in files if path.is_file())
