"""The cluster front: the ProvingEngine interface over many proving nodes (`cuzk daemon --ray-address`).

    with ClusterEngine(config, "head:6379") as front:   # connects, starts a node actor per prover node
        r = front.prove(ProofRequest(circuit_id="winning-post-2KiB", **fields), timeout=600)  # Curio's fields

Routing: the front keeps the cluster's priority queue and sends a job to a
node only when that node has a free slot (a full batch per prover worker,
plus `extra_slots`), so a CRITICAL job never waits behind NORMAL work already
queued on a busy node while another node could start it. Among nodes with a
free slot it picks one whose parameters for the circuit are hot, else the
least loaded. The vanilla proofs are put into Ray's object store once at
submission; nodes fetch them from there (also on a retry elsewhere).

Failure: when a node's actor dies (node gone, process killed, out of
memory), its unfinished jobs go back to the queue with their ids and are
sent elsewhere (another node first); the client gets one result per job.
Nodes that join are found by polling `ray.nodes()`; a node whose actor died
but which is still in the cluster gets a new actor.

One control thread does discovery, dispatch and result collection;
submit/cancel/pause also dispatch directly, so a job starts without
waiting for the thread's next turn.

Aggregation (Aggregate, VerifyAggregate) runs here, on the front's CPU, not
on a node: the jobs' proofs and public inputs are already at the front (each
job's result came back through it), an SRS path names a file on the host the
client talks to, as with a single daemon, and the nodes' cores and GPUs stay
on proving. Only the verifying key is asked of a node.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time

from cuzk.engine import EngineConfig, JobResult, JobState, JobTimings, ProofRequest
from cuzk.engine.aggregation import Aggregator
from cuzk.engine.catalog.served import build_registry
from cuzk.engine.errors import ShuttingDown
from cuzk.engine.interface import CancelResult, ProvingEngine, SubmitResult, job_row
from cuzk.engine.jobs.store import InMemoryJobStore
from cuzk.engine.observe.process import rss_bytes
from cuzk.engine.observe.trace import TraceRecorder

from . import remote
from . import status as statusmod
from .errors import ClusterError, import_ray
from .front_job import FrontJob, PendingQueue
from .membership import NodeHandle, prover_nodes, spawn
from .metrics import FrontMetrics
from .node import rebuild_vk
from .options import ClusterOptions

log = logging.getLogger("cuzk.cluster")

WAIT_S = 0.05  # the control thread's longest sleep between looks at finished work


class ClusterEngine(ProvingEngine):
    def __init__(self, config: EngineConfig | None = None, ray_address: str | None = None,
                 options: ClusterOptions | None = None):
        self.config = config = (config or EngineConfig()).validate()
        self.options = options or ClusterOptions()
        self.ray_address = ray_address
        self.registry = build_registry(config)  # resolves requests as the nodes will (same config)
        self.scheduler = PendingQueue()
        self.metrics = FrontMetrics(self)
        self.aggregator = Aggregator(self, self.metrics.registry)  # here, on the front: see the module's docstring
        # in memory (daemon.journal is a single-daemon feature)
        self.store = InMemoryJobStore(config.job_retention_s(), config.daemon.max_finished_jobs)
        self.trace = TraceRecorder(0)  # GetTrace on the front is empty: stage intervals are recorded on the nodes
        self._nodes: dict[str, NodeHandle] = {}  # by Ray node id
        self._refs: dict = {}  # ObjectRef -> ("ready", handle, None, "") | ("prove", handle, job, attempt id)
        self._backoff: dict[str, tuple[int, float]] = {}  # Ray node id -> (failed starts, next try)
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._seq = 0
        self._dispatch_seq = 0
        self._started_at = time.time()
        self._closing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._own_ray = False
        self._ray = None

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self) -> "ClusterEngine":
        if self._thread is not None:
            return self
        if self.ray_address and self.ray_address.split(":")[0] in ("127.0.0.1", "localhost"):
            # a one-host cluster bound to loopback: otherwise Ray swaps 127.0.0.1 for the host's IP
            # (read when Ray is imported)
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        ray = self._ray = import_ray()
        if not ray.is_initialized():
            if self.ray_address:
                remote.probe(self.ray_address, self.options.rpc_timeout_s)
            handlers = remote.signal_handlers()
            try:
                ray.init(address=self.ray_address or "auto", namespace="cuzk",
                         log_to_driver=self.options.log_to_driver, logging_level=logging.WARNING)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise ClusterError(f"cannot join the Ray cluster at {self.ray_address or 'auto'}: "
                                   f"{str(exc).splitlines()[0]}") from None
            self._own_ray = True
            remote.restore(handlers)  # Ray's crash handler replaces SIGTERM/SIGINT: the daemon drains on them
        self._discover()
        self._thread = threading.Thread(target=self._loop, name="cuzk-cluster", daemon=True)
        self._thread.start()
        log.info("cluster front started: %d proving node(s) found (resource %r)", len(self._nodes),
                 self.options.node_resource)
        return self

    def wait_for_nodes(self, count: int, timeout: float) -> list[str]:
        """Block until `count` nodes are ready; their names. ClusterError on timeout."""
        end = time.monotonic() + timeout
        while True:
            ready = sorted(n.name for n in self.nodes() if n.state == "ready")
            if len(ready) >= count:
                return ready
            if time.monotonic() > end:
                raise ClusterError(f"only {len(ready)} of {count} proving node(s) ready after {timeout:.0f} s "
                                   f"(nodes offer the resource {self.options.node_resource!r}?)")
            time.sleep(0.1)

    def shutdown(self, drain: bool = True, timeout: float | None = None) -> bool:
        """Stop intake; with drain, wait for dispatched jobs (and queued ones if
        daemon.finish_queued_on_shutdown); the rest end CANCELLED. True when all finished."""
        with self._lock:
            self._closing = True
            if not (drain and self.config.daemon.finish_queued_on_shutdown):
                for job in self.scheduler.drain():
                    self._end(job, JobState.CANCELLED, "the daemon shut down before the job started")
        end = None if timeout is None else time.monotonic() + timeout
        drained = True
        if drain:
            for job in self._active():
                if not job.wait(None if end is None else max(0.0, end - time.monotonic())):
                    drained = False
                    break
        for job in self._active():
            self._end(job, JobState.CANCELLED, "the daemon shut down before the job finished")
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)
        ray = self._ray
        if ray is not None:
            with self._lock:
                handles = list(self._nodes.values())
                self._nodes.clear()
            for h in handles:
                try:
                    ray.kill(h.actor)
                except Exception:
                    pass
            if self._own_ray:
                ray.shutdown()
        return drained and not self._active()

    @property
    def closing(self) -> bool:
        return self._closing

    # ---- jobs --------------------------------------------------------------------------------
    def submit(self, request: ProofRequest, client: str = "") -> SubmitResult:
        """Accept a job into the front's queue. `client` is accepted for the interface; the
        per-client queue limits apply on each node, not across the cluster."""
        spec, priority, job_id = self._intake(request)
        fingerprint = request.fingerprint()
        if self._ray is None:
            raise ShuttingDown("the cluster front is not started")
        old = self.store.get(job_id)
        if old is not None:
            return self._duplicate(old, fingerprint, self._position(old))
        payload = self._ray.put((request.vanilla_proof, list(request.vanilla_proofs)))  # once, for every attempt
        light = dataclasses.replace(request, vanilla_proof=b"", vanilla_proofs=[])
        with self._lock:
            if self._closing:
                raise ShuttingDown("the engine is shutting down and accepts no new jobs")
            self._seq += 1
            job, created = self.store.add(FrontJob(job_id, light, spec, priority, self._seq, fingerprint, payload))
            if not created:
                return self._duplicate(job, fingerprint, self._position(job))
            self.scheduler.push(job)
            position = self.scheduler.position(job)
            self._dispatch()
        log.info("job %s accepted: %s, %s", job_id, spec.circuit_id, priority.name)
        return SubmitResult(job_id, position, spec.circuit_id)

    def _position(self, job: FrontJob) -> int:
        """Jobs that will leave the front's queue before this one (0 once it is on a node)."""
        with self._lock:
            return self.scheduler.position(job) if job.state == JobState.QUEUED and not job.node else 0

    def cancel(self, job_id: str) -> CancelResult:
        job = self.job(job_id)
        with self._lock:
            if job.terminal:
                return CancelResult(job_id, False, job.state)
            handle = self._holder(job)
            self._end(job, JobState.CANCELLED, "cancelled by request")
        if handle is not None:
            handle.actor.cancel.remote(job.node_job_id)  # its reply comes back through the control thread
        return CancelResult(job_id, handle is not None, job.state)

    def result(self, job: FrontJob) -> JobResult:
        if job.result is not None:
            return job.result
        state = JobState.QUEUED
        handle = self._holder(job)
        if handle is not None:  # on a node: ask it where the job is
            try:
                got = self._ray.get(handle.actor.job_state.remote(job.node_job_id), timeout=2.0)
                if JobState(got) in (JobState.SYNTHESIZING, JobState.PROVING):
                    state = JobState(got)
            except Exception:
                pass
        if job.result is not None:
            return job.result
        return JobResult(job.job_id, state, job.circuit_id, job.spec.proof_kind, job.priority,
                         start_seq=job.dispatch_seq, num_partitions=job.spec.num_partitions,
                         retries=max(0, job.attempts - 1),
                         timings=JobTimings(queue_wait_ms=(time.monotonic() - job.submitted_at) * 1e3))

    def _holder(self, job: FrontJob) -> NodeHandle | None:
        """The node that has the job's current attempt, if any."""
        with self._lock:
            for h in self._nodes.values():
                if job.node_job_id in h.inflight and h.inflight[job.node_job_id] is job:
                    return h
        return None

    def _active(self) -> list[FrontJob]:
        return [j for j in self.store.active() if not j.terminal]  # (a job just ended may not be recorded yet)

    # ---- routing -----------------------------------------------------------------------------
    def _dispatch(self) -> None:
        """Send queued jobs, best first, to nodes with a free slot (called with the lock held)."""
        if self.scheduler.paused:
            return
        while True:
            job = self.scheduler.peek()
            if job is None:
                return
            free = [h for h in self._nodes.values() if h.free > 0]
            if not free:
                return
            self.scheduler.pop()
            self._send(job, self._choose(job, free))

    @staticmethod
    def _choose(job: FrontJob, free: list[NodeHandle]) -> NodeHandle:
        candidates = [h for h in free if h.name not in job.excluded] or free
        hot = [h for h in candidates if job.circuit_id in h.hot]
        return min(hot or candidates, key=lambda h: (len(h.inflight) / h.capacity, len(h.inflight), h.name))

    def _send(self, job: FrontJob, handle: NodeHandle) -> None:
        job.attempts += 1
        self._dispatch_seq += 1
        job.dispatch_seq = self._dispatch_seq
        job.dispatched_at = time.monotonic()
        job.node = handle.name
        job.nodes.append(handle.name)
        attempt = job.node_job_id
        request = dataclasses.replace(job.request, request_id=attempt, circuit_id=job.circuit_id,
                                      priority=int(job.priority))
        ref = handle.actor.prove.remote(request, job.payload_ref)  # Ray resolves the payload on the node
        handle.inflight[attempt] = job
        self._refs[ref] = ("prove", handle, job, attempt)
        log.debug("job %s -> %s (attempt %d)", job.job_id, handle.name, job.attempts)

    # ---- the control thread ------------------------------------------------------------------
    def _loop(self) -> None:
        ray = self._ray
        next_poll = time.monotonic() + self.options.poll_s
        while not self._stop.is_set():
            try:
                if time.monotonic() >= next_poll:
                    self._discover()
                    next_poll = time.monotonic() + self.options.poll_s
                with self._lock:
                    self._dispatch()
                    refs = list(self._refs)
                if not refs:
                    self._wake.wait(WAIT_S)
                    self._wake.clear()
                    continue
                ready, _ = ray.wait(refs, num_returns=1, timeout=WAIT_S)
                for ref in ready:
                    self._collect(ref)
            except Exception:
                log.exception("cluster control loop")
                time.sleep(WAIT_S)

    def _collect(self, ref) -> None:
        ray = self._ray
        with self._lock:
            entry = self._refs.pop(ref, None)
        if entry is None:
            return
        kind, handle, job, attempt = entry
        try:
            value = ray.get(ref, timeout=self.options.rpc_timeout_s)
        except ray.exceptions.RayActorError as exc:
            self._lost(handle, remote.first_line(exc))
            return
        except Exception as exc:
            cause = remote.cause(exc)
            if kind == "ready":
                self._lost(handle, f"its engine did not start: {type(cause).__name__}: {cause}")
                return
            with self._lock:
                handle.inflight.pop(attempt, None)
                if not job.terminal and job.node_job_id == attempt:
                    if isinstance(cause, ShuttingDown):  # the node is going away: elsewhere
                        self._requeue(job, handle, "its node shut down")
                    else:
                        self._end(job, JobState.FAILED, f"{type(cause).__name__}: {cause}")
                self._dispatch()
            return
        with self._lock:
            if kind == "ready":
                if handle.state == "starting" and self._nodes.get(handle.node.node_id) is handle:
                    handle.ready(value, self.options, self.config.scheduler.max_batch_size)
                    self._backoff.pop(handle.node.node_id, None)
                    log.info("node %s ready: %s, %d job slot(s)", handle.name, ", ".join(handle.devices),
                             handle.capacity)
                self._dispatch()
                return
            result, hot = value
            handle.hot = set(hot)
            handle.inflight.pop(attempt, None)
            if not job.terminal and job.node_job_id == attempt:
                if result.state == JobState.CANCELLED:  # not by us (we end the job first): the node stopped it
                    self._requeue(job, handle, result.error or "cancelled on its node")
                else:
                    job.finish(self._client_result(job, handle, result))
                    self._after(job)
            self._dispatch()

    def _client_result(self, job: FrontJob, handle: NodeHandle, r: JobResult) -> JobResult:
        t = r.timings
        front_wait_ms = (job.dispatched_at - job.submitted_at) * 1e3
        return dataclasses.replace(
            r, job_id=job.job_id, start_seq=job.dispatch_seq, retries=r.retries + job.attempts - 1,
            batch_id=f"{handle.name}/{r.batch_id}" if r.batch_id else "",
            timings=JobTimings(queue_wait_ms=front_wait_ms + t.queue_wait_ms, srs_load_ms=t.srs_load_ms,
                               synthesis_ms=t.synthesis_ms, prove_ms=t.prove_ms,
                               total_ms=(time.monotonic() - job.submitted_at) * 1e3))

    def _lost(self, handle: NodeHandle, reason: str) -> None:
        """A node actor died: forget it and put its unfinished jobs back in the queue."""
        with self._lock:
            if self._nodes.get(handle.node.node_id) is not handle:
                return  # already handled (several of its calls fail together)
            del self._nodes[handle.node.node_id]
            for ref, entry in list(self._refs.items()):
                if entry[1] is handle:
                    del self._refs[ref]
            if handle.state == "starting":
                n, _ = self._backoff.get(handle.node.node_id, (0, 0.0))
                self._backoff[handle.node.node_id] = (n + 1, time.monotonic() + min(60.0, 2.0 ** n))
            jobs = [j for a, j in handle.inflight.items() if not j.terminal and j.node_job_id == a]
            handle.inflight.clear()
            self.metrics.nodes_lost.inc()
            log.warning("node %s lost (%s); %d unfinished job(s) go back to the queue", handle.name, reason,
                        len(jobs))
            for job in jobs:
                self._requeue(job, handle, reason)
            self._dispatch()
        try:
            self._ray.kill(handle.actor)  # dead already, or unusable (never started)
        except Exception:
            pass

    def _requeue(self, job: FrontJob, handle: NodeHandle, reason: str) -> None:
        job.excluded.add(handle.name)
        if job.attempts >= self.options.max_attempts:
            self._end(job, JobState.FAILED, f"gave up after {job.attempts} attempt(s) on {', '.join(job.nodes)}: "
                      f"{reason}")
            return
        self.scheduler.push(job)
        self.metrics.resubmitted.inc()
        log.warning("job %s resubmitted (attempt %d was on %s: %s)", job.job_id, job.attempts, handle.name, reason)

    def _end(self, job: FrontJob, state: JobState, message: str) -> None:
        """End a job at the front (cancel, shutdown, failure without a node result)."""
        r = JobResult(job.job_id, state, job.circuit_id, job.spec.proof_kind, job.priority, error=message,
                      start_seq=job.dispatch_seq, num_partitions=job.spec.num_partitions,
                      retries=max(0, job.attempts - 1),
                      timings=JobTimings(total_ms=(time.monotonic() - job.submitted_at) * 1e3))
        if job.finish(r):
            self._after(job)

    def _after(self, job: FrontJob) -> None:
        self.store.record(job)  # counts it, and keeps it for daemon.job_retention
        if job.state == JobState.COMPLETED:
            log.info("job %s completed on %s (attempt %d)", job.job_id, job.node, job.attempts)
        else:
            log.info("job %s %s: %s", job.job_id, job.state.name.lower(), job.result.error)

    # ---- membership ----------------------------------------------------------------------------
    def _discover(self) -> None:
        """Start an actor on every prover node that has none; forget nodes that left."""
        try:
            present = {n.node_id: n for n in prover_nodes(self._ray, self.options)}
        except Exception as exc:
            log.warning("cannot list the Ray nodes: %s", remote.first_line(exc))
            return
        now = time.monotonic()
        with self._lock:
            gone = [h for nid, h in self._nodes.items() if nid not in present]
            for nid, node in present.items():
                if nid in self._nodes or self._closing or self._backoff.get(nid, (0, 0.0))[1] > now:
                    continue
                handle = spawn(self._ray, node, self.config, self.options)
                self._nodes[nid] = handle
                self._refs[handle.actor.info.remote()] = ("ready", handle, None, "")
                log.info("node %s (%s) joined: starting its engine", node.name, node.address)
            for h in self._nodes.values():
                if h.state == "starting" and now - h.started_at > self.options.start_timeout_s:
                    gone.append(h)
        for h in gone:
            self._lost(h, "it left the cluster" if h.node.node_id not in present else "its engine did not start "
                       f"within {self.options.start_timeout_s:.0f} s")

    # ---- parameters --------------------------------------------------------------------------
    def _targets(self, node: str | None) -> list[NodeHandle]:
        with self._lock:
            ready = [h for h in self._nodes.values() if h.state == "ready"]
        if node is not None:
            ready = [h for h in ready if h.name == node]
            if not ready:
                raise ClusterError(f"no ready proving node named {node!r}")
        if not ready:
            raise ClusterError("no proving node is ready")
        return sorted(ready, key=lambda h: h.name)

    def preload(self, circuit_id: str, node: str | None = None) -> tuple[bool, float]:
        """Make a circuit's parameters hot on every node (or one). The first node goes
        alone, so nodes sharing a parameter directory never generate the same files at once."""
        cid = self.registry.lookup(circuit_id).circuit_id
        targets = self._targets(node)
        replies = self._gather(targets[:1], "preload", cid, self.options.start_timeout_s)
        replies += self._gather(targets[1:], "preload", cid, self.options.start_timeout_s)
        with self._lock:
            for h, (_, _, hot) in zip(targets, replies):
                h.hot = set(hot)
        return all(r[0] for r in replies), max(r[1] for r in replies)

    def evict(self, circuit_id: str, node: str | None = None) -> tuple[bool, int]:
        cid = self.registry.lookup(circuit_id).circuit_id
        targets = self._targets(node)
        replies = self._gather(targets, "evict", cid, self.options.rpc_timeout_s)
        with self._lock:
            for h, (_, _, hot) in zip(targets, replies):
                h.hot = set(hot)
        return any(r[0] for r in replies), sum(r[1] for r in replies)

    def verifying_key(self, circuit_id: str):
        spec = self.registry.lookup(circuit_id)
        targets = self._targets(None)
        first = next((h for h in targets if spec.circuit_id in h.hot), targets[0])
        curve, fields = self._gather([first], "verifying_key", spec.circuit_id, self.options.start_timeout_s)[0]
        return spec, rebuild_vk(curve, fields)

    def _gather(self, handles: list[NodeHandle], method: str, arg, timeout: float) -> list:
        return remote.gather(self._ray, [h.actor for h in handles], method, arg, timeout)

    # ---- control and observation -------------------------------------------------------------
    def pause(self, paused: bool = True) -> None:
        """Stop (or resume) sending queued jobs to nodes; work on the nodes continues."""
        with self._lock:
            self.scheduler.paused = paused
            self._dispatch()

    @property
    def paused(self) -> bool:
        return self.scheduler.paused

    def nodes(self) -> list[statusmod.NodeStatus]:
        """The front's own view of its nodes (no remote calls)."""
        with self._lock:
            return [statusmod.NodeStatus(h.name, h.node.address, h.state, h.capacity, len(h.inflight))
                    for h in sorted(self._nodes.values(), key=lambda h: h.name)]

    def node_actor(self, name: str):
        """The Ray actor of a node (`ray.kill` it to take the node's engine out of service)."""
        with self._lock:
            for h in self._nodes.values():
                if h.name == name:
                    return h.actor
        raise ClusterError(f"no proving node named {name!r}")

    def node_of(self, job_id: str) -> str:
        """The node that proved (or is proving) a job."""
        return self.job(job_id).node

    def pending_counts(self) -> dict[str, int]:
        with self._lock:
            out: dict[str, int] = {}
            for j in self.scheduler.jobs():
                out[j.priority.name.lower()] = out.get(j.priority.name.lower(), 0) + 1
            return out

    def status(self) -> statusmod.ClusterStatus:
        with self._lock:
            handles = sorted(self._nodes.values(), key=lambda h: h.name)
            front_queues: dict[str, int] = {}
            for j in self.scheduler.jobs():
                front_queues[j.spec.proof_kind.label] = front_queues.get(j.spec.proof_kind.label, 0) + 1
            now = time.monotonic()
            waiting = [{**job_row(j, "queued at the front", now - j.submitted_at), "node": ""}
                       for j in sorted(self.scheduler.jobs(), key=FrontJob.key)]
            views = [statusmod.NodeStatus(h.name, h.node.address, h.state, h.capacity, len(h.inflight))
                     for h in handles]
        for view, answer in zip(views, self._ask_all(handles, "status")):
            if isinstance(answer, Exception):
                view.error = remote.first_line(answer)
                if view.state == "ready":
                    view.state = "unreachable"
            else:
                view.engine = answer
        return statusmod.merge(views, front_queues, self.store.ended(), uptime_s=time.time() - self._started_at,
                               paused=self.scheduler.paused, draining=self._closing, rss=rss_bytes(),
                               front_jobs=waiting)

    def node_metrics_texts(self) -> dict[str, str]:
        with self._lock:
            handles = [h for h in self._nodes.values() if h.state == "ready"]
        return {h.name: a for h, a in zip(handles, self._ask_all(handles, "metrics_text"))
                if not isinstance(a, Exception)}

    def _ask_all(self, handles: list[NodeHandle], method: str) -> list:
        return remote.ask_all(self._ray, [h.actor if h.state == "ready" else None for h in handles], method,
                              self.options.rpc_timeout_s)

