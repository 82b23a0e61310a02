"""The daemon over gRPC (issue 6, "Done when"): a subprocess on a unix socket; the tiny PoSt
workloads (real circuits, cheap) and the synthetic circuit (batching, partitions)."""

from __future__ import annotations

import signal
import time
import urllib.request

import grpc
import pytest
from daemon_helpers import Daemon
from groth16_oracle import verify_job

from cuzk.circuits import get_kind
from cuzk.engine import synthetic
from cuzk.proto import proving_pb2 as pb
from cuzk.server.convert import public_inputs_from_proto, vk_from_proto

WAIT_MS = 900_000  # a cold CI run compiles the kernels inside the daemon first
S = pb.AwaitProofResponse


def vanilla(kind="winning-post-like"):
    if kind == synthetic.FAMILY:
        return synthetic.generate_vanilla("tiny")
    return get_kind(kind).generate_vanilla("tiny")


def verified(client, r) -> bool:
    vk = vk_from_proto(client.verifying_key(r.circuit_id))
    return verify_job(vk, r.proof, public_inputs_from_proto(r))


def wait_state(client, job_id, states, limit=300.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r = client.await_proof(job_id, timeout_ms=20)
        if r.state in states:
            return r
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} never reached {states}")


def test_prove_and_verify(daemon):
    with daemon.client() as c:
        r = c.prove(proof_kind=pb.WINNING_POST, sector_size=2048, vanilla_proof=vanilla(), timeout_ms=WAIT_MS)
        assert r.status == S.COMPLETED, r.error_message
        assert r.circuit_id == "winning-post-like-tiny" and len(r.proof) == 192 and r.priority == pb.CRITICAL
        assert verified(c, r)
        assert r.total_ms >= r.queue_wait_ms
        w = c.prove(proof_kind=pb.WINDOW_POST_PARTITION, vanilla_proof=vanilla("window-post-like"), timeout_ms=WAIT_MS)
        assert w.status == S.COMPLETED and w.circuit_id == "window-post-like-tiny" and w.priority == pb.HIGH
        assert verified(c, w)
        two = c.prove(circuit_id="synthetic-tiny", vanilla_proof=vanilla("synthetic"), timeout_ms=WAIT_MS)
        assert two.status == S.COMPLETED and len(two.proof) == 384 and two.num_partitions == 2
        assert verified(c, two)
        text = c.metrics()
        assert 'cuzk_proofs_completed_total{circuit_id="winning-post-like-tiny",proof_kind="winning_post"}' in text
        assert 'cuzk_proof_phase_seconds_count{phase="prove",proof_kind="unspecified"} 2.0' in text  # per partition
        with urllib.request.urlopen(daemon.metrics_url, timeout=30) as resp:  # daemon.metrics_listen
            assert b"cuzk_memory_bytes" in resp.read()


def test_batch_timeout_flush(daemon):
    with daemon.client() as c:
        r = c.prove(circuit_id="synthetic-tiny", vanilla_proof=vanilla("synthetic"), timeout_ms=WAIT_MS)
        assert r.status == S.COMPLETED and r.batch_size == 1  # max_batch_size 2 never reached: the timer flushed it
        assert verified(c, r)


def test_full_batch_and_overflow_into_the_next(daemon):
    with daemon.client() as c:
        assert c.pause(True)
        try:
            ids = [c.submit(circuit_id="synthetic-tiny", vanilla_proof=vanilla("synthetic")).job_id
                   for _ in range(3)]
        finally:
            c.pause(False)
        r = [c.await_proof(i, WAIT_MS) for i in ids]
        assert all(x.status == S.COMPLETED for x in r), [x.error_message for x in r]
        assert r[0].batch_id == r[1].batch_id and r[0].batch_size == r[1].batch_size == 2
        assert r[2].batch_id != r[0].batch_id and r[2].batch_size == 1
        assert all(verified(c, x) for x in r)


def test_critical_job_behind_queued_normal_jobs_starts_first(daemon):
    with daemon.client() as c:
        c.pause(True)
        try:
            normal = [c.submit(circuit_id="window-post-like-tiny", priority=pb.NORMAL,
                               vanilla_proof=vanilla("window-post-like")).job_id for _ in range(3)]
            crit = c.submit(proof_kind=pb.WINNING_POST, priority=pb.CRITICAL, vanilla_proof=vanilla())
            assert crit.queue_position == 0
        finally:
            c.pause(False)
        rs = {i: c.await_proof(i, WAIT_MS) for i in normal + [crit.job_id]}
        assert all(r.status == S.COMPLETED for r in rs.values())
        assert rs[crit.job_id].start_seq < min(rs[i].start_seq for i in normal)


