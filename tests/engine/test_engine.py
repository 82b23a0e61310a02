"""The engine as a library, end to end on the synthetic circuit (the mechanics: priorities, batching,
partitions, cancel, retries, parameters; cheap enough for CI) and Filecoin's 2 KiB WindowPoSt (a proof
kind's request, reused witness arrays): real proofs, checked by an outside oracle."""

from __future__ import annotations

import threading
import time

import pytest
from groth16_oracle import R, assert_proves
from post_requests import assert_post_proves, request_fields

from cuzk.engine import Engine, EngineConfig, JobState, Priority, ProofKind, ProofRequest
from cuzk.engine.catalog import synthetic
from cuzk.engine.errors import DuplicateRequestConflict, JobNotFound, ParamsInUse, UnknownCircuit
from cuzk.engine.types import Tier

TIMEOUT = 900  # a cold CI run compiles the kernels on first use
CID = "synthetic-tiny"


def req(vanilla, cid=CID, **kw):
    return ProofRequest(circuit_id=cid, vanilla_proof=vanilla, **kw)


def check(engine, result, vanilla: bytes):
    """Completed, and the proof verifies (outside oracle) against the statement `vanilla` makes, under
    the .vk on disk: neither the key nor the public inputs are what the engine reports."""
    assert result.state == JobState.COMPLETED, result.error
    assert_proves(engine.config.param_dir(), result.circuit_id, vanilla, result.proof, result.public_inputs)


def prove(engine, vanilla: bytes, cid=CID, **kw):
    """Prove `vanilla` and check the result."""
    r = engine.prove(req(vanilla, cid, **kw), TIMEOUT)
    check(engine, r, vanilla)
    return r


def wrong_statement(v: bytes) -> bytes:
    """The synthetic input with partition 0's public input changed: decodes, is not the seed's statement."""
    off = synthetic.HEADER.size + 32
    y = (int.from_bytes(v[off:off + 32], "little") + 1) % R
    return v[:off] + y.to_bytes(32, "little") + v[off + 32:]


@pytest.fixture(scope="module")
def post_engine(state_dir, filecoin_params):
    """One engine for this module's PoSt tests (loading a circuit's parameters checks every point):
    the session's 2 KiB test parameters, kernels on every core (circuits of 2^15 and 2^17 rows)."""
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(state_dir)
    cfg.circuits.filecoin_params = str(filecoin_params)
    cfg.gpus.backend = "cpu"
    cfg.gpus.gpu_threads = 0
    cfg.synthesis.kernel_threads = 0
    engine = Engine(cfg).start()
    yield engine
    engine.shutdown(drain=False)


def test_a_post_proof_kind_by_sector_size_proves_and_verifies(post_engine, filecoin_params):
    """A WINDOW_POST_PARTITION request naming its sector size (no registered proof) goes to the 2 KiB
    circuit at its kind's priority; the proof verifies; the job's phases add up inside its time."""
    engine = post_engine
    before = engine.status().completed
    fields = request_fields("window", 3)
    del fields["registered_proof"]
    fields.update(proof_kind=ProofKind.WINDOW_POST_PARTITION, sector_size=2048)
    submitted = time.monotonic()
    r = engine.await_job(engine.submit(ProofRequest(**fields)).job_id, TIMEOUT)
    assert r.state == JobState.COMPLETED, r.error
    assert r.proof_kind == ProofKind.WINDOW_POST_PARTITION and r.circuit_id == "window-post-2KiB"
    assert r.priority == Priority.HIGH
    assert_post_proves(filecoin_params, r.circuit_id, fields, r.proof, r.public_inputs)
    t = r.timings
    assert t.synthesis_ms > 0 and t.prove_ms > 0
    # one partition: queue, parameter load, synthesis and proving follow each other inside the job's
    # time in the engine, which lies inside the time this test waited for it
    assert t.queue_wait_ms + t.srs_load_ms + t.synthesis_ms + t.prove_ms <= t.total_ms + 1, t
    assert t.total_ms <= (time.monotonic() - submitted) * 1e3 + 1, t
    assert engine.status().completed == before + 1


