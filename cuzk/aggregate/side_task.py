"""A function run on a thread of its own, with one numba thread.

Verification is a few milliseconds of kernels per step, too short for
numba's parallel regions on a small machine: a region waits for its slowest
worker, and whenever another process is busy that worker is descheduled for
a whole time slice. Two independent single-threaded tasks (the helper's
kernels are nogil) use both cores when they are free and degrade to one
thread's speed, not worse, when they are not.
"""

from __future__ import annotations

import threading

import numba


class SideTask:
    def __init__(self, fn):
        self._out = []

        def run():
            numba.set_num_threads(1)  # thread-local
            try:
                self._out.append((True, fn()))
            except BaseException as exc:  # re-raised by result()
                self._out.append((False, exc))

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def result(self):
        self._thread.join()
        ok, value = self._out[0]
        if not ok:
            raise value
        return value


def start(fn, enabled: bool = True) -> SideTask | None:
    """A SideTask for fn, or None when only one thread is wanted
    (numba.get_num_threads() == 1, e.g. --verify-threads 1) or not enabled."""
    return SideTask(fn) if enabled and numba.get_num_threads() > 1 else None
