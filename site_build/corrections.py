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
import re
import typing
from collections import Counter
from pathlib import Path

from markdown.extensions.toc import slugify

from estimators import ESTIMATORS, EstimatorError, load_presets, units
from estimators.provenance import quantity_of
from pyodide_widgets import WIDGETS, module
from site_build import derivation, numbers, prefetch
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
    """The code's names a reader would only meet as jargon: estimators, widget modules and preset keys."""
    presets = load_presets()
    keys = {key for table in presets.tables for key in getattr(presets, table)}
    return frozenset(keys | set(ESTIMATORS) | set(WIDGETS))


def readable(text: str) -> bool:
    """Whether `text` reads as words: no code expression, function, module or preset name, nor a
    word of the project's own."""
    if _CODE.search(text):
        return False
    words = set(re.findall(r"[\w.-]+", text.lower()))
    return not (words & {w.lower() for w in _names()} or words & set(PROJECT_WORDS))


def _subjects(expression: str) -> list:
    """The named entries (a model, a GPU, a run) an expression reads, by their names."""
    found = (derivation.entry_name(m.group(0)) for m in derivation.LOOKUP.finditer(expression))
    return list(dict.fromkeys(filter(None, found)))


def _what(expression: str) -> str:
    """What a number is, from its own declarations: a calculator's output by its label and title,
    a field of an estimate by its declared note; "" when nothing declares it in words."""
    shown = re.match(r'widget\("(\w+)"[^)]*\)\.(\w+)$', expression)
    if shown and shown.group(1) in WIDGETS:
        widget = module(shown.group(1))
        label = next((o.label for o in widget.OUTPUTS if o.key == shown.group(2)), "")
        return f"{label} ({widget.TITLE})" if label else widget.TITLE
    start = re.match(r'(?:load_presets\(\)\.(\w+)\["([^"]*)"\]|(\w+)\((?:[^()]|\([^()]*\))*\))((?:\.\w+)+)$', expression)
    if not start:
        return ""
    table, key, called, fields = start.groups()
    if called:
        cls = typing.get_type_hints(ESTIMATORS[called]).get("return") if called in ESTIMATORS else None
        if cls is None and called in load_presets().lookups:
            cls = _entry_type(called, re.search(r'"([^"]*)"', expression))
    else:
        cls = type(next(iter(getattr(load_presets(), table).values()), None)) if hasattr(load_presets(), table) else None
    *path, last = fields.strip(".").split(".")
    for name in path:  # down the records the expression reads, by their declared types
        cls = typing.get_type_hints(cls).get(name) if isinstance(cls, type) and dataclasses.is_dataclass(cls) else None
    declared = quantity_of(cls, last) if isinstance(cls, type) else None
    return declared.note if declared is not None else ""


def _entry_type(lookup: str, key) -> type | None:
    """The class of the entry a preset lookup returns, from an entry it holds."""
    try:
        return type(getattr(load_presets(), lookup)(key.group(1))) if key else None
    except EstimatorError:
        return None


def name_in_words(expression: str) -> str:
    """A moved number as a reader knows it: what it is, for which models, GPUs or runs; "a figure"
    when neither is declared in words."""
    what, subjects = _what(expression), _subjects(expression)
    what = what if readable(what) else ""
    subjects = [s for s in subjects if readable(s)]
    named = (what or "a figure") + (f": {', '.join(subjects)}" if subjects else "")
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
        groups.setdefault(at, Counter())[(name_in_words(c.derivation), texts)] += 1
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
