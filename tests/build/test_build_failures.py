"""A failed build says what failed in one line and leaves no site that
looks complete; a build is reproducible (sitemap dates follow SOURCE_DATE_EPOCH,
or the last commit's time)."""

import datetime
import gzip
import os
import shutil

from site_build.failed_build import FAILED_MARKER
from site_build.reproducible import last_commit_time
from harness.site import ROOT, mkdocs_build, throwaway_project

# What a copy of the project needs to build (its presets are read from the package beside the hook).
PROJECT = ("estimators", "figures", "macros", "pyodide_widgets", "site_build", "docs", "mkdocs.yml", "pyproject.toml")


def stale_site(folder):
    """A site folder holding a complete-looking previous build."""
    site = folder / "site"
    (site / "training").mkdir(parents=True)
    (site / "index.html").write_text("<title>old</title>", "utf-8")
    (site / "training" / "index.html").write_text("<title>old</title>", "utf-8")
    return site


def assert_marked_failed(site, what: str):
    assert sorted(p.name for p in site.iterdir()) == [FAILED_MARKER]
    assert what in (site / FAILED_MARKER).read_text("utf-8")


def test_an_empty_preset_source_fails_the_cli_build_in_one_line_and_empties_the_site(tmp_path):
    copy = tmp_path / "project"
    for name in PROJECT:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, copy / name)
    presets = copy / "estimators" / "presets.toml"
    text = presets.read_text("utf-8")
    first = text.index("source = ")
    line = text[:first].count("\n") + 1
    end = text.index("\n", first)
    presets.write_text(text[:first] + 'source = ""' + text[end:], "utf-8")
    site = stale_site(tmp_path)

    done = mkdocs_build(copy / "mkdocs.yml", site)  # cwd is the real checkout; the config names the copy
    assert done.returncode != 0
    errors = [row for row in (done.stdout + done.stderr).splitlines() if "presets.toml" in row]
    assert len(errors) == 1, done.stdout + done.stderr
    assert f"estimators/presets.toml:{line}: " in errors[0] and ".source = '' is not allowed" in errors[0], errors[0]
    assert "Traceback" not in done.stdout + done.stderr
    assert_marked_failed(site, "presets.toml")


def test_a_strict_warning_leaves_no_complete_looking_site(tmp_path):
    config = throwaway_project(tmp_path, {"typed.md": "# Typed\n\nA checkpoint of 1.2 TB.\n"}, with_docs=False)
    site = stale_site(tmp_path)
    done = mkdocs_build(config, site)
    assert done.returncode != 0
    assert_marked_failed(site, "strict mode")


def sitemap_dates(site) -> set:
    text = (site / "sitemap.xml").read_text("utf-8")
    return {row.strip()[len("<lastmod>"):-len("</lastmod>")] for row in text.splitlines() if "<lastmod>" in row}


def test_sitemap_dates_follow_source_date_epoch_or_the_last_commit(built_site):
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or last_commit_time())
    day = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).date().isoformat()
    assert sitemap_dates(built_site) == {day}
    assert gzip.open(built_site / "sitemap.xml.gz").read() == (built_site / "sitemap.xml").read_bytes()
