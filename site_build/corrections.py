"""The "What changed" page's body: the site's corrections log, from `history.lock_history()`.

One heading per commit of the main line that moved a printed number, newest first (its date and
commit, so the table of contents lists them), its message as the reason, a table of the numbers
that moved (page, number, before, after), and the numbers it added or removed, listed under a
disclosure; the lock's first commit is counted, not listed. Above them, how far back the
checkout's history reaches. Everything from git is element text, escaped: a commit message
is never read as Markdown or HTML.
"""

import functools
import html
from collections import Counter

from pathlib import Path

from site_build import numbers, prefetch
from site_build.cache import cached, key_path, tree_hash
from site_build.reproducible import day
from site_build.history import ROOT, Commit, LockChange, LockHistory, lock_history, state

_text = functools.partial(html.escape, quote=False)
ANCHOR = "change-{}"


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


def _per_page(moved: list, side: str) -> str:
    pages = Counter()
    for c in moved:
        pages[c.page] += _count(getattr(c, side))
    return ", ".join(f"{n} on {_text(page)}" for page, n in sorted(pages.items()))


def _table(moved: list) -> str:
    rows = "".join(
        f"<tr><td>{_text(c.where)}</td><td><code>{_text(c.derivation)}</code></td>"
        f"<td>{_text(numbers.texts(c.old)) or '–'}</td><td>{_text(numbers.texts(c.new)) or '–'}</td></tr>"
        for c in moved
    )
    return (f'<table><thead><tr><th scope="col">Page and line</th><th scope="col">Number</th>'
            '<th scope="col">Before</th><th scope="col">After</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def _listed(summary: str, moved: list) -> str:
    return f"<details><summary>{summary}</summary>\n{_table(moved)}\n</details>"


def _reason(change: LockChange) -> list:
    """Why the numbers moved, in the words of the commits that moved them. A merge's own message
    says how the team combined its work (a branch's name, the tracker's issue), which tells a reader
    nothing: its reasons are the messages of the commits it brought in that changed printed numbers,
    each written for a reader (CONTRIBUTING.md)."""
    commit = change.commit
    if len(commit.parents) < 2:
        out = [f'<p class="change__reason">{_text(commit.subject)}</p>']
        return out + [f"<p>{_text(' '.join(paragraph.split()))}</p>" for paragraph in commit.body.split("\n\n") if paragraph.strip()]
    if not change.merged:
        return ['<p class="change__reason">Work done apart was brought together here, and these numbers moved as its parts met.</p>']
    items = "".join(f"<li><code>{m.short}</code> {_text(m.subject)}</li>" for m in change.merged)
    return [f'<p class="change__reason">These numbers moved with the changes brought in here:</p>\n<ul>{items}</ul>']


def entry(change: LockChange) -> str:
    """One commit's part of the page: its heading, its reason, what it moved."""
    commit = change.commit
    out = [f"## {day(commit.time)}, commit {commit.short} {{#{ANCHOR.format(commit.short)}}}", ""]
    out += _reason(change)
    if change.first:
        shown = sum(_count(c.new) for c in change.moved)
        pages = len({c.page for c in change.moved})
        out.append(f"<p>The reviewed list of printed numbers began here: {shown} numbers on {pages} pages.</p>")
        return "\n".join(out)
    moved = [c for c in change.moved if c.old and c.new]
    added = [c for c in change.moved if c.new and not c.old]
    gone = [c for c in change.moved if c.old and not c.new]
    if moved:
        out.append(_table(moved))
    else:
        out.append("<p>No number already printed changed its text.</p>")
    if added:
        out.append(_listed(f"Numbers added: {sum(_count(c.new) for c in added)} ({_per_page(added, 'new')})", added))
    if gone:
        out.append(_listed(f"Numbers no longer printed: {sum(_count(c.old) for c in gone)} ({_per_page(gone, 'old')})", gone))
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
