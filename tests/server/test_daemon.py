"""The daemon over gRPC (issue 6, "Done when"): a subprocess on a unix socket; Filecoin's 2 KiB
WindowPoSt from requests as Curio sends them (real circuit, test parameters) and the synthetic
circuit (batching, partitions, cancel, retries, the mechanics)."""

from __future__ import annotations

import json
import signal
import time
import urllib.request

import grpc
import pytest
from daemon_helpers import Daemon
from groth16_oracle import assert_proves, vk_file, vk_file_points
from post_requests import CIRCUITS, assert_post_proves, request_fields, vk_path
from synthetic_engine import wait_state

from cuzk.engine.catalog import synthetic
from cuzk.proto import proving_pb2 as pb
from cuzk.server.convert import public_inputs_from_proto

WAIT_MS = 900_000  # a cold CI run compiles the kernels inside the daemon first
S = pb.AwaitProofResponse
SYN = "synthetic-tiny"
WINDOW = CIRCUITS["window"]


def vanilla():
    return synthetic.generate_vanilla("tiny")


def verified(param_dir, r, v: bytes) -> bool:
    """The proof verifies (outside oracle) against the statement of the vanilla proof `v` under the
    .vk the daemon generated, and the daemon reported that statement's public inputs."""
    assert_proves(param_dir, r.circuit_id, v, r.proof, public_inputs_from_proto(r))
    return True


def post_verified(filecoin_params, r, fields: dict) -> bool:
    """The same for a PoSt request: under the .vk `cuzk setup --kind` wrote, against the statement a
    verifier derives from the request."""
    assert_post_proves(filecoin_params, r.circuit_id, fields, r.proof, public_inputs_from_proto(r))
    return True


def test_prove_and_verify(daemon, param_dir, filecoin_params):
    with daemon.client() as c:
        fields = request_fields("window", 5)  # proof_kind, vanilla_proofs, registered_proof, randomness, ...
        t0 = time.monotonic()
        r = c.prove(timeout_ms=WAIT_MS, **fields)
        waited_ms = (time.monotonic() - t0) * 1e3
        assert r.status == S.COMPLETED, r.error_message
        assert r.circuit_id == WINDOW and len(r.proof) == 192 and r.priority == pb.HIGH
        assert post_verified(filecoin_params, r, fields)
        # one partition: its phases follow each other inside its time in the daemon, inside this call
        assert r.queue_wait_ms + r.srs_load_ms + r.synthesis_ms + r.gpu_compute_ms <= r.total_ms + 3, r  # whole ms
        assert r.gpu_compute_ms > 0 and r.total_ms <= waited_ms + 1
        vk = c.verifying_key(r.circuit_id)  # GetVerifyingKey serves the key on disk, by its Filecoin name
        disk = vk_file_points(vk_path(filecoin_params, "window"))
        assert [vk.alpha_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g2] == [disk[k] for k in
                                                                     ("alpha_g1", "beta_g2", "gamma_g2", "delta_g2")]
        assert list(vk.ic) == disk["ic"]
        v = vanilla()
        two = c.prove(circuit_id=SYN, vanilla_proof=v, timeout_ms=WAIT_MS)
        assert two.status == S.COMPLETED and len(two.proof) == 384 and two.num_partitions == 2
        assert verified(param_dir, two, v)
        vk = c.verifying_key(SYN)  # and the key it generated for a built-in circuit
        assert list(vk.ic) == vk_file_points(vk_file(param_dir, SYN))["ic"]
        text = c.metrics()
        assert 'cuzk_proofs_completed_total{circuit_id="window-post-2KiB",proof_kind="window_post"}' in text
        assert 'cuzk_proof_phase_seconds_count{phase="prove",proof_kind="unspecified"} 2.0' in text  # per partition
        with urllib.request.urlopen(daemon.metrics_url, timeout=30) as resp:  # daemon.metrics_listen
            assert b"cuzk_memory_bytes" in resp.read()


def test_batch_timeout_flush(daemon, param_dir):
    with daemon.client() as c:
        v = vanilla()
        r = c.prove(circuit_id=SYN, vanilla_proof=v, timeout_ms=WAIT_MS)
        assert r.status == S.COMPLETED and r.batch_size == 1  # max_batch_size 2 never reached: the timer flushed it
        assert r.queue_wait_ms >= 300 * 0.99  # it waited max_batch_wait_ms for a second job first
        assert verified(param_dir, r, v)


