"""The engine as a library, end to end on the tiny built-in workloads (the PoSt kinds, cheap
enough for CI) and the synthetic circuit (batching, partitions): real proofs, checked by an oracle."""

from __future__ import annotations

import threading

import pytest
from groth16_oracle import verify_job

from cuzk.circuits import get_kind
from cuzk.circuits.vanilla import encode, peek
from cuzk.engine import JobState, Priority, ProofKind, ProofRequest
from cuzk.engine.errors import DuplicateRequestConflict, JobNotFound, ParamsInUse, UnknownCircuit
from cuzk.engine.types import Tier

TIMEOUT = 900  # a cold CI run compiles the kernels on first use


def req(vanilla, cid="winning-post-like-tiny", **kw):
    return ProofRequest(circuit_id=cid, vanilla_proof=vanilla, **kw)


def check(engine, result):
    assert result.state == JobState.COMPLETED, result.error
    spec, vk = engine.verifying_key(result.circuit_id)
    assert len(result.proof) == 192 * spec.num_partitions
    assert verify_job(vk, result.proof, result.public_inputs)


def tampered(v: bytes) -> bytes:
    """The container with one Merkle path element changed: decodes, does not satisfy the circuit."""
    head = peek(v)
    arrays = get_kind(head["kind"]).parse(head["preset"], v).copy().arrays
    arrays["paths"][0, 0, 1, 0, 2, 0] ^= 1
    return encode(head["kind"], head["preset"], head["shape"], arrays)


def test_post_proof_kinds_prove_and_verify(make_engine, vanilla):
    engine = make_engine()
    ids = {kind: engine.submit(ProofRequest(proof_kind=kind, sector_size=2048, vanilla_proof=vanilla(name))).job_id
           for kind, name in ((ProofKind.WINNING_POST, "winning-post-like"),
                              (ProofKind.WINDOW_POST_PARTITION, "window-post-like"))}
    for kind, job_id in ids.items():
        r = engine.await_job(job_id, TIMEOUT)
        check(engine, r)
        assert r.proof_kind == kind and r.circuit_id.endswith("-post-like-tiny")
        assert r.priority == (Priority.CRITICAL if kind == ProofKind.WINNING_POST else Priority.HIGH)
        t = r.timings
        assert t.total_ms >= t.queue_wait_ms and t.synthesis_ms > 0 and t.prove_ms > 0
    assert engine.status().completed == 2


def test_full_batch_overflow_and_timeout_flush(make_engine, vanilla):
    engine = make_engine(scheduler__max_batch_size=2, scheduler__max_batch_wait_ms=300)
    engine.pause()
    ids = [engine.submit(req(vanilla("synthetic"), "synthetic-tiny")).job_id for _ in range(3)]
    engine.pause(False)
    r = [engine.await_job(i, TIMEOUT) for i in ids]
    for x in r:
        check(engine, x)
    assert r[0].batch_id == r[1].batch_id and r[0].batch_size == r[1].batch_size == 2  # full batch
    assert r[2].batch_id != r[0].batch_id and r[2].batch_size == 1  # overflow, flushed by its timeout


def test_critical_job_behind_queued_normal_jobs_starts_first(make_engine, vanilla):
    engine = make_engine()
    engine.pause()
    normal = [engine.submit(req(vanilla("window-post-like"), "window-post-like-tiny", priority=Priority.NORMAL)).job_id
              for _ in range(3)]
    sub = engine.submit(req(vanilla(), priority=Priority.CRITICAL))
    assert sub.queue_position == 0
    engine.pause(False)
    order = {i: engine.await_job(i, TIMEOUT) for i in normal + [sub.job_id]}
    for r in order.values():
        check(engine, r)
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
    check(engine, engine.prove(req(vanilla()), TIMEOUT))  # still serving
    assert engine.budget.used == engine.srs.hot_bytes()  # working memory returned
    assert engine.cancel(queued).was_running is False
    with pytest.raises(JobNotFound):
        engine.cancel("no-such-job")


