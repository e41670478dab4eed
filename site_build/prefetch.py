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
from dataclasses import dataclass

_CONTEXT = multiprocessing.get_context("fork")


@dataclass
class _Claims:
    """Which process makes each job, decided once. The pool marks the job after the one it is making as
    begun already (it queues one ahead), so a future's state cannot say whether that process has begun a
    job: the first of the two processes to claim one makes it, and the other leaves it (there) or waits
    for it (here). Shared memory, made before the fork."""

    taken: object  # a byte per job: 1 once claimed
    lock: object

    def claim(self, index: int) -> bool:
        """Whether this process has the job `index` to make (no other process claimed it first)."""
        with self.lock:
            if self.taken[index]:
                return False
            self.taken[index] = 1
            return True


@dataclass
class _SecondProcess:
    pool: ProcessPoolExecutor
    claims: _Claims
    jobs: dict  # {job key: (its future, its index among the claims)}


# The second process of this build, if one was started. The fork keeps a copy whose claims are the same
# memory and whose jobs are cleared: there, `result` makes every job.
_RUNNING: list = []


def _one_thread() -> bool:
    """Whether this process runs a single thread (Linux's /proc counts a library's native threads too)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _make_if_unclaimed(index: int, function: Callable, args: tuple) -> tuple:
    """In the second process: (True, the job's result), or (False, None) if the build claimed it first."""
    if not _RUNNING[0].claims.claim(index):
        return False, None
    return True, function(*args)


def start(jobs: dict) -> None:
    """Begin `jobs`, {key: (function, args)}, in order, in a second process (none for no jobs, nor
    in a process that already runs threads)."""
    if _RUNNING or not jobs or not _one_thread():
        return
    jobs_here: dict = {}
    # The pool forks at its first job, after the claims exist: both processes hold the same ones.
    pool = ProcessPoolExecutor(max_workers=1, mp_context=_CONTEXT, initializer=jobs_here.clear)
    running = _SecondProcess(pool=pool, claims=_Claims(taken=_CONTEXT.RawArray("b", len(jobs)), lock=_CONTEXT.Lock()), jobs=jobs_here)
    _RUNNING.append(running)
    for index, (key, (function, args)) in enumerate(jobs.items()):
        running.jobs[key] = (running.pool.submit(_make_if_unclaimed, index, function, args), index)


def result(key: Hashable, make: Callable):
    """The job `key`'s result from the second process if that process has begun it, else `make()`."""
    running = _RUNNING[0] if _RUNNING else None
    future, index = running.jobs.pop(key, (None, None)) if running else (None, None)
    if future is None:
        return make()
    if running.claims.claim(index):  # not begun there, which now leaves it
        future.cancel()
        return make()
    try:
        made, value = future.result()
        if made:
            return value
    except Exception:  # noqa: BLE001 - made again below, where its error reads as it does unprefetched
        pass
    return make()


def stop() -> None:
    """End the second process, dropping what it has not begun."""
    while _RUNNING:
        running = _RUNNING.pop()
        # Every job claimed here, so that it leaves even the one its pool already holds as begun.
        for index in range(len(running.claims.taken)):
            running.claims.claim(index)
        running.pool.shutdown(wait=False, cancel_futures=True)
