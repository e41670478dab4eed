"""The build's content-addressed cache (build/cache/): an output is kept under a
hash of everything it is made from, so an unchanged input reuses it and a
changed one can never be served a stale copy.

What an output is made from is named by the caller: source folders (hashed
file by file, contents and paths), the versions of the libraries that shape
it, and its own arguments. Standard library only; build-time code only.
"""

import functools
import hashlib
import json
import marshal
import os
import sys
import tempfile
import types
from collections.abc import Callable, Iterable
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "cache"


def _files(path: Path) -> list[Path]:
    return [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def tree_hash(paths: Iterable[Path]) -> str:
    """SHA-256 over the files `paths` name and every file under the folders they name (paths and contents), bytecode caches aside."""
    return _tree_hash(tuple(sorted({str(path) for path in paths})))


# Once per build: every rendered widget names the same source trees and libraries, and the hook forgets
# this module before each build (site_build.project), so an edit between two builds is always seen.
@functools.cache
def _tree_hash(paths: tuple) -> str:
    files = sorted({file for path in paths for file in _files(Path(path))})
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def versions(*distributions: str) -> dict[str, str]:
    """The installed version of each distribution, for a key: an upgrade changes what it renders."""
    return dict(_versions(distributions))


@functools.cache
def _versions(distributions: tuple) -> tuple:
    return tuple((name, version(name)) for name in distributions)


def _write_atomically(path: Path, content: str | bytes):
    """Write via a rename, so a concurrent build never reads half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=".")
    with os.fdopen(handle, "wb") if isinstance(content, bytes) else os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(content)
    os.replace(scratch, path)


def key_path(kind: str, inputs: object) -> Path:
    """Where `cached` keeps what the same `inputs` (any JSON) made."""
    return CACHE / kind / hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


def cached(kind: str, inputs: object, make: Callable[[], str]) -> str:
    """`make()`'s text, from build/cache/<kind>/ when the same `inputs` (any JSON) made it before.

    A failing `make` raises as it would uncached, and nothing is kept.
    """
    path = key_path(kind, inputs)
    if path.is_file():
        return path.read_text("utf-8")
    text = make()
    _write_atomically(path, text)
    return text


def holds_any(kind: str) -> bool:
    """Whether build/cache/<kind>/ holds an output `cached` made (a build's first holds none)."""
    folder = CACHE / kind
    return folder.is_dir() and any(not path.name.startswith(".") for path in folder.iterdir())


def compiled(source: str, filename: str) -> types.CodeType:
    """`compile(source, filename, "exec")`, its code object kept in build/cache/code/: compiling a
    long page's Python is much of what an unchanged page costs a rebuild. marshal's format is this
    Python's own, so its version is part of the key."""
    key = hashlib.sha256(json.dumps([source, filename, sys.version, sys.flags.optimize]).encode()).hexdigest()
    path = CACHE / "code" / key
    if path.is_file():
        return marshal.loads(path.read_bytes())
    code = compile(source, filename, "exec")
    _write_atomically(path, marshal.dumps(code))
    return code


def kept(kind: str, text: str, suffix: str = "") -> str:
    """Keep `text` under build/cache/<kind>/ by its own hash; the file's name, which `kept_path` finds again."""
    name = hashlib.sha256(text.encode()).hexdigest()[:20] + suffix
    path = CACHE / kind / name
    if not path.is_file():
        _write_atomically(path, text)
    return name


def kept_path(kind: str, name: str) -> Path:
    """Where `kept` put the text it named `name`."""
    return CACHE / kind / name
