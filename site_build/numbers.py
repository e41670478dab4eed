"""The numbers manifest, its reviewed lock, and the one-text check.

Every number a page prints goes through a units filter; the filter (macros)
records one `Entry` here: the page and its Markdown line, the expression the
author wrote, the derivation it stands for (`derivation.Origin.expression`),
its published inputs, the raw value and the text shown. Each widget a page
shows adds its outputs at their build-time state, as text.

- The build writes the whole manifest to `numbers.json` in the site folder.
- `numbers.lock`, committed, holds the last reviewed texts. The test suite
  compares the build's manifest with it and prints what moved, page:line,
  derivation, old text -> new text. `make lock` (this module's `lock`
  command) accepts the build's numbers after review.
- One quantity, one text: the build fails when one derivation, or one value,
  of one kind of quantity is shown with two texts.

    python -m site_build.numbers check [site]   # the lock against a built site
    python -m site_build.numbers lock [site]    # write numbers.lock from it
"""

import dataclasses
import json
import re
import sys
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "numbers.json"
LOCK = ROOT / "numbers.lock"
collected: list = []  # this build's entries, appended by the units filters (macros)
LOCK_HEADER = (
    "# The numbers the site prints, as last reviewed: page:line, text, derivation.\n"
    "# Written by `make lock` from a build; the tests fail when a build prints other texts.\n"
)

# What kind of quantity each filter prints, for the one-text check: the same value
# of the same kind must read the same, whichever filter printed it. An exact
# count (`integer`: 405,853,388,800) is a kind of its own beside its rounded
# figure (406B), as a binary unit is beside a decimal one (see `kind`).
KINDS = {
    "bytes": "bytes",
    "count": "number",
    "sci": "number",
    "plain": "number",
    "number": "number",
    "integer": "exact number",
    "duration": "seconds",
    "percent": "fraction",
    "times": "ratio",
}


@dataclasses.dataclass(frozen=True)
class Entry:
    page: str  # the Markdown file, relative to docs/
    line: int  # its line, 0 when unknown
    written: str  # the expression as the author wrote it
    derivation: str  # what it stands for, presets named by key
    kind: str  # what the filter prints: bytes, seconds, number, FLOP/s...; "widget" for a widget's output
    value: float | None  # None for a widget's output, which is text from the start
    text: str
    inputs: tuple = ()  # its published inputs, one text each: `run("llama3-405b").params = 405B (source: …)`

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}" if self.line else self.page


def kind(filter_name: str, args: tuple, kwargs: dict) -> str:
    """The kind of quantity a filter call prints: `si(x, "B")` is bytes like `bytes(x)`.

    Binary bytes are a kind of their own: the units policy prints GiB only where
    a text names them (a GPU's memory), beside the decimal figure it explains.
    """
    if filter_name == "si" and args:
        return "bytes" if args[0] == "B" else str(args[0])
    if filter_name == "bytes" and kwargs.get("binary"):
        return "binary bytes"
    return KINDS.get(filter_name, filter_name)


# --- where a page prints a number ---------------------------------------------------


class _Page:
    """The page being rendered (set by the macros before each page)."""

    path = ""  # relative to docs/
    lines: list = []  # the template's lines: the Markdown without its front matter
    offset = 0  # lines of front matter before them
    printed: dict = {}  # (line, filter, candidate expressions) -> numbers printed from them so far


def start_page(path: str, template: str, front_matter_lines: int) -> None:
    _Page.path, _Page.lines, _Page.offset, _Page.printed = path, template.splitlines(), front_matter_lines, {}


def template_line() -> int:
    """The line of the page's template being rendered (0 when the call comes from elsewhere)."""
    frame = sys._getframe(1)
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None:
            return template.get_corresponding_lineno(frame.f_lineno)
        frame = frame.f_back
    return 0


# `{{ ... }}` on a line, to name what the author wrote for each number it prints.
_PRINT = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")


def _printed_on(line: int) -> list:
    """The `{{ }}` expressions of a template line."""
    text = _Page.lines[line - 1] if 0 < line <= len(_Page.lines) else ""
    return [m.group(1) for m in _PRINT.finditer(text)]


def written(line: int, filter_name: str, arguments: str, computed: str) -> str:
    """The `{{ }}` expression the author wrote for a number printed from `line` with this filter.

    Jinja knows lines, not columns. Of the line's uses of the filter: those with
    the same arguments, then those ending in the same attribute as the
    computation (`computed`, the derivation); if several remain (a loop, a
    table row), the n-th printed.
    """
    def same(text: str) -> str:
        return text.replace(" ", "").replace("'", '"').lower()

    uses = []
    for expression in _printed_on(line):
        call = re.search(rf"\|\s*{filter_name}\b(?:\(([^)]*)\))?\s*(\||$)", expression)
        if call and same(call.group(1) or "") == same(arguments):
            uses.append(expression)
    last = re.search(r"\.(\w+)\)*$", computed)
    uses = [u for u in uses if last and re.search(rf"\.{last.group(1)}\)*\s*\|", u)] or uses
    if not uses:
        return ""
    key = (line, filter_name, tuple(uses))
    seen = _Page.printed.get(key, 0)
    _Page.printed[key] = seen + 1
    return uses[seen % len(uses)]


def record(filter_name: str, arguments: str, kind: str, derivation: str, value: float, text: str, inputs: tuple) -> None:
    """One number a filter printed, where the page printed it."""
    line = template_line()
    where = line + _Page.offset if line else 0
    collected.append(Entry(_Page.path, where, written(line, filter_name, arguments, derivation), derivation, kind, value, text, inputs))


