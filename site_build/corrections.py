"""The "What changed" page's body: the site's corrections log, from `history.lock_history()`.

A changelog, as a reference work keeps one: one heading per commit of the main line that moved a
printed number, newest first, its date; a sentence on what moved, derived from the numbers
themselves; the commits' own reasons where they are written in a reader's words (`readable`); the
commit a small note. Each number is named by what it is (a calculator's output label, a field's
declared note) and whose (the named models, GPUs and runs it reads), under its page and section,
linked there, before and after; a long run of moves, and the numbers added and gone, stand under a
disclosure. The lock's first commit is counted, not listed. Above them, how far back the
checkout's history reaches. Everything from git is element text, escaped: a commit message
is never read as Markdown or HTML.
"""

import dataclasses
import functools
import html
import posixpath
import re
import types
import typing
from collections import Counter
from pathlib import Path

from markdown.extensions.toc import slugify

from estimators import ESTIMATORS, EstimatorError, load_presets, units
from estimators.provenance import formula_of, quantity_of
from pyodide_widgets import WIDGETS, module
from site_build import derivation, numbers, prefetch
from site_build.checks import PAGE_BUDGET_BYTES
from site_build.cache import cached, key_path, tree_hash
from site_build.reproducible import day
from site_build.history import LOCK_PATH, ROOT, Commit, LockChange, LockHistory, lock_history, state

_text = functools.partial(html.escape, quote=False)
ANCHOR = "change-{}"
# More numbers moved by one change than a reader scans at a glance: they stand under a disclosure.
GROUPED = 12


def _commit(commit: Commit) -> str:
    return f"commit <code>{commit.short}</code> of {day(commit.time)}"


def reach_paragraph(history: LockHistory) -> str:
    reach = history.reach
    if reach.oldest is None:
        return ("<p>This copy of the site was built from sources without their git history, so it "
                "cannot list what changed; the site built from the repository does.</p>")
    if reach.shallow:
        return (f"<p>The checkout this copy was built from holds its history only back to "
                f"{_commit(reach.oldest)} (a shallow clone): what changed before then is not listed "
                f"here, and a build from a full clone lists it.</p>")
    return f"<p>The history below is complete: it reaches back to the repository's first commit, {_commit(reach.oldest)}.</p>"


def _count(counts: Counter) -> int:
    return sum(counts.values())


# What a reader must never meet on the page: a call, an attribute of a call, an identifier's
# underscore, a template's braces, and the words the team works in rather than the reader reads.
_CODE = re.compile(r"\w\(|\)\.|[_`{}]|\w\.\w+\(")
PROJECT_WORDS = ("numbers.lock", "seed", "preset", "presets", "estimator", "estimators", "derivation",
                 "macro", "macros", "manifest", "lock", "issue", "branch", "widget", "widgets", "refactor")


@functools.cache
def _names() -> frozenset:
    """The code's names a reader would only meet as jargon: estimators, widget modules and preset keys,
    those a digit, underscore or hyphen joins ("llama3-405b", "memory_fit"); a name that is one word
    ("gpu", "stages", "cluster") is that word in a sentence too."""
    presets = load_presets()
    keys = {key for table in presets.tables for key in getattr(presets, table)}
    return frozenset(n.lower() for n in keys | set(ESTIMATORS) | set(WIDGETS) if re.search(r"[\d_-]", n))


def readable(text: str) -> bool:
    """Whether `text` reads as words: no code expression, function, module or preset name, nor a
    word of the project's own."""
    if _CODE.search(text):
        return False
    words = set(re.findall(r"[\w.-]+", text.lower()))
    return not (words & _names() or words & set(PROJECT_WORDS))


def _subjects(expression: str) -> list:
    """The named entries (a model, a GPU, a run) an expression reads, by their names."""
    found = (derivation.entry_name(m.group(0)) for m in derivation.LOOKUP.finditer(expression))
    return list(dict.fromkeys(filter(None, found)))


