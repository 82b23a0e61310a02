"""The two pipeline stages: synthesis workers and prover workers.

Synthesis worker: take the next unit (one partition of a batch) from the
scheduler, lease its circuit's parameters (loading them if needed), reserve
working memory for its witnesses (blocking while the budget is full), build
each job's witness and a/b/c (on GPUs only the witness: the prover computes
a/b/c on the device, unless `synthesis.check_witness`), and hand the result to the prover queue
(blocking while it is full). Prover worker: take a unit, prove all its jobs'
partitions in one pass, encode the proofs and deliver them; a failed pass
is retried (`scheduler.prove_retries`), then its jobs fail. Cancelled or
failed jobs are dropped at every stage boundary.

Synthesis and proving run in different threads: the numba kernels release
the GIL, so the stages overlap on separate cores.
"""

from __future__ import annotations

import logging
import time
import traceback

import numba

from cuzk.errors import CuzkError
from cuzk.formats import proof_bytes
from cuzk.groth16.prover import ProofJob, prove_batch

from ..catalog.registry import host_working_bytes
from ..errors import BudgetTooSmall, Cancelled, ShuttingDown
from ..observe.trace import prover_lane, synthesis_lane, unit_info
from .context import PipelineContext
from .prover_queue import Member, SynthesizedUnit

log = logging.getLogger("cuzk.engine")


def set_kernel_threads(n: int) -> None:
    """numba's thread count is per calling thread: each worker sets its own."""
    if n > 0:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def describe_error(exc: BaseException) -> str:
    """Our own errors are already phrased for users; anything else is a bug report."""
    if isinstance(exc, (CuzkError, ValueError)):
        return str(exc)
    return f"internal error: {type(exc).__name__}: {exc}"


# ---- synthesis ------------------------------------------------------------------------


def synthesis_loop(ctx: PipelineContext, worker_id: int, at_least: int | None = None) -> None:
    """`at_least`: the worker takes units of that priority or higher only, on every core (a deadline
    proof's witness is latency, not throughput)."""
    if at_least is None:
        set_kernel_threads(ctx.config.synthesis.kernel_threads)
    while True:
        slot = ctx.take_slot()
        unit = ctx.scheduler.pop(at_least=at_least)
        if unit is None:
            if slot is not None:
                slot.release()
            return
        try:
            synthesize_unit(ctx, unit, slot, synthesis_lane(worker_id))
        except Exception as exc:  # never let a worker die with jobs in its hands
            log.error("synthesis worker %d: %s\n%s", worker_id, exc, traceback.format_exc())
            for job in unit.live_jobs():
                ctx.fail_job(job, f"partition {unit.partition}: {describe_error(exc)}")
            if slot is not None:
                slot.release()
        except BaseException as exc:  # the worker itself ends: its unit is retried once (or fails), never dropped
            if slot is not None:
                slot.release()
            if unit.attempt < 1:
                unit.attempt += 1
                ctx.scheduler.requeue(unit)
            else:
                for job in unit.live_jobs():
                    ctx.fail_job(job, f"partition {unit.partition}: the synthesis worker died twice on it "
                                         f"({type(exc).__name__}: {exc})")
            raise


