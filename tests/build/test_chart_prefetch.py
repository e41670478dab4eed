"""A cold build makes its charts' Vega-Lite specs in a second process (`figures.prefetch`): what that
process makes is what this one would, and a chart it made never imports Altair here."""

import json
import subprocess
import sys

from harness.site import ROOT

_CHECK = """
import json, sys
from concurrent.futures import wait
import figures

names = [n for n in figures.CHARTS if not figures.is_diagram(n)]
figures.prefetch()
wait(list(figures._PREFETCHED.values()))  # all begun, so none is made here instead
prefetched = {name: figures._chart_json(name) for name in names}
imported_altair = "altair" in sys.modules
figures.stop_prefetch()
made_here = {name: figures._chart_json_made(name) for name in names}
print(json.dumps({"same": prefetched == made_here, "charts": len(names), "imported_altair": imported_altair}))
"""


def test_the_prefetched_charts_are_the_charts_made_here_and_altair_stays_in_the_worker():
    done = subprocess.run([sys.executable, "-c", _CHECK], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["charts"] > 1
    assert result["same"]
    assert not result["imported_altair"]

