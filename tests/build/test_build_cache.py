"""The build cache (charts, rendered widgets, the wheel) is never stale: after
an edit to an estimator, a build that reuses the cache writes exactly what a
build from an empty cache writes, and both differ from before the edit."""

import shutil
from pathlib import Path

import pytest

from harness.site import copy_project, mkdocs_build, only_pages

# Appended to estimators/compute.py: every caller, widget, chart and page, now sees twice the FLOPs.
EDIT = "\n_single = training_flops\n\n\ndef training_flops(params, tokens):\n    return 2 * _single(params, tokens)\n"

# One page that reads the edited estimator in its prose and through two widgets (their rendered HTML
# and the wheel): the cache's keys are per entry, so one page proves what the whole site would, in a
# sixth of the build.
PAGE = (
    "# One page\n\n"
    '{% set r = run("llama3-405b") %}Training costs {{ training_flops(r.params, r.tokens) | count }} FLOPs.\n\n'
    '{{ widget("loop_bill") }}\n\n{{ widget("tokens_per_param") }}\n'
)


@pytest.fixture
def project(tmp_path, filled_cache) -> Path:
    """A copy of the project with the session build's cache (same sources, same keys), its docs
    reduced to the one page: only the build this test empties the cache for is cold."""
    copy = copy_project(tmp_path / "project", with_cache=True)
    only_pages(copy, {"one.md": PAGE})
    return copy


def build(project: Path, out: Path) -> dict[str, bytes]:
    """Build the copy into `out`; the page and the wheel, as bytes."""
    done = mkdocs_build(project / "pages.yml", out)
    assert done.returncode == 0, done.stderr
    [wheel] = (out / "assets" / "widgets").glob("*.whl")
    return {"page": (out / "one" / "index.html").read_bytes(), "wheel": wheel.read_bytes()}


def test_an_edited_estimator_rebuilds_what_depends_on_it(project, tmp_path):
    before = build(project, tmp_path / "before")
    with (project / "estimators" / "compute.py").open("a", encoding="utf-8") as source:
        source.write(EDIT)
    warm = build(project, tmp_path / "warm")
    shutil.rmtree(project / "build")
    cold = build(project, tmp_path / "cold")
    assert warm == cold
    assert warm["page"] != before["page"] and warm["wheel"] != before["wheel"]