def prove_passes(engine, job_id: str) -> list[dict]:
    """The prover passes (successful top-level "prove" spans of the trace) that included `job_id`."""
    return [e for e in engine.trace.events() if e.get("ev") == "span" and e["stage"] == "prove"
            and e["depth"] == 0 and e["ok"] and job_id in e["jobs"]]


def proofs_timed_in(engine, pass_: dict) -> set[int]:
    """Indices of the proofs whose prover phases the trace lays inside one pass (one per proof made)."""
    return {e["proof"] for e in engine.trace.events() if e.get("ev") == "span" and e["depth"] == 1
            and e.get("parent") == "prove" and e["lane"] == pass_["lane"] and e["unit"] == pass_["unit"]
            and pass_["t0"] <= e["t0"] <= e["t1"] <= pass_["t1"]}


def test_full_batch_overflow_and_timeout_flush(make_engine, vanilla):
    engine = make_engine(scheduler__max_batch_size=2, scheduler__max_batch_wait_ms=300)
    inputs = [vanilla() for _ in range(3)]
    engine.pause()
    ids = [engine.submit(req(v)).job_id for v in inputs]
    engine.pause(False)
    r = [engine.await_job(i, TIMEOUT) for i in ids]
    for x, v in zip(r, inputs):
        check(engine, x, v)
    a, b, c = ids
    # the full batch: each partition of both jobs proven in ONE prove_batch pass that made two proofs
    for job_id in (a, b):
        passes = prove_passes(engine, job_id)
        assert sorted(x["partition"] for x in passes) == [0, 1], passes
        for x in passes:
            assert sorted(x["jobs"]) == sorted([a, b])
            assert proofs_timed_in(engine, x) == {0, 1}
    assert r[0].batch_id == r[1].batch_id and r[0].batch_size == r[1].batch_size == 2
    # the overflow: proven alone, once the batch wait had passed (no second job came to fill it)
    passes = prove_passes(engine, c)
    assert sorted(x["partition"] for x in passes) == [0, 1] and all(x["jobs"] == [c] for x in passes)
    assert all(proofs_timed_in(engine, x) == {0} for x in passes)
    assert r[2].batch_size == 1 and r[2].batch_id != r[0].batch_id
    assert r[2].timings.queue_wait_ms >= 300 * 0.99, r[2].timings


def test_critical_job_behind_queued_normal_jobs_starts_first(make_engine, vanilla):
    engine = make_engine()
    engine.pause()
    inputs = {}
    for _ in range(3):
        v = vanilla()
        inputs[engine.submit(req(v, priority=Priority.NORMAL)).job_id] = v
    normal = list(inputs)
    v = vanilla()
    sub = engine.submit(req(v, priority=Priority.CRITICAL))
    inputs[sub.job_id] = v
    assert sub.queue_position == 0
    engine.pause(False)
    order = {i: engine.await_job(i, TIMEOUT) for i in normal + [sub.job_id]}
    for r in order.values():
        check(engine, r, inputs[r.job_id])
    assert order[sub.job_id].start_seq < min(order[i].start_seq for i in normal)
    assert [order[i].start_seq for i in normal] == sorted(order[i].start_seq for i in normal)  # FIFO


def test_cancel_queued_and_running(make_engine, vanilla):
    engine = make_engine()
    entered, release = threading.Event(), threading.Event()

    def hold(item):  # keeps the first proving pass running until the test has cancelled it
        if not entered.is_set():
            entered.set()
            release.wait(TIMEOUT)

    engine.fault_injector = hold
    running = engine.submit(req(vanilla())).job_id
    assert entered.wait(TIMEOUT)
    engine.pause()
    queued = engine.submit(req(vanilla())).job_id
    c1 = engine.cancel(queued)
    c2 = engine.cancel(running)
    assert (c1.was_running, c1.state) == (False, JobState.CANCELLED)
    assert (c2.was_running, c2.state) == (True, JobState.CANCELLED)
    release.set()
    engine.pause(False)
    assert engine.await_job(running, TIMEOUT).state == JobState.CANCELLED
    assert engine.await_job(queued, TIMEOUT).state == JobState.CANCELLED
    prove(engine, vanilla())  # still serving
    assert engine.budget.used == engine.srs.hot_bytes()  # working memory returned
    assert engine.cancel(queued).was_running is False
    with pytest.raises(JobNotFound):
        engine.cancel("no-such-job")


