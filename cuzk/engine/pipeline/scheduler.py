"""The scheduler: priority order of the work that waits for synthesis.

Jobs enter through the batch collector; every flushed batch becomes one
`WorkUnit` per partition (the batch's jobs' partition p, proven together in
one pass), ordered by (higher priority first, earlier submission first,
lower partition first). Partitions are separate units so several jobs'
partitions interleave in the pipeline and a high-priority job's partitions
go ahead of a large job's remaining ones.

Synthesis workers block in `pop`. Batch timeouts are applied in `pop`
too: a batch whose wait is over is flushed into the queue before the next
unit is chosen, which is exactly when the flush can matter.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from dataclasses import dataclass, field

from ..jobs.job import Job
from .batch_collector import Batch, BatchCollector


@dataclass
class WorkUnit:
    batch: Batch
    partition: int
    jobs: list[Job]
    attempt: int = 0
    order: int = field(default=0)  # tie-breaker for the heap

    @property
    def circuit_id(self) -> str:
        return self.batch.circuit_id

    @property
    def spec(self):
        return self.jobs[0].spec

    @property
    def key(self) -> tuple:
        return (-int(self.batch.priority), self.batch.seq, self.partition)

    def live_jobs(self) -> list[Job]:
        """Members that have not ended (cancelled or failed elsewhere)."""
        return [j for j in self.jobs if not j.terminal]

    def describe(self) -> str:
        ids = ",".join(j.job_id[:12] for j in self.jobs)
        return f"{self.circuit_id} partition {self.partition} [{ids}]"


class Scheduler:
    def __init__(self, collector: BatchCollector, clock=time.monotonic):
        self.collector = collector
        self.clock = clock
        self._cond = threading.Condition()
        self._heap: list[tuple[tuple, int, WorkUnit]] = []
        self._order = itertools.count()
        self._paused = False
        self._closed = False

    # ---- intake -------------------------------------------------------------
    def submit(self, job: Job) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("scheduler is closed")
            for batch in self.collector.add(job, self.clock()):
                self._push_batch(batch)
            self._cond.notify_all()

    def requeue(self, unit: WorkUnit) -> None:
        """Put a unit back (retry); it keeps its place in the order."""
        with self._cond:
            self._push(unit)
            self._cond.notify_all()

    def _push_batch(self, batch: Batch) -> None:
        for j in batch.jobs:
            j.batch_id, j.batch_size = batch.batch_id, len(batch)
        for p in range(batch.jobs[0].num_partitions):
            self._push(WorkUnit(batch, p, list(batch.jobs)))

    def _push(self, unit: WorkUnit) -> None:
        unit.order = next(self._order)
        heapq.heappush(self._heap, (unit.key, unit.order, unit))

    # ---- dispatch -------------------------------------------------------------
    def pop(self, timeout: float | None = None, at_least: int | None = None) -> WorkUnit | None:
        """The next unit to synthesize; None on timeout or once closed and empty. `at_least`: only a
        unit of that priority or higher (the worker kept for deadline proofs waits for one)."""
        deadline = None if timeout is None else time.monotonic() + timeout  # real time, not the batch clock
        with self._cond:
            while True:
                for batch in self.collector.expired(self.clock()):
                    self._push_batch(batch)
                if not self._paused:
                    while self._heap:
                        unit = self._heap[0][2]
                        if unit.live_jobs() and at_least is not None and int(unit.batch.priority) < at_least:
                            break
                        heapq.heappop(self._heap)
                        if unit.live_jobs():
                            return unit
                if self._closed and not self.collector.pending_jobs() and (
                        not self._heap or at_least is not None and int(self._heap[0][2].batch.priority) < at_least):
                    return None
                waits = []
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return None
                    waits.append(left)
                batch_due = self.collector.next_deadline()
                if batch_due is not None:
                    waits.append(max(0.001, batch_due - self.clock()))
                self._cond.wait(min(waits) if waits else None)

    def cancel(self, job_id: str) -> bool:
        """Remove a queued job's pending work; True if it was waiting here."""
        with self._cond:
            if self.collector.remove(job_id) is not None:
                return True
            found = False
            for _, _, unit in self._heap:
                if any(j.job_id == job_id for j in unit.jobs):
                    found = True
            # units are skipped lazily once none of their jobs is live
            return found

    # ---- control -----------------------------------------------------------
    def pause(self, paused: bool = True) -> None:
        with self._cond:
            self._paused = paused
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    def close(self, keep_started_only: bool) -> list[Job]:
        """Stop intake and flush pending batches. With keep_started_only, units
        of jobs that never started are dropped and those jobs returned (the
        caller ends them); the remaining units are still served by `pop`."""
        with self._cond:
            self._closed = True
            self._paused = False
            for batch in self.collector.flush_all():
                self._push_batch(batch)
            dropped: dict[str, Job] = {}
            if keep_started_only:
                kept = []
                for item in self._heap:
                    unit = item[2]
                    if all(j.start_seq == 0 for j in unit.jobs):
                        for j in unit.jobs:
                            dropped[j.job_id] = j
                    else:
                        kept.append(item)
                heapq.heapify(kept)
                self._heap = kept
            self._cond.notify_all()
            return list(dropped.values())

    @property
    def closed(self) -> bool:
        return self._closed

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    # ---- observation ---------------------------------------------------------
    def queued_units(self) -> int:
        with self._cond:
            return sum(1 for _, _, u in self._heap if u.live_jobs())

    def batching_jobs(self) -> list[Job]:
        with self._cond:
            return [j for j in self.collector.pending_jobs() if not j.terminal]
