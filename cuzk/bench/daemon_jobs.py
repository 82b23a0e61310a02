"""Running proof jobs against a daemon and reporting them (shared by every daemon benchmark).

`run_jobs` submits a list of jobs at once and awaits them all (AwaitProof
futures), showing live progress; a job's input is its request's fields
(`circuit_inputs`: vanilla_proof, or a PoSt request's vanilla_proofs,
randomness, ...); `verify_records` checks the proofs with the circuits'
verifying keys; `summarize`/`print_records`/`print_summary` make
the table and the throughput figures (completed proofs per minute of wall
time from the first submission to the last result).
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, field

from cuzk.progress import Status
from cuzk.engine.types import ProofRequest
from cuzk.proto import proving_pb2 as pb
from cuzk.server.convert import public_inputs_from_proto
from cuzk.server.proof_check import ProofChecker

from .report import print_table

PHASES = [("queue_wait_ms", "queue"), ("srs_load_ms", "srs"), ("synthesis_ms", "synth"),
          ("gpu_compute_ms", "prove"), ("total_ms", "total")]


@dataclass
class Record:
    index: int
    circuit_id: str
    job_id: str = ""
    status: str = ""
    error: str = ""
    wall_ms: float = 0.0
    timings: dict = field(default_factory=dict)
    batch_size: int = 0
    batch_id: str = ""
    start_seq: int = 0
    priority: str = ""
    proof_bytes: int = 0
    verified: bool | None = None
    submitted_at: float = 0.0
    finished_at: float = 0.0
    phase: str = ""  # cuzk bench deadline: warm-up, alone or mixed
    retries: int = 0  # partitions the daemon proved again after a failure (out of device memory, say)
    proof: bytes = field(default=b"", repr=False)
    public_inputs: list = field(default_factory=list, repr=False)

    def as_json(self) -> dict:
        d = asdict(self)
        d.pop("proof")
        d.pop("public_inputs")
        return d


def fill(rec: Record, r) -> None:
    rec.job_id = r.job_id
    rec.status = pb.AwaitProofResponse.Status.Name(r.status)
    rec.error = r.error_message
    rec.timings = {k: float(getattr(r, k)) for k, _ in PHASES}
    rec.batch_size, rec.batch_id, rec.start_seq = r.batch_size, r.batch_id, r.start_seq
    rec.retries = int(r.retries)
    rec.priority = pb.Priority.Name(r.priority).lower()
    rec.proof = bytes(r.proof)
    rec.proof_bytes = len(r.proof)
    rec.finished_at = time.monotonic()
    rec.wall_ms = (rec.finished_at - rec.submitted_at) * 1e3


class Progress:
    """The job counter (a cuzk.progress.Status): drawn in place on a terminal; elsewhere a line per 10 %
    and every 10 s (a wait for the first proof says it is still going), never a carriage return."""

    def __init__(self, total: int | None, label: str):
        self.status = Status(label, total)
        self.t0 = self.status.t0

    def update(self, done: int, failed: int, in_flight: int = 0) -> None:
        el = self.status.elapsed()
        rate = done / el * 60 if el > 0 else 0.0
        self.status.update(done, f"{failed} failed, {in_flight} in flight, {rate:.1f} proofs/min")

    def close(self) -> None:
        self.status.close()


def expected_public_inputs(spec, cid: str, fields: dict) -> list:
    """The public inputs of a job, computed here from its request's fields (not taken from the daemon)."""
    return spec.public_inputs(ProofRequest(circuit_id=cid, **fields))