def test_malformed_input_fails_clearly_and_engine_keeps_serving(make_engine, vanilla):
    engine = make_engine()
    bad = engine.prove(req(b"not a vanilla proof at all"), TIMEOUT)
    assert bad.state == JobState.FAILED and "bad magic" in bad.error and bad.proof == b""
    wrong = engine.prove(req(synthetic.generate_vanilla("small")), TIMEOUT)  # sent to the tiny circuit
    assert wrong.state == JobState.FAILED and "made for 340 instances" in wrong.error
    t = engine.prove(req(wrong_statement(vanilla())), TIMEOUT)
    assert t.state == JobState.FAILED and "does not match the seed" in t.error and t.proof == b""
    prove(engine, vanilla())
    with pytest.raises(UnknownCircuit):
        engine.submit(req(vanilla(), cid="nope"))


def test_same_request_id_is_one_job(make_engine, vanilla):
    engine = make_engine()
    v = vanilla()
    a = engine.submit(req(v, request_id="sector-7"))
    b = engine.submit(req(v, request_id="sector-7"))
    assert a.job_id == b.job_id == "sector-7" and b.duplicate and not a.duplicate
    check(engine, engine.await_job("sector-7", TIMEOUT), v)
    again = engine.submit(req(v, request_id="sector-7"))  # finished jobs are remembered too
    assert again.duplicate and engine.status().completed == 1
    with pytest.raises(DuplicateRequestConflict):
        engine.submit(req(vanilla(), request_id="sector-7"))


def test_failed_proving_is_retried_once_then_reported(make_engine, vanilla):
    engine = make_engine()
    attempts = []

    def fail_first(item):  # the first proving pass only (of the job's two partitions)
        attempts.append((item.unit.partition, item.attempt))
        if len(attempts) == 1:
            raise RuntimeError("injected device fault")

    engine.fault_injector = fail_first
    r = prove(engine, vanilla())
    failed = attempts[0]
    assert r.retries == 1 and sorted(attempts) == sorted([failed, (failed[0], 1), (1 - failed[0], 0)]), attempts

    def always(item):
        raise RuntimeError("injected device fault")

    engine.fault_injector = always
    r = engine.prove(req(vanilla()), TIMEOUT)
    assert r.state == JobState.FAILED and "after 2 attempt(s)" in r.error and "injected device fault" in r.error


def test_out_of_memory_while_proving_is_retried_then_reported(make_engine, vanilla):
    """The daemon's oom rules make a real MemoryError (numpy's; CuPy's OutOfMemoryError is one too):
    the pass is retried after the device's cached memory is released, a job that keeps running out
    fails with a message saying so, and the engine keeps serving."""
    from cuzk.engine.pipeline import faults

    engine = make_engine()
    engine.fault_injector = faults.parse("oom_once=oom-once,oom=oom-always")
    r = prove(engine, vanilla(), request_id="oom-once-1")
    assert r.retries == 2  # each of its two partitions ran out once
    r = engine.prove(req(vanilla(), request_id="oom-always-1"), TIMEOUT)
    assert r.state == JobState.FAILED and r.proof == b""
    assert "after 2 attempt(s): out of memory on cpu:0" in r.error, r.error
    assert prove(engine, vanilla(), request_id="plain-1").retries == 0


@pytest.mark.gpu
def test_gpu_out_of_memory_fails_the_job_and_the_gpu_keeps_serving(make_engine, vanilla):
    """A real device out-of-memory error (an allocation beyond the H200's memory) inside a proving
    pass: the job fails with a message naming the device, and the next job proves on the same GPU."""
    import cupy as cp

    engine = make_engine(gpus__backend="cuda")
    label = engine.devices[0].label
    engine.fault_injector = lambda item: cp.empty(1 << 48, dtype=cp.uint8)
    r = engine.prove(req(vanilla()), TIMEOUT)
    assert r.state == JobState.FAILED and f"out of memory on {label}" in r.error, r.error
    engine.fault_injector = None
    prove(engine, vanilla())


