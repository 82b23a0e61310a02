"""Job store: idempotent insertion and bounded retention of finished jobs."""

import time

from engine_helpers import job, plain_spec

from cuzk.engine.jobs.store import InMemoryJobStore
from cuzk.engine.types import JobState

SPEC = plain_spec("one", batchable=False)


def test_add_is_idempotent_by_id():
    s = InMemoryJobStore()
    a = job(SPEC, name="req-1")
    b = job(SPEC, name="req-1")
    assert s.add(a) == (a, True)
    assert s.add(b) == (a, False)
    assert s.get("req-1") is a and s.active() == [a]


def test_finished_jobs_move_out_of_active_and_expire():
    s = InMemoryJobStore(retention_s=0.05, max_finished=10)
    a = job(SPEC)
    s.add(a)
    a.finish(JobState.COMPLETED, proof=b"x")
    s.record(a)
    assert s.active() == [] and s.get(a.job_id) is a
    time.sleep(0.1)
    s.add(job(SPEC))  # any insertion prunes
    assert s.get(a.job_id) is None


def test_max_finished_bounds_memory():
    s = InMemoryJobStore(retention_s=3600, max_finished=3)
    jobs = [job(SPEC) for _ in range(5)]
    for j in jobs:
        s.add(j)
        j.finish(JobState.FAILED, error="x")
        s.record(j)
    assert [s.get(j.job_id) is not None for j in jobs] == [False, False, True, True, True]
