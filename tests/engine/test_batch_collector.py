"""Flush rules of the batch collector (cuzk-facts 1.5, issue 6 item 2)."""

from engine_helpers import job, plain_spec

from cuzk.engine.pipeline.batch_collector import BatchCollector
from cuzk.engine.types import Priority

POREP = plain_spec("porep", batchable=True)
SNAP = plain_spec("snap", batchable=True)
WINNING = plain_spec("winning", batchable=False)


def test_full_batch_flushes_at_max_size_and_overflow_starts_the_next():
    c = BatchCollector(max_batch_size=2, max_batch_wait_s=10)
    j1, j2, j3 = job(POREP), job(POREP), job(POREP)
    assert c.add(j1, now=0.0) == []
    (full,) = c.add(j2, now=0.1)
    assert full.jobs == [j1, j2] and full.flush_reason == "full"
    assert c.add(j3, now=0.2) == []
    assert c.pending_jobs() == [j3]
    assert c.next_deadline() == 10.2  # measured from the overflow job's arrival


def test_timeout_flush_measured_from_first_arrival():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=1.0)
    j1, j2 = job(POREP), job(POREP)
    c.add(j1, now=5.0)
    c.add(j2, now=5.9)
    assert c.expired(5.99) == []
    (b,) = c.expired(6.0)
    assert b.jobs == [j1, j2] and b.flush_reason == "timeout"
    assert c.next_deadline() is None


def test_zero_wait_flushes_on_first_check():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=0)
    j1 = job(POREP)
    c.add(j1, now=1.0)
    assert [b.jobs for b in c.expired(1.0)] == [[j1]]


def test_higher_priority_arrival_flushes_lower_batches_first():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=10)
    p1 = job(POREP)
    c.add(p1, now=0.0)
    w = job(WINNING, Priority.CRITICAL)
    flushed = c.add(w, now=0.1)
    assert [b.jobs for b in flushed] == [[p1], [w]]
    assert flushed[0].flush_reason == "priority" and flushed[1].flush_reason == "single"


def test_equal_or_lower_priority_arrival_does_not_flush():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=10)
    p1 = job(POREP, Priority.HIGH)
    c.add(p1, now=0.0)
    flushed = c.add(job(WINNING, Priority.NORMAL), now=0.1)
    assert [len(b) for b in flushed] == [1] and flushed[0].flush_reason == "single"
    assert c.pending_jobs() == [p1]


def test_higher_priority_job_of_same_circuit_takes_the_batch_along():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=10)
    p1 = job(POREP)
    c.add(p1, now=0.0)
    urgent = job(POREP, Priority.CRITICAL)
    (b,) = c.add(urgent, now=0.1)
    assert b.jobs == [p1, urgent] and b.priority == Priority.CRITICAL and b.flush_reason == "priority"


def test_batches_are_per_circuit():
    c = BatchCollector(max_batch_size=2, max_batch_wait_s=10)
    p, s = job(POREP), job(SNAP)
    assert c.add(p, 0.0) == [] and c.add(s, 0.0) == []
    (b,) = c.add(job(SNAP), 0.1)
    assert b.circuit_id == "snap"
    assert c.pending_jobs() == [p]


def test_non_batchable_and_batching_off_bypass():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=10)
    (b,) = c.add(job(WINNING), 0.0)
    assert len(b) == 1
    off = BatchCollector(max_batch_size=1, max_batch_wait_s=10)
    (b,) = off.add(job(POREP), 0.0)
    assert len(b) == 1 and off.pending_jobs() == []


def test_remove_and_flush_all():
    c = BatchCollector(max_batch_size=4, max_batch_wait_s=10)
    j1, j2, s1 = job(POREP), job(POREP), job(SNAP)
    for j in (j1, j2, s1):
        c.add(j, 0.0)
    assert c.remove(j1.job_id) is j1
    assert c.remove("nope") is None
    assert c.remove(s1.job_id) is s1
    (b,) = c.flush_all()
    assert b.jobs == [j2] and b.flush_reason == "shutdown"
    assert c.pending_jobs() == []
