"""Work a cold build hands to the second core: jobs whose inputs are known before the first page
is rendered (the widgets the pages call, the What changed page), made meanwhile by a second process.

The process is forked, so it runs this very code without importing the project again, and what it
makes lands in the build cache as if made here. A job the build reaches is taken from that process
if it has begun it (waited for) and made here if not (cancelled there), so nothing is made twice and
nothing waits behind a job queued before it. A job that fails there is made here again, where its
error reads as it does without a second process.

A process forks only while it runs a single thread: a fork copies only the thread that calls it, so
a library that has started threads of its own (the chart converter's runtime, once a build has drawn
a chart) waits forever in the copy for a thread that is not there. That rules out the later builds of
`make serve`, which re-render a page or two and need no second core. Where the threads cannot be
counted (no /proc), nothing is forked.
"""

import multiprocessing
import os
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor

# {job key: its future}, and the process that makes them.
_JOBS: dict = {}
_POOL: list = []


def _one_thread() -> bool:
    """Whether this process runs a single thread (Linux's /proc counts a library's native threads too)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def start(jobs: dict) -> None:
    """Begin `jobs`, {key: (function, args)}, in order, in a second process (none for no jobs, nor
    in a process that already runs threads)."""
    if _POOL or not jobs or not _one_thread():
        return
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