# An expression's start: a table's entry, or a call (an estimator or a preset lookup); then what it reads
# of the result, a field, an element or an entry, in turn.
_TABLE_ENTRY = re.compile(r'load_presets\(\)\.(\w+)\["[^"]*"\]')
_CALL = re.compile(r'(?:load_presets\(\)\.)?(\w+)\(')
_PART = re.compile(r'\.(\w+)|\[(\d+)\]|\["[^"]*"\]')
_WIDGET = re.compile(r'widget\("(\w+)"[^)]*\)\.([\w-]+)$')
# A page's own arithmetic on figures: its operands are named, the operation is the page's.
_ARITHMETIC = re.compile(r"\(|-|round\(|abs\(")


def _unquoted(text: str):
    """(index, character, brackets open around it) of each character of `text` outside quotes."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if quoted or ch == '"':
            quoted = (ch != '"') if quoted else True
            continue
        depth -= ch in ")]"
        yield i, ch, depth
        depth += ch in "(["


def _closing(text: str, at: int) -> int:
    """The index after the bracket that closes the one at `at`; -1 when none does."""
    return next((at + i + 1 for i, ch, depth in _unquoted(text[at:]) if i and ch in ")]" and depth == 0), -1)


def _operands(expression: str) -> list:
    """The figures a page's own arithmetic combines: the top-level operands of a bracketed sum,
    product or quotient, or the one of a sign, a rounding or an absolute value."""
    inner = re.sub(r"^(?:-|round|abs)", "", expression)
    if inner.startswith("(") and _closing(inner, 0) == len(inner):
        inner = inner[1:-1]
    cuts = [i for i, ch, depth in _unquoted(inner) if depth == 0 and ch in "+-*/%," and inner[i - 1:i + 1] != "e-"]
    found = [inner[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(inner)])]
    return [f.strip().strip("*/") for f in found if f.strip() and not re.fullmatch(r"[\d. e+-]*|\*|/", f.strip())]


def _element(hint, index):
    """The type an element `index` of a value of type `hint` holds (a tuple's, a list's, a mapping's)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (types.UnionType, typing.Union):  # an optional record: the record
        return args[0] if len(args) == 1 else None
    if typing.get_origin(hint) in (list, dict) or (len(args) == 2 and args[1] is Ellipsis):
        return args[-1 if typing.get_origin(hint) is dict else 0]
    return args[index] if isinstance(index, int) and index < len(args) else None


def _record(hint):
    """A record's class from a field's type (an optional record's too), or None."""
    hint = _element(hint, None) if typing.get_origin(hint) in (types.UnionType, typing.Union) else hint
    return hint if isinstance(hint, type) and dataclasses.is_dataclass(hint) else None


def _first_clause(said: str) -> str:
    """What a quantity is, as its declaration's first clause says it: up to its colon or semicolon
    outside brackets."""
    depth = 0
    for i, ch in enumerate(said):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and said[i:i + 2] in (": ", "; "):
            return said[:i]
    return said.rstrip(".")


def _start(expression: str) -> tuple:
    """(the type the expression's start returns, the formula that computes it or "", the rest it reads);
    (None, "", expression) when it starts from nothing declared."""
    presets = load_presets()
    if found := _TABLE_ENTRY.match(expression):
        entries = getattr(presets, found.group(1), None)
        return (type(next(iter(entries.values()))) if entries else None), "", expression[found.end():]
    found = _CALL.match(expression)
    end = _closing(expression, found.end() - 1) if found else -1
    if end < 0:
        return None, "", expression
    name, rest = found.group(1), expression[end:]
    if name in ESTIMATORS:
        declared = formula_of(ESTIMATORS[name])
        return typing.get_type_hints(ESTIMATORS[name]).get("return"), declared.text if declared else "", rest
    if name in presets.lookups:
        return type(next(iter(getattr(presets, presets.lookups[name]).values()))), "", rest
    return None, "", expression


def _entry(expression: str):
    """The preset entry an expression starts from, itself: its parts' types are the values it holds."""
    found = derivation.LOOKUP.match(expression) or _TABLE_ENTRY.match(expression)
    if not found or found.group(1) not in (presets := load_presets()).lookups | presets.tables:
        return None
    key = re.search(r'"([^"]*)"', found.group(0)).group(1)
    entries = getattr(presets, presets.lookups.get(found.group(1), found.group(1)))
    return entries.get(key)


def _column(cls, field: str) -> str:
    """The heading a preset table's field is listed under on the methods page, "" for none."""
    table = next((t for t in load_presets().declared.values() if t.entry is cls), None)
    return next((f.column for f in table.fields if f.name == field), "") if table else ""


def _read(expression: str) -> str:
    """What the number an expression reads is, by what declares it: the field it was read from (its note,
    or its column on the methods page), else the formula of the estimator whose result it is."""
    cls, formula, rest = _start(expression)
    if cls is None:
        return ""
    declared, at, value = "", 0, _entry(expression)  # a preset entry's parts are typed by what they hold
    while at < len(rest):
        part = _PART.match(rest, at)
        if not part:
            return ""
        at, (field, index) = part.end(), part.groups()
        if field:
            record = type(value) if dataclasses.is_dataclass(value) else _record(cls)
            quantity = quantity_of(record, field) if record else None
            declared = (quantity.note if quantity else "") or _column(record, field)
            cls, formula = typing.get_type_hints(record).get(field) if record else None, ""
            value = getattr(value, field, None)
        else:  # an element of a declared field is a quantity of the same kind (derivation.Record)
            cls, value = _element(cls, int(index) if index else None), None
    return _first_clause(declared or formula)


def _output(widget: str, key: str) -> str:
    """A calculator's output by its label (the section it prints in names the calculator); one
    without, by what computes it or the output it details; else the calculator's title."""
    if widget not in WIDGETS:
        return ""
    found = module(widget)
    outputs = {o.key: o for o in found.OUTPUTS}
    output = outputs.get(key) or next((o for o in found.OUTPUTS if o.detail == key), None)
    named = ""
    if output is not None:
        of = formula_of(output.of) if output.of is not None else None
        named = output.label or (_first_clause(of.text) if of else "")
    return named if named and readable(named) else found.TITLE


def _worked_from(expression: str) -> list:
    """What each figure a page's own arithmetic starts from is, through arithmetic on arithmetic."""
    if not _ARITHMETIC.match(expression):
        return [_what(expression)]
    return [w for operand in _operands(expression) for w in _worked_from(operand) if w]


def _what(expression: str) -> str:
    """What a number is, from its own declarations: a calculator's output by its label and title, a field
    by its declared note, an estimator's result by its formula, a page's arithmetic by the figures it
    works from; "" when nothing declares it in words."""
    if shown := _WIDGET.match(expression):
        return _output(*shown.groups())
    if _ARITHMETIC.match(expression):
        named = dict.fromkeys(w for w in _worked_from(expression) if readable(w))
        return ("worked out from " + " and ".join(named)) if named else ""
    named = _read(expression)
    return named if readable(named) else ""


def name_in_words(expression: str, where: str) -> str:
    """A moved number as a reader knows it: what it is, for which models, GPUs or runs; where nothing
    declares what it is, by the heading it prints under (`where`: its section's, else its page's)."""
    what, subjects = _what(expression) or where, _subjects(expression)
    named = what + "".join(f": {', '.join(s for s in subjects if readable(s))}" for _ in subjects[:1] if any(map(readable, subjects)))
    return named[0].upper() + named[1:]


@dataclasses.dataclass(frozen=True)
class Place:
    """Where on the site a number prints: its page's title and address, and its section's."""

    page: str
    section: str
    href: str


_HEADING = re.compile(r"^(#{1,2}) +(.+?)(?: +\{#([\w-]+)[^}]*\})? *$")


@functools.cache
def _headings(page: str, docs: Path) -> tuple:
    """(title, [(line, section heading, id)]) of a page of `docs` as it stands now; its file's name
    when it is gone."""
    path = docs / page
    if not path.is_file():
        return page.removesuffix(".md"), []
    title, sections = "", []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        found = _HEADING.match(line)
        if not found or "{{" in line:
            continue
        text = re.sub(r"[*`]", "", found.group(2))
        if found.group(1) == "#":
            title = title or text
        else:
            sections.append((number, text, found.group(3) or slugify(text, "-")))
    return title or page.removesuffix(".md"), sections


def place(page: str, lines: tuple, docs: Path = ROOT / "docs") -> Place:
    """Where a number of `page` printed at `lines` stands on the site: the section its line falls
    in on the page as it is now, linked from this page; the page alone where the section's heading
    is not in a reader's words."""
    title, sections = _headings(page, docs)
    line = int(lines[0]) if lines and str(lines[0]).isdigit() else 0
    section = next(((text, anchor) for at, text, anchor in reversed(sections) if at <= line), ("", ""))
    if not readable(section[0]):  # a heading of the methods page that names the project's own parts
        section = ("", "")
    url = "../" + ("" if page == "index.md" else page.removesuffix(".md").removesuffix("/index") + "/")
    return Place(title, section[0], url + (f"#{section[1]}" if section[1] else ""))


def _where(p: Place) -> str:
    return f"{p.page}, {p.section}" if p.section else p.page


def _rows(changes: list, both: bool) -> str:
    """Table rows of numbers, grouped under their page and section, a number that reads the same
    several times in one section listed once with its count."""
    groups = {}
    for c in changes:
        at = place(c.page, c.lines)
        texts = (numbers.texts(c.old), numbers.texts(c.new)) if both else (numbers.texts(c.new or c.old),)
        groups.setdefault(at, Counter())[(name_in_words(c.derivation, at.section or at.page), texts)] += 1
    # Every end tag written: the page's minifier (site_build/compact.py) needs them to read the table
    # and leaves out those HTML allows (a <tr> or <td> ends where the next begins).
    out = []
    for at, named in groups.items():
        out.append(f'<tr><th colspan="{1 + len(texts)}" scope="rowgroup"><a href="{html.escape(at.href)}">{_text(_where(at))}</a></th></tr>')
        for (name, texts), n in named.items():
            cells = "".join(f"<td>{_text(t) or '–'}</td>" for t in texts)
            out.append(f"<tr><td>{_text(name)}{f' (×{units.integer(n)})' if n > 1 else ''}</td>{cells}</tr>")
    return "".join(out)


def _table(changes: list, both: bool) -> str:
    heads = ("Number", "Before", "After") if both else ("Number", "Reads")
    head = "".join(f'<th scope="col">{h}</th>' for h in heads)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{_rows(changes, both)}</tbody></table>"


def _on_pages(changes: list) -> str:
    pages = Counter(place(c.page, c.lines).page for c in changes)
    said = [f"{units.integer(n)} on {page}" for page, n in pages.most_common()]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + f" and {said[-1]}"



# A figure's unit as it closes its text: "11.3 GiB" -> "GiB".
_UNIT = re.compile(r"\d\s?([A-Za-zµ/]+)$")


def _units_moved(moved: list) -> str:
    """The one change of unit most of the moved numbers share ("from GB to GiB"), "" when none does."""
    pairs = Counter()
    for c in moved:
        old, new = _UNIT.search(numbers.texts(c.old)), _UNIT.search(numbers.texts(c.new))
        if old and new and old.group(1) != new.group(1):
            pairs[(old.group(1), new.group(1))] += 1
    if not pairs:
        return ""
    (old, new), n = pairs.most_common(1)[0]
    return f", {'all' if n == len(moved) else n} of them from {old} to {new}" if n * 2 >= len(moved) else ""


def sentence(moved: list, added: list, gone: list) -> str:
    """What a change did, in words: how many numbers moved, came and went, on which pages, and the
    change of unit most of the moved ones share."""
    parts = []
    if moved:
        parts.append(f"{units.noun(len(moved), 'numbers')} changed ({_on_pages(moved)}{_units_moved(moved)})")
    if added:
        parts.append(f"{units.noun(len(added), 'numbers')} {'was' if len(added) == 1 else 'were'} added ({_on_pages(added)})")
    if gone:
        parts.append(f"{units.noun(len(gone), 'numbers')} {'is' if len(gone) == 1 else 'are'} no longer printed ({_on_pages(gone)})")
    said = "; ".join(parts) or "no printed number changed its text"
    return said[0].upper() + said[1:] + "."


def said(subject: str) -> str:
    """A commit's subject as the page gives it: without a leading "numbers.lock: ", the file this page
    is read from, which names where the change was recorded and tells a reader nothing."""
    prefix = f"{LOCK_PATH}: "
    if subject.startswith(prefix) and len(subject) > len(prefix):
        rest = subject[len(prefix):]
        return rest[0].upper() + rest[1:]
    return subject


def reasons(change: LockChange) -> list:
    """Why the numbers moved, where the commits that moved them say it in a reader's words: a plain
    commit's subject, a merge's brought-in commits' subjects (a merge's own message says how the team
    combined its work); a subject written for the team (code, a module, a preset's key) is left out,
    and the sentence derived from the numbers stands alone."""
    commits = change.merged if len(change.commit.parents) > 1 else (change.commit,)
    return [s for s in dict.fromkeys(said(c.subject) for c in commits) if readable(s)]


def _commit_link(commit: Commit) -> str:
    return f'<p class="change__commit"><small>Commit <code>{commit.short}</code></small></p>'


def entry(change: LockChange) -> str:
    """One commit's part of the page: its date, a sentence on what moved, the reasons on record in a
    reader's words, the numbers that moved, and those added and gone under a disclosure."""
    commit = change.commit
    out = [f"## {day(commit.time)} {{#{ANCHOR.format(commit.short)}}}", ""]
    if change.first:
        shown = sum(_count(c.new) for c in change.moved)
        pages = len({c.page for c in change.moved})
        out += [f'<p class="change__reason">The reviewed list of printed numbers began here: {shown} numbers on {pages} pages.</p>', _commit_link(commit)]
        return "\n".join(out)
    moved = [c for c in change.moved if c.old and c.new]
    added = [c for c in change.moved if c.new and not c.old]
    gone = [c for c in change.moved if c.old and not c.new]
    out.append(f'<p class="change__reason">{_text(sentence(moved, added, gone))}</p>')
    out += [f"<p>{_text(r)}</p>" for r in reasons(change)]
    out.append(_commit_link(commit))
    if moved:
        table = _table(moved, both=True)
        out.append(table if len(moved) <= GROUPED else f"<details><summary>The {len(moved)} numbers that changed</summary>\n{table}\n</details>")
    if added:
        out.append(f"<details><summary>Numbers added: {len(added)}</summary>\n{_table(added, both=False)}\n</details>")
    if gone:
        out.append(f"<details><summary>Numbers no longer printed: {len(gone)}</summary>\n{_table(gone, both=False)}\n</details>")
    return "\n".join(out)


def markdown(history: LockHistory) -> str:
    """The page's body: how far back the history reaches, then each change, newest first."""
    parts = [reach_paragraph(history)]
    if history.reach.oldest is not None and not history.changes:
        parts.append("<p>No commit in this history changed a printed number.</p>")
    parts += [entry(change) for change in history.changes]
    return "\n\n".join(parts) + "\n"


# One page of the history holds its entries, newest first, up to half the per-page budget: with the
# theme's header, navigation and footer around them, and its links to the other pages, each page is
# within the budget however long the history grows (a new change starts the first page and pushes
# the oldest entries onto the next). An entry is never cut: one longer than that stands on a page alone.
PART_BYTES = PAGE_BUDGET_BYTES // 2
_ENTRY_START = re.compile(r"\n\n(?=## )")
_ENTRY_DATE = re.compile(r"^## (.+?) \{#", re.M)


@dataclasses.dataclass(frozen=True)
class Part:
    """One page of the history: its Markdown path, its body, and the dates of its newest and oldest entries."""

    src_uri: str
    body: str
    newest: str
    oldest: str

    @property
    def span(self) -> str:
        return self.newest if self.newest == self.oldest else f"{self.newest} to {self.oldest}"


def parts(body: str, first: str) -> list[Part]:
    """`body` (`markdown`'s) cut into the pages a reader turns, newest first: `first` (the page that
    calls the history, its Markdown path) holds the newest entries after how far back the history
    reaches, and `<first>-2.md`, `<first>-3.md` the older ones, each at most `PART_BYTES` long."""
    head, *entries = _ENTRY_START.split(body.rstrip("\n"))
    cut, size = [[head]], len(head.encode("utf-8"))
    for one in entries:
        grown = size + len(one.encode("utf-8")) + 2
        if grown > PART_BYTES and any(_ENTRY_DATE.match(block) for block in cut[-1]):
            cut.append([])
            grown = len(one.encode("utf-8"))
        cut[-1].append(one)
        size = grown
    stem = first.removesuffix(".md")
    found = []
    for number, blocks in enumerate(cut, start=1):
        dates = [m.group(1) for block in blocks if (m := _ENTRY_DATE.match(block))]
        found.append(Part(first if number == 1 else f"{stem}-{number}.md", "\n\n".join(blocks) + "\n",
                          dates[0] if dates else "", dates[-1] if dates else ""))
    return found


def _pages_line(found: list[Part], here: Part) -> str:
    """The line that links the history's pages, newest first, this one named in bold: "" when it has one page."""
    if len(found) < 2:
        return ""
    folder = posixpath.dirname(here.src_uri) or "."
    shown = [f"**{p.span}**" if p == here else f"[{p.span}]({posixpath.relpath(p.src_uri, folder)})" for p in found]
    return f"This history runs over {units.noun(len(found), 'pages')}, newest first: " + " · ".join(shown) + "."


def part_markdown(number: int, first: str, root: Path = ROOT) -> str:
    """The body of the history's page `number` (1 the newest), its links to the other pages above and below it."""
    found = parts(page(root), first)
    here = found[number - 1]
    line = _pages_line(found, here)
    return "\n\n".join(filter(None, [line, here.body.rstrip("\n"), line])) + "\n"


def further_pages(first: str, root: Path = ROOT) -> list[tuple[str, str]]:
    """(Markdown path, Markdown) of each page of the history after `first`'s, as mkdocs reads it."""
    found = parts(page(root), first)
    return [(p.src_uri, f"---\ntitle: What changed, {p.span}\n---\n\n# What changed, {p.span}\n\n"
                        f'{{{{ what_changed({number}, "{first}") }}}}\n')
            for number, p in enumerate(found[1:], start=2)]


def page(root: Path = ROOT) -> str:
    """`markdown(lock_history(root))`, kept in the build cache under the history's state and
    this package's code: a rebuild of the same commit asks git one question instead of reading the
    lock at every commit that changed it. Without git there is no state to key by, nor much to read.
    A cold build reads it in its second process (`jobs`)."""
    return prefetch.result(("what-changed", root), lambda: _page(root))


def jobs(pages: list[str], root: Path = ROOT) -> dict:
    """The `prefetch` job of `page`, when one of the `pages` (their Markdown) calls it and the
    cache does not hold it."""
    if not any("what_changed(" in text for text in pages) or (now := state(root)) is None or key_path("what-changed", _key(now)).is_file():
        return {}
    return {("what-changed", root): (_page, (root,))}


def _key(state_now: str) -> list:
    return [state_now, tree_hash([Path(__file__).parent])]


def _page(root: Path) -> str:
    now = state(root)
    if now is None:
        return markdown(lock_history(root))
    return cached("what-changed", _key(now), lambda: markdown(lock_history(root)))
