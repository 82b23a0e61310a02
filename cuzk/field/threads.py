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
# The same for light passes (tens of ns an element: field vector ops, NTT stages, SpMV terms):
# below it a pass is a millisecond or two, and with another process on the 2-core VM each
# parallel region waited ~8 ms for a descheduled worker (a 10k-constraint `cuzk prove`: 7 NTTs
# at 2^14 took 255 ms with 2 threads and 64 ms with one; quiet, 48 ms with 2).
LIGHT_MIN_PARALLEL = 1 << 16


@contextlib.contextmanager
def threads_for(n: int, minimum: int = MIN_PARALLEL):
    """All threads for n >= minimum elements, else the calling thread only."""
    if n >= minimum:
        yield
        return
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(old)
