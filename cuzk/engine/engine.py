"""The engine: accepts proof jobs and runs them through the pipeline.

    from cuzk.engine import Engine, EngineConfig, ProofKind, ProofRequest
    with Engine(config) as engine:                   # starts the workers
        # a WinningPoSt request as Curio sends it (vanilla_proofs, registered_proof, randomness, ...);
        # its parameters are read from config.circuits.filecoin_params
        fields = engine.registry.get("winning-post-2KiB").sample_request()
        job_id = engine.submit(ProofRequest(**fields)).job_id
        result = engine.await_job(job_id, timeout=60)  # JobResult: state, proof, timings
        result = engine.prove(request)                # both at once

It implements `ProvingEngine` (interface.py: cancel, status, metrics, preload / evict
parameters, pause, shutdown, aggregation) over the rooms of this package: the circuit catalog,
the parameters, the jobs and their journal, the pipeline, its resources and observation, and
aggregation (SnarkPack, on the side backend).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time

from .aggregation import Aggregator
from .catalog.by_path import KeysByPath
from .catalog.registry import CircuitRegistry, host_working_bytes
from .catalog.served import build_registry
from .config import EngineConfig
from cuzk import key_ids
from cuzk.backend.memory_plan import MemoryBudgetError
from cuzk.errors import FormatError, ValidationError

from .errors import BudgetTooSmall, InvalidRequest, MissingParameters, QueueFull, ShuttingDown
from .interface import (CancelResult, DeviceStatus, EngineStatus, JobResult, ProvingEngine, QueueInfo, SubmitResult,
                        job_row)
from .jobs import recovery
from .jobs.job import Job
from .jobs.store import InMemoryJobStore, JobStore
from .observe.metrics import EngineMetrics
from .observe.process import rss_bytes
from .observe.trace import TraceRecorder, prover_lane, synthesis_lane
from .params.tiers import SrsManager
from .pipeline.batch_collector import BatchCollector
from .pipeline.prover_queue import ProverQueue
from .pipeline.scheduler import Scheduler
from .pipeline.context import PipelineContext
from .pipeline.stages import prover_loop, synthesis_loop
from .resources.devices import Device, SharedBackend, discover
from .resources.witness_buffers import WitnessBuffers
from .resources.memory import MemoryBudget, format_size
from .types import JobState, JobTimings, Priority, ProofRequest

log = logging.getLogger("cuzk.engine")


class _Slot:
    """One place in the pipeline when synthesis must not run ahead (pipelined = false)."""

    def __init__(self, sem: threading.Semaphore):
        self._sem = sem
        self._done = False

    def release(self) -> None:
        if not self._done:
            self._done = True
            self._sem.release()


class Engine(ProvingEngine):
    def __init__(self, config: EngineConfig | None = None, registry: CircuitRegistry | None = None,
                 store: JobStore | None = None, devices: list[Device] | None = None):
        self.config = config = (config or EngineConfig()).validate()
        self.registry = registry if registry is not None else build_registry(config)
        self.store = store or InMemoryJobStore(config.job_retention_s(), config.daemon.max_finished_jobs)
        self.budget = MemoryBudget(config.total_budget_bytes())
        self.devices = devices if devices is not None else discover(
            config.gpus.backend, config.gpus.devices, config.gpus.gpu_workers_per_device, config.gpus.gpu_threads,
            config.gpus.msm_table_fraction, config.gpu_memory_limit_bytes(), config.cpu_msm_table_bytes(),
            self.budget.try_acquire)
        gpu = next((d.backend for d in self.devices if d.kind == "cuda"), None)
        # with a GPU, witnesses are written into the first GPU's pinned pool, which its uploads read directly
        self.witness_buffers = WitnessBuffers() if gpu is None else WitnessBuffers(alloc=gpu.host_array,
                                                                                   free=gpu.release_host)
        # with a GPU the hot tier is page-locked, so every GPU uploads bases at the pinned rate
        pin = None if gpu is None else gpu.pin_host
        self.srs = SrsManager(self.budget, config.pinned_budget_bytes(), config.eviction_min_idle_s(), pin=pin,
                              on_drop=self._forget_resident)
        self.budget.evictor = self.srs.evict_idle
        for spec in self.registry.specs():
            self.srs.register(spec.circuit_id, spec.params)
        # keys named by clients' paths (cuzk prove --daemon), read by this process: on a unix socket only
        self.keys_by_path = KeysByPath(self.registry, self.srs, config.listen_address().startswith("unix"))
        self.scheduler = Scheduler(BatchCollector(config.scheduler.max_batch_size,
                                                  config.scheduler.max_batch_wait_ms / 1e3))
        workers = sum(d.workers for d in self.devices)
        self.prover_queue = ProverQueue(config.synthesis.lookahead or workers + 1)
        self.metrics = EngineMetrics(self)
        self.aggregator = Aggregator(self, self.metrics.registry)
        self.trace = TraceRecorder(config.trace.capacity,
                                   memory_probe=lambda: (self.budget.used, self.budget.total, self.srs.hot_bytes()))
        self.fault_injector = None  # test seam: called with each unit before proving
        self._slots = None if config.synthesis.pipelined else threading.Semaphore(1)
        self._seq = itertools.count(1)
        self._start_seq = itertools.count(1)
        self._threads: list[threading.Thread] = []
        self._synth_threads: list[threading.Thread] = []
        self._started_at = time.time()
        self._closing = False
        self._started = False
        self._lock = threading.Lock()
        self._admit = threading.Lock()  # limit checks and insertion of new jobs, one at a time
        self.pipeline = PipelineContext(
            config=config, scheduler=self.scheduler, prover_queue=self.prover_queue, srs=self.srs,
            budget=self.budget, witness_buffers=self.witness_buffers, store=self.store, trace=self.trace,
            metrics=self.metrics, fail_job=self.fail_job, take_slot=self.take_slot,
            next_start_seq=self.next_start_seq, rows_on_device=self.rows_on_device,
            fault_injector=lambda: self.fault_injector)
        self.worker_restarts = 0
        self.recovered = {"resumed": 0, "interrupted": 0, "finished": 0, "failed": 0}

    def _forget_resident(self, pk) -> None:
        """A key leaves memory: what the devices kept for it goes (the CPU's MSM window tables)."""
        for d in self.devices:
            d.backend.forget_resident(pk)

    # ---- lifecycle -----------------------------------------------------------------
    def start(self) -> "Engine":
        with self._lock:
            if self._started:
                return self
            self._started = True
        for cid in self.config.srs.preload:
            self.registry.get(cid)  # unknown ids fail now, clearly
        workers = self.config.synthesis_threads()
        # pipelined, one more worker is kept for deadline proofs (HIGH, CRITICAL): a WinningPoSt that
        # arrives while every worker is busy with a sector's partitions starts at once
        urgent = [Priority.HIGH] if self.config.synthesis.pipelined else []
        for i, at_least in enumerate([None] * workers + urgent):
            t = threading.Thread(target=self._supervised, args=(synthesis_loop, (self.pipeline, i, at_least),
                                                                self._synth_threads),
                                 name=f"cuzk-synth-{i}" + ("-urgent" if at_least else ""), daemon=True)
            self.trace.add_lane(synthesis_lane(i), "urgent" if at_least else "synthesis")
            self._synth_threads.append(t)
        wid = 0
        for d in self.devices:
            for _ in range(d.workers):
                t = threading.Thread(target=self._supervised, args=(prover_loop, (self.pipeline, d, wid), self._threads),
                                     name=f"cuzk-prove-{d.label}-{wid}",
                                     daemon=True)
                self.trace.add_lane(prover_lane(d, wid), "prover", d.label)
                self._threads.append(t)
                wid += 1
        last_seq = recovery.restore(self)  # jobs a crashed run left in the journal
        if last_seq:
            self._seq = itertools.count(last_seq + 1)
        for t in self._synth_threads + self._threads:
            t.start()
        if self.config.srs.preload:
            threading.Thread(target=self._preload_all, name="cuzk-preload", daemon=True).start()
        log.info("engine started: %d synthesis worker(s), %d prover worker(s) on %s; memory budget %d MiB",
                 len(self._synth_threads), len(self._threads), ", ".join(d.name for d in self.devices),
                 self.budget.total >> 20)
        return self

    def _supervised(self, loop, args, threads: list) -> None:
        """Run a pipeline worker; if its thread dies (the loop let an exception out), start a
        replacement in its place. The loop has already retried or failed the unit it held."""
        try:
            loop(*args)
        except BaseException as exc:
            me = threading.current_thread()
            log.error("worker %s died (%s: %s); starting a replacement", me.name, type(exc).__name__, exc)
            t = threading.Thread(target=self._supervised, args=(loop, args, threads), name=me.name, daemon=True)
            with self._lock:
                self.worker_restarts += 1
                threads[threads.index(me)] = t
            t.start()

    def _preload_all(self) -> None:
        for cid in self.config.srs.preload:
            try:
                _, ms = self.srs.preload(cid)
                log.info("preloaded parameters of %s in %.0f ms", cid, ms)
            except Exception as exc:
                log.error("preloading %s failed: %s", cid, exc)

    def shutdown(self, drain: bool = True, timeout: float | None = None) -> bool:
        """Stop intake; with drain, finish running jobs (and queued ones if
        daemon.finish_queued_on_shutdown) before returning. Jobs that cannot
        finish end CANCELLED with a message. True when everything drained."""
        with self._lock:
            already = self._closing
            self._closing = True
        if not already:
            keep = not self.config.daemon.finish_queued_on_shutdown
            for job in self.scheduler.close(keep_started_only=keep or not drain):
                self._end(job, JobState.CANCELLED, "the daemon shut down before the job started")
        deadline = None if timeout is None else time.monotonic() + timeout
        drained = True
        if drain and self._started:
            for t in self._synth_threads:
                t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            self.prover_queue.close()
            for t in self._threads:
                t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            drained = not any(t.is_alive() for t in self._synth_threads + self._threads)
        else:
            self.prover_queue.close()
            drained = False
        for job in self.store.active():
            self._end(job, JobState.CANCELLED, "the daemon shut down before the job finished")
        self.budget.poke()
        return drained

    @property
    def closing(self) -> bool:
        return self._closing

    def rows_on_device(self, spec) -> bool:
        """Whether a, b, c of `spec` are evaluated by the prover on its GPU (the witness alone
        crosses the bus), rather than by synthesis on the host."""
        return (spec.compiled is not None and not self.config.synthesis.check_witness
                and all(d.kind == "cuda" for d in self.devices))

    # ---- jobs ----------------------------------------------------------------------------
    def resolve(self, request: ProofRequest):
        """As ProvingEngine.resolve, and a key named by its path (cuzk.key_ids) registered on first use."""
        if key_ids.parse(request.circuit_id) is not None:
            return self.keys_by_path.resolve(request.circuit_id)
        return super().resolve(request)

    def submit(self, request: ProofRequest, client: str = "") -> SubmitResult:
        """Accept a job (durably, with a journaling store). `client` names the submitter for
        limits.max_queued_per_client. Raises QueueFull or BudgetTooSmall (RESOURCE_EXHAUSTED)."""
        spec, priority, job_id = self._intake(request)
        request = dataclasses.replace(request)  # the job frees its input when it ends: keep the caller's intact
        parsed = self._check(spec, request)
        missing = self.srs.missing(spec.circuit_id)
        if missing:  # refused now, not failed once synthesized: a deadline's caller can still act on it
            raise MissingParameters(f"{spec.circuit_id}: {missing}")
        job = Job(job_id, request, spec, priority, next(self._seq))
        job.client = client
        job.parsed = parsed
        job.on_terminal.append(self.job_ended)
        need = host_working_bytes(spec, self.rows_on_device(spec))
        params = self.srs.known_bytes(spec.circuit_id) or 0  # hot beside the working set while it proves
        if need + params > self.budget.total:
            beside = f" beside its parameters' {format_size(params)}" if params else ""
            raise BudgetTooSmall(f"{spec.circuit_id}: one partition needs {format_size(need)} of working memory{beside} "
                                 f"but the budget (memory.total_budget) is {format_size(self.budget.total)}")
        self._check_device_memory(spec)
        with self._admit:
            stored, created = self.store.get(job_id), False
            if stored is None:
                self._check_queue_limits(job)
                stored, created = self.store.add(job)
        if not created:
            return self._duplicate(stored, job.fingerprint, self._queue_position(stored))
        try:
            self.scheduler.submit(job)
        except RuntimeError:
            job.finish(JobState.CANCELLED, error="the engine is shutting down")
            raise ShuttingDown("the engine is shutting down and accepts no new jobs") from None
        self.metrics.submitted.labels(proof_kind=spec.proof_kind.label, priority=priority.name.lower()).inc()
        log.info("job %s accepted: %s, %s, %d partition(s)", job_id, spec.circuit_id, priority.name,
                 spec.num_partitions)
        return SubmitResult(job_id, self._queue_position(job), spec.circuit_id)

    def _check_device_memory(self, spec) -> None:
        """A device whose memory (gpus.memory_limit) cannot hold even one chunk of the circuit's proof
        refuses it now, naming the budget it needs, where the circuit's key is in memory (its shape
        is then known without reading a file); a key not yet read is planned when it proves."""
        pk = self.srs.open_key(spec.circuit_id)
        if pk is None:
            return
        circuit = spec.compiled() if self.rows_on_device(spec) else None
        for d in self.devices:
            try:
                d.backend.check_budget(pk, circuit)
            except MemoryBudgetError as exc:
                raise BudgetTooSmall(f"{spec.circuit_id} on {d.kind}:{d.ordinal} (gpus.memory_limit): {exc}") from None

    @staticmethod
    def _check(spec, request: ProofRequest):
        """The circuit's submit-time check (Filecoin PoSt: decode and verify the vanilla proofs):
        a request that cannot be proven is refused (INVALID_ARGUMENT) and never journaled."""
        if spec.check is None:
            return None
        try:
            return spec.check(request)
        except (FormatError, ValidationError) as exc:
            raise InvalidRequest(f"{spec.circuit_id}: {exc}") from None

    def _check_queue_limits(self, job: Job) -> None:
        per_prio = self.config.max_queued(job.priority.name.lower())
        per_client = self.config.limits.max_queued_per_client
        if not per_prio and not per_client:
            return
        queued = [j for j in self.store.active() if j.state == JobState.QUEUED]
        n = sum(1 for j in queued if j.priority == job.priority)
        if per_prio and n >= per_prio:
            raise QueueFull(f"queue full: {n} {job.priority.name} job(s) are queued "
                            f"(limits.max_queued_per_priority.{job.priority.name.lower()} = {per_prio}); retry later")
        n = sum(1 for j in queued if j.client == job.client)
        if per_client and n >= per_client:
            raise QueueFull(f"queue full: client {job.client or '(anonymous)'!r} has {n} job(s) queued "
                            f"(limits.max_queued_per_client = {per_client}); retry later")

    def cancel(self, job_id: str) -> CancelResult:
        job = self.job(job_id)
        if job.terminal:
            return CancelResult(job_id, False, job.state)
        was_running = job.state.running
        self.scheduler.cancel(job_id)
        self._end(job, JobState.CANCELLED, "cancelled by request")
        self.budget.poke()  # a waiter for memory may belong to this job
        return CancelResult(job_id, was_running, job.state)

    def result(self, job: Job) -> JobResult:
        return JobResult(
            job_id=job.job_id, state=job.state, circuit_id=job.circuit_id, proof_kind=job.spec.proof_kind,
            priority=job.priority, proof=job.proof, error=job.error,
            timings=JobTimings(**job.timings.as_dict()), batch_id=job.batch_id, batch_size=job.batch_size,
            start_seq=job.start_seq, num_partitions=job.num_partitions, partitions_done=job.partitions_done,
            retries=job.retries, public_inputs=[list(p) for p in job.public_inputs],
        )

    # ---- called by the pipeline ---------------------------------------------------------
    def fail_job(self, job: Job, message: str) -> None:
        self._end(job, JobState.FAILED, message)

    def next_start_seq(self) -> int:
        return next(self._start_seq)

    def take_slot(self):
        if self._slots is None:
            return None
        self._slots.acquire()
        return _Slot(self._slots)

    def _end(self, job: Job, state: JobState, message: str) -> None:
        job.finish(state, error=message)

    def job_ended(self, job: Job) -> None:
        """Every job's last step (its on_terminal hook): recorded, counted, traced, logged."""
        self.store.record(job)
        self.metrics.job_finished(job)
        self.trace.job_end(job)
        if job.state == JobState.COMPLETED:
            t = job.timings
            log.info("job %s completed: total %.0f ms (queue %.0f, srs %.0f, synthesis %.0f, prove %.0f), batch of %d",
                     job.job_id, t.total_ms, t.queue_wait_ms, t.srs_load_ms, t.synthesis_ms, t.prove_ms,
                     job.batch_size)
        else:
            log.info("job %s %s: %s", job.job_id, job.state.name.lower(), job.error)

    # ---- parameters --------------------------------------------------------------------
    def preload(self, circuit_id: str) -> tuple[bool, float]:
        spec = self.registry.lookup(circuit_id)
        return self.srs.preload(spec.circuit_id)

    def evict(self, circuit_id: str) -> tuple[bool, int]:
        spec = self.registry.lookup(circuit_id)
        return self.srs.evict(spec.circuit_id)

    def verifying_key(self, circuit_id: str):
        spec = self.registry.lookup(circuit_id)
        return spec, self.srs.verifying_key(spec.circuit_id)

    # ---- control and observation -----------------------------------------------------
    def pause(self, paused: bool = True) -> None:
        self.scheduler.pause(paused)

    @property
    def paused(self) -> bool:
        return self.scheduler.paused

    def queue_counts(self) -> dict:
        queued: dict[tuple[str, str], int] = {}
        running: dict[str, int] = {}
        batching = {j.job_id for j in self.scheduler.batching_jobs()}
        for job in self.store.active():
            if job.state == JobState.QUEUED:
                place = "batching" if job.job_id in batching else "scheduled"
                k = (job.priority.name.lower(), place)
                queued[k] = queued.get(k, 0) + 1
            elif job.state.running:
                running[job.state.name.lower()] = running.get(job.state.name.lower(), 0) + 1
        return {"queued": queued, "running": running}

    def side_backend(self):
        """The first GPU's backend, its calls taking turns with that GPU's prover workers
        (SharedBackend); the CPU's when there is no GPU."""
        gpu = next((d for d in self.devices if d.kind == "cuda"), None)
        return SharedBackend(gpu) if gpu is not None else super().side_backend()

    def status(self) -> EngineStatus:
        per_kind: dict[str, list[int]] = {}
        batching = {j.job_id for j in self.scheduler.batching_jobs()}
        for job in self.store.active():
            row = per_kind.setdefault(job.spec.proof_kind.label, [0, 0, 0])
            if job.state == JobState.QUEUED:
                row[0] += 1
                row[2] += job.job_id in batching
            elif job.state.running:
                row[1] += 1
        devices = []
        for d in self.devices:
            current = next(iter(list(d.current.values())), None)
            kind = ""
            if current:
                try:
                    kind = self.registry.get(current[1]).proof_kind.label
                except Exception:
                    kind = ""
            devices.append(DeviceStatus(d.ordinal, d.name, d.kind, d.workers, len(d.current), d.vram_total,
                                        current[0][0] if current else "", kind, d.vram_peak))
        rss, peak = rss_bytes()
        pinned_limit = self.srs.pinned_budget or self.budget.total
        totals = self.store.ended()
        return EngineStatus(
            devices=devices, srs=self.srs.status(),
            queues=[QueueInfo(k, v[0], v[1], v[2]) for k, v in sorted(per_kind.items())],
            completed=totals["COMPLETED"], failed=totals["FAILED"], cancelled=totals["CANCELLED"],
            uptime_s=time.time() - self._started_at, pinned_bytes=self.srs.hot_bytes(), pinned_limit=pinned_limit,
            memory_used=self.budget.used, memory_limit=self.budget.total, memory_peak=self.budget.peak,
            paused=self.scheduler.paused, draining=self._closing, rss_bytes=rss, peak_rss_bytes=peak,
            workers=self.trace.active(), jobs=self._jobs_in_flight(), throughput=self.trace.throughput(),
            now=self.trace.now(),
        )

    def _jobs_in_flight(self) -> list[dict]:
        """Unfinished jobs with the stage a worker is running for them now (else their state)."""
        stage_of: dict[str, str] = {}
        for w in self.trace.active():
            for jid in w["jobs"]:
                stage_of.setdefault(jid, w["stage"])
        now = time.monotonic()
        return [job_row(j, stage_of.get(j.job_id) or j.state.name.lower(), now - j.submitted_at, j.partitions_done)
                for j in sorted(self.store.active(), key=lambda j: j.key())]

    def _queue_position(self, job: Job) -> int:
        """Jobs that will start before this one (0 = next)."""
        if job.state != JobState.QUEUED:
            return 0
        key = job.key()
        return sum(1 for j in self.store.active() if j.state == JobState.QUEUED and j.key() < key)