def prove_passes(events: list[dict], job_id: str) -> list[dict]:
    """The prover passes (successful top-level "prove" spans of GetTrace) that included `job_id`, each
    with the indices of the proofs whose phases lie inside it (one per proof the pass made)."""
    passes = [e for e in events if e.get("ev") == "span" and e["stage"] == "prove" and e["depth"] == 0
              and e["ok"] and job_id in e["jobs"]]
    for x in passes:
        x["proofs"] = {e["proof"] for e in events if e.get("ev") == "span" and e["depth"] == 1
                       and e.get("parent") == "prove" and e["lane"] == x["lane"] and e["unit"] == x["unit"]
                       and x["t0"] <= e["t0"] <= e["t1"] <= x["t1"]}
    return passes


def test_full_batch_and_overflow_into_the_next(daemon, param_dir):
    with daemon.client() as c:
        inputs = [vanilla() for _ in range(3)]
        assert c.pause(True)
        try:
            ids = [c.submit(circuit_id=SYN, vanilla_proof=v).job_id for v in inputs]
        finally:
            c.pause(False)
        r = [c.await_proof(i, WAIT_MS) for i in ids]
        assert all(x.status == S.COMPLETED for x in r), [x.error_message for x in r]
        assert all(verified(param_dir, x, v) for x, v in zip(r, inputs))
        events = [json.loads(line) for line in c.trace(0).splitlines()]
    a, b, over = ids
    for job_id in (a, b):  # each partition of the full batch: one prove_batch pass making both proofs
        passes = prove_passes(events, job_id)
        assert sorted(x["partition"] for x in passes) == [0, 1], passes
        assert all(sorted(x["jobs"]) == sorted([a, b]) and x["proofs"] == {0, 1} for x in passes), passes
    passes = prove_passes(events, over)  # the overflow: proven alone
    assert sorted(x["partition"] for x in passes) == [0, 1]
    assert all(x["jobs"] == [over] and x["proofs"] == {0} for x in passes), passes
    assert r[0].batch_id == r[1].batch_id and r[0].batch_size == r[1].batch_size == 2
    assert r[2].batch_id != r[0].batch_id and r[2].batch_size == 1


def test_critical_job_behind_queued_normal_jobs_starts_first(daemon, filecoin_params):
    with daemon.client() as c:
        inputs = {}
        c.pause(True)
        try:
            for seed in range(3):
                fields = request_fields("window", 20 + seed)
                inputs[c.submit(priority=pb.NORMAL, **fields).job_id] = fields
            normal = list(inputs)
            fields = request_fields("window", 30)
            crit = c.submit(priority=pb.CRITICAL, **fields)
            inputs[crit.job_id] = fields
            assert crit.queue_position == 0
        finally:
            c.pause(False)
        rs = {i: c.await_proof(i, WAIT_MS) for i in normal + [crit.job_id]}
        assert all(r.status == S.COMPLETED and post_verified(filecoin_params, r, inputs[i]) for i, r in rs.items())
        assert rs[crit.job_id].start_seq < min(rs[i].start_seq for i in normal)


def test_cancel_queued_and_running(daemon):
    with daemon.client() as c:
        running = c.submit(request_id="hold-cancel-1", circuit_id=SYN, vanilla_proof=vanilla()).job_id
        wait_state(c, running, (pb.JOB_PROVING,))  # held in proving until cancelled (CUZK_FAULTS hold=)
        c.pause(True)
        try:
            queued = c.submit(circuit_id=SYN, vanilla_proof=vanilla()).job_id
            cq = c.cancel(queued)
            cr = c.cancel(running)
        finally:
            c.pause(False)
        assert (cq.was_running, cq.state) == (False, pb.JOB_CANCELLED)
        assert (cr.was_running, cr.state) == (True, pb.JOB_CANCELLED)
        for job_id in (queued, running):
            r = c.await_proof(job_id, WAIT_MS)
            assert r.status == S.CANCELLED and r.proof == b""
        ok = c.prove(circuit_id=SYN, vanilla_proof=vanilla(), timeout_ms=WAIT_MS)
        assert ok.status == S.COMPLETED
        with pytest.raises(grpc.RpcError) as e:
            c.cancel("no-such-job")
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_malformed_input_fails_clearly_and_daemon_keeps_serving(daemon, param_dir):
    with daemon.client() as c:
        bad = c.prove(circuit_id=SYN, vanilla_proof=b"\x00garbage" * 10, timeout_ms=WAIT_MS)
        assert bad.status == S.FAILED and "vanilla proof" in bad.error_message and "bad magic" in bad.error_message
        empty = c.prove(circuit_id=SYN, timeout_ms=WAIT_MS)
        assert empty.status == S.FAILED and "no vanilla proof" in empty.error_message
        failing = c.prove(request_id="fail-1", circuit_id=SYN, vanilla_proof=vanilla(), timeout_ms=WAIT_MS)
        assert failing.status == S.FAILED and "after 2 attempt(s)" in failing.error_message and failing.retries >= 1
        # a PoSt request whose vanilla proofs do not decode is refused at submit, naming the proof
        post = request_fields("window", 6)
        with pytest.raises(grpc.RpcError) as e:
            c.submit(**{**post, "vanilla_proofs": [b"\x00garbage" * 10]})
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "vanilla_proofs[0]" in e.value.details()
        for code, fields in ((grpc.StatusCode.INVALID_ARGUMENT, {"circuit_id": "nope"}),
                             (grpc.StatusCode.INVALID_ARGUMENT, {"proof_kind": 9}),
                             (grpc.StatusCode.INVALID_ARGUMENT, {"proof_kind": pb.WINNING_POST, "sector_size": 12345}),
                             (grpc.StatusCode.INVALID_ARGUMENT, {})):
            with pytest.raises(grpc.RpcError) as e:
                c.submit(vanilla_proof=b"x", **fields)
            assert e.value.code() == code and e.value.details()
        v = vanilla()
        ok = c.prove(circuit_id=SYN, vanilla_proof=v, timeout_ms=WAIT_MS)
        assert ok.status == S.COMPLETED and verified(param_dir, ok, v)