def synthesize_unit(ctx: PipelineContext, unit, slot, lane: str = "synth") -> None:
    live = unit.live_jobs()
    if not live:
        if slot is not None:
            slot.release()
        return
    for job in live:
        if job.mark_started(ctx.next_start_seq):
            ctx.store.record(job)
    spec = unit.spec
    p = unit.partition
    tr = ctx.trace
    info = unit_info(unit, live)
    picked = tr.now()
    for job in live:
        tr.queue_wait(job, info, picked)

    def abandoned() -> bool:
        return not unit.live_jobs()

    lease = ctx.srs.lease(unit.circuit_id)
    reservation = None
    try:
        with tr.stage(lane, "param_load", info) as st:
            load_ms = lease.ensure_hot(key=unit.key, cancelled=abandoned)
            st.keep = bool(load_ms)
        if load_ms:
            for job in live:
                job.add_time(srs_load_ms=load_ms)
        rows_on_device = ctx.rows_on_device(spec)
        per_job = host_working_bytes(spec, rows_on_device)
        with tr.stage(lane, "memory_wait", info):
            reservation = ctx.budget.acquire(per_job * len(live), key=unit.key, cancelled=abandoned,
                                                what=f"{spec.circuit_id} partition {p} x{len(live)}")
        tr.sample_memory()
        members = []
        for job in live:
            if job.terminal:
                continue
            t0 = time.perf_counter()
            one = {**info, "jobs": [job.job_id]}
            try:
                with tr.stage(lane, "witness", one):  # parsing the vanilla proof included
                    parsed = job.parse_once(lambda job=job: spec.parse(job.request))
                    if spec.witness_vars is not None:
                        buf = ctx.witness_buffers.take((spec.witness_vars(), 4))
                        wit = spec.witness(parsed, p, out=buf)
                    else:
                        wit = spec.witness(parsed, p)
                if rows_on_device:  # the prover evaluates the circuit where the witness goes
                    proof_job = ProofJob(wit.w, circuit=spec.compiled())
                else:
                    with tr.stage(lane, "spmv", one):
                        proof_job = ProofJob(wit.w, rows=spec.rows(wit.w))
            except Exception as exc:
                ctx.fail_job(job, f"partition {p} synthesis failed: {describe_error(exc)}")
                if not isinstance(exc, (CuzkError, ValueError)):
                    log.error("synthesis of %s: %s", job.job_id, traceback.format_exc())
                continue
            ms = (time.perf_counter() - t0) * 1e3
            job.add_time(synthesis_ms=ms)
            job.public_inputs[p] = wit.public_inputs
            ctx.metrics.observe_phase(job, "synthesis", ms / 1e3)
            members.append(Member(job, proof_job, wit.public_inputs, reuse_witness=spec.witness_vars is not None))
        if len(members) < len(live):
            reservation.release(per_job * (len(live) - len(members)))
        if not members:
            raise Cancelled("no live jobs left in the unit")
        item = SynthesizedUnit(unit, members, lease, reservation, slot, buffers=ctx.witness_buffers)
        with tr.stage(lane, "handoff", {**info, "jobs": [m.job.job_id for m in members]}):
            ctx.prover_queue.put(item)  # blocks while the prover queue is full
    except (Cancelled, ShuttingDown) as exc:
        _release(lease, reservation, slot)
        if isinstance(exc, ShuttingDown):
            for job in unit.live_jobs():
                ctx.fail_job(job, "the daemon shut down before the job was proven")
    except BudgetTooSmall as exc:
        _release(lease, reservation, slot)
        for job in unit.live_jobs():
            ctx.fail_job(job, str(exc))
    except BaseException:
        _release(lease, reservation, slot)
        raise


def _release(lease, reservation, slot) -> None:
    if reservation is not None:
        reservation.release()
    lease.release()
    if slot is not None:
        slot.release()


# ---- proving ------------------------------------------------------------------------------


def prover_loop(ctx: PipelineContext, device, worker_id: int) -> None:
    if device.kind == "cpu":
        set_kernel_threads(device.kernel_threads)
    while True:
        item = ctx.prover_queue.take(device)
        if item is None:
            return
        try:
            prove_item(ctx, device, worker_id, item)
        except Exception as exc:
            log.error("prover worker %d: %s\n%s", worker_id, exc, traceback.format_exc())
            for m in item.members:
                ctx.fail_job(m.job, f"partition {item.unit.partition}: {describe_error(exc)}")
            item.release()
        except BaseException as exc:  # the worker itself ends: its unit is retried (or fails), never dropped
            hand_on(ctx, item, f"the prover worker died ({type(exc).__name__}: {exc})")
            raise
        finally:
            device.current.pop(worker_id, None)


