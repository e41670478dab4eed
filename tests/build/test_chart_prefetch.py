"""A cold build renders the widgets with a chart that its pages call in a second process
(`site_build.prefetch`, `render.jobs`): what that process renders is what this one
would, in whatever order, and this one then never imports Altair."""

import json
import subprocess
import sys

from harness.site import ROOT

_CHECK = """
import json, sys, tempfile
from concurrent.futures import wait
from pathlib import Path
from site_build import cache, prefetch, render

cache.CACHE = Path(tempfile.mkdtemp())
pages = [path.read_text("utf-8") for path in sorted(Path("docs").glob("*.md"))]
prefetch.start(render.jobs(pages))
jobs = dict(prefetch._JOBS)
wait(list(jobs.values()))  # all begun, so none is rendered here instead
prefetched = {key: render.render(*key[1:]) for key in jobs}
imported_altair = "altair" in sys.modules
prefetch.stop()
cache.CACHE = Path(tempfile.mkdtemp())
# In the other order: a chart reads the same whatever that process drew before it.
rendered_here = {key: render.render(*key[1:]) for key in reversed(jobs)}
print(json.dumps({"same": prefetched == rendered_here, "widgets": len(jobs), "imported_altair": imported_altair}))
"""


def test_the_prefetched_widgets_are_the_widgets_rendered_here_and_altair_stays_in_the_worker():
    done = subprocess.run([sys.executable, "-c", _CHECK], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["widgets"] > 1
    assert result["same"]
    assert not result["imported_altair"]