def test_same_request_id_twice_is_one_job(daemon):
    with daemon.client() as c:
        before = c.status().total_proofs_completed
        v = vanilla()
        a = c.submit(request_id="sector-42", circuit_id=SYN, vanilla_proof=v)
        b = c.submit(request_id="sector-42", circuit_id=SYN, vanilla_proof=v)
        assert a.job_id == b.job_id == "sector-42" and b.duplicate and not a.duplicate
        r = c.await_proof("sector-42", WAIT_MS)
        assert r.status == S.COMPLETED
        again = c.prove(request_id="sector-42", circuit_id=SYN, vanilla_proof=v, timeout_ms=WAIT_MS)
        assert again.proof == r.proof  # the same job's result, not a new proof
        assert c.status().total_proofs_completed == before + 1
        with pytest.raises(grpc.RpcError) as e:
            c.submit(request_id="sector-42", circuit_id=SYN, vanilla_proof=vanilla())
        assert e.value.code() == grpc.StatusCode.ALREADY_EXISTS


def test_status_preload_evict(daemon):
    with daemon.client() as c:
        c.evict(SYN)
        p = c.preload(SYN)
        assert not p.already_loaded and c.preload(SYN).already_loaded
        s = c.status()
        tiers = {x.circuit_id: x for x in s.loaded_srs}
        assert tiers[SYN].tier == pb.SRSStatus.HOT and tiers[SYN].size_bytes > 0
        assert s.gpus and s.gpus[0].backend == "cpu" and s.memory_limit_bytes > 0 and s.peak_rss_bytes > 0
        e = c.evict(SYN)
        assert e.was_loaded and e.freed_bytes > 0
        with pytest.raises(grpc.RpcError) as err:
            c.preload("no-such-circuit")
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_sigterm_drains(tmp_path, param_dir):
    d = Daemon(tmp_path / "drain", param_dir, faults="delay=slow-:1500").start()
    try:
        with d.client() as c:
            running = c.submit(request_id="slow-1", circuit_id=SYN, vanilla_proof=vanilla()).job_id
            wait_state(c, running, (pb.JOB_PROVING,))
            c.pause(True)
            queued = c.submit(circuit_id=SYN, vanilla_proof=vanilla()).job_id
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


def test_sigusr1_writes_every_threads_stack_to_the_log_and_the_daemon_keeps_serving(tmp_path, param_dir):
    d = Daemon(tmp_path / "stacks", param_dir).start()
    try:
        before = len(d.log_text(tail=10**9))
        d.proc.send_signal(signal.SIGUSR1)
        end = time.monotonic() + 30
        # the dump is written thread by thread, the main thread last: wait for its frame
        while "serve" not in d.log_text(tail=10**9)[before:] and time.monotonic() < end:
            time.sleep(0.1)
        dump = d.log_text(tail=10**9)[before:]
        assert "Thread 0x" in dump and "serve" in dump  # the main thread waits in cli/daemon.py's serve
        assert d.proc.poll() is None
        with d.client() as c:
            assert c.status() is not None
    finally:
        d.stop()