def test_witness_arrays_are_reused_across_partitions(post_engine, filecoin_params):
    """Synthesis writes each witness into an array a proven partition gave back (no fresh pages for
    every partition): after a few jobs, arrays have been reused, and every proof still verifies
    (a reused array is overwritten whole, so no value of an earlier witness survives)."""
    engine = post_engine
    for seed in range(3):
        fields = request_fields("window", 10 + seed)
        r = engine.prove(ProofRequest(circuit_id="window-post-2KiB", **fields), TIMEOUT)
        assert r.state == JobState.COMPLETED, r.error
        assert_post_proves(filecoin_params, r.circuit_id, fields, r.proof, r.public_inputs)
    assert engine.witness_buffers.reused >= 1
    assert 0 < engine.witness_buffers.free_bytes()


def test_await_timeout_returns_the_current_state(make_engine, vanilla):
    engine = make_engine()
    engine.pause()
    v = vanilla()
    job_id = engine.submit(req(v)).job_id
    r = engine.await_job(job_id, timeout=0.05)
    assert r.state == JobState.QUEUED and not r.done
    engine.pause(False)
    check(engine, engine.await_job(job_id, TIMEOUT), v)


def test_small_memory_budget_serializes_but_completes(make_engine, vanilla):
    engine = make_engine(memory__total_budget="400KiB", synthesis__threads=2)
    inputs = {engine.submit(req(v)).job_id: v for v in [vanilla() for _ in range(3)]}
    for i, v in inputs.items():
        check(engine, engine.await_job(i, TIMEOUT), v)
    assert engine.budget.peak <= engine.budget.total


def test_parameters_preload_evict_and_in_use(make_engine, vanilla):
    engine = make_engine()
    cid = CID
    engine.evict(cid)
    assert engine.srs.tier(cid) == Tier.COLD
    already, _ = engine.preload(cid)
    assert not already and engine.srs.tier(cid) == Tier.HOT
    assert engine.preload(cid)[0] is True
    entered, release = threading.Event(), threading.Event()
    engine.fault_injector = lambda item: (entered.set(), release.wait(TIMEOUT))
    v = vanilla()
    job_id = engine.submit(req(v, cid)).job_id
    assert entered.wait(TIMEOUT)
    with pytest.raises(ParamsInUse):
        engine.evict(cid)
    release.set()
    check(engine, engine.await_job(job_id, TIMEOUT), v)
    was_loaded, freed = engine.evict(cid)
    assert was_loaded and freed > 0 and engine.srs.tier(cid) == Tier.COLD
    assert engine.budget.used == engine.srs.hot_bytes()


def test_shutdown_finishes_running_jobs_and_cancels_queued(make_engine, vanilla):
    engine = make_engine()
    entered, release = threading.Event(), threading.Event()

    def hold(item):
        entered.set()
        release.wait(TIMEOUT)

    engine.fault_injector = hold
    v = vanilla()
    running = engine.submit(req(v)).job_id  # 2 partitions
    assert entered.wait(TIMEOUT)
    engine.pause()
    queued = engine.submit(req(vanilla())).job_id
    done = []
    t = threading.Thread(target=lambda: done.append(engine.shutdown(drain=True, timeout=TIMEOUT)))
    t.start()
    release.set()
    t.join(TIMEOUT)
    assert done == [True]
    check(engine, engine.await_job(running, 0), v)
    q = engine.await_job(queued, 0)
    assert q.state == JobState.CANCELLED and "shut down" in q.error
    with pytest.raises(Exception, match="shutting down"):
        engine.submit(req(vanilla()))


@pytest.mark.gpu
def test_gpu_engine_evaluates_rows_on_the_device(make_engine, vanilla):
    """On a GPU the synthesis stage hands over the witness alone (a, b, c are computed on the device)
    and the proof verifies; with synthesis.check_witness the host check is back and the proof still
    verifies (a witness that does not satisfy a circuit fails that check: spec.rows, tested with
    Filecoin's PoRep and SnapDeals circuits, whose inputs the engine refuses at submit before that)."""
    engine = make_engine(gpus__backend="cuda")
    assert all(d.kind == "cuda" for d in engine.devices)
    r = prove(engine, vanilla())
    assert r.timings.synthesis_ms > 0 and r.timings.prove_ms > 0
    checked = make_engine(gpus__backend="cuda", synthesis__check_witness=True)
    prove(checked, vanilla())
