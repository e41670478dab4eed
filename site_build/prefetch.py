"""Work a cold build hands to the second core: jobs whose inputs are known before the first page
is rendered (the widgets the pages call, the What changed page), made meanwhile by a second process.

The process is forked, so it runs this very code without importing the project again, and what it
makes lands in the build cache as if made here. A job the build reaches is taken from that process
if it has begun it (waited for) and made here if not (cancelled there), so nothing is made twice and
nothing waits behind a job queued before it. A job that fails there is made here again, where its
error reads as it does without a second process.

A process forks its second process once, at its first build: a fork copies only the thread that
calls it, so a library that has started threads of its own by then (the chart converter, whose
runtime runs on threads, after the first build has drawn a chart) waits forever in the copy. The
later builds of `make serve` each re-render a page or two and need no second core.
"""

import multiprocessing
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor

# {job key: its future}, the process that makes them, and whether this process has forked one.
_JOBS: dict = {}
_POOL: list = []
_FORKED: list = []


def start(jobs: dict) -> None:
    """Begin `jobs`, {key: (function, args)}, in order, in a second process (none for no jobs, nor
    after this process's first build)."""
    if _FORKED or not jobs:
        return
    _FORKED.append(True)
    # The forked process starts with no futures of its own: there, `result` makes every job.
    _POOL.append(ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"), initializer=_JOBS.clear))
    for key, (function, args) in jobs.items():
        _JOBS[key] = _POOL[0].submit(function, *args)


def result(key: Hashable, make: Callable):
    """The job `key`'s result from the second process if it has begun it, else `make()`."""
    future = _JOBS.pop(key, None)
    if future is not None and not future.cancel():  # begun or done
        try:
            return future.result()
        except Exception:  # noqa: BLE001 - made again below, where its error reads as it does unprefetched
            pass
    return make()


def stop() -> None:
    """End the second process, dropping what it has not begun."""
    while _POOL:
        _POOL.pop().shutdown(wait=False, cancel_futures=True)
    _JOBS.clear()
