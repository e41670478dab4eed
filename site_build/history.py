"""The repository's history, as far as the checkout holds it: each commit of the main line that
changed `numbers.lock`, with the numbers it moved and its message; the commit a build is made of.

Only `git` below touches a process; everything else parses its text, so the parsing is tested on
its own. A checkout without git (a tarball) has no history, a shallow clone a short one:
`LockHistory.reach` says which, and how far back it goes.

The main line is the first-parent chain from HEAD: a merge counts as one change, the state its
branch brought in, with the messages of the branch's commits that changed the lock.
"""

import dataclasses
import subprocess
from pathlib import Path

from site_build import numbers

ROOT = Path(__file__).resolve().parent.parent
LOCK_PATH = "numbers.lock"
# Field and record separators no commit message holds.
_FIELD, _RECORD = "\x1f", "\x1e"
_LOG_FORMAT = f"--format=%H{_FIELD}%P{_FIELD}%ct{_FIELD}%B{_RECORD}"


@dataclasses.dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple
    time: int  # seconds since the epoch, the committer's
    message: str

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]

    @property
    def body(self) -> str:
        return self.message.partition("\n")[2].strip()


@dataclasses.dataclass(frozen=True)
class LockChange:
    """One commit's change to the lock: the numbers that moved (`numbers.Change`s); `merged`, the
    branch commits a merge brought in that changed it; `first` when the lock began there."""

    commit: Commit
    moved: tuple
    merged: tuple = ()
    first: bool = False


@dataclasses.dataclass(frozen=True)
class Reach:
    """How far back the checkout's history goes: its oldest commit on the main line, and whether
    the clone is shallow (that commit's parents are missing); `oldest` None without git."""

    oldest: Commit | None
    shallow: bool


@dataclasses.dataclass(frozen=True)
class LockHistory:
    changes: tuple  # LockChange, newest first
    reach: Reach


# --- parsing git's output ------------------------------------------------------------


def parse_log(text: str) -> list:
    """The commits of `git log` written with `_LOG_FORMAT`, in its order."""
    commits = []
    for record in text.split(_RECORD):
        if not record.strip():
            continue
        sha, parents, time, message = record.lstrip("\n").split(_FIELD, 3)
        commits.append(Commit(sha, tuple(parents.split()), int(time), message.strip()))
    return commits


def parse_blobs(data: bytes) -> list:
    """The objects `git cat-file --batch` wrote, in the order asked: each blob's text, or None for
    one that is missing (a revision without the file)."""
    found, at = [], 0
    while at < len(data):
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if header[-1] == b"missing" or len(header) != 3:
            found.append(None)
            at = end + 1
            continue
        size = int(header[2])
        found.append(data[end + 1:end + 1 + size].decode("utf-8"))
        at = end + 1 + size + 1  # the object, then a newline
    return found


def lock_changes(commits: list, locks: dict, merged: dict, shallow: bool) -> list:
    """Each commit's `LockChange` from the lock's text at each revision (`locks`: {revision: text
    or None}, a revision `<sha>:numbers.lock`) and the branch commits each merge brought in.
    A commit whose parent the checkout lacks (a shallow clone's oldest) changed what cannot be
    told, and is left out."""
    found = []
    for commit in commits:
        if not commit.parents and shallow:
            continue
        after = numbers.read_lock(locks[f"{commit.sha}:{LOCK_PATH}"] or "")
        before_text = locks[f"{commit.parents[0]}:{LOCK_PATH}"] if commit.parents else None
        moved = numbers.changes(numbers.read_lock(before_text or ""), after)
        found.append(LockChange(commit, tuple(moved), tuple(merged.get(commit.sha, ())), first=before_text is None))
    return found


# --- the process edge ----------------------------------------------------------------


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    """What `git args` in `root` printed, or None when git is missing or fails (no repository)."""
    try:
        done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _text(root: Path, *args: str) -> str | None:
    out = git(root, *args)
    return None if out is None else out.decode("utf-8")


def head(root: Path = ROOT) -> Commit | None:
    """The commit the checkout is at, None outside a git checkout."""
    out = _text(root, "log", "-1", _LOG_FORMAT)
    return next(iter(parse_log(out)), None) if out else None


def state(root: Path = ROOT) -> str | None:
    """What `lock_history` reads, in a few lines: the commit checked out, whether the clone is
    shallow and, if so, the commits its history is cut at; None outside a git checkout. Commits are
    named by their content, so one state always has one history."""
    out = _text(root, "rev-parse", "HEAD", "--is-shallow-repository", "--git-path", "shallow")
    if out is None:
        return None
    sha, shallow, grafts = out.splitlines()
    grafts = root / grafts  # relative to `root` unless git wrote it whole
    return "\n".join([sha, shallow, grafts.read_text("utf-8") if shallow == "true" and grafts.is_file() else ""])


def lock_history(root: Path = ROOT) -> LockHistory:
    """The main line's changes to the lock, newest first, and how far back the checkout reaches."""
    shallow = _text(root, "rev-parse", "--is-shallow-repository")
    log = _text(root, "log", "--first-parent", _LOG_FORMAT, "--", LOCK_PATH)
    if shallow is None or log is None:
        return LockHistory((), Reach(None, False))
    is_shallow = shallow.strip() == "true"
    roots = parse_log(_text(root, "log", "--first-parent", "--max-parents=0", _LOG_FORMAT, "HEAD") or "")
    commits = parse_log(log)
    revisions = sorted({f"{sha}:{LOCK_PATH}" for c in commits for sha in (c.sha, *c.parents[:1])})
    blobs = parse_blobs(git(root, "cat-file", "--batch", stdin="".join(f"{r}\n" for r in revisions).encode()) or b"")
    merged = {  # what each merge's branch brought in: its own commits that changed the lock
        c.sha: parse_log(_text(root, "log", "--no-merges", _LOG_FORMAT, f"^{c.parents[0]}", c.sha, "--", LOCK_PATH) or "")
        for c in commits if len(c.parents) > 1
    }
    changes = lock_changes(commits, dict(zip(revisions, blobs)), merged, is_shallow)
    return LockHistory(tuple(changes), Reach(roots[-1] if roots else None, is_shallow))
