"""The batch collector: jobs of one batchable circuit wait to be proven together.

One pending batch per circuit. A batch is flushed (handed to the scheduler)
when it reaches `max_batch_size`, when `max_batch_wait_s` has passed since
its first job arrived, or at once when work of higher priority arrives
(a higher-priority job of the same circuit joins the batch and takes it
along). Kinds that do not batch, and every kind when max_batch_size <= 1,
bypass the collector. Pure logic with an injected clock value, so the flush
rules are tested without threads or sleeps.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

from ..jobs.job import Job
from ..types import Priority

_batch_ids = itertools.count(1)
_PID = os.getpid()


@dataclass
class Batch:
    circuit_id: str
    jobs: list[Job]
    first_received_at: float
    batch_id: str = field(default_factory=lambda: f"b{_PID:x}-{next(_batch_ids)}")
    flush_reason: str = ""  # full | timeout | priority | shutdown | single

    @property
    def priority(self) -> Priority:
        return max(j.priority for j in self.jobs)

    @property
    def seq(self) -> int:
        return min(j.seq for j in self.jobs)

    def __len__(self) -> int:
        return len(self.jobs)


class BatchCollector:
    def __init__(self, max_batch_size: int, max_batch_wait_s: float):
        self.max_batch_size = max(1, int(max_batch_size))
        self.max_batch_wait_s = max(0.0, float(max_batch_wait_s))
        self._pending: dict[str, Batch] = {}

    def batches(self, spec) -> bool:
        """Whether jobs of this circuit go through the collector."""
        return bool(spec.batchable) and self.max_batch_size > 1

    def add(self, job: Job, now: float) -> list[Batch]:
        """Accept a job; return the batches flushed by its arrival (in flush order).

        A job that bypasses the collector is returned as a batch of one, after
        any lower-priority batches its arrival flushed."""
        flushed = [self._flush(cid, "priority") for cid, b in list(self._pending.items())
                   if cid != job.circuit_id and b.priority < job.priority]
        if not self.batches(job.spec):
            flushed.append(Batch(job.circuit_id, [job], now, flush_reason="single"))
            return flushed
        batch = self._pending.get(job.circuit_id)
        if batch is None:
            batch = self._pending[job.circuit_id] = Batch(job.circuit_id, [], now)
        outranks = bool(batch.jobs) and job.priority > batch.priority
        batch.jobs.append(job)
        if len(batch) >= self.max_batch_size:
            flushed.append(self._flush(job.circuit_id, "full"))
        elif outranks:
            flushed.append(self._flush(job.circuit_id, "priority"))
        return flushed

    def expired(self, now: float) -> list[Batch]:
        """Batches whose wait is over, oldest first."""
        due = [cid for cid, b in self._pending.items() if now - b.first_received_at >= self.max_batch_wait_s]
        return sorted((self._flush(cid, "timeout") for cid in due), key=lambda b: b.first_received_at)

    def next_deadline(self) -> float | None:
        if not self._pending:
            return None
        return min(b.first_received_at for b in self._pending.values()) + self.max_batch_wait_s

    def remove(self, job_id: str) -> Job | None:
        """Take a job out of its pending batch (cancellation); None if not here."""
        for cid, b in list(self._pending.items()):
            for j in b.jobs:
                if j.job_id == job_id:
                    b.jobs.remove(j)
                    if not b.jobs:
                        del self._pending[cid]
                    return j
        return None

    def flush_all(self, reason: str = "shutdown") -> list[Batch]:
        return [self._flush(cid, reason) for cid in sorted(self._pending, key=lambda c: self._pending[c].seq)]

    def pending_jobs(self) -> list[Job]:
        return [j for b in self._pending.values() for j in b.jobs]

    def _flush(self, circuit_id: str, reason: str) -> Batch:
        batch = self._pending.pop(circuit_id)
        batch.flush_reason = reason
        return batch
