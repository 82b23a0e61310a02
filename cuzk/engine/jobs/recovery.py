"""Restoring jobs a crashed daemon left in its journal (engine start).

Unfinished jobs go back into the scheduler in their original order; jobs
that were synthesizing or proving at the crash start over. A job running
at `MAX_INTERRUPTIONS` + 1 crashes in a row fails instead of being run
again, so one input that kills the process cannot crash it forever.
Finished jobs come back with their outcome, for AwaitProof and for
duplicate request_ids, until their retention ends.
"""

from __future__ import annotations

import logging
import time

from cuzk import key_ids

from ..catalog.registry import CircuitSpec
from ..types import JobState, JobTimings, Priority, ProofKind
from .job import Job

log = logging.getLogger("cuzk.engine")

MAX_INTERRUPTIONS = 2


def restore(engine) -> int:
    """Put the journal's jobs back; the highest sequence number among them (0: none), which the engine's
    numbering continues from."""
    rows = engine.store.recover()
    if not rows:
        return 0
    now_wall, now_mono = time.time(), time.monotonic()
    counts = engine.recovered
    for row in rows:
        spec, why = _spec(engine, row, unfinished=row.finished_wall is None)
        job = Job(row.job_id, row.request, spec or _retired_spec(row), Priority(row.priority), row.seq)
        job.fingerprint = row.fingerprint  # finished rows no longer hold the request's bytes
        job.client = row.client
        job.submitted_wall = row.submitted_wall
        job.submitted_at = now_mono - max(0.0, now_wall - row.submitted_wall)
        if row.finished_wall is not None:
            _restore_outcome(job, row, now_wall, now_mono)
            engine.store.adopt(job)
            counts["finished"] += 1
            continue
        job.on_terminal.append(engine.job_ended)
        interrupted = row.interrupted + (1 if row.state.running else 0)
        engine.store.adopt(job)
        if spec is None:
            job.finish(JobState.FAILED, error=why)
            counts["failed"] += 1
        elif interrupted > MAX_INTERRUPTIONS:
            job.finish(JobState.FAILED, error=f"the daemon stopped {interrupted} times while this job was running; "
                                              "it is not run again")
            counts["failed"] += 1
        else:
            if row.state.running:
                engine.store.journal.note_interrupted(job.job_id, interrupted)
                counts["interrupted"] += 1
            engine.scheduler.submit(job)
            counts["resumed"] += 1
    log.info("journal: resumed %d unfinished job(s) (%d interrupted while running), %d finished job(s) kept, "
             "%d failed on recovery", counts["resumed"], counts["interrupted"], counts["finished"], counts["failed"])
    return max(r.seq for r in rows)


def _spec(engine, row, unfinished: bool) -> tuple[CircuitSpec | None, str]:
    """The job's circuit, or None and why it is gone. For an unfinished job, a key a client named by its
    files (cuzk prove --daemon) is registered again from them, if they are the version it was submitted for."""
    gone = f"circuit {row.circuit_id!r} is no longer served by this daemon"
    try:
        return engine.registry.get(row.circuit_id), ""
    except Exception:  # noqa: BLE001 -- not registered (now)
        pass
    named = getattr(row.request, "circuit_id", "")
    if not unfinished or key_ids.parse(named) is None:
        return None, gone
    try:
        spec = engine.keys_by_path.resolve(named)
    except Exception as exc:  # noqa: BLE001 -- InvalidRequest: the files are gone, or this daemon opens none
        return None, f"{gone}: {exc}"
    if spec.circuit_id != row.circuit_id:
        return None, f"{named}: the key's files changed after this job was submitted; it is not proved with the new ones"
    return spec, ""


def _retired_spec(row) -> CircuitSpec:
    """Enough of a circuit to report a job whose circuit this daemon no longer serves."""
    def gone(*_):
        raise RuntimeError(f"circuit {row.circuit_id!r} is no longer served")

    kind = ProofKind(row.proof_kind) if row.proof_kind in ProofKind._value2member_map_ else ProofKind.UNSPECIFIED
    parts = max(1, len(row.result.get("public_inputs", [])))
    return CircuitSpec(row.circuit_id, kind, "", parts, False, Priority.NORMAL, None, gone, gone, gone, gone,
                       lambda: 0)


def _restore_outcome(job: Job, row, now_wall: float, now_mono: float) -> None:
    res = row.result
    job.state = row.state
    job.proof = row.proof
    job.error = row.error
    job.finished_wall = row.finished_wall
    job.finished_at = now_mono - max(0.0, now_wall - row.finished_wall)
    job.timings = JobTimings(**res.get("timings", {}))
    job.batch_id = res.get("batch_id", "")
    job.batch_size = res.get("batch_size", 0)
    job.start_seq = res.get("start_seq", 0)
    job.retries = res.get("retries", 0)
    pis = res.get("public_inputs") or []
    if len(pis) == job.num_partitions:
        job.public_inputs = [[int(x) for x in p] for p in pis]
    job.done.set()
