"""The durable job journal: one SQLite database (WAL mode) in the daemon's state directory.

Why: an accepted job must survive a crash of the daemon. A job's row is
committed with `PRAGMA synchronous=FULL` (the WAL is fsynced at commit)
before SubmitProof returns; state changes and the outcome (proof bytes,
error, timings) are written as they happen. After a crash the restarted
daemon reads the rows back: unfinished jobs are run again, finished ones
answer AwaitProof until their retention ends.

The request is kept as it arrived (a JSON header of its scalar fields plus
the vanilla proof bytes) and dropped once the job ends; the fingerprint is
kept so a reused request_id is still recognised after a restart.

The vanilla bytes live in their own table (`inputs`, schema version 2), not in
the job's row: SQLite rewrites a whole row on UPDATE, so with the bytes in
`jobs` each state change of a circom job (a 2^20-wire witness is 33 MB) wrote
them again into the WAL with an fsync, twice per job, on the synthesis and
prover threads (2^18 on the 2-core VM: 40-53 ms of a proof's 166 ms outside the
prover). Freed pages are not zero-filled (`secure_delete = FAST`; Debian's
SQLite zero-fills by default, which wrote the bytes once more when a job
ended); they are reused by the next request. A version-1 journal is migrated
when opened; an older daemon refuses a version-2 one.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import EngineError
from ..types import JobState, ProofKind, ProofRequest

FILE_NAME = "jobs.sqlite3"
SCHEMA_VERSION = 2  # 2: the vanilla bytes moved from jobs.vanilla (kept, empty) to inputs

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    circuit_id TEXT NOT NULL,
    proof_kind INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    client TEXT NOT NULL DEFAULT '',
    fingerprint BLOB NOT NULL,
    request_meta TEXT NOT NULL,
    vanilla BLOB NOT NULL,
    state INTEGER NOT NULL,
    interrupted INTEGER NOT NULL DEFAULT 0,
    submitted_wall REAL NOT NULL,
    finished_wall REAL,
    proof BLOB,
    error TEXT,
    result_meta TEXT
);
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (finished_wall);
CREATE TABLE IF NOT EXISTS inputs (
    job_id TEXT PRIMARY KEY,
    vanilla BLOB NOT NULL
);
"""
# version 1 kept the bytes in jobs.vanilla: move those of unfinished jobs, empty the column
_MIGRATE_1 = """
BEGIN;
INSERT OR IGNORE INTO inputs (job_id, vanilla) SELECT job_id, vanilla FROM jobs WHERE finished_wall IS NULL;
UPDATE jobs SET vanilla = X'' WHERE length(vanilla) > 0;
COMMIT;
"""

_BYTES_FIELDS = ("randomness", "comm_r_old", "comm_r_new", "comm_d_new")
_SCALAR_FIELDS = ("circuit_id", "request_id", "priority", "sector_size", "registered_proof", "sector_number",
                  "miner_id", "partition_index")


class JournalError(EngineError):
    """The journal cannot be opened or written (the job is not accepted)."""


@dataclass
class JournalRow:
    """One job as the journal holds it."""

    job_id: str
    seq: int
    circuit_id: str
    proof_kind: int
    priority: int
    client: str
    fingerprint: bytes
    request: ProofRequest
    state: JobState
    interrupted: int
    submitted_wall: float
    finished_wall: float | None
    proof: bytes = b""
    error: str = ""
    result: dict = field(default_factory=dict)


# ---- request (de)serialization ------------------------------------------------------------


def encode_request(req: ProofRequest) -> tuple[str, bytes]:
    """(JSON header, vanilla bytes): vanilla_proof followed by each vanilla_proofs entry, length-prefixed."""
    meta = {k: getattr(req, k) for k in _SCALAR_FIELDS}
    meta["proof_kind"] = int(req.proof_kind)
    meta.update({k: getattr(req, k).hex() for k in _BYTES_FIELDS})
    meta["n_proofs"] = len(req.vanilla_proofs)
    parts = [req.vanilla_proof, *req.vanilla_proofs]
    blob = b"".join(struct.pack("<Q", len(p)) + bytes(p) for p in parts)
    return json.dumps(meta, sort_keys=True), blob


def decode_request(meta_text: str, blob: bytes) -> ProofRequest:
    meta = json.loads(meta_text)
    parts, off = [], 0
    while off < len(blob):
        (n,) = struct.unpack_from("<Q", blob, off)
        off += 8
        if off + n > len(blob):
            raise JournalError("journal: a stored request's vanilla bytes are truncated")
        parts.append(bytes(blob[off:off + n]))
        off += n
    if len(parts) != 1 + meta["n_proofs"]:
        raise JournalError("journal: a stored request's vanilla proof count does not match its header")
    kind = meta["proof_kind"]
    return ProofRequest(
        proof_kind=ProofKind(kind) if kind in ProofKind._value2member_map_ else kind,
        vanilla_proof=parts[0], vanilla_proofs=parts[1:],
        **{k: meta[k] for k in _SCALAR_FIELDS},
        **{k: bytes.fromhex(meta[k]) for k in _BYTES_FIELDS},
    )


# ---- the journal --------------------------------------------------------------------------


