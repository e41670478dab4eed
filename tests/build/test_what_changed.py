"""The What changed page: every commit of the main line that moved a printed number, read from
git as this test reads it itself; a shallow clone, and sources without git, say how far back
their history reaches."""

import html
import re
import subprocess
from collections import Counter

import pytest

from site_build import corrections, history, numbers
from site_build.history import ROOT


def git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def lock_at(revision: str) -> Counter:
    """(page, derivation, text) of each number of numbers.lock at `revision`, counted; empty where
    the revision has no lock."""
    done = subprocess.run(["git", "show", f"{revision}:numbers.lock"], cwd=ROOT, capture_output=True, text=True)
    rows = [line.split("\t") for line in done.stdout.splitlines() if line and not line.startswith("#")] if done.returncode == 0 else []
    return Counter((where.split(":")[0], derivation, text) for where, text, derivation in rows)


def expected_changes() -> dict:
    """{commit: {(page, derivation): (texts before, texts after)}} for each commit of the main line
    that changed numbers.lock and whose parent the checkout holds, newest first."""
    found = {}
    for sha in git("log", "--first-parent", "--format=%H", "--", "numbers.lock").split():
        parents = git("log", "-1", "--format=%P", sha).split()
        if not parents:  # a shallow clone's oldest commit: what it changed is not in the checkout
            continue
        before, after = lock_at(parents[0]), lock_at(sha)
        keys = {(page, derivation) for page, derivation, _ in before | after}
        moved = {}
        for key in keys:
            old = Counter({t: n for (p, d, t), n in before.items() if (p, d) == key})
            new = Counter({t: n for (p, d, t), n in after.items() if (p, d) == key})
            if old != new:
                moved[key] = (old - new, new - old)
        found[sha] = moved
    return found


@pytest.fixture(scope="module")
def page(built_site) -> str:
    return (built_site / "what-changed" / "index.html").read_text("utf-8")


def section_of(page: str, sha: str) -> str:
    start = page.index(f'id="{corrections.ANCHOR.format(sha[:7])}"')
    end = page.find("<h2", start)
    return page[start:end if end > 0 else None]


def test_the_history_holds_every_commit_that_moved_a_number():
    expected = expected_changes()
    found = history.lock_history(ROOT).changes
    assert [c.commit.sha for c in found] == list(expected)
    for change in found:
        assert {(c.page, c.derivation): (c.old, c.new) for c in change.moved} == expected[change.commit.sha]


