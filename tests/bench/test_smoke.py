"""The benchmark cannot rot: its measuring code runs here, small (`--smoke`:
one page, a few changes, no Lighthouse), as `make bench` runs it in full.
Nothing is asserted about time, only that every figure was measured."""

import json
import subprocess
import sys

from harness.site import ROOT

SMOKE_TIMEOUT_S = 600


def test_the_benchmark_measures_every_widget_of_a_page_and_the_build(tmp_path, filled_cache):
    done = subprocess.run(
        [sys.executable, "-m", "bench.runtime", "--smoke", "--page", "/training/", "--results", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((tmp_path / "runtime.json").read_text("utf-8"))
    rows = result["rows"]
    [page] = {row["page"] for row in rows if row["figure"].startswith("input → outputs")}
    assert sum(row["figure"].startswith("input → outputs") for row in rows) == len(result["pages"][page])
    figures = " ".join(row["figure"] for row in rows)
    for expected in ("HTML bytes", "bytes before load", "total blocking time", "long tasks", "against alone",
                     "first visit: boot", "return visit: boot", "typed", "cold build", "make serve",
                     "phone (390 px", "while Play runs"):
        assert expected in figures, expected
    assert "pages that miss a budget" in done.stdout


def test_a_page_the_site_does_not_have_fails_the_run_naming_the_pages_it_has(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bench.runtime", "--smoke", "--page", "/no-such-page/", "--results", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S,
    )
    assert done.returncode == 1
    assert "no page /no-such-page/" in done.stderr and "/training/" in done.stderr
