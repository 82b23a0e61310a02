"""Where jobs are kept: lookup by id, idempotent submission, finished-job retention, totals.

`JobStore` is the seam for durability: the engine calls `record` after every
state change, so a journaling store (SQLite in the state directory, issue 9)
can persist accepted jobs and their outcomes without touching the pipeline.
`InMemoryJobStore` keeps finished jobs for a retention period (and at most
`max_finished` of them), so memory does not grow without bound as it did in
Rust cuzk, whose completed map was never pruned. The cluster front keeps its
own jobs (cluster.front_job.FrontJob: job_id, state, seq, finished_at) in one too.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict

from ..types import JobState
from .job import Job

log = logging.getLogger("cuzk.engine")


class JobStore(ABC):
    @abstractmethod
    def add(self, job: Job) -> tuple[Job, bool]:
        """Insert `job` unless one with its id exists: (the stored job, created?)."""

    @abstractmethod
    def get(self, job_id: str) -> Job | None: ...

    @abstractmethod
    def record(self, job: Job) -> None:
        """Called after every state change of `job`."""

    @abstractmethod
    def active(self) -> list[Job]:
        """Jobs not yet in a terminal state, in submission order."""

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Number of stored jobs by state name."""

    @abstractmethod
    def ended(self) -> dict[str, int]:
        """Jobs that reached each terminal state (by name) since the store was made; jobs restored
        already finished are not counted (they ended in an earlier run)."""

    def recover(self) -> list:
        """Jobs a durable store kept from an earlier run (journal.JournalRow), for the engine to restore."""
        return []

    def adopt(self, job: Job) -> None:
        """Hold a job restored from `recover` (already durable)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release files; the store is not used afterwards."""


class InMemoryJobStore(JobStore):
    def __init__(self, retention_s: float = 3600.0, max_finished: int = 10000):
        self.retention_s = retention_s
        self.max_finished = max_finished
        self._lock = threading.Lock()
        self._active: dict[str, Job] = {}
        self._finished: OrderedDict[str, Job] = OrderedDict()
        self._ended = {s.name: 0 for s in JobState if s.terminal}

    def add(self, job: Job) -> tuple[Job, bool]:
        with self._lock:
            self._prune_locked()
            existing = self._active.get(job.job_id) or self._finished.get(job.job_id)
            if existing is not None:
                return existing, False
            self._active[job.job_id] = job
            return job, True

    def adopt(self, job: Job) -> None:
        with self._lock:
            (self._finished if job.terminal else self._active)[job.job_id] = job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._active.get(job_id) or self._finished.get(job_id)

    def record(self, job: Job) -> None:
        if not job.terminal:
            return
        with self._lock:
            if self._active.pop(job.job_id, None) is not None:
                self._finished[job.job_id] = job
                self._ended[job.state.name] += 1
            self._prune_locked()

    def active(self) -> list[Job]:
        with self._lock:
            return sorted(self._active.values(), key=lambda j: j.seq)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._lock:
            for j in list(self._active.values()) + list(self._finished.values()):
                out[j.state.name] = out.get(j.state.name, 0) + 1
        return out

    def ended(self) -> dict[str, int]:
        with self._lock:
            return dict(self._ended)

    def _prune_locked(self) -> None:
        now = time.monotonic()
        while self._finished:
            job_id, job = next(iter(self._finished.items()))
            expired = job.finished_at is not None and now - job.finished_at > self.retention_s
            if not expired and len(self._finished) <= self.max_finished:
                break
            del self._finished[job_id]


class JournalingJobStore(InMemoryJobStore):
    """The in-memory store, with every accepted job and its outcome written to a `Journal`.

    A job is committed to the journal before `add` returns (so before
    SubmitProof answers); a journal that cannot be written refuses the job.
    """

    def __init__(self, journal, retention_s: float = 3600.0, max_finished: int = 10000):
        super().__init__(retention_s, max_finished)
        self.journal = journal
        self._admit = threading.Lock()  # one insertion at a time: journal row and memory agree
        self._closed = False

    def add(self, job: Job) -> tuple[Job, bool]:
        with self._admit:
            existing = self.get(job.job_id)
            if existing is not None:
                return existing, False
            self.journal.insert(job, job.client)  # raises JournalError: not accepted
            return super().add(job)

    def record(self, job: Job) -> None:
        if self._closed:
            return super().record(job)
        try:
            if job.terminal:
                with self._lock:
                    first = job.job_id in self._active
                if first:
                    self.journal.finish(job)
            elif job.state.running:
                self.journal.mark_running(job)
        except Exception as exc:  # the job's outcome stays in memory; the log says why it may not survive
            log.error("job %s: %s", job.job_id, exc)
        super().record(job)

    def recover(self) -> list:
        return self.journal.rows()

    def close(self) -> None:
        self._closed = True
        self.journal.close()
