"""The one loader of the TOML data files that estimators, widgets and the build read.

`load(package, filename, build)` reads a file shipped in a package (through
importlib.resources, so it works in the wheel under Pyodide as in a checkout),
parses it and returns `build(data)`. An EstimatorError that `build` raises
about a dotted key of the file ("steps.collect.rung", "terms[3].short" for the
fourth [[terms]] table) comes back as one line naming the file, the line and
the key, as the build prints it:

    pyodide_widgets/ten_steps.toml:31: steps.collect.rung = 'rack-x' is not allowed: one of gpu, server, ...

A file that is not TOML is named the same way, at the line the parser stopped.
"""

import re
import tomllib
from importlib import resources

from .errors import EstimatorError

# How a key names the n-th table of an array of tables: "terms[3]".
_INDEXED = re.compile(r"(.+)\[(\d+)\]$")
# Where tomllib's message says it stopped: "... (at line 3, column 7)".
_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)$")


def load(package: str, filename: str, build):
    """build(the TOML file `filename` of `package`), its errors naming "package/filename:line"."""
    text = resources.files(package).joinpath(*filename.split("/")).read_text("utf-8")
    return parse(text, f"{package.replace('.', '/')}/{filename}", build)


def parse(text: str, file: str, build):
    """build(the TOML `text`), its errors naming `file` and a line (for a file not in a package, or a copy)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        at = _AT_LINE.search(str(error))
        where = f"{file}:{at[1]}" if at else file
        raise EstimatorError(f"{where}: the text", text.splitlines()[int(at[1]) - 1].strip() if at else "",
                             f"TOML: {_AT_LINE.sub('', str(error))}") from None
    try:
        return build(data)
    except EstimatorError as error:
        found = line(text, error.argument)
        raise EstimatorError(f"{file}:{found}: {error.argument}" if found else f"{file}: {error.argument}",
                             error.value, error.allowed) from None


def _header(lines: list, parts: list) -> int | None:
    """The index of the header line of table `parts` ("[a.b]", or the n-th "[[a]]" for "a[n]")."""
    indexed = _INDEXED.match(parts[-1])
    names = [*parts[:-1], indexed[1] if indexed else parts[-1]]
    dotted = r"\s*\.\s*".join(rf'"?{re.escape(name)}"?' for name in names)
    opening, closing = (r"\[\[", r"\]\]") if indexed else (r"\[", r"\]")
    header = re.compile(rf"\s*{opening}\s*{dotted}\s*{closing}\s*(#.*)?$")
    starts = [n for n, text in enumerate(lines) if header.match(text)]
    nth = int(indexed[2]) if indexed else 0
    return starts[nth] if nth < len(starts) else None


def line(text: str, key: str) -> int | None:
    """The line of `text` that the dotted `key` ("gpus.h100-sxm.memory_bytes") points at, if it can be found.

    The key's own line inside its table; the table's header line when the key is
    missing; None when the table itself is not there (no line rather than a wrong one).
    """
    parts = key.split(".")
    lines = text.splitlines()
    for depth in range(len(parts), -1, -1):
        # Depth 0 is the root table: the lines before the first header.
        start = _header(lines, parts[:depth]) if depth else -1
        if start is None:
            continue
        if depth < len(parts):
            field = re.compile(rf'\s*"?{re.escape(parts[depth])}"?\s*=')
            for n in range(start + 1, len(lines)):
                if lines[n].lstrip().startswith("["):
                    break
                if field.match(lines[n]):
                    return n + 1
        return start + 1 if depth else None
    return None


def texts(value, key: str = ""):
    """`value` (at dotted `key`; the whole file by default), if it holds only texts: a text, or a table
    or list of them in turn, as a data file of prose does. Anything else raises, naming its key."""
    if isinstance(value, dict):
        for name, inner in value.items():
            texts(inner, f"{key}.{name}" if key else name)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict):
                texts(item, f"{key}[{i}]")
            elif not isinstance(item, str):
                raise EstimatorError(key, value, "a list of texts")
    elif not isinstance(value, str):
        raise EstimatorError(key, value, "a text (in quotes) or a list of texts")
    return value
