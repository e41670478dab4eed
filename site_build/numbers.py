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
  of one kind of quantity is shown with two texts; and when one quantity of
  one subject (a model's checkpoint, a run's GPU-hours) is, however it was
  reached: from another table's entry for the same subject (a run's count and
  its model's), or in a widget's build-time outputs against the prose.

    python -m site_build.numbers check [site]   # the lock against a built site
    python -m site_build.numbers lock [site]    # write numbers.lock from it
"""

import dataclasses
import functools
import json
import re
import sys
import typing
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

from estimators import ESTIMATORS, load_presets
from estimators.provenance import quantity_of

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
    about: str = ""  # a widget output's quantity, preset and subjects: `gpu_hours@llama3-405b@h100-sxm,llama3-405b`

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

    def record_widget(self, call: str, html: str, widget=None, preset: str | None = None) -> None:
        """Each output of a widget the page shows (`call`: `widget("training_time")`), as the page
        shows it before any script runs; with its module and preset, what each output is of."""
        about = widget_subjects(widget, preset) if widget is not None else {}
        for key, text in widget_outputs(html).items():
            self.entries.append(Entry(self.page, self.line, f"{call}.{key}", "widget", None, text, about=about.get(key, "")))


# --- the manifest ---------------------------------------------------------------------


def write(entries: list, site: Path) -> Path:
    path = Path(site) / MANIFEST
    # Each entry's fields as they are (`dataclasses.asdict` deep-copies every one, for JSON that reads them once).
    rows = [vars(e) for e in sorted(entries, key=lambda e: (e.page, e.line))]
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


def widget_subjects(widget, preset: str | None) -> dict:
    """{output key: `quantity@preset@subjects`} for each output of `widget` whose `of` names what
    computes it, at `preset` (its first by default): the estimator's name or the result field, the
    preset, and the keys of the presets.toml entries its state was supplied from."""
    states = widget.presets()
    preset = preset or next(iter(states))
    supplied = states[preset]["supplied"].values()
    subjects = sorted({address.split(".", 1)[1] for s in supplied for address, _ in s.sources})
    about = {}
    for output in widget.OUTPUTS:
        name = _quantity_name(*output.of) if isinstance(output.of, tuple) else getattr(output.of, "__name__", "")
        if name and subjects:
            about[output.key] = f"{name}@{preset}@{','.join(subjects)}"
    return about


def _quantity_name(cls, field: str) -> str:
    """What a result field holds, by name: the estimator its declaration says computes it
    (`RunEstimate.gpu_hours` is `gpu_hours`), else `RunEstimate.gpu_hours` itself."""
    declared = quantity_of(cls, field)
    of = getattr(declared, "of", None)
    return of.__name__ if of is not None else f"{cls.__name__}.{field}"


# --- one quantity, one text ---------------------------------------------------------

# A number with its unit as units writes it, to find a figure inside a widget's line of text.
_FIGURE = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)\s?([%a-zA-Z/µ]+)?")
_QUOTED = re.compile(r'"([^"]+)"')
_ARGUMENT = re.compile(r"«[^»]+»(?:\.\w+|\[[^\]]+\])*")


@functools.cache
def _lookups() -> re.Pattern:
    """A preset lookup, `model("llama3-405b")` or `load_presets().gpus["h100-sxm"]`: what it names is
    the subject, whichever table holds it (a run and its model share a key)."""
    names = "|".join(map(re.escape, load_presets().lookups))
    return re.compile(rf'(?:load_presets\(\)\.\w+\[|\b(?:{names})\()"([^"]+)"[\])]')


@functools.cache
def _preset_keys() -> frozenset:
    presets = load_presets()
    return frozenset(key for name in presets.tables for key in getattr(presets, name))


def subject_of(derivation: str) -> str:
    """One quantity of one subject, as a key: the derivation with each preset lookup replaced by the
    key it names, so `checkpoint_bytes(run("x").params)` and `checkpoint_bytes(model("x").params)`
    meet. An input read bare (`example("round-7b").params`) has no such key: it prints the figure
    its own source gives (a seed's round 7B beside a configuration's count), and its card says whose."""
    keyed = _lookups().sub(lambda m: f"«{m.group(1)}»", derivation)
    return "" if _ARGUMENT.fullmatch(keyed) else keyed


def _widget_key(derivation: str) -> str:
    """The `quantity@subjects` a widget output of the same quantity carries (widget_subjects): an
    estimator called on preset fields alone (`checkpoint_bytes(model("x").params)`), or a field of
    an estimate of presets alone (`run_preset_estimate("x").gpu_hours`); "" for anything else."""
    keyed = subject_of(derivation)
    subjects = sorted(k for k in set(_QUOTED.findall(derivation)) if k in _preset_keys())
    called = re.fullmatch(r"(\w+)\((.*)\)(?:\.(\w+))?", keyed)
    if not subjects or not called:
        return ""
    name = called.group(1)
    if called.group(3):  # a field of what the estimator returns
        returned = typing.get_type_hints(ESTIMATORS[name]).get("return") if name in ESTIMATORS else None
        if not isinstance(returned, type):
            return ""
        name = _quantity_name(returned, called.group(3))
    arguments = [a.strip() for a in called.group(2).split(",")]
    if not all(_ARGUMENT.fullmatch(a) or (_QUOTED.fullmatch(a) and a.strip('"') in _preset_keys()) for a in arguments):
        return ""  # a literal or another estimate among them: a quantity no widget output names
    return f"{name}@{','.join(subjects)}"


def _figures(text: str) -> set:
    """The figures of a line of text with their units: {("5.68", "TB"), ...}."""
    return {(n, u or "") for n, u in _FIGURE.findall(text)}


def subject_findings(entries: list) -> list[str]:
    """Each quantity of one subject printed with two texts: across tables (a run's count and its
    model's), and between the prose and a widget's build-time outputs."""
    findings = []
    groups = defaultdict(list)
    for e in entries:
        if e.value is not None and subject_of(e.derivation):
            groups[(subject_of(e.derivation), e.kind)].append(e)
    for (subject, _), group in groups.items():
        texts = sorted({e.text for e in group})
        # One derivation two ways is the derivation check's finding already.
        if len(texts) > 1 and len({e.derivation for e in group}) > 1:
            shown = "; ".join(f"{e.where} {e.text!r} ({e.derivation})" for e in group)
            findings.append(f"one quantity of one subject printed {len(texts)} ways ({subject}): {shown}")
    prose = defaultdict(list)
    for e in entries:
        # A figure printed with more digits than its kind's, to set it apart from another, is no
        # text a widget would print.
        if e.value is not None and not e.kind.endswith(" set apart") and _widget_key(e.derivation):
            prose[_widget_key(e.derivation)].append(e)
    for w in (e for e in entries if e.about):
        name, preset, subjects = w.about.split("@")
        shown = _figures(w.text)
        for key, group in prose.items():
            pname, _, psubjects = key.partition("@")
            # The same quantity of the widget's own preset, from nothing its state was not supplied from.
            if pname != name or preset not in psubjects.split(",") or not set(psubjects.split(",")) <= set(subjects.split(",")):
                continue
            for e in group:
                figure = next(iter(_figures(e.text)), None)
                # The widget states this quantity in the prose's unit, but not the prose's figure.
                if figure and figure not in shown and any(u == figure[1] for _, u in shown):
                    findings.append(
                        f"one quantity of one subject printed 2 ways ({key}): {e.where} {e.text!r} ({e.derivation}); "
                        f"{w.where} {w.text!r} ({w.derivation})"
                    )
    return findings



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
    return sorted(set(findings) | set(subject_findings(entries)))


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

    @property
    def line(self) -> int:
        return int(self.where.partition(":")[2] or 0)


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


@dataclasses.dataclass(frozen=True)
class Change:
    """The texts one derivation of one page printed before and after: what left (`old`) and what
    came (`new`), each a multiset of texts; `lines` where it prints now (or last printed)."""

    page: str
    derivation: str
    lines: tuple
    old: Counter
    new: Counter

    @property
    def where(self) -> str:
        return f"{self.page}:{','.join(self.lines)}" if self.lines else self.page


def changes(before: list, after: list) -> list:
    """What moved from `before` to `after` (each rows with a page, a line, a derivation and a text:
    a lock's `Locked` rows or a build's `Entry`s), one `Change` per page and derivation.

    Numbers are matched by page and derivation, their texts compared as
    multisets: a number that only moved to another line is no change.
    """
    seen = {"before": defaultdict(Counter), "after": defaultdict(Counter)}
    lines = defaultdict(set)
    for side, rows in (("before", before), ("after", after)):
        for row in rows:
            seen[side][(row.page, row.derivation)][row.text] += 1
            lines[(row.page, row.derivation, side)].add(str(row.line) if row.line else "")
    moved = []
    for key in sorted(seen["before"].keys() | seen["after"].keys()):
        old, new = seen["before"][key] - seen["after"][key], seen["after"][key] - seen["before"][key]
        if old or new:
            at = sorted(filter(None, lines[(*key, "after")] or lines[(*key, "before")]), key=int)
            moved.append(Change(key[0], key[1], tuple(at), old, new))
    return moved


def diff(locked: list, entries: list) -> list[str]:
    """What moved between the lock and a build, one line per page and derivation:
    `training.md:44,120  run("llama3-405b").tokens: 15.6T ×2 -> 14T ×2`."""
    moved = []
    for c in changes(locked, entries):
        if c.old and c.new:
            moved.append(f"{c.where}  {c.derivation}: {texts(c.old)} -> {texts(c.new)}")
        elif c.new:
            moved.append(f"{c.where}  {c.derivation}: new {texts(c.new)}")
        else:
            moved.append(f"{c.where}  {c.derivation}: gone {texts(c.old)}")
    return moved


def texts(counts: Counter) -> str:
    """A multiset of texts as one line: `14T ×2, 15.6T`."""
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
