"""The engine's outside face: the `ProvingEngine` interface and the records it answers with.

The gRPC service (cuzk.server), the daemon command and the cluster use an engine only
through this interface. Two implementations: `Engine` (engine.py, one machine) and the
cluster front (cuzk.cluster.front.ClusterEngine, many proving nodes over Ray).

    with Engine(config) as engine:                 # or ClusterEngine(config, "head:6379")
        job_id = engine.submit(request).job_id     # SubmitResult
        result = engine.await_job(job_id, 60)      # JobResult: state, proof, timings

At run time this module imports only types.py and errors.py; the rooms do not import it.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol

from cuzk.backend import get_backend

from .errors import DuplicateRequestConflict, JobNotFound, ShuttingDown
from .types import (AggregateResult, AggregateVerdict, JobState, JobTimings, Priority, ProofKind, ProofRequest,
                    SrsSource, effective_priority)

if TYPE_CHECKING:
    from cuzk.groth16.keys import VerifyingKey

    from .aggregation import Aggregator
    from .catalog.registry import CircuitRegistry, CircuitSpec
    from .config import EngineConfig
    from .jobs.store import JobStore
    from .observe.trace import TraceRecorder
    from .params.tiers import SrsInfo


# ---- records -----------------------------------------------------------------------------------


@dataclass
class SubmitResult:
    job_id: str
    queue_position: int
    circuit_id: str
    duplicate: bool = False


@dataclass
class JobResult:
    job_id: str
    state: JobState
    circuit_id: str
    proof_kind: ProofKind
    priority: Priority
    proof: bytes = b""
    error: str = ""
    timings: JobTimings = field(default_factory=JobTimings)
    batch_id: str = ""
    batch_size: int = 0
    start_seq: int = 0
    num_partitions: int = 1
    partitions_done: int = 0
    retries: int = 0
    public_inputs: list = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.state.terminal


@dataclass
class CancelResult:
    job_id: str
    was_running: bool
    state: JobState


@dataclass
class DeviceStatus:
    ordinal: int
    name: str
    kind: str
    workers: int
    busy_workers: int
    vram_total: int
    current_job_id: str
    current_proof_kind: str
    vram_peak: int = 0  # bytes in use on the device after a proof, at most (0: CPU)


@dataclass
class QueueInfo:
    proof_kind: str
    pending: int
    in_progress: int
    batching: int


@dataclass
class EngineStatus:
    devices: list[DeviceStatus]
    srs: list[SrsInfo]
    queues: list[QueueInfo]
    completed: int
    failed: int
    cancelled: int
    uptime_s: float
    pinned_bytes: int
    pinned_limit: int
    memory_used: int
    memory_limit: int
    memory_peak: int
    paused: bool
    draining: bool
    rss_bytes: int
    peak_rss_bytes: int
    workers: list[dict] = field(default_factory=list)  # trace lanes with their current stage
    jobs: list[dict] = field(default_factory=list)  # jobs in flight (job_row)
    throughput: list[tuple] = field(default_factory=list)  # (window s, completed, failed)
    now: float = 0.0  # the trace clock when the status was taken (workers' "since" are on it)


def job_row(job, stage: str, elapsed_s: float, partitions_done: int = 0) -> dict:
    """One job in flight as EngineStatus.jobs lists it (`job`: an engine's or the front's job)."""
    return {"job_id": job.job_id, "circuit_id": job.circuit_id, "proof_kind": job.spec.proof_kind.label,
            "priority": int(job.priority), "state": int(job.state), "stage": stage, "elapsed_s": elapsed_s,
            "partitions_done": partitions_done, "num_partitions": job.spec.num_partitions}


class JobHandle(Protocol):
    """What `ProvingEngine.job` returns: a job to wait on, then to pass to `result`."""

    job_id: str

    @property
    def terminal(self) -> bool: ...

    def wait(self, timeout: float | None) -> bool: ...


# ---- the interface --------------------------------------------------------------------------------


class ProvingEngine(ABC):
    """A proving engine as its users see it. Thread-safe: the gRPC server calls it from many threads.

    Implementations keep their circuits in `registry` (catalog.registry.CircuitRegistry), their
    jobs in `store` (jobs.store.JobStore: lookup by id, retention of finished jobs, totals; the
    daemon closes it on exit), and have `metrics` (text(), and serve(addr, token) for
    daemon.metrics_listen), `trace` (observe.trace.TraceRecorder) and `aggregator`
    (aggregation.Aggregator); the methods that are not abstract are the ones both
    implementations share through those.
    """

    config: EngineConfig
    registry: CircuitRegistry
    store: JobStore
    metrics: object  # .text(); .serve(addr, token) -> an HTTP server
    trace: TraceRecorder
    aggregator: Aggregator

    # ---- lifecycle -------------------------------------------------------------------------
    @abstractmethod
    def start(self) -> ProvingEngine:
        """Start the workers (idempotent); returns self."""

    @abstractmethod
    def shutdown(self, drain: bool = True, timeout: float | None = None) -> bool:
        """Stop intake; with drain, finish running jobs. Jobs that cannot finish end CANCELLED.
        True when everything drained."""

    @property
    @abstractmethod
    def closing(self) -> bool:
        """True once shutdown has begun (no new jobs are accepted)."""

    def __enter__(self) -> ProvingEngine:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.shutdown(drain=exc[0] is None, timeout=60)

    # ---- jobs ------------------------------------------------------------------------------
    @abstractmethod
    def submit(self, request: ProofRequest, client: str = "") -> SubmitResult:
        """Accept a job. `client` names the submitter for limits.max_queued_per_client."""

    def job(self, job_id: str) -> JobHandle:
        job = self.store.get(job_id)
        if job is None:
            raise JobNotFound(f"no job {job_id!r} (unknown, or finished longer ago than daemon.job_retention)")
        return job

    @abstractmethod
    def result(self, job: JobHandle) -> JobResult:
        """The job's result so far (a non-terminal state while it runs)."""

    def await_job(self, job_id: str, timeout: float | None = None) -> JobResult:
        """Wait up to `timeout` seconds (None: until done); the result's state
        says whether the job finished (a non-terminal state means timeout)."""
        job = self.job(job_id)
        job.wait(timeout)
        return self.result(job)

    def prove(self, request: ProofRequest, timeout: float | None = None) -> JobResult:
        return self.await_job(self.submit(request).job_id, timeout)

    @abstractmethod
    def cancel(self, job_id: str) -> CancelResult: ...

    # ---- circuits and parameters ---------------------------------------------------------------
    def resolve(self, request: ProofRequest) -> CircuitSpec:
        """The circuit a request is for (as submit resolves it): its circuit_id, or its proof kind's
        circuit at the request's preset."""
        return self.registry.resolve(request)

    @abstractmethod
    def preload(self, circuit_id: str) -> tuple[bool, float]:
        """Make a circuit's parameters hot: (already loaded, load ms)."""

    @abstractmethod
    def evict(self, circuit_id: str) -> tuple[bool, int]:
        """Drop a circuit's parameters: (was loaded, freed bytes)."""

    @abstractmethod
    def verifying_key(self, circuit_id: str) -> tuple[CircuitSpec, VerifyingKey]:
        """(CircuitSpec, VerifyingKey) of a circuit id or proof kind name."""

    # ---- aggregation (SnarkPack, docs/aggregate.md) ------------------------------------------------
    # Both implementations run these through their `aggregator` (the aggregation room, made on
    # themselves: the cluster front aggregates locally, see its module). Each call blocks until its
    # answer, on worker threads of the engine's own (proving goes on meanwhile); `still_wanted` is
    # asked every fraction of a second and, once False, the work stops at its next phase and
    # CallerGone is raised. `domain`: the transcript's separator ("" = cuzk's default).
    def aggregate_jobs(self, job_ids: list[str], srs: SrsSource, circuit_id: str = "", domain: str = "",
                       still_wanted: Callable[[], bool] | None = None) -> AggregateResult:
        """One aggregate of every partition's proof of completed jobs of one circuit (circuit_id's, when
        given), jobs in the order given. JobNotFound, JobNotCompleted, InvalidRequest."""
        return self.aggregator.of_jobs(job_ids, srs, circuit_id, domain, still_wanted)

    def aggregate_proofs(self, circuit_id: str, proofs: list[bytes], public_inputs: list[list[int]],
                         srs: SrsSource, domain: str = "",
                         still_wanted: Callable[[], bool] | None = None) -> AggregateResult:
        """One aggregate of given proofs of a circuit (each item one or more proofs' bytes back to back),
        with one row of public inputs per proof. InvalidRequest."""
        return self.aggregator.of_proofs(circuit_id, proofs, public_inputs, srs, domain, still_wanted)

    def verify_aggregate(self, aggregate: bytes, public_inputs: list[list[int]], srs: SrsSource,
                         circuit_id: str = "", vk: VerifyingKey | None = None, domain: str = "",
                         still_wanted: Callable[[], bool] | None = None) -> AggregateVerdict:
        """Whether an aggregate holds for these public inputs under a circuit's key (circuit_id, or vk).
        A malformed or wrong aggregate is a verdict, not an error."""
        return self.aggregator.verify(aggregate, public_inputs, srs, circuit_id, vk, domain, still_wanted)

    # ---- control and observation ---------------------------------------------------------------
    @abstractmethod
    def pause(self, paused: bool = True) -> None:
        """Stop (or resume) starting queued work; running work continues."""

    @property
    @abstractmethod
    def paused(self) -> bool: ...

    @abstractmethod
    def status(self) -> EngineStatus: ...

    def side_backend(self):
        """The compute backend for work beside the proofs (aggregations): here the
        CPU's; an engine with GPUs lends one, shared with its prover workers."""
        return get_backend("cpu")

    def metrics_text(self) -> str:
        """Prometheus text (GetMetrics)."""
        return self.metrics.text()

    def trace_jsonl(self, last_seconds: float = 0.0) -> str:
        """The pipeline trace as JSON lines (GetTrace; format in observe/trace.py)."""
        return self.trace.jsonl(last_seconds)

    def trace_dropped(self) -> int:
        """Trace events dropped from the ring buffer so far."""
        return self.trace.dropped()

    # ---- shared by the implementations' submit -------------------------------------------------
    def _intake(self, request: ProofRequest) -> tuple[CircuitSpec, Priority, str]:
        """(circuit, effective priority, job id) of a new request; ShuttingDown once closing."""
        if self.closing:
            raise ShuttingDown("the engine is shutting down and accepts no new jobs")
        spec = self.resolve(request)
        return spec, effective_priority(int(request.priority), spec.default_priority), \
            request.request_id or uuid.uuid4().hex

    @staticmethod
    def _duplicate(stored, fingerprint: bytes, queue_position: int) -> SubmitResult:
        """The answer to a request_id seen before: the same request again, or a conflict."""
        if stored.fingerprint != fingerprint:
            raise DuplicateRequestConflict(f"request_id {stored.job_id!r} was already used for a different request")
        return SubmitResult(stored.job_id, queue_position, stored.circuit_id, duplicate=True)
