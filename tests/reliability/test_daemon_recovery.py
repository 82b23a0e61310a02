"""Durable queue over a real crash: SIGKILL the daemon with one job proving, three queued and
one finished, restart it on the same state directory, and every job completes exactly once."""

from __future__ import annotations

import sqlite3

from daemon_helpers import Daemon
from groth16_oracle import assert_proves
from reliability_helpers import CID, WAIT_MS, vanilla
from synthetic_engine import wait_state

from cuzk.proto import proving_pb2 as pb
from cuzk.server.convert import public_inputs_from_proto

S = pb.AwaitProofResponse


def test_sigkill_then_restart_resumes_and_keeps_outcomes(tmp_path, param_dir):
    d = Daemon(tmp_path / "d", param_dir, faults="delay=slow-:3000")
    inputs = {"done-1": vanilla(1), "slow-1": vanilla(2), **{f"q-{i}": vanilla(10 + i) for i in range(3)}}
    try:
        d.start()
        with d.client() as c:
            before = c.prove(request_id="done-1", circuit_id=CID, vanilla_proof=inputs["done-1"],
                             timeout_ms=WAIT_MS)
            assert before.status == S.COMPLETED
            c.submit(request_id="slow-1", circuit_id=CID, vanilla_proof=inputs["slow-1"])
            wait_state(c, "slow-1", (pb.JOB_PROVING,))
            c.pause(True)
            for i in range(3):
                c.submit(request_id=f"q-{i}", circuit_id=CID, vanilla_proof=inputs[f"q-{i}"])
        d.kill()  # SIGKILL: no drain, nothing flushed but what the journal already committed

        d.start()  # same config, same state dir
        with d.client() as c:
            for jid, v in inputs.items():  # each proves its own request's statement (outside oracle, .vk on disk)
                r = c.await_proof(jid, WAIT_MS)
                assert r.status == S.COMPLETED, (jid, r.error_message)
                assert_proves(param_dir, CID, v, r.proof, public_inputs_from_proto(r))
            assert c.await_proof("done-1", WAIT_MS).proof == before.proof  # the outcome, kept
            for jid, v in inputs.items():  # a request_id still names the same job
                dup = c.submit(request_id=jid, circuit_id=CID, vanilla_proof=v)
                assert dup.duplicate and dup.job_id == jid
            assert c.status().total_proofs_completed == 4  # this run proved the four unfinished jobs, once each
        assert "resumed 4 unfinished job(s) (1 interrupted while running), 1 finished" in d.log_text(100_000)
        assert d.terminate(300) == 0
        db = sqlite3.connect(str(d.workdir / "jobs.sqlite3"))
        rows = db.execute("SELECT job_id, state FROM jobs ORDER BY job_id").fetchall()
        db.close()
        assert rows == [(jid, pb.JOB_COMPLETED) for jid in sorted(inputs)]  # one row each, all terminal
    finally:
        d.stop()
