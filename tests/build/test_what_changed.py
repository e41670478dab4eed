"""The What changed page: every commit of the main line that moved a printed number, read from
git as this test reads it itself; a shallow clone, and sources without git, say how far back
their history reaches."""

import html
import re
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from estimators import ESTIMATORS, DecoderConfig, Layout, load_presets, units
from estimators.provenance import quantity_of
from pyodide_widgets import WIDGETS, module
from site_build import corrections, history, numbers
from site_build.history import ROOT
from harness import markup
from tests.build.test_reader_words import reader_text


def git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def lock_at(revision: str) -> Counter:
    """(page, derivation, text) of each number of numbers.lock at `revision`, counted; empty where
    the revision has no lock."""
    done = subprocess.run(["git", "show", f"{revision}:numbers.lock"], cwd=ROOT, capture_output=True, text=True)
    rows = [line.split("\t") for line in done.stdout.splitlines() if line and not line.startswith("#")] if done.returncode == 0 else []
    return Counter((where.split(":")[0], derivation, text) for where, text, derivation in rows)


def texts_by_number(lock: Counter) -> defaultdict:
    """{(page, derivation): its texts, counted} of a lock read by `lock_at`."""
    grouped = defaultdict(Counter)
    for (page, derivation, text), count in lock.items():
        grouped[page, derivation][text] = count
    return grouped


def expected_changes() -> dict:
    """{commit: {(page, derivation): (texts before, texts after)}} for each commit of the main line
    that changed numbers.lock and whose parent the checkout holds, newest first."""
    found = {}
    for sha in git("log", "--first-parent", "--format=%H", "--", "numbers.lock").split():
        parents = git("log", "-1", "--format=%P", sha).split()
        if not parents:  # a shallow clone's oldest commit: what it changed is not in the checkout
            continue
        before, after = texts_by_number(lock_at(parents[0])), texts_by_number(lock_at(sha))
        found[sha] = {key: (before[key] - after[key], after[key] - before[key])
                      for key in before.keys() | after.keys() if before[key] != after[key]}
    return found


def part_number(folder: Path) -> int:
    return int(folder.name.removeprefix("what-changed").lstrip("-") or 1)


@pytest.fixture(scope="module")
def expected() -> dict:
    """The history read once for the tests that compare with it: each reading walks every change of the lock."""
    return expected_changes()


@pytest.fixture(scope="module")
def parts(built_site) -> list[str]:
    """Each page of What changed, newest first: the page itself, then the build's what-changed-2/, -3/ …"""
    folders = sorted((f for f in built_site.glob("what-changed*") if f.is_dir() and re.fullmatch(r"what-changed(-\d+)?", f.name)), key=part_number)
    return [(folder / "index.html").read_text("utf-8") for folder in folders]


@pytest.fixture(scope="module")
def trees(parts) -> list[markup.Element]:
    """Each page of What changed, parsed."""
    return [markup.parse(part) for part in parts]


def sections(trees) -> dict:
    """{a change's anchor: its section}, newest first."""
    return {heading.attrs["id"]: section for tree in trees for section in tree.iter("section")
            for heading in section.iter("h2", id=True) if heading.attrs["id"].startswith("change-")}


def rows_of(elements) -> list[list[str]]:
    """A row of a table of numbers: its cells' texts, name first (a row of a page and section is a heading)."""
    return [[cell.text() for cell in row.iter("td")] for element in elements for row in element.iter("tr")
            if [child.tag for child in row.children if isinstance(child, markup.Element)][:1] == ["td"]]


def test_the_history_holds_every_commit_that_moved_a_number(expected):
    found = history.lock_history(ROOT).changes
    assert [c.commit.sha for c in found] == list(expected)
    for change in found:
        assert {(c.page, c.derivation): (c.old, c.new) for c in change.moved} == expected[change.commit.sha]


