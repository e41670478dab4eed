"""`make serve` (mkdocs serve --dirty and the hook, site_build.incremental) re-renders only the page
an edit touched (and the list page of every page's cards, which the build writes each time), keeps
the numbers manifest, the cards listed, `_headers` and the search index whole, and re-renders
every page after an edit to what they all share. The rebuilds run as `mkdocs serve` runs them, in
one process (its `on_startup` once, a fresh config per rebuild), without the file watcher."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness.site import ROOT, copy_project, only_pages
from site_build.cards import LIST_FOLDER

TIMEOUT_S = 600

# Builds the copy three times into one site folder, as `mkdocs serve --dirty` would on each save,
# running the given edits before the second and third; prints each build's view of the site.
_SERVE = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config_file, site, edits = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3])
    url = "http://127.0.0.1:8000/"

    def config():
        loaded = load_config(config_file=config_file, site_dir=str(site))
        loaded.site_url = url
        return loaded

    def view():
        return {
            "mtimes": {str(p.relative_to(site)): p.stat().st_mtime_ns for p in sorted(site.rglob("index.html"))},
            "manifest": (site / "numbers.json").read_text("utf-8"),
            "headers": (site / "_headers").read_text("utf-8"),
            "listed": sum(p.read_text("utf-8").count("<dt id=") for p in (site / "numbers").rglob("index.html")),
            "search": sorted({d["location"].split("#")[0] for d in json.loads((site / "search" / "search_index.json").read_text("utf-8"))["docs"]}),
        }

    first = config()
    first.plugins.on_startup(command="serve", dirty=True)
    build(first, serve_url=url, dirty=True)
    views = [view()]
    for path, text in edits:
        with open(path, "a", encoding="utf-8") as out:
            out.write(text)
        build(config(), serve_url=url, dirty=True)
        views.append(view())
    print(json.dumps(views))
''')


def serve_builds(config_file: Path, site: Path, edits: list) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-c", _SERVE, str(config_file), str(site), json.dumps(edits)],
        cwd=config_file.parent, capture_output=True, text=True, timeout=TIMEOUT_S,
        env={"NO_MKDOCS_2_WARNING": "1", "MACROS_ON_ERROR_FAIL": "false", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


# Two pages that print numbers, one of them a widget's, beside the real glossary the test edits: the
# dirty rebuild is page by page, so three pages show what the whole site would in a fraction of its builds.
PAGES = {
    "prose.md": '# Prose\n\n{% set r = run("llama3-405b") %}Training costs {{ training_flops(r.params, r.tokens) | count }} FLOPs.\n',
    "widget.md": '# Widget\n\n{{ widget("tokens_per_param") }}\n',
}


@pytest.fixture(scope="module")
def views(tmp_path_factory, filled_cache) -> list[dict]:
    folder = tmp_path_factory.mktemp("serve")
    project = copy_project(folder / "project", with_cache=True)
    config = only_pages(project, {**PAGES, "glossary.md": (ROOT / "docs" / "glossary.md").read_text("utf-8")})
    return serve_builds(config, folder / "site", [
        (str(project / "docs" / "glossary.md"), "\nA sentence added while serving.\n"),
        (str(project / "estimators" / "presets.toml"), "\n# A comment added while serving.\n"),
    ])


def changed(before: dict, after: dict) -> set:
    return {page for page, mtime in after["mtimes"].items() if before["mtimes"].get(page) != mtime}


def test_an_edit_to_one_page_re_renders_that_page_only(views):
    first, edited, _ = views
    assert len(first["mtimes"]) > 2
    # The lists of numbers, which the build writes, are written again at every rebuild.
    written = {page for page in first["mtimes"] if page.startswith(f"{LIST_FOLDER}/")}
    assert written and changed(first, edited) == {"glossary/index.html"} | written


def test_the_pages_kept_still_count_in_the_manifest_headers_and_search(views):
    first, edited, _ = views
    # The sentence added prints no number: the manifest, which every page's numbers are in, reads as before.
    assert json.loads(edited["manifest"]) == json.loads(first["manifest"])
    assert {row["page"] for row in json.loads(first["manifest"])} >= set(PAGES)
    assert edited["listed"] == first["listed"] > 0, "the kept pages' cards are listed as before"
    assert edited["headers"] == first["headers"]
    # Every page is searched but the lists of numbers, which repeat the others' numbers.
    searched = [page for page in first["mtimes"] if not page.startswith(f"{LIST_FOLDER}/")]
    assert edited["search"] == first["search"] and len(first["search"]) == len(searched)


def test_an_edit_to_presets_re_renders_every_page(views):
    _, edited, shared = views
    assert changed(edited, shared) == set(shared["mtimes"])
    assert json.loads(shared["manifest"]) == json.loads(edited["manifest"])


def test_the_shared_key_moves_with_each_shared_input_and_only_with_them(tmp_path):
    from site_build import cache, incremental

    code = tmp_path / "code"
    code.mkdir()
    (code / "module.py").write_text("x = 1\n", "utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: A\n", "utf-8")

    def key(pages=("a.md", "b.md")):
        cache._tree_hash.cache_clear()  # a build hashes a tree once; here each call is a build of its own
        return incremental.shared_key([code], config, pages)

    before = key()
    assert key() == before and key(("b.md", "a.md")) == before
    assert key(("a.md",)) != before
    (code / "module.py").write_text("x = 2\n", "utf-8")
    after_code = key()
    assert after_code != before
    config.write_text("site_name: B\n", "utf-8")
    assert key() != after_code


def test_the_project_stamp_moves_with_a_file_of_its_packages_or_the_config_and_not_with_a_page(tmp_path):
    from site_build import project

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: A\n", "utf-8")
    package = project.ROOT / project.packages()[0]
    before = project.stamp(config)
    assert project.stamp(config) == before
    (tmp_path / "page.md").write_text("An edit to a page.\n", "utf-8")
    assert project.stamp(config) == before
    config.write_text("site_name: B\n", "utf-8")
    after_config = project.stamp(config)
    assert after_config != before
    added = package / "_stamp_probe.txt"
    try:
        added.write_text("a new file of a package\n", "utf-8")
        assert project.stamp(config) != after_config
    finally:
        added.unlink()
    assert project.stamp(config) == after_config
