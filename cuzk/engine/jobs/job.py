"""A proof job: its request, lifecycle, per-partition results and timings.

Lifecycle: queued -> synthesizing -> proving -> completed | failed | cancelled.
The first terminal transition wins and is final; later results for a job
that already ended (a partition finishing after a cancel) are dropped.
Multi-partition jobs collect one proof per partition and complete when all
have arrived, the proof being the partitions' proofs concatenated in order.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from cuzk.forward import forward

from ..types import JobState, JobTimings, Priority, ProofRequest


class Job:
    def __init__(self, job_id: str, request: ProofRequest, spec, priority: Priority, seq: int):
        self.job_id = job_id
        self.request = request
        self.spec = spec  # catalog.registry.CircuitSpec
        self.priority = priority
        self.seq = seq  # submission order (FIFO within a priority)
        self.fingerprint = request.fingerprint()
        self.submitted_at = time.monotonic()
        self.submitted_wall = time.time()
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.finished_wall: float | None = None
        self.state = JobState.QUEUED
        self.num_partitions = spec.num_partitions
        self.timings = JobTimings()
        self.proof = b""
        self.error = ""
        self.batch_id = ""
        self.batch_size = 0
        self.start_seq = 0  # order in which jobs left the queue (1-based)
        self.retries = 0
        self.client = ""  # who submitted it (limits.max_queued_per_client)
        self.parsed: Any = None  # the spec's parsed vanilla proof, shared by partitions
        self.public_inputs: list[list[int]] = [[] for _ in range(self.num_partitions)]
        self._partials: list[bytes | None] = [None] * self.num_partitions
        self._lock = threading.Lock()
        self._parse_lock = threading.Lock()
        self.done = threading.Event()
        self.on_terminal: list[Callable[["Job"], None]] = []

    # ---- queries -------------------------------------------------------------
    terminal = forward("state.terminal")
    circuit_id = forward("spec.circuit_id")

    def key(self, partition: int = 0) -> tuple:
        """Scheduling order: higher priority first, then submission order, then partition."""
        return (-int(self.priority), self.seq, partition)

    def wait(self, timeout: float | None) -> bool:
        """True when the job reached a terminal state within `timeout` (None: forever)."""
        return self.done.wait(timeout)

    # ---- transitions (called by the engine and pipeline) ------------------------
    def parse_once(self, parse: Callable[[], Any]) -> Any:
        """Run the vanilla-proof parser once per job (partitions share the result)."""
        with self._parse_lock:
            if self.parsed is None:
                self.parsed = parse()
            return self.parsed

    def mark_started(self, next_seq: Callable[[], int]) -> bool:
        """First synthesis of any partition (numbered by `next_seq()`); False if the job already ended."""
        with self._lock:
            if self.state.terminal:
                return False
            if self.state == JobState.QUEUED:
                self.state = JobState.SYNTHESIZING
                self.started_at = time.monotonic()
                self.timings.queue_wait_ms = (self.started_at - self.submitted_at) * 1e3
                self.start_seq = next_seq()
            return True

    def mark_proving(self) -> bool:
        with self._lock:
            if self.state.terminal:
                return False
            self.state = JobState.PROVING
            return True

    def add_time(self, *, synthesis_ms: float = 0.0, prove_ms: float = 0.0, srs_load_ms: float = 0.0) -> None:
        with self._lock:
            self.timings.synthesis_ms += synthesis_ms
            self.timings.prove_ms += prove_ms
            self.timings.srs_load_ms += srs_load_ms

    def add_partition(self, index: int, proof: bytes) -> bool:
        """Store one partition's proof; True when this completed the job."""
        with self._lock:
            if self.state.terminal:
                return False
            if not 0 <= index < self.num_partitions:
                raise ValueError(f"partition {index} out of range for {self.num_partitions} partitions")
            if self._partials[index] is not None:
                raise ValueError(f"partition {index} of job {self.job_id} proved twice")
            self._partials[index] = proof
            if any(p is None for p in self._partials):
                return False
            proof_bytes = b"".join(self._partials)  # type: ignore[arg-type]
        return self.finish(JobState.COMPLETED, proof=proof_bytes)

    @property
    def partitions_done(self) -> int:
        if self.state == JobState.COMPLETED:
            return self.num_partitions
        return sum(p is not None for p in self._partials)

    def finish(self, state: JobState, *, proof: bytes = b"", error: str = "") -> bool:
        """Move to a terminal state; False if the job had already ended."""
        assert state.terminal
        with self._lock:
            if self.state.terminal:
                return False
            self.state = state
            self.proof = proof
            self.error = error
            self.finished_at = time.monotonic()
            self.finished_wall = time.time()
            self.timings.total_ms = (self.finished_at - self.submitted_at) * 1e3
            if self.started_at is None:
                self.timings.queue_wait_ms = self.timings.total_ms
            self._partials = [None] * self.num_partitions  # free partition proofs
            self.parsed = None  # free the parsed input (cuzk kept it forever)
            self.request.vanilla_proof = b""  # and the raw input (~51 MB for PoRep);
            self.request.vanilla_proofs = []  # the fingerprint still identifies the request
        for cb in list(self.on_terminal):
            cb(self)
        self.done.set()
        return True

    def __repr__(self) -> str:
        return f"Job({self.job_id!r}, {self.circuit_id}, {self.priority.name}, {self.state.name})"
