"""How kernels use the threads: small calls on one thread, large ones on all (spans).

A numba parallel region waits for every worker; on a busy machine a worker
that is descheduled turns a microsecond kernel into a long stall (an NTT of
64 elements was measured at 1.1 s with 2 threads against 7 ms with 1 under
load). Below a size where parallelism cannot pay, use the calling thread only.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor

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


# ---- spans: a serial nogil kernel over [lo, hi) run on every thread ----------------------------------

# Spans per thread: enough to even out kernels whose cost per element varies (scalar multiplications,
# subgroup checks), few enough that a light pass pays one pool hand-off per ~10^4 elements.
SPANS_PER_THREAD = 4


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=max(1, numba.config.NUMBA_NUM_THREADS), thread_name_prefix="cuzk-span")


def run_spans(kernel, n: int, *args) -> list:
    """kernel(lo, hi, *args) over [0, n) cut into spans, on as many threads as numba.get_num_threads()
    says (1 inside `threads_for` below its minimum): the calling thread and the pool's claim spans until
    none is left. Returns the kernel's results in span order (for a reduction).

    Why not numba's parallel=True: it doubles a kernel's compile, and a serial nogil kernel called from
    threads runs as fast where it indexes its span's rows from 0 (codegen.per_span_rows; lab/JOURNAL.md,
    "kernels on threads instead of `parallel=True`"; lab/spans_runtime.py). The NTT's and SpMV's light
    in-place passes stay parallel=True: as spans they measured 5-8 % slower. The caller works too and
    waits only for spans already running, so a span's kernel that itself calls run_spans cannot
    deadlock the pool."""
    workers = min(numba.get_num_threads(), n)
    if workers <= 1:
        return [kernel(0, n, *args)]
    nspans = min(n, SPANS_PER_THREAD * workers)
    claim = itertools.count()
    left = [nspans]
    results = [None] * nspans
    errors: list[BaseException] = []
    done = threading.Condition()

    def work() -> None:
        while (k := next(claim)) < nspans:
            try:
                results[k] = kernel(k * n // nspans, (k + 1) * n // nspans, *args)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller
                errors.append(e)
            finally:
                with done:
                    left[0] -= 1
                    if left[0] == 0:
                        done.notify_all()

    pool = _pool()
    for _ in range(workers - 1):
        pool.submit(work)
    work()
    with done:
        done.wait_for(lambda: left[0] == 0)
    if errors:
        raise errors[0]
    return results
