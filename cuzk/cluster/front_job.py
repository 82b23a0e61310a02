"""A job as the front sees it, and the front's priority queue.

The front keeps a job from submission to its one result. Its id is the
client's (or a fresh uuid) and never changes; each dispatch to a node is
an attempt, sent under the node-side id `<job id>~<attempt>` so a retried
job can never collide with an earlier attempt on the same node. The first
terminal state wins, as in the engine's Job.
"""

from __future__ import annotations

import heapq
import threading
import time

from cuzk.engine import JobResult, JobState, Priority
from cuzk.forward import forward

ATTEMPT_SEP = "~"


class FrontJob:
    def __init__(self, job_id: str, request, spec, priority: Priority, seq: int, fingerprint: bytes, payload_ref):
        self.job_id = job_id
        self.request = request  # vanilla proofs removed: they travel as payload_ref
        self.spec = spec
        self.priority = priority
        self.seq = seq
        self.fingerprint = fingerprint
        self.payload_ref = payload_ref  # Ray ObjectRef of (vanilla_proof, vanilla_proofs); dropped at the end
        self.submitted_at = time.monotonic()
        self.dispatched_at = 0.0
        self.finished_at: float | None = None  # monotonic; the job store's retention counts from it
        self.state = JobState.QUEUED
        self.node = ""  # node of the current (or last) attempt
        self.nodes: list[str] = []  # every node it was sent to, in order
        self.attempts = 0
        self.dispatch_seq = 0  # order in which jobs left the front's queue (1-based; 0 = not yet)
        self.excluded: set[str] = set()  # nodes that died with this job: tried last
        self.result: JobResult | None = None
        self.done = threading.Event()
        self._lock = threading.Lock()

    circuit_id = forward("spec.circuit_id")
    terminal = forward("state.terminal")

    @property
    def node_job_id(self) -> str:
        return f"{self.job_id}{ATTEMPT_SEP}{self.attempts}"

    def key(self) -> tuple:
        """Higher priority first, then submission order (the engine's rule)."""
        return (-int(self.priority), self.seq)

    def wait(self, timeout: float | None) -> bool:
        return self.done.wait(timeout)

    def finish(self, result: JobResult) -> bool:
        """Record the one result the client sees; False if the job had already ended."""
        with self._lock:
            if self.state.terminal:
                return False
            self.state = result.state
            self.result = result
            self.finished_at = time.monotonic()
            self.payload_ref = None  # lets the object store free the vanilla proofs
        self.done.set()
        return True


class PendingQueue:
    """Jobs not yet on a node, highest priority first. `paused` stops dispatching only."""

    def __init__(self):
        self._heap: list[tuple[tuple, FrontJob]] = []
        self.paused = False

    def __len__(self) -> int:
        return sum(1 for _, j in self._heap if not j.terminal)

    def push(self, job: FrontJob) -> None:
        heapq.heappush(self._heap, (job.key(), job))

    def peek(self) -> FrontJob | None:
        while self._heap and self._heap[0][1].terminal:  # cancelled while queued
            heapq.heappop(self._heap)
        return self._heap[0][1] if self._heap else None

    def pop(self) -> FrontJob:
        return heapq.heappop(self._heap)[1]

    def jobs(self) -> list[FrontJob]:
        return [j for _, j in self._heap if not j.terminal]

    def position(self, job: FrontJob) -> int:
        return sum(1 for _, j in self._heap if not j.terminal and j.key() < job.key())

    def drain(self) -> list[FrontJob]:
        jobs = self.jobs()
        self._heap.clear()
        return jobs