def record_widget(arguments: str, html: str) -> None:
    """Each output of a widget the page shows, as the page shows it before any script runs."""
    line = template_line()
    call = next((e for e in _printed_on(line) if e.startswith("widget(")), "")
    for key, text in widget_outputs(html).items():
        collected.append(Entry(_Page.path, line + _Page.offset if line else 0, call, f"widget({arguments}).{key}", "widget", None, text))


# --- the manifest ---------------------------------------------------------------------


def write(entries: list, site: Path) -> Path:
    path = Path(site) / MANIFEST
    rows = [dataclasses.asdict(e) for e in sorted(entries, key=lambda e: (e.page, e.line))]
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return path


def read(site: Path) -> list:
    rows = json.loads((Path(site) / MANIFEST).read_text("utf-8"))
    return [Entry(**{**row, "inputs": tuple(row["inputs"])}) for row in rows]


class _Outputs(HTMLParser):
    """The text of each `[data-output]` element of a widget's HTML."""

    def __init__(self):
        super().__init__()
        self.found, self._open = {}, []

    def handle_starttag(self, tag, attrs):
        key = dict(attrs).get("data-output")
        self._open.append(key)
        if key is not None:
            self.found[key] = ""

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for key in self._open:
            if key is not None:
                self.found[key] += data


def widget_outputs(html: str) -> dict:
    """{output key: the text the page shows before any script runs}."""
    parser = _Outputs()
    parser.feed(html)
    return {key: " ".join(text.split()) for key, text in parser.found.items()}


# --- one quantity, one text ---------------------------------------------------------


def _same_value(value: float) -> str:
    """A key equal for two computations of one value, whatever their floating-point noise."""
    return f"{value:.12g}"


def one_text_findings(entries: list) -> list[str]:
    """Each derivation, and each value of each kind, shown with more than one text."""
    findings = []
    for label, key in (("derivation", lambda e: (e.derivation, e.kind)), ("value", lambda e: (e.kind, _same_value(e.value)))):
        groups = defaultdict(list)
        for e in entries:
            if label == "derivation" or e.value is not None:
                groups[key(e)].append(e)
        for group in groups.values():
            texts = sorted({e.text for e in group})
            if len(texts) > 1:
                shown = "; ".join(f"{e.where} {e.text!r} ({e.written})" for e in group if e.text in texts)
                what = group[0].derivation if label == "derivation" else f"{group[0].kind} {group[0].value:g}"
                findings.append(f"one quantity printed {len(texts)} ways ({what}): {shown}")
    return sorted(set(findings))


# --- the lock ------------------------------------------------------------------------


def lock_text(entries: list) -> str:
    rows = sorted(entries, key=lambda e: (e.page, e.line, e.derivation))
    return LOCK_HEADER + "".join(f"{e.where}\t{e.text}\t{e.derivation}\n" for e in rows)


@dataclasses.dataclass(frozen=True)
class Locked:
    where: str
    text: str
    derivation: str

    @property
    def page(self) -> str:
        return self.where.split(":")[0]


def read_lock(text: str) -> list:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{LOCK.name}:{number}: expected page:line, text and derivation separated by tabs")
        rows.append(Locked(*parts))
    return rows


def diff(locked: list, entries: list) -> list[str]:
    """What moved between the lock and a build, one line per page and derivation:
    `training.md:44,120  run("llama3-405b").tokens: 15.6T ×2 -> 14T ×2`.

    Numbers are matched by page and derivation, their texts compared as
    multisets: a number that only moved to another line is no change.
    """
    before, after = defaultdict(Counter), defaultdict(Counter)
    lines = defaultdict(set)
    for row in locked:
        before[(row.page, row.derivation)][row.text] += 1
        lines[(row.page, row.derivation, "before")].add(row.where.partition(":")[2])
    for e in entries:
        after[(e.page, e.derivation)][e.text] += 1
        lines[(e.page, e.derivation, "after")].add(str(e.line) if e.line else "")
    moved = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before[key] - after[key], after[key] - before[key]
        if not old and not new:
            continue
        at = sorted(filter(None, lines[(*key, "after")] or lines[(*key, "before")]), key=int)
        where = f"{key[0]}:{','.join(at)}" if at else key[0]
        if old and new:
            moved.append(f"{where}  {key[1]}: {_texts(old)} -> {_texts(new)}")
        elif new:
            moved.append(f"{where}  {key[1]}: new {_texts(new)}")
        else:
            moved.append(f"{where}  {key[1]}: gone {_texts(old)}")
    return moved


def _texts(counts: Counter) -> str:
    return ", ".join(text + (f" ×{n}" if n > 1 else "") for text, n in sorted(counts.items()))


def check(site: Path, lock: Path = LOCK) -> list[str]:
    """The diff between the lock and the build in `site` (empty when they agree)."""
    locked = read_lock(lock.read_text("utf-8")) if lock.is_file() else []
    return diff(locked, read(site))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in ("check", "lock") or len(args) > 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    site = Path(args[1] if len(args) > 1 else ROOT / "site")
    if not (site / MANIFEST).is_file():
        print(f"{site / MANIFEST} is missing: build the site first (make build)", file=sys.stderr)
        return 2
    if args[0] == "lock":
        LOCK.write_text(lock_text(read(site)), "utf-8")
        print(f"wrote {LOCK.relative_to(ROOT)}: {len(read(site))} numbers")
        return 0
    moved = check(site)
    for line in moved:
        print(line)
    if moved:
        print(f"{len(moved)} derivations print other texts than {LOCK.name} holds; after review, accept them with `make lock`", file=sys.stderr)
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
