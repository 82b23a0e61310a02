"""run_spans: every index once, results in span order, errors raised in the caller, nesting without a
deadlock, and the thread count that threads_for sets."""

import threading

import numba
import numpy as np
import pytest

from cuzk.field.threads import SPANS_PER_THREAD, run_spans, threads_for


@pytest.fixture
def two_threads():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here (NUMBA_NUM_THREADS=1)")
    old = numba.get_num_threads()
    numba.set_num_threads(2)
    yield
    numba.set_num_threads(old)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000, 12_345])
def test_every_index_once(two_threads, n):
    seen = np.zeros(n, dtype=np.int64)
    lock = threading.Lock()

    def kernel(lo, hi, out):
        with lock:
            out[lo:hi] += 1

    run_spans(kernel, n, seen)
    assert (seen == 1).all()


def test_results_in_span_order_and_threads_used(two_threads):
    names = set()

    def kernel(lo, hi):
        names.add(threading.current_thread().name)
        return (lo, hi)

    spans = run_spans(kernel, 1000)
    assert len(spans) == 2 * SPANS_PER_THREAD
    assert spans[0][0] == 0 and spans[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert sum(hi - lo for lo, hi in spans) == 1000
    assert threading.current_thread().name in names  # the caller works too


def test_threads_for_below_its_minimum_runs_inline(two_threads):
    with threads_for(10, minimum=100):
        assert run_spans(lambda lo, hi: threading.current_thread().name, 50) == [threading.current_thread().name]


def test_an_error_in_a_span_is_raised_in_the_caller(two_threads):
    def kernel(lo, hi):
        if lo <= 500 < hi:
            raise ValueError("span with 500")

    with pytest.raises(ValueError, match="span with 500"):
        run_spans(kernel, 1000)


def test_nested_calls_do_not_deadlock(two_threads):
    total = np.zeros(1, dtype=np.int64)
    lock = threading.Lock()

    def inner(lo, hi):
        with lock:
            total[0] += hi - lo

    def outer(lo, hi):
        for _ in range(lo, hi):
            run_spans(inner, 100)

    done = threading.Event()
    worker = threading.Thread(target=lambda: (run_spans(outer, 64), done.set()), daemon=True)
    worker.start()
    worker.join(60)
    assert done.is_set(), "nested run_spans did not finish in 60 s"
    assert total[0] == 64 * 100