def hand_on(ctx: PipelineContext, item: SynthesizedUnit, why: str) -> None:
    """A unit whose worker is gone: back to the front of the prover queue while retries
    (`scheduler.prove_retries`) remain, else its jobs fail."""
    live = [m for m in item.members if not m.job.terminal]
    if live and item.attempt < ctx.config.scheduler.prove_retries:
        item.attempt += 1
        for m in live:
            m.job.retries += 1
        log.warning("%s while proving %s; retrying (attempt %d)", why, item.unit.describe(), item.attempt + 1)
        ctx.prover_queue.put(item, front=True)
        return
    for m in live:
        ctx.fail_job(m.job, f"partition {item.unit.partition} proving failed after {item.attempt + 1} "
                               f"attempt(s): {why}")
    item.release()


def _release_device_memory(device) -> None:
    try:
        device.backend.release_memory()
    except Exception as exc:  # a device too broken to free memory fails the retry with its own error
        log.error("releasing memory on %s: %s", device.label, exc)


def prove_item(ctx: PipelineContext, device, worker_id: int, item: SynthesizedUnit) -> None:
    members = [m for m in item.members if not m.job.terminal]
    if not members:
        item.release()
        return
    for m in members:
        if m.job.mark_proving():
            ctx.store.record(m.job)
    p = item.unit.partition
    device.current[worker_id] = ([m.job.job_id for m in members], item.circuit_id)
    pk = item.lease.pk
    tr = ctx.trace
    lane = prover_lane(device, worker_id)
    info = unit_info(item.unit, [m.job for m in members])
    t0 = time.perf_counter()
    pt0 = tr.now()
    tr.set_active(lane, "prove", info, pt0)
    try:
        inject = ctx.fault_injector()
        if inject is not None:
            inject(item)
        # on a GPU the lock covers each proof's device work only (see prove_batch)
        lock = device.lock if device.kind == "cuda" else None
        proofs = prove_batch(pk, [m.proof_job for m in members], device.backend, device_lock=lock)
        device.sample_memory()
    except Exception as exc:
        tr.clear_active(lane)
        tr.span(lane, "prove", info, pt0, tr.now(), ok=False)
        why = describe_error(exc)
        if isinstance(exc, MemoryError):  # CuPy's OutOfMemoryError is one too
            _release_device_memory(device)
            why = f"out of memory on {device.label} ({exc}); its cached memory was released"
        if item.attempt < ctx.config.scheduler.prove_retries:
            item.attempt += 1
            for m in members:
                m.job.retries += 1
            ctx.metrics.retries.labels(proof_kind=item.unit.spec.proof_kind.label).inc()
            log.warning("proving %s failed (%s); retrying (attempt %d)", item.unit.describe(), why,
                        item.attempt + 1)
            ctx.prover_queue.put(item, front=True)
            return
        for m in members:
            ctx.fail_job(m.job, f"partition {p} proving failed after {item.attempt + 1} attempt(s): {why}")
        if not isinstance(exc, (CuzkError, ValueError, MemoryError)):
            log.error("proving %s: %s", item.unit.describe(), traceback.format_exc())
        item.release()
        return
    ms = (time.perf_counter() - t0) * 1e3
    pt1 = tr.now()
    tr.clear_active(lane)
    tr.span(lane, "prove", info, pt0, pt1)
    tr.prover_phases(lane, info, pt0, pt1, [getattr(pr, "timings", None) for pr in proofs])
    device.used(item.circuit_id)
    device.backend.keep_resident(pk)  # after its first proof: the CPU builds MSM window tables at idle priority
    ctx.metrics.batch_size.labels(circuit_id=item.circuit_id).observe(len(members))
    with tr.stage(lane, "encode", info):
        encoded = [proof_bytes.encode(proof) for proof in proofs]
    # the working memory goes back, and is sampled, before a job can be reported complete
    item.release()
    tr.sample_memory()
    for m, data in zip(members, encoded):
        m.job.add_time(prove_ms=ms)
        ctx.metrics.observe_phase(m.job, "prove", ms / 1e3)
        m.job.add_partition(p, data)  # completion is reported through the job's on_terminal hook
