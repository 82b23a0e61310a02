"""The job journal (SQLite, WAL, fsync on accept) and recovery from it, in process.

A crash is imitated by closing the journal under a running engine (nothing
it does afterwards reaches the file), then opening a second engine on the
same state directory; the SIGKILL version is test_daemon_recovery.py."""

from __future__ import annotations

import time

import pytest
from post_requests import CIRCUITS, assert_post_proves, request_fields
from reliability_helpers import CID, make_engine, vanilla

from cuzk.engine import JobState, ProofKind, ProofRequest
from cuzk.engine.jobs.job import Job
from cuzk.engine.jobs.store import JournalingJobStore
from cuzk.engine.jobs.journal import Journal, JournalError, decode_request, encode_request
from cuzk.engine.catalog.registry import CircuitSpec
from cuzk.engine.types import Priority


def _spec():
    return CircuitSpec("c-tiny", ProofKind.WINNING_POST, "bls12_381", 1, False, Priority.NORMAL, None,
                       *(lambda *_: None,) * 4, working_bytes=lambda: 0)


def test_pragmas_and_request_round_trip(tmp_path):
    j = Journal(tmp_path)
    try:
        assert j.pragma("journal_mode") == "wal"
        assert j.pragma("synchronous") == 2  # FULL: the WAL is fsynced at every commit
        req = ProofRequest(proof_kind=ProofKind.SNAP_DEALS_UPDATE, circuit_id="x", request_id="r", priority=3,
                           vanilla_proof=b"\x00\x01" * 1000, vanilla_proofs=[b"a", b"", b"ccc"], sector_size=2048,
                           registered_proof=7, sector_number=9, miner_id=1000, randomness=b"\xff" * 32,
                           partition_index=2, comm_r_old=b"o", comm_r_new=b"n", comm_d_new=b"d")
        assert decode_request(*encode_request(req)) == req
    finally:
        j.close()


def test_one_journal_per_state_dir(tmp_path):
    j = Journal(tmp_path)
    try:
        with pytest.raises(JournalError, match="another daemon uses this state directory"):
            Journal(tmp_path)
    finally:
        j.close()
    Journal(tmp_path).close()  # the lock went with the first


def test_rows_outcomes_and_retention(tmp_path):
    j = Journal(tmp_path, retention_s=60, max_finished=2)
    try:
        jobs = [Job(f"j{i}", ProofRequest(circuit_id="c-tiny", vanilla_proof=b"v%d" % i), _spec(), Priority.HIGH, i)
                for i in range(4)]
        for job in jobs:
            j.insert(job, "unix")
        for job in jobs[:3]:
            job.finish(JobState.COMPLETED, proof=b"P" * 192)
            j.finish(job)
        rows = {r.job_id: r for r in j.rows()}
        assert sorted(rows) == ["j1", "j2", "j3"]  # max_finished = 2 dropped the oldest finished one
        assert rows["j1"].proof == b"P" * 192 and rows["j1"].request.vanilla_proof == b""  # input dropped at the end
        assert rows["j1"].fingerprint == jobs[1].fingerprint
        assert rows["j3"].finished_wall is None and rows["j3"].request.vanilla_proof == b"v3"
        assert rows["j3"].client == "unix" and rows["j3"].priority == Priority.HIGH
        assert j.prune(now=time.time() + 61) == 2  # past retention: finished rows go, unfinished stay
        assert [r.job_id for r in j.rows()] == ["j3"]
    finally:
        j.close()


def test_restart_resumes_queued_jobs_and_keeps_outcomes(tmp_path, param_dir, filecoin_params):
    """Among the queued jobs a WindowPoSt request as Curio sends it: its vanilla proofs, randomness and
    registered proof come back from the journal, and its proof verifies (outside oracle)."""
    state = tmp_path / "state"
    post = request_fields("window", 41)

    def store():
        return JournalingJobStore(Journal(state), 3600, 100)

    def engine():
        return make_engine(state, param_dir, store=store(), circuits__filecoin_params=str(filecoin_params),
                           synthesis__kernel_threads=0)

    a = engine()
    done = a.prove(ProofRequest(circuit_id=CID, request_id="done", vanilla_proof=vanilla(1)), timeout=600)
    assert done.state == JobState.COMPLETED
    a.pause(True)
    queued = [a.submit(ProofRequest(circuit_id=CID, request_id=f"q{i}", vanilla_proof=vanilla(10 + i))).job_id
              for i in range(3)]
    queued.append(a.submit(ProofRequest(request_id="qpost", **post)).job_id)
    a.store.close()  # the "crash": from here on nothing reaches the journal
    a.shutdown(drain=False)

    b = engine()
    try:
        assert b.recovered == {"resumed": 4, "interrupted": 0, "finished": 1, "failed": 0}
        for jid in queued:
            assert b.await_job(jid, timeout=600).state == JobState.COMPLETED
        r = b.await_job("qpost", timeout=0)
        assert r.circuit_id == CIRCUITS["window"]
        assert_post_proves(filecoin_params, r.circuit_id, post, r.proof, r.public_inputs)
        again = b.await_job("done", timeout=0)
        assert again.state == JobState.COMPLETED and again.proof == done.proof
        dup = b.submit(ProofRequest(circuit_id=CID, request_id="q0", vanilla_proof=vanilla(10)))
        assert dup.duplicate and dup.job_id == "q0"
        fresh = b.submit(ProofRequest(circuit_id=CID, vanilla_proof=vanilla(20)))
        assert b.job(fresh.job_id).seq > max(b.job(j).seq for j in queued)  # numbering continues
        assert b.await_job(fresh.job_id, timeout=600).state == JobState.COMPLETED
    finally:
        b.shutdown(drain=False)
        b.store.close()
