"""A cold build renders the widgets with a chart that its pages call in a second process
(`site_build.prefetch`, `render.jobs`): what that process renders is what this one
would, in whatever order, and this one then never imports Altair; a job the build reaches
before that process has begun it is made here at once, and one it has begun is waited for."""

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
jobs = {key: future for key, (future, _) in prefetch._RUNNING[0].jobs.items()}
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


_CLAIMS = """
import json, multiprocessing, os
from site_build import prefetch

fork = multiprocessing.get_context("fork")
begun, gate = fork.Event(), fork.Event()

def held():
    begun.set()
    gate.wait(timeout=20)
    return os.getpid()

prefetch.start({"held": (held, ()), "queued": (os.getpid, ()), "pending": (os.getpid, ())})
begun.wait(timeout=20)
# The pool has "queued" in hand behind "held" (it queues one job ahead), "pending" not yet.
queued, pending = prefetch.result("queued", os.getpid), prefetch.result("pending", os.getpid)
gate.set()
waited_for = prefetch.result("held", lambda: "made here")
prefetch.stop()
print(json.dumps({"here": os.getpid(), "queued": queued, "pending": pending, "held": waited_for}))
"""


def test_a_job_the_second_process_has_not_begun_is_made_here_without_waiting_for_the_one_it_is_making():
    done = subprocess.run([sys.executable, "-c", _CLAIMS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    made = json.loads(done.stdout.splitlines()[-1])
    # Made here while the other process still held its job (which gives up after 20 s, then answers).
    assert made["queued"] == made["here"]
    assert made["pending"] == made["here"]
    # Begun there: waited for, not made twice.
    assert made["held"] not in (made["here"], "made here")
