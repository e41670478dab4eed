"""The numbers manifest, its reviewed lock, and the one-text check.

Every number a page prints goes through a units filter; the filter (macros)
records one `Entry` in the build's `Manifest`: the page and its Markdown line,
the derivation it stands for (`derivation.Origin.expression`), its published
inputs, the raw value and the text shown. Each widget a page shows adds its
outputs at their build-time state, as text.

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
import sys
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "numbers.json"
LOCK = ROOT / "numbers.lock"
LOCK_HEADER = (
    "# The numbers the site prints, as last reviewed: page:line, text, derivation.\n"
    "# Written by `make lock` from a build; the tests fail when a build prints other texts.\n"
)


@dataclasses.dataclass(frozen=True)
class Entry:
    page: str  # the Markdown file, relative to docs/
    line: int  # the line of the `{{ }}` or `{% %}` that printed it, 0 when unknown
    derivation: str  # what it stands for, presets named by key
    kind: str  # the kind of quantity (units.kind_of): bytes, seconds, number, FLOP/s...; "widget" for a widget's output
    value: float | None  # None for a widget's output, which is text from the start
    text: str
    inputs: tuple = ()  # its published inputs, one text each: `run("llama3-405b").params = 405B (source: …)`

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}" if self.line else self.page


@dataclasses.dataclass
class Manifest:
    """What one build printed, and where on its page the rendering has got to.

    The macros hold one per build: they start each page, the page's line
    markers (`at`) say which Markdown line is being rendered, and the filters
    and widgets record what they print.
    """

    entries: list = dataclasses.field(default_factory=list)
    page: str = ""  # relative to docs/
    offset: int = 0  # lines of front matter above the template's first line
    line: int = 0  # the Markdown line being rendered, 0 outside a page

    def start_page(self, path: str, front_matter_lines: int) -> None:
        self.page, self.offset, self.line = path, front_matter_lines, 0

    def at(self, template_line: int) -> str:
        """A line marker: the template's line `template_line` starts rendering (prints nothing)."""
        self.line = template_line + self.offset
        return ""

    def record(self, kind: str, derivation: str, value: float, text: str, inputs: tuple) -> None:
        """One number a filter printed, where the page printed it."""
        self.entries.append(Entry(self.page, self.line, derivation, kind, value, text, inputs))

    def record_widget(self, call: str, html: str) -> None:
        """Each output of a widget the page shows (`call`: `widget("training_time")`), as the page
        shows it before any script runs."""
        for key, text in widget_outputs(html).items():
            self.entries.append(Entry(self.page, self.line, f"{call}.{key}", "widget", None, text))


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
                shown = "; ".join(f"{e.where} {e.text!r} ({e.derivation})" for e in group if e.text in texts)
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