def test_cancel_queued_and_running(daemon):
    with daemon.client() as c:
        running = c.submit(request_id="hold-cancel-1", proof_kind=pb.WINNING_POST, vanilla_proof=vanilla()).job_id
        wait_state(c, running, (pb.JOB_PROVING,))  # held in proving until cancelled (CUZK_FAULTS hold=)
        c.pause(True)
        try:
            queued = c.submit(proof_kind=pb.WINNING_POST, vanilla_proof=vanilla()).job_id
            cq = c.cancel(queued)
            cr = c.cancel(running)
        finally:
            c.pause(False)
        assert (cq.was_running, cq.state) == (False, pb.JOB_CANCELLED)
        assert (cr.was_running, cr.state) == (True, pb.JOB_CANCELLED)
        for job_id in (queued, running):
            r = c.await_proof(job_id, WAIT_MS)
            assert r.status == S.CANCELLED and r.proof == b""
        ok = c.prove(proof_kind=pb.WINNING_POST, vanilla_proof=vanilla(), timeout_ms=WAIT_MS)
        assert ok.status == S.COMPLETED
        with pytest.raises(grpc.RpcError) as e:
            c.cancel("no-such-job")
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_malformed_input_fails_clearly_and_daemon_keeps_serving(daemon):
    with daemon.client() as c:
        bad = c.prove(proof_kind=pb.WINNING_POST, vanilla_proof=b"\x00garbage" * 10, timeout_ms=WAIT_MS)
        assert bad.status == S.FAILED and "vanilla proof" in bad.error_message and "bad magic" in bad.error_message
        empty = c.prove(proof_kind=pb.WINNING_POST, timeout_ms=WAIT_MS)
        assert empty.status == S.FAILED and "no vanilla proof" in empty.error_message
        failing = c.prove(request_id="fail-1", proof_kind=pb.WINNING_POST, vanilla_proof=vanilla(), timeout_ms=WAIT_MS)
        assert failing.status == S.FAILED and "after 2 attempt(s)" in failing.error_message and failing.retries == 1
        for code, fields in ((grpc.StatusCode.INVALID_ARGUMENT, {"circuit_id": "nope"}),
                             (grpc.StatusCode.INVALID_ARGUMENT, {"proof_kind": 9}),
                             (grpc.StatusCode.INVALID_ARGUMENT, {"proof_kind": pb.WINNING_POST, "sector_size": 12345}),
                             (grpc.StatusCode.INVALID_ARGUMENT, {})):
            with pytest.raises(grpc.RpcError) as e:
                c.submit(vanilla_proof=b"x", **fields)
            assert e.value.code() == code and e.value.details()
        ok = c.prove(proof_kind=pb.WINNING_POST, vanilla_proof=vanilla(), timeout_ms=WAIT_MS)
        assert ok.status == S.COMPLETED and verified(c, ok)


def test_same_request_id_twice_is_one_job(daemon):
    with daemon.client() as c:
        before = c.status().total_proofs_completed
        v = vanilla()
        a = c.submit(request_id="sector-42", proof_kind=pb.WINNING_POST, vanilla_proof=v)
        b = c.submit(request_id="sector-42", proof_kind=pb.WINNING_POST, vanilla_proof=v)
        assert a.job_id == b.job_id == "sector-42" and b.duplicate and not a.duplicate
        r = c.await_proof("sector-42", WAIT_MS)
        assert r.status == S.COMPLETED
        again = c.prove(request_id="sector-42", proof_kind=pb.WINNING_POST, vanilla_proof=v, timeout_ms=WAIT_MS)
        assert again.proof == r.proof  # the same job's result, not a new proof
        assert c.status().total_proofs_completed == before + 1
        with pytest.raises(grpc.RpcError) as e:
            c.submit(request_id="sector-42", proof_kind=pb.WINNING_POST, vanilla_proof=vanilla())
        assert e.value.code() == grpc.StatusCode.ALREADY_EXISTS


def test_status_preload_evict(daemon):
    with daemon.client() as c:
        c.evict("window-post-like-tiny")
        p = c.preload("window-post-like-tiny")
        assert not p.already_loaded and c.preload("window-post-like-tiny").already_loaded
        s = c.status()
        tiers = {x.circuit_id: x for x in s.loaded_srs}
        assert tiers["window-post-like-tiny"].tier == pb.SRSStatus.HOT and tiers["window-post-like-tiny"].size_bytes > 0
        assert s.gpus and s.gpus[0].backend == "cpu" and s.memory_limit_bytes > 0 and s.peak_rss_bytes > 0
        e = c.evict("window-post-like-tiny")
        assert e.was_loaded and e.freed_bytes > 0
        with pytest.raises(grpc.RpcError) as err:
            c.preload("no-such-circuit")
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_sigterm_drains(tmp_path, param_dir):
    d = Daemon(tmp_path / "drain", param_dir, faults="delay=slow-:1500").start()
    try:
        with d.client() as c:
            running = c.submit(request_id="slow-1", proof_kind=pb.WINNING_POST, vanilla_proof=vanilla()).job_id
            wait_state(c, running, (pb.JOB_PROVING,))
            c.pause(True)
            queued = c.submit(proof_kind=pb.WINNING_POST, vanilla_proof=vanilla()).job_id
            # both waits are in flight before the signal: the daemon answers them while it drains
            waits = [c.stub.AwaitProof.future(pb.AwaitProofRequest(job_id=j, timeout_ms=WAIT_MS))
                     for j in (running, queued)]
            d.proc.send_signal(signal.SIGTERM)
            r, q = (w.result(timeout=WAIT_MS / 1e3) for w in waits)
            assert r.status == S.COMPLETED and r.proof
            assert q.status == S.CANCELLED and "shut down" in q.error_message
        assert d.proc.wait(300) == 0, d.log_text()
        assert "drained" in d.log_text()
        assert not d.socket.exists()
    finally:
        d.stop()
