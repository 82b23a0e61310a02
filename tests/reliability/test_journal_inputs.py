"""The journal keeps a request's bytes apart from its job row (schema version 2).

Why it matters: a circom request carries its whole witness (33 MB at 2^20), and
SQLite rewrites a whole row on UPDATE; with the bytes in the job's row every
state change wrote them again (with an fsync) on the proving path. These tests
watch the write-ahead log: after a checkpoint it holds only what later commits
wrote, so its size says how much a state change or a job's end wrote."""

from __future__ import annotations

import sqlite3
import time

import pytest

from cuzk.engine import JobState, ProofKind, ProofRequest
from cuzk.engine.catalog.registry import CircuitSpec
from cuzk.engine.jobs.job import Job
from cuzk.engine.jobs.journal import Journal, JournalError, encode_request
from cuzk.engine.types import Priority

BIG = bytes(range(256)) * (16 << 10)  # 4 MiB of request bytes
SMALL_WRITE = 256 << 10  # a state change of a small row writes a few pages, far below BIG


def _spec():
    return CircuitSpec("c-tiny", ProofKind.WINNING_POST, "bls12_381", 1, False, Priority.NORMAL, None,
                       *(lambda *_: None,) * 4, working_bytes=lambda: 0)


def _wal_after_checkpoint(path, step) -> int:
    """Bytes the WAL holds after `step`, starting from an emptied WAL."""
    db = sqlite3.connect(str(path))
    try:
        assert db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0  # not busy
    finally:
        db.close()
    step()
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_state_changes_and_the_end_do_not_write_the_request_bytes_again(tmp_path):
    j = Journal(tmp_path)
    try:
        job = Job("big", ProofRequest(circuit_id="c-tiny", vanilla_proof=BIG), _spec(), Priority.NORMAL, 1)
        j.insert(job, "unix")
        assert [r.request.vanilla_proof for r in j.rows()] == [BIG]

        def run():
            assert job.mark_started(lambda: 1)
            j.mark_running(job)  # SYNTHESIZING
            assert job.mark_proving()
            j.mark_running(job)  # PROVING

        assert _wal_after_checkpoint(j.path, run) < SMALL_WRITE
        assert [r.state for r in j.rows()] == [JobState.PROVING]
        assert [r.request.vanilla_proof for r in j.rows()] == [BIG]  # still there for a restart

        def end():
            job.finish(JobState.COMPLETED, proof=b"P" * 192)
            j.finish(job)

        assert _wal_after_checkpoint(j.path, end) < SMALL_WRITE  # freed, not overwritten with zeros
        (row,) = j.rows()
        assert row.proof == b"P" * 192 and row.request.vanilla_proof == b""
    finally:
        j.close()


V1_SCHEMA = """
CREATE TABLE jobs (
    job_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, circuit_id TEXT NOT NULL, proof_kind INTEGER NOT NULL,
    priority INTEGER NOT NULL, client TEXT NOT NULL DEFAULT '', fingerprint BLOB NOT NULL, request_meta TEXT NOT NULL,
    vanilla BLOB NOT NULL, state INTEGER NOT NULL, interrupted INTEGER NOT NULL DEFAULT 0,
    submitted_wall REAL NOT NULL, finished_wall REAL, proof BLOB, error TEXT, result_meta TEXT
);
CREATE INDEX jobs_finished ON jobs (finished_wall);
PRAGMA user_version = 1;
"""


def test_a_version_1_journal_is_migrated(tmp_path):
    """Version 1 kept the bytes in jobs.vanilla: an unfinished job's request survives the upgrade."""
    req = ProofRequest(proof_kind=ProofKind.WINNING_POST, circuit_id="c-tiny", request_id="q", vanilla_proof=BIG,
                       vanilla_proofs=[b"a", b"bb"], randomness=b"\x07" * 32)
    meta, blob = encode_request(req)
    now = time.time()  # the finished row must be within its retention
    db = sqlite3.connect(str(tmp_path / "jobs.sqlite3"))
    db.executescript(V1_SCHEMA)
    db.execute("INSERT INTO jobs (job_id, seq, circuit_id, proof_kind, priority, fingerprint, request_meta, vanilla,"
               " state, submitted_wall) VALUES ('q', 1, 'c-tiny', 2, 2, X'01', ?, ?, 0, 1.0)", (meta, blob))
    db.execute("INSERT INTO jobs (job_id, seq, circuit_id, proof_kind, priority, fingerprint, request_meta, vanilla,"
               " state, submitted_wall, finished_wall, proof, result_meta) VALUES"
               " ('d', 0, 'c-tiny', 2, 2, X'02', '{}', X'', 3, ?, ?, X'AA', '{}')", (now - 2, now - 1))
    db.commit()
    db.close()

    j = Journal(tmp_path)
    try:
        assert j.pragma("user_version") == 2
        rows = {r.job_id: r for r in j.rows()}
        assert rows["q"].request == req and rows["q"].finished_wall is None
        assert rows["d"].proof == b"\xaa" and rows["d"].request.vanilla_proof == b""
    finally:
        j.close()
    db = sqlite3.connect(str(tmp_path / "jobs.sqlite3"))
    try:  # the bytes are kept once, in their own table
        assert db.execute("SELECT max(length(vanilla)) FROM jobs").fetchone()[0] == 0
    finally:
        db.close()


def test_a_newer_journal_is_refused(tmp_path):
    db = sqlite3.connect(str(tmp_path / "jobs.sqlite3"))
    db.execute("PRAGMA user_version = 3")
    db.close()
    with pytest.raises(JournalError, match="schema version 3 is not 2"):
        Journal(tmp_path)