def run_jobs(client, jobs: list[tuple[str, dict, int]], label: str, spec_of,
             on_submitted=None) -> tuple[list[Record], float]:
    """Submit all (circuit_id, request fields, priority) at once and await them; (records, wall seconds)."""
    records, futures = [], []
    t0 = time.monotonic()
    for i, (cid, fields, prio) in enumerate(jobs):
        rec = Record(i, cid, submitted_at=time.monotonic())
        sub = client.submit(circuit_id=cid, priority=prio, **fields)
        rec.job_id = sub.job_id
        spec = spec_of(cid)
        if spec is not None:
            rec.public_inputs = expected_public_inputs(spec, cid, fields)
        records.append(rec)
        futures.append(client.stub.AwaitProof.future(pb.AwaitProofRequest(job_id=sub.job_id)))
    if on_submitted is not None:
        on_submitted()
    progress = Progress(len(jobs), label)
    pending = set(range(len(jobs)))
    while pending:
        for i in list(pending):
            if futures[i].done():
                r = futures[i].result()
                fill(records[i], r)
                if not records[i].public_inputs:
                    records[i].public_inputs = public_inputs_from_proto(r)
                pending.discard(i)
        failed = sum(1 for r in records if r.status and r.status != "COMPLETED")
        progress.update(len(jobs) - len(pending), failed, len(pending))
        if pending:
            time.sleep(0.05)
    progress.close()
    wall = max(r.finished_at for r in records) - t0
    return records, wall


def verify_records(client, records: list[Record]) -> None:
    checker = ProofChecker(client)
    for r in records:
        if r.status == "COMPLETED":
            r.verified = checker.check(r.circuit_id, r.proof, r.public_inputs)


def summarize(records: list[Record], wall_s: float, status=None) -> dict:
    done = [r for r in records if r.status == "COMPLETED"]
    out = {
        "count": len(records), "completed": len(done), "failed": len(records) - len(done),
        "wall_s": round(wall_s, 3), "proofs_per_min": round(len(done) / wall_s * 60, 3) if wall_s > 0 else 0.0,
        "verified": sum(1 for r in records if r.verified), "unverified": sum(1 for r in records if r.verified is False),
        "retries": sum(r.retries for r in records),
    }
    for key, _ in PHASES:
        vals = [r.timings[key] for r in done]
        out[f"avg_{key}"] = round(statistics.fmean(vals), 1) if vals else 0.0
    if status is not None:
        out["daemon_peak_rss_bytes"] = status.peak_rss_bytes
        out["daemon_rss_bytes"] = status.rss_bytes
        out["device_peak_bytes"] = max((g.vram_peak_bytes for g in status.gpus), default=0)
    return out


def print_records(records: list[Record]) -> None:
    rows = []
    for r in records:
        row = {"#": str(r.index + 1), "job": r.job_id[:12], "circuit": r.circuit_id, "prio": r.priority,
               "status": r.status, "batch": str(r.batch_size), "start": str(r.start_seq),
               "verified": {True: "yes", False: "NO", None: "-"}[r.verified], "wall": r.wall_ms,
               "retries": str(r.retries)}
        for key, name in PHASES:
            row[name] = f"{r.timings[key]:,.0f}" if key in r.timings else "-"
        row["wall"] = f"{r.wall_ms:,.0f}"
        rows.append(row)
    cols = [("#", "#"), ("job", "job"), ("circuit", "circuit"), ("prio", "priority"), ("status", "status"),
            ("batch", "batch"), ("start", "start#")] + [(n, f"{n} ms") for _, n in PHASES] + \
           [("wall", "wall ms"), ("retries", "retries"), ("verified", "verified")]
    print_table(rows, cols)
    for r in records:
        if r.error:
            print(f"  job {r.job_id}: {r.error}")


def print_summary(s: dict) -> None:
    print(f"\ncompleted {s['completed']}/{s['count']}, failed {s['failed']}, verified {s['verified']}"
          f"{', NOT verified ' + str(s['unverified']) if s['unverified'] else ''}")
    if s.get("retries"):  # a daemon that keeps retrying (out of device memory) is slow, not broken: say so
        print(f"retried partitions: {s['retries']} (the daemon's log says why)")
    print(f"wall {s['wall_s']:.2f} s, throughput {s['proofs_per_min']:.2f} proofs/min")
    print("average ms: " + ", ".join(f"{n} {s['avg_' + k]:.0f}" for k, n in PHASES))
    if "daemon_peak_rss_bytes" in s:
        print(f"daemon peak RSS {s['daemon_peak_rss_bytes'] / 2**20:.0f} MiB")


def write_json(path: str | None, payload: dict) -> None:
    if path:
        with open(path, "w") as fh:
            json.dump(payload, fh, indent=1)
        print(f"wrote {path}")