def test_the_page_lists_each_change_newest_first_with_its_reason_and_its_moved_numbers(page):
    expected = expected_changes()
    if not expected and git("rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("this shallow clone holds no change to numbers.lock with its parent")
    assert expected, "the repository's history has changed numbers.lock"
    anchors = re.findall(r'<h2 id="change-([0-9a-f]+)"', page)
    assert anchors == [sha[:7] for sha in expected]
    for sha, moved in expected.items():
        section = html.unescape(section_of(page, sha))
        if len(git("log", "-1", "--format=%P", sha).split()) < 2:
            assert git("log", "-1", "--format=%s", sha).strip() in section
        else:  # a merge: not its own message, but those of the commits it brought in
            assert git("log", "-1", "--format=%s", sha).strip() not in section
        first = not lock_at(f"{sha}^")
        for (where, derivation), (old, new) in moved.items():
            if old and new:  # a number that moved: its page, what it is, its texts before and after
                row = f"<code>{derivation}</code></td><td>{numbers.texts(old)}</td><td>{numbers.texts(new)}</td>"
                assert row in section, (sha, where, derivation)
            elif not first:  # added or removed, listed under their disclosure
                assert f"<code>{derivation}</code>" in section, (sha, where, derivation)


def test_the_page_says_its_history_is_whole_when_the_checkout_is(page):
    if git("rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("this checkout is a shallow clone")
    first = git("rev-list", "--first-parent", "--max-parents=0", "HEAD").split()[-1]
    reach = history.lock_history(ROOT).reach
    assert reach.oldest.sha == first and not reach.shallow
    assert f"<code>{first[:7]}</code>" in page


def test_a_shallow_clone_has_no_changes_to_list_and_says_how_far_back_it_reaches(tmp_path):
    clone = tmp_path / "clone"
    git("clone", "--quiet", "--depth", "1", f"file://{ROOT}", str(clone), cwd=tmp_path)
    head = git("rev-parse", "HEAD", cwd=clone).strip()
    found = history.lock_history(clone)
    assert found.reach.shallow and found.reach.oldest.sha == head
    assert found.changes == ()  # its one commit's parent is missing: what it changed cannot be told
    body = corrections.markdown(found)
    assert f"<code>{head[:7]}</code>" in corrections.reach_paragraph(found)
    assert "<h2" not in body and "\n## " not in body


def test_a_deeper_clone_lists_the_changes_it_holds(tmp_path):
    # Deep enough to hold the newest change to the lock with its parent.
    newest = next(iter(expected_changes()), None)
    if newest is None:
        pytest.skip("no change with its parent in this checkout")
    depth = len(git("rev-list", "--first-parent", f"{newest}^..HEAD").split()) + 1
    clone = tmp_path / "clone"
    git("clone", "--quiet", "--depth", str(depth), f"file://{ROOT}", str(clone), cwd=tmp_path)
    found = history.lock_history(clone)
    assert found.reach.shallow
    assert found.changes[0].commit.sha == newest


def test_the_history_state_moves_with_the_commit_and_with_a_shallow_clone_s_depth(tmp_path):
    # What the page is kept in the build cache under (corrections.page): one state, one history.
    clone = tmp_path / "clone"
    git("clone", "--quiet", "--depth", "1", f"file://{ROOT}", str(clone), cwd=tmp_path)
    shallow = history.state(clone)
    assert shallow.split("\n")[:2] == [git("rev-parse", "HEAD", cwd=clone).strip(), "true"]
    git("fetch", "--quiet", "--deepen", "1", cwd=clone)
    deeper = history.state(clone)
    assert deeper != shallow and deeper.split("\n")[0] == shallow.split("\n")[0]
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "--quiet", "--allow-empty", "-m", "next", cwd=clone)
    assert history.state(clone).split("\n")[0] != shallow.split("\n")[0]
    assert history.state(tmp_path) is None


def test_the_kept_page_is_the_page_of_the_history_read_now(tmp_path, monkeypatch):
    from site_build import cache
    monkeypatch.setattr(cache, "CACHE", tmp_path)
    fresh = corrections.markdown(history.lock_history(ROOT))
    assert corrections.page(ROOT) == fresh and list((tmp_path / "what-changed").iterdir())
    assert corrections.page(ROOT) == fresh


def test_sources_without_git_build_a_page_that_says_so(tmp_path):
    (tmp_path / "numbers.lock").write_text(numbers.LOCK.read_text("utf-8"), "utf-8")
    found = history.lock_history(tmp_path)
    assert found.reach.oldest is None and found.changes == ()
    assert history.head(tmp_path) is None
    assert "<h2" not in corrections.markdown(found)


def test_a_merge_reads_as_the_changes_it_brought_in_not_as_the_teams_bookkeeping():
    merge = history.Commit("a" * 40, ("b" * 40, "c" * 40), 0, "Merge accuracy: issue 22's accuracy pass")
    brought = history.Commit("d" * 40, ("b" * 40,), 0, "Llama 3's GPU-hours are the model card's 30.84M")
    shown = html.unescape(corrections.entry(history.LockChange(merge, (), merged=(brought,))))
    assert "issue 22" not in shown and "Merge accuracy" not in shown
    assert "Llama 3's GPU-hours are the model card's 30.84M" in shown
    alone = html.unescape(corrections.entry(history.LockChange(merge, ())))
    assert "issue 22" not in alone and "brought together" in alone


def test_a_commit_message_is_text_on_the_page_never_markup():
    commit = history.Commit("a" * 40, ("b" * 40,), 0, "Fix <script>alert(1)</script> & *this*\n\nBody <b>x</b>")
    change = history.LockChange(commit, ())
    shown = corrections.entry(change)
    assert "<script>" not in shown and "<b>" not in shown
    assert "&lt;script&gt;" in shown and "&lt;b&gt;" in shown
