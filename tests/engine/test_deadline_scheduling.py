"""Deadline proofs (WinningPoSt CRITICAL, WindowPoSt HIGH) are not held back by a sector's partitions: a
synthesis worker is kept for them, and a prover queue full of lower partitions takes them anyway."""

from __future__ import annotations

import threading
import time

from engine_helpers import job, plain_spec
from test_engine import TIMEOUT, check, prove_passes, req

from cuzk.engine.pipeline.batch_collector import Batch, BatchCollector
from cuzk.engine.pipeline.prover_queue import Member, ProverQueue, SynthesizedUnit
from cuzk.engine.pipeline.scheduler import Scheduler, WorkUnit
from cuzk.engine.types import Priority

SECTOR = plain_spec("sector", batchable=False)


class _Nothing:
    def release(self):
        pass


class _Device:
    def holds(self, circuit_id):
        return False


def _unit(priority):
    j = job(SECTOR, priority)
    unit = WorkUnit(Batch(SECTOR.circuit_id, [j], time.monotonic()), 0, [j])
    return SynthesizedUnit(unit, [Member(j, None, [])], _Nothing(), _Nothing())


def _started(target, *args) -> threading.Thread:
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


def test_a_full_queue_of_sector_partitions_takes_a_critical_one_first():
    q = ProverQueue(2)
    q.put(_unit(Priority.NORMAL))
    q.put(_unit(Priority.NORMAL))
    third = _unit(Priority.NORMAL)
    blocked = _started(q.put, third)
    blocked.join(0.2)
    assert blocked.is_alive()  # full: the next sector partition waits
    critical = _unit(Priority.CRITICAL)
    urgent = _started(q.put, critical)
    urgent.join(TIMEOUT)
    assert not urgent.is_alive()  # not held back by the lower ones
    assert q.take(_Device()) is critical
    assert len(q) == 2 and blocked.is_alive()  # the critical one did not make room for the third
    q.take(_Device())
    blocked.join(TIMEOUT)
    assert not blocked.is_alive()


def test_a_critical_partition_waits_for_capacity_critical_ones():
    q = ProverQueue(1)
    q.put(_unit(Priority.CRITICAL))
    second = _started(q.put, _unit(Priority.CRITICAL))
    second.join(0.2)
    assert second.is_alive()  # the bound still holds among equals
    q.take(_Device())
    second.join(TIMEOUT)
    assert not second.is_alive()


def test_the_kept_worker_takes_high_and_critical_units_only():
    s = Scheduler(BatchCollector(1, 10.0))
    normal = job(SECTOR, Priority.NORMAL)
    s.submit(normal)
    assert s.pop(timeout=0.05, at_least=Priority.HIGH) is None
    got = {}
    waiting = _started(lambda: got.setdefault("unit", s.pop(timeout=TIMEOUT, at_least=Priority.HIGH)))
    waiting.join(0.1)
    assert waiting.is_alive()
    high = job(SECTOR, Priority.HIGH)
    s.submit(high)
    waiting.join(TIMEOUT)
    assert got["unit"].jobs == [high]
    assert s.pop(timeout=0).jobs == [normal]  # the other workers take everything


def test_a_critical_job_is_synthesized_while_every_worker_is_held_by_sector_work(make_engine, vanilla):
    """One synthesis worker, one prover worker, a queue of one: with the prover held on a NORMAL job, the
    worker fills the queue and then blocks on the next NORMAL partition. A CRITICAL job still gets
    synthesized (by the kept worker) into the full queue, and is proven before the NORMAL ones."""
    engine = make_engine(synthesis__threads=1, synthesis__lookahead=1)
    entered, release = threading.Event(), threading.Event()

    def hold(item):
        if not entered.is_set():
            entered.set()
            release.wait(TIMEOUT)

    engine.fault_injector = hold
    inputs = {}

    def submit(priority):
        v = vanilla()
        job_id = engine.submit(req(v, priority=priority)).job_id
        inputs[job_id] = v
        return job_id

    first = submit(Priority.NORMAL)
    assert entered.wait(TIMEOUT)
    normals = [submit(Priority.NORMAL) for _ in range(2)]
    deadline = time.monotonic() + TIMEOUT
    while len(engine.prover_queue) < 1:  # the queue is full (and the worker then blocks on the other)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    critical = submit(Priority.CRITICAL)
    deadline = time.monotonic() + 120  # kernels are compiled by now: the synthesis itself takes milliseconds
    while len(engine.prover_queue) < 2:  # the critical one joined the full queue
        assert time.monotonic() < deadline, "the critical job was not synthesized while the workers were held"
        time.sleep(0.01)
    release.set()
    for job_id in [first, critical] + normals:
        check(engine, engine.await_job(job_id, TIMEOUT), inputs[job_id])
    proved_at = {j: min(x["t0"] for x in prove_passes(engine, j)) for j in [critical] + normals}
    assert proved_at[critical] < min(proved_at[j] for j in normals)
