"""The numbers the site prints are the reviewed ones (numbers.lock), each quantity reads
one way, and a change to a preset shows up as the list of prose numbers it moves."""

import subprocess

import estimators
from estimators import units
from harness.site import ROOT, copy_project, mkdocs_build, throwaway_project
from site_build import numbers


def test_the_sites_numbers_are_the_reviewed_ones(built_site):
    moved = numbers.check(built_site)
    assert not moved, "numbers differ from numbers.lock; after review, run `make lock`:\n" + "\n".join(moved)


def test_every_quantity_on_the_site_reads_one_way(built_site):
    assert numbers.one_text_findings(numbers.read(built_site)) == []


def test_the_manifest_lists_every_number_with_the_line_that_printed_it(built_site):
    entries = numbers.read(built_site)
    prose = [e for e in entries if e.kind != "widget"]
    assert prose and all(e.line > 0 and e.derivation for e in prose)
    for e in entries:
        line = (ROOT / "docs" / e.page).read_text("utf-8").splitlines()[e.line - 1]
        assert "{{" in line or "{%" in line, f"{e.where}: prints nothing, yet the manifest puts {e.derivation} there"
    assert {e.page for e in entries if e.kind == "widget"} >= {"training.md", "ten-steps.md"}


def failed_build(tmp_path, name: str, page: str) -> str:
    """What a strict build of one page says, the build having failed."""
    config = throwaway_project(tmp_path / "project", {name: page}, with_docs=False)
    done = mkdocs_build(config, tmp_path / "site")
    assert done.returncode != 0
    return done.stdout + done.stderr


def test_a_page_printing_one_quantity_two_ways_fails_the_build(tmp_path):
    page = '{% set n = model("llama3-8b").params %}\n# Twice\n\n{{ n | count }} parameters or, again, {{ n | sci }}.\n'
    output = failed_build(tmp_path, "twice.md", page)
    assert 'one quantity printed 2 ways (model("llama3-8b").params)' in output
    assert "twice.md:4" in output


def test_a_number_printed_without_a_filter_fails_the_build(tmp_path):
    page = '# Raw\n\nThe run has {{ run("llama3-405b").gpus }} GPUs.\n'
    output = failed_build(tmp_path, "raw.md", page)
    assert 'raw.md:3: run("llama3-405b").gpus: a number printed without a units filter' in output


def _run(command: list, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_a_changed_preset_lists_the_numbers_it_moves_until_make_lock_accepts_them(tmp_path, filled_cache):
    copy = copy_project(tmp_path / "project", with_cache=True)
    (copy / ".venv").symlink_to(ROOT / ".venv")
    presets = copy / "estimators" / "presets.toml"
    text = presets.read_text("utf-8")
    start = text.index("[runs.llama3-405b]")
    tokens = text.index("tokens = ", start)
    end = text.index("\n", tokens)
    old, new = estimators.load_presets().run("llama3-405b").tokens, 14.0e12
    presets.write_text(text[:tokens] + f"tokens = {new!r}" + text[end:], "utf-8")

    assert _run(["make", "build"], copy).returncode == 0
    check = _run([".venv/bin/python", "-m", "site_build.numbers", "check", "site"], copy)
    assert check.returncode == 1
    moved = check.stdout.splitlines()
    # One line per moved derivation: page:line, the derivation, its old texts -> its new ones.
    [tokens_line] = [line for line in moved if line.split()[1] == 'run("llama3-405b").tokens:' and line.startswith("training.md:")]
    assert f": {units.count(old)}" in tokens_line and f"-> {units.count(new)}" in tokens_line, tokens_line
    page, lines = tokens_line.split()[0].split(":")
    for line in lines.split(","):
        assert ".tokens | count" in (copy / "docs" / page).read_text("utf-8").splitlines()[int(line) - 1]
    assert all(":" in line.split()[0] and " -> " in line or " new " in line or " gone " in line for line in moved)
    assert "make lock" in check.stderr

    assert _run(["make", "lock"], copy).returncode == 0
    assert _run([".venv/bin/python", "-m", "site_build.numbers", "check", "site"], copy).returncode == 0