def test_the_page_lists_each_change_newest_first_with_its_moved_numbers_in_words(trees, expected):
    if not expected and git("rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("this shallow clone holds no change to numbers.lock with its parent")
    assert expected, "the repository's history has changed numbers.lock"
    changes = sections(trees)
    assert list(changes) == [corrections.ANCHOR.format(sha[:7]) for sha in expected]
    for sha, moved in expected.items():
        section = changes[corrections.ANCHOR.format(sha[:7])]
        assert sha[:7] in [code.text() for code in section.iter("code")]  # the commit, for whoever wants it
        if not lock_at(f"{sha}^"):
            continue  # the lock's first commit: counted, not listed
        rows = rows_of([section])
        for (where, derivation), (old, new) in moved.items():
            texts = [numbers.texts(old), numbers.texts(new)] if old and new else [numbers.texts(new or old)]
            texts = [t or "–" for t in texts]  # a text left empty (an output not yet filled) shows as a dash
            # Its name in words, then its texts, before and after: never the expression it was computed by.
            row = next((r for r in rows if r[1:] == texts), None)
            assert row is not None, (sha, where, derivation, texts)
            assert derivation not in row[0]


def test_a_moved_number_is_under_a_link_to_its_page_and_section(trees, built_site):
    links = {link.attrs["href"] for tree in trees for heading in tree.iter("th", scope="rowgroup")
             for link in heading.children[:1] if isinstance(link, markup.Element) and link.tag == "a"}
    assert links
    targets = {}
    for href in links:
        path, _, anchor = href.partition("#")
        target = (built_site / "what-changed" / path / "index.html").resolve()
        assert target.is_file(), href
        if anchor:
            if target not in targets:
                targets[target] = {e.attrs["id"] for e in markup.parse(target.read_text("utf-8")).iter(id=True)}
            assert anchor in targets[target], href


# What only the code and the team say: a call or an attribute of one, an identifier's underscore,
# a template's braces; the team's words (the source articles as "seeds", presets, the lock file).
CODE = re.compile(r"\w\(|\)\.\w|\b\w+_\w+\b|\{\{|`")
TEAM_WORDS = re.compile(r"\bpresets?\b|\bestimators?\b|\bseeds?\b|numbers\.lock|\bderivations?\b|\bwidgets?\b|\bissue\b", re.I)


def test_the_page_shows_a_reader_no_code_no_key_no_function_and_no_project_word(trees):
    articles = [article for tree in trees for article in tree.iter("article")]
    # Less the BibTeX every page ends with, which is written for a reference manager.
    text = "\n".join(reader_text(article, without=tuple(article.iter("div", class_="cite"))) for article in articles)
    found = [text[max(0, m.start() - 40):m.end() + 40] for m in CODE.finditer(text)]
    found += [text[max(0, m.start() - 40):m.end() + 40] for m in TEAM_WORDS.finditer(text)]
    presets = load_presets()
    names = {key for table in presets.tables for key in getattr(presets, table)} | set(ESTIMATORS) | set(WIDGETS)
    names = {n for n in names if re.search(r"[\d_-]", n)}  # "stages" and "model" are words as well as names
    words = set(re.findall(r"[\w.-]+", text))
    found += sorted(words & names)
    assert found == []


def test_the_history_is_cut_into_pages_each_within_its_share_of_the_budget_newest_first():
    # A history of forty changes, each a table of numbers: more than one page holds.
    entries = [f"## {day} December 2026 {{#change-{day:07x}}}\n\n<table>{'<tr><td>a number<td>1<td>2' * 400}</table>" for day in range(40, 0, -1)]
    body = "\n\n".join(["<p>The history below is complete.</p>", *entries]) + "\n"
    found = corrections.parts(body, "what-changed.md")
    assert len(found) > 1
    assert [p.src_uri for p in found] == ["what-changed.md"] + [f"what-changed-{n}.md" for n in range(2, len(found) + 1)]
    assert all(len(p.body.encode("utf-8")) <= corrections.PART_BYTES for p in found)
    # Every entry once, in the history's order, the first page opening with how far back it reaches.
    assert "".join(p.body for p in found).replace("\n", "") == body.replace("\n", "")
    assert found[0].body.startswith("<p>The history below") and found[0].newest == "40 December 2026"
    assert found[-1].oldest == "1 December 2026"
    # An entry longer than a page's share stands on a page alone, never cut.
    long = f"## 1 December 2026 {{#change-0000001}}\n\n<table>{'<tr><td>a number<td>1<td>2' * 20_000}</table>"
    alone = corrections.parts("\n\n".join(["<p>head</p>", entries[0], long, entries[1]]), "what-changed.md")
    assert [long in p.body for p in alone] == [False, True, False]


def test_each_page_of_the_history_links_every_other_page(trees):
    if len(trees) == 1:
        pytest.skip("this checkout's history fits on one page")
    for number, part in enumerate(trees, start=1):
        links = [a.attrs["href"] for p in part.iter("p") if "This history runs over" in p.text() for a in p.iter("a")]
        others = {"../what-changed/" if n == 1 else f"../what-changed-{n}/" for n in range(1, len(trees) + 1) if n != number}
        assert others <= set(links), number


def test_every_number_on_the_page_is_named_by_what_it_is(trees):
    # Each row's name comes from a declaration (a label, a note, a formula, the heading it prints
    # under), never the placeholder a number nothing names would read as.
    rows = [cells[0] for cells in rows_of(trees)]
    assert rows
    assert [r for r in rows if r.lower().startswith("a figure") or not r.strip()] == []


def test_a_number_is_named_by_its_label_and_its_subjects():
    # A calculator's output by its label, a model's count with the model's name, never their keys.
    name, output = next((n, o) for n in WIDGETS for o in module(n).OUTPUTS if o.label and corrections.readable(o.label))
    assert corrections.name_in_words(f'widget("{name}").{output.key}', "").lower().startswith(output.label.lower())
    presets = load_presets()
    key = next(iter(presets.models))
    named = corrections.name_in_words(f'model("{key}").params', "")
    assert presets.model(key).name in named and key not in named
    # A field read through a configuration and a list of records by their declared types: a model's
    # layers, a planned layout's pipeline stages.
    layers = corrections.name_in_words(f'model("{key}").config.layers', "")
    assert layers.startswith(quantity_of(DecoderConfig, "layers").note.split(",")[0].capitalize())
    stages = corrections.name_in_words('layout_preset_plan("x").best[0].layout.pp', "")
    assert stages == quantity_of(Layout, "pp").note.capitalize()
    # The figures a page's own arithmetic works from, named in turn.
    worked = corrections.name_in_words(f'((model("{key}").config.layers * 2) / model("{key}").config.heads)', "")
    assert quantity_of(DecoderConfig, "heads").note.split(",")[0] in worked


def test_a_number_nothing_names_reads_as_the_heading_it_prints_under():
    assert corrections.name_in_words("(1 + 2)", "Ten steps") == "Ten steps"
    assert corrections.name_in_words('gone_estimator(model("x")).field', "Storage") == "Storage"


def test_the_page_says_its_history_is_whole_when_the_checkout_is(trees):
    if git("rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("this checkout is a shallow clone")
    first = git("rev-list", "--first-parent", "--max-parents=0", "HEAD").split()[-1]
    reach = history.lock_history(ROOT).reach
    assert reach.oldest.sha == first and not reach.shallow
    assert first[:7] in [code.text() for tree in trees for code in tree.iter("code")]


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


def test_a_deeper_clone_lists_the_changes_it_holds(tmp_path, expected):
    # Deep enough to hold the newest change to the lock with its parent.
    newest = next(iter(expected), None)
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
    assert "issue 22" not in alone and "Merge accuracy" not in alone


def test_a_subject_written_for_the_team_gives_way_to_the_sentence_the_numbers_make():
    commit = history.Commit("a" * 40, ("b" * 40,), 0, "macros: memory_fit(finetune_breakdown(...)) on the seed")
    moved = numbers.Change("training.md", 'model("llama3-8b").params', ("30",), Counter({"8B": 1}), Counter({"8.03B": 1}))
    shown = html.unescape(corrections.entry(history.LockChange(commit, (moved,))))
    assert "memory_fit" not in shown and "seed" not in shown and 'model("' not in shown
    # In its place: how many numbers moved, counted as the units module counts, and the number before and after.
    assert units.noun(1, "numbers") in shown and "8B" in shown and "8.03B" in shown


def test_a_subject_that_names_the_lock_file_reads_without_it():
    subject = "the A100's measured matmul ceiling on the methods page"
    commit = history.Commit("a" * 40, ("b" * 40,), 0, f"numbers.lock: {subject}")
    shown = html.unescape(corrections.entry(history.LockChange(commit, ())))
    assert "numbers.lock" not in shown and subject[1:] in shown  # the rest of the subject, its first word a sentence's


def test_a_commit_message_is_text_on_the_page_never_markup():
    commit = history.Commit("a" * 40, ("b" * 40,), 0, "The <script>alert</script> & *starred* <b>claim</b>")
    change = history.LockChange(commit, ())
    shown = corrections.entry(change)
    assert "<script>" not in shown and "<b>" not in shown
    assert "&lt;script&gt;" in shown and "&lt;b&gt;" in shown


def test_a_run_of_numbers_that_changed_unit_says_so_once():
    commit = history.Commit("a" * 40, ("b" * 40,), 0, "")
    moved = [numbers.Change("training.md", f'gpu("h100-sxm").memory_bytes{i}', (str(i),), Counter({f"{i}.5 GB": 1}), Counter({f"{i}.1 GiB": 1}))
             for i in range(1, 4)]
    moved.append(numbers.Change("training.md", "x", ("9",), Counter({"2 days": 1}), Counter({"3 days": 1})))
    shown = corrections.entry(history.LockChange(commit, tuple(moved)))
    # The sentence over the table counts the numbers that changed unit and names both units, once each.
    said = corrections.sentence(moved, [], [])
    assert said in html.unescape(shown)
    assert said.count(f" {units.integer(3)} ") == 1 and said.count("GiB") == 1 and said.index(" GB") < said.index("GiB")
    # The one number that kept its unit says no change of unit.
    assert "GB" not in corrections.sentence(moved[-1:], [], [])
