"""Limits (issue 9 item 5): request size, queued jobs per priority and per client, the working-memory
budget; each refusal is RESOURCE_EXHAUSTED with a message naming the setting. Under load the
budget's accounting never goes over its total (sampled continuously)."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from reliability_helpers import CID, make_engine, vanilla, wait_until

from cuzk.engine import JobState, ProofRequest
from cuzk.engine.pipeline import faults
from cuzk.proto import proving_pb2 as pb
from cuzk.server.client import ProvingClient
from cuzk.server.server import DaemonServer

RX = grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.fixture
def served(tmp_path):
    """serve(engine, **server options) -> address of an in-process server on a unix socket."""
    servers = []

    def serve(engine, max_message_bytes=128 << 20):
        sock = tmp_path / f"s{len(servers)}.sock"
        servers.append(DaemonServer(engine, f"unix:{sock}", max_message_bytes, 8).start())
        return f"unix:{sock}"

    yield serve
    for s in servers:
        s.stop(0)


def _refused(fn, code=RX) -> str:
    with pytest.raises(grpc.RpcError) as e:
        fn()
    assert e.value.code() == code, e.value.details()
    return e.value.details()


def test_queue_limits_per_priority_and_client_and_request_size(tmp_path, param_dir, served):
    engine = make_engine(tmp_path / "st", param_dir, limits__max_queued_per_priority={"normal": 2},
                         limits__max_queued_per_client=3)
    engine.pause(True)  # everything stays queued
    addr = served(engine, max_message_bytes=64 << 10)
    try:
        with ProvingClient(addr, client_id="a") as a, ProvingClient(addr, client_id="b") as b:
            def sub(c, prio, seed, **kw):
                return c.submit(circuit_id=CID, priority=prio, vanilla_proof=vanilla(seed), **kw)

            first = sub(a, pb.NORMAL, 1, request_id="a-1")
            sub(a, pb.NORMAL, 2)
            msg = _refused(lambda: sub(b, pb.NORMAL, 3))
            assert "limits.max_queued_per_priority.normal = 2" in msg
            sub(a, pb.HIGH, 4)  # another priority's queue
            msg = _refused(lambda: sub(a, pb.LOW, 5))
            assert "client 'id:a' has 3 job(s) queued" in msg and "limits.max_queued_per_client = 3" in msg
            sub(b, pb.LOW, 6)  # another client
            dup = sub(a, pb.NORMAL, 1, request_id="a-1")  # a duplicate is no new job: never refused
            assert dup.duplicate and dup.job_id == first.job_id
            a.cancel(first.job_id)
            sub(a, pb.NORMAL, 7)  # room again
            with ProvingClient(addr) as anon:  # no client id: the peer ("unix")
                sub(anon, pb.LOW, 8)
            msg = _refused(lambda: a.submit(circuit_id=CID, vanilla_proof=b"\x00" * (100 << 10)))
            assert "larger than max" in msg.lower() or "message" in msg.lower()
            assert {j.client for j in engine.store.active()} == {"id:a", "id:b", "unix"}
    finally:
        engine.shutdown(drain=False)


def test_a_job_larger_than_the_budget_is_refused_at_submit(tmp_path, param_dir, served):
    engine = make_engine(tmp_path / "st", param_dir, memory__total_budget="16KiB")
    try:
        with ProvingClient(served(engine)) as c:
            msg = _refused(lambda: c.submit(circuit_id=CID, vanilla_proof=vanilla(1)))
        assert CID in msg and "memory.total_budget" in msg and "16.0 KiB" in msg
        assert engine.store.active() == []  # nothing was accepted
    finally:
        engine.shutdown(drain=False)


def test_budget_never_exceeded_under_load(tmp_path, param_dir):
    probe = make_engine(tmp_path / "probe", param_dir)
    try:
        probe.preload(CID)
        hot = probe.srs.hot_bytes()
        per_job = probe.registry.get(CID).working_bytes()  # one partition's
    finally:
        probe.shutdown(drain=False)
    total = hot + 2 * per_job + per_job // 2  # parameters plus two jobs' working sets
    engine = make_engine(tmp_path / "st", param_dir, memory__total_budget=str(total), synthesis__threads=2,
                         synthesis__lookahead=4)
    engine.fault_injector = faults.parse("hold=hold-")  # held jobs keep their memory while "proving"
    budget = engine.budget
    seen = {"max": 0, "samples": 0, "waiting": 0}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            used = budget.used
            seen["max"] = max(seen["max"], used)
            seen["samples"] += 1
            seen["waiting"] = max(seen["waiting"], budget.waiting)
            time.sleep(0.0005)  # leave the GIL to the workers between samples

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        held = [engine.submit(ProofRequest(circuit_id=CID, request_id=f"hold-{i}",
                                           vanilla_proof=vanilla(100 + i))).job_id for i in range(2)]
        rest = [engine.submit(ProofRequest(circuit_id=CID, vanilla_proof=vanilla(200 + i))).job_id
                for i in range(8)]
        # the two held jobs fill the budget: the next synthesis must wait (backpressure), not overshoot
        wait_until(lambda: budget.waiting >= 1, what="a synthesis waiting for memory")
        assert budget.used <= total
        for jid in held:
            engine.cancel(jid)
        for jid in rest:
            assert engine.await_job(jid, timeout=600).state == JobState.COMPLETED
    finally:
        stop.set()
        sampler.join()
        engine.shutdown(drain=False)
    assert seen["samples"] > 0 and seen["waiting"] >= 1
    assert seen["max"] <= total and budget.peak <= total
    assert budget.peak >= hot + 2 * per_job  # the budget was really the binding constraint
    assert budget.used == engine.srs.hot_bytes()  # every job's reservation was given back