def test_malformed_input_fails_clearly_and_engine_keeps_serving(make_engine, vanilla):
    engine = make_engine()
    bad = engine.prove(req(b"not a vanilla proof at all"), TIMEOUT)
    assert bad.state == JobState.FAILED and "bad magic" in bad.error and bad.proof == b""
    wrong = engine.prove(req(vanilla("window-post-like")), TIMEOUT)  # sent to the winning circuit
    assert wrong.state == JobState.FAILED and "made for kind 'window-post-like'" in wrong.error
    t = engine.prove(req(tampered(vanilla())), TIMEOUT)
    assert t.state == JobState.FAILED and "do not satisfy the circuit" in t.error and t.proof == b""
    check(engine, engine.prove(req(vanilla()), TIMEOUT))
    with pytest.raises(UnknownCircuit):
        engine.submit(req(vanilla(), cid="nope"))


def test_same_request_id_is_one_job(make_engine, vanilla):
    engine = make_engine()
    v = vanilla()
    a = engine.submit(req(v, request_id="sector-7"))
    b = engine.submit(req(v, request_id="sector-7"))
    assert a.job_id == b.job_id == "sector-7" and b.duplicate and not a.duplicate
    check(engine, engine.await_job("sector-7", TIMEOUT))
    again = engine.submit(req(v, request_id="sector-7"))  # finished jobs are remembered too
    assert again.duplicate and engine.status().completed == 1
    with pytest.raises(DuplicateRequestConflict):
        engine.submit(req(vanilla(), request_id="sector-7"))


def test_failed_proving_is_retried_once_then_reported(make_engine, vanilla):
    engine = make_engine()
    attempts = []

    def fail_first(item):
        attempts.append(item.attempt)
        if item.attempt == 0:
            raise RuntimeError("injected device fault")

    engine.fault_injector = fail_first
    r = engine.prove(req(vanilla()), TIMEOUT)
    check(engine, r)
    assert r.retries == 1 and attempts == [0, 1]

    def always(item):
        raise RuntimeError("injected device fault")

    engine.fault_injector = always
    r = engine.prove(req(vanilla()), TIMEOUT)
    assert r.state == JobState.FAILED and "after 2 attempt(s)" in r.error and "injected device fault" in r.error


def test_await_timeout_returns_the_current_state(make_engine, vanilla):
    engine = make_engine()
    engine.pause()
    job_id = engine.submit(req(vanilla())).job_id
    r = engine.await_job(job_id, timeout=0.05)
    assert r.state == JobState.QUEUED and not r.done
    engine.pause(False)
    check(engine, engine.await_job(job_id, TIMEOUT))


def test_small_memory_budget_serializes_but_completes(make_engine, vanilla):
    engine = make_engine(memory__total_budget="400KiB", synthesis__threads=2)
    ids = [engine.submit(req(vanilla("synthetic"), "synthetic-tiny")).job_id for _ in range(3)]
    for i in ids:
        check(engine, engine.await_job(i, TIMEOUT))
    assert engine.budget.peak <= engine.budget.total


def test_parameters_preload_evict_and_in_use(make_engine, vanilla):
    engine = make_engine()
    cid = "window-post-like-tiny"
    engine.evict(cid)
    assert engine.srs.tier(cid) == Tier.COLD
    already, _ = engine.preload(cid)
    assert not already and engine.srs.tier(cid) == Tier.HOT
    assert engine.preload(cid)[0] is True
    entered, release = threading.Event(), threading.Event()
    engine.fault_injector = lambda item: (entered.set(), release.wait(TIMEOUT))
    job_id = engine.submit(req(vanilla("window-post-like"), cid)).job_id
    assert entered.wait(TIMEOUT)
    with pytest.raises(ParamsInUse):
        engine.evict(cid)
    release.set()
    check(engine, engine.await_job(job_id, TIMEOUT))
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
    running = engine.submit(req(vanilla("synthetic"), "synthetic-tiny")).job_id  # 2 partitions
    assert entered.wait(TIMEOUT)
    engine.pause()
    queued = engine.submit(req(vanilla())).job_id
    done = []
    t = threading.Thread(target=lambda: done.append(engine.shutdown(drain=True, timeout=TIMEOUT)))
    t.start()
    release.set()
    t.join(TIMEOUT)
    assert done == [True]
    check(engine, engine.await_job(running, 0))
    q = engine.await_job(queued, 0)
    assert q.state == JobState.CANCELLED and "shut down" in q.error
    with pytest.raises(Exception, match="shutting down"):
        engine.submit(req(vanilla()))