class Journal:
    def __init__(self, state_dir, retention_s: float = 3600.0, max_finished: int = 10000):
        self.path = Path(state_dir) / FILE_NAME
        self.retention_s = retention_s
        self.max_finished = max_finished
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lockfd = os.open(str(self.path) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the job journal ({exc.strerror})") from None
        try:
            fcntl.flock(self._lockfd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lockfd)
            raise JournalError(f"{self.path}: another daemon uses this state directory's job journal") from None
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise JournalError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")  # fsync the WAL at every commit
            self._db.execute("PRAGMA secure_delete=FAST")  # a finished job's bytes are freed, not overwritten
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, 1, SCHEMA_VERSION):
                raise JournalError(f"{self.path}: journal schema version {version} is not {SCHEMA_VERSION}")
            self._db.executescript(_SCHEMA)
            if version == 1:
                self._db.executescript(_MIGRATE_1)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            os.close(self._lockfd)
            raise JournalError(f"{self.path}: cannot open the job journal ({exc})") from None
        self._last_prune = 0.0

    def pragma(self, name: str):
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def _write(self, sql: str, args: tuple) -> None:
        with self._lock:
            try:
                self._db.execute(sql, args)
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot write the job journal ({exc})") from None

    def _transaction(self, steps: list[tuple[str, tuple]]) -> None:
        """Several statements committed together (one fsync), or none of them."""
        with self._lock:
            try:
                self._db.execute("BEGIN")
                try:
                    for sql, args in steps:
                        self._db.execute(sql, args)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot write the job journal ({exc})") from None

    def insert(self, job, client: str = "") -> None:
        """Commit an accepted job (durable when this returns): its row, and its request's bytes apart."""
        meta, blob = encode_request(job.request)
        self._transaction([
            ("INSERT INTO jobs (job_id, seq, circuit_id, proof_kind, priority, client, fingerprint, request_meta,"
             " vanilla, state, submitted_wall) VALUES (?,?,?,?,?,?,?,?,X'',?,?)",
             (job.job_id, job.seq, job.circuit_id, int(job.spec.proof_kind), int(job.priority), client,
              job.fingerprint, meta, int(job.state), job.submitted_wall)),
            ("INSERT OR REPLACE INTO inputs (job_id, vanilla) VALUES (?,?)", (job.job_id, blob)),
        ])

    def mark_running(self, job) -> None:
        self._write("UPDATE jobs SET state=? WHERE job_id=? AND finished_wall IS NULL",
                    (int(job.state), job.job_id))

    def finish(self, job) -> None:
        """Store the outcome and drop the request's bytes (no longer needed)."""
        result = {"timings": job.timings.as_dict(), "batch_id": job.batch_id, "batch_size": job.batch_size,
                  "start_seq": job.start_seq, "retries": job.retries,
                  "public_inputs": [[str(x) for x in p] for p in job.public_inputs]}
        self._transaction([
            ("UPDATE jobs SET state=?, finished_wall=?, proof=?, error=?, result_meta=?, request_meta='{}'"
             " WHERE job_id=?",
             (int(job.state), job.finished_wall or time.time(), job.proof, job.error, json.dumps(result),
              job.job_id)),
            ("DELETE FROM inputs WHERE job_id=?", (job.job_id,)),
        ])
        if time.monotonic() - self._last_prune > 10.0:
            self.prune()

    def note_interrupted(self, job_id: str, count: int) -> None:
        self._write("UPDATE jobs SET interrupted=?, state=? WHERE job_id=?", (count, int(JobState.QUEUED), job_id))

    def prune(self, now: float | None = None) -> int:
        """Forget finished jobs past their retention, and beyond max_finished (oldest first)."""
        now = time.time() if now is None else now
        self._last_prune = time.monotonic()
        with self._lock:
            try:
                n = self._db.execute("DELETE FROM jobs WHERE finished_wall IS NOT NULL AND finished_wall < ?",
                                     (now - self.retention_s,)).rowcount
                n += self._db.execute(
                    "DELETE FROM jobs WHERE finished_wall IS NOT NULL AND job_id NOT IN (SELECT job_id FROM jobs"
                    " WHERE finished_wall IS NOT NULL ORDER BY finished_wall DESC LIMIT ?)",
                    (self.max_finished,)).rowcount
                # a safety net: bytes whose job ended or is gone (insert and finish keep them in step)
                self._db.execute("DELETE FROM inputs WHERE job_id NOT IN (SELECT job_id FROM jobs"
                                 " WHERE finished_wall IS NULL)")
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot prune the job journal ({exc})") from None
        return n

    def rows(self) -> list[JournalRow]:
        """Every retained job, in submission order."""
        self.prune()
        with self._lock:
            cur = self._db.execute(
                "SELECT job_id, seq, circuit_id, proof_kind, priority, client, fingerprint, request_meta,"
                " coalesce(inputs.vanilla, X''), state, interrupted, submitted_wall, finished_wall, proof, error,"
                " result_meta FROM jobs LEFT JOIN inputs USING (job_id) ORDER BY seq")
            raw = cur.fetchall()
        out = []
        for (job_id, seq, cid, kind, prio, client, fp, meta, blob, state, intr, sub, fin, proof, err, res) in raw:
            request = decode_request(meta, blob) if fin is None else ProofRequest(circuit_id=cid)
            out.append(JournalRow(job_id, seq, cid, kind, prio, client, bytes(fp), request, JobState(state), intr,
                                  sub, fin, bytes(proof or b""), err or "", json.loads(res) if res else {}))
        return out

    def close(self) -> None:
        with self._lock:
            if self._lockfd < 0:
                return
            self._db.close()
            os.close(self._lockfd)  # releases the lock
            self._lockfd = -1
