"""Run small kernel calls on one thread.

A numba parallel region waits for every worker; on a busy machine a worker
that is descheduled turns a microsecond kernel into a long stall (an NTT of
64 elements was measured at 1.1 s with 2 threads against 7 ms with 1 under
load). Below a size where parallelism cannot pay, use the calling thread only.
"""

from __future__ import annotations

import contextlib

import numba

MIN_PARALLEL = 4096  # elements (or points) below which kernels run on one thread


@contextlib.contextmanager
def threads_for(n: int):
    if n >= MIN_PARALLEL:
        yield
        return
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(old)
