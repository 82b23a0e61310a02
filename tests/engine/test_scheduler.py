"""Scheduler order: priority, FIFO, partitions; pause, cancel, close."""

import threading

from engine_helpers import job, plain_spec

from cuzk.engine.pipeline.batch_collector import BatchCollector
from cuzk.engine.pipeline.scheduler import Scheduler
from cuzk.engine.types import JobState, Priority

ONE = plain_spec("one", batchable=False)
TWO = plain_spec("two", batchable=False, partitions=2)
BATCH = plain_spec("batch", batchable=True)


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def sched(max_batch=1, wait=10.0, clock=None):
    return Scheduler(BatchCollector(max_batch, wait), clock=clock or Clock())


def drain(s):
    out = []
    while (u := s.pop(timeout=0)) is not None:
        out.append(u)
    return out


def test_priority_then_fifo_then_partition():
    s = sched()
    n1, n2 = job(TWO, Priority.NORMAL), job(ONE, Priority.NORMAL)
    low = job(ONE, Priority.LOW)
    crit = job(ONE, Priority.CRITICAL)
    high = job(TWO, Priority.HIGH)
    for j in (low, n1, n2, crit, high):
        s.submit(j)
    order = [(u.jobs[0].job_id, u.partition) for u in drain(s)]
    assert order == [(crit.job_id, 0), (high.job_id, 0), (high.job_id, 1), (n1.job_id, 0), (n1.job_id, 1),
                     (n2.job_id, 0), (low.job_id, 0)]


def test_pause_holds_work_until_resumed():
    s = sched()
    s.pause(True)
    a = job(ONE)
    s.submit(a)
    assert s.pop(timeout=0.05) is None
    s.pause(False)
    assert s.pop(timeout=0).jobs == [a]


def test_batch_timeout_is_applied_when_popping():
    clock = Clock()
    s = sched(max_batch=3, wait=1.0, clock=clock)
    a, b = job(BATCH), job(BATCH)
    s.submit(a)
    s.submit(b)
    assert s.pop(timeout=0) is None
    clock.t = 1.0
    unit = s.pop(timeout=0)
    assert unit.jobs == [a, b] and a.batch_size == 2 and a.batch_id == b.batch_id


def test_waiting_pop_wakes_for_new_work():
    s = sched()
    got = []
    t = threading.Thread(target=lambda: got.append(s.pop(timeout=10)))
    t.start()
    a = job(ONE)
    s.submit(a)
    t.join(10)
    assert got and got[0].jobs == [a]


def test_cancelled_jobs_are_skipped():
    s = sched()
    a, b = job(ONE), job(ONE)
    s.submit(a)
    s.submit(b)
    assert s.cancel(a.job_id)
    a.finish(JobState.CANCELLED, error="cancelled")
    assert [u.jobs for u in drain(s)] == [[b]]


def test_cancel_in_batch_collector():
    s = sched(max_batch=4)
    a = job(BATCH)
    s.submit(a)
    assert s.cancel(a.job_id)
    assert s.batching_jobs() == []


def test_close_keeps_started_jobs_and_returns_unstarted():
    s = sched()
    started, queued = job(TWO), job(ONE)
    s.submit(started)
    s.submit(queued)
    first = s.pop(timeout=0)
    assert first.jobs == [started] and first.partition == 0
    started.mark_started(lambda: 1)
    dropped = s.close(keep_started_only=True)
    assert dropped == [queued]
    rest = drain(s)
    assert [(u.jobs[0], u.partition) for u in rest] == [(started, 1)]
    assert s.pop(timeout=None) is None  # closed and empty: workers exit
