"""Several proving devices: affinity to the device holding a circuit's parameters,
per-device status. The GPUs of
a multi-GPU machine are modelled by CPU-backend devices with distinct ordinals
(the scheduling code is the same; the two-GPU run itself is in BENCHMARKS.md when
a two-GPU machine was available)."""

from __future__ import annotations

import threading
import time

from engine_helpers import job, plain_spec
from post_requests import CIRCUITS, assert_post_proves, request_fields
from test_engine import TIMEOUT, check, prove_passes, req

from cuzk.backend import get_backend
from cuzk.engine import Engine, EngineConfig, JobState, ProofRequest
from cuzk.engine.resources.devices import Device
from cuzk.engine.pipeline.prover_queue import Member, ProverQueue, SynthesizedUnit
from cuzk.engine.pipeline.batch_collector import Batch
from cuzk.engine.pipeline.scheduler import WorkUnit


class _Nothing:
    def release(self):
        pass


def _unit(spec):
    j = job(spec)
    unit = WorkUnit(Batch(spec.circuit_id, [j], time.monotonic()), 0, [j])
    return SynthesizedUnit(unit, [Member(j, None, [])], _Nothing(), _Nothing())


def _device(ordinal: int, kernel_threads: int = 1) -> Device:
    return Device(ordinal, f"model gpu {ordinal}", "cpu", get_backend("cpu"), workers=1,
                  kernel_threads=kernel_threads)


def _wait_idle(q: ProverQueue, device) -> None:
    """Until the device's worker waits in take (the bound only keeps a broken queue from hanging CI)."""
    deadline = time.monotonic() + TIMEOUT
    while q._idle.get(device, 0) == 0:
        assert time.monotonic() < deadline, "worker never started waiting"
        time.sleep(0.005)


def test_an_idle_device_holding_the_parameters_gets_the_job():
    x, y = plain_spec("x"), plain_spec("y")
    holder, other = _device(0), _device(1)
    holder.used("x")
    q = ProverQueue(8)
    got = {}

    def worker(dev, key):
        got[key] = q.take(dev)

    t_holder = threading.Thread(target=worker, args=(holder, "holder"))
    t_holder.start()
    _wait_idle(q, holder)
    t_other = threading.Thread(target=worker, args=(other, "other"))
    t_other.start()
    _wait_idle(q, other)
    q.put(_unit(x))  # both idle: only the holder may take it
    t_holder.join(TIMEOUT)
    assert got["holder"].circuit_id == "x"
    assert t_other.is_alive()  # the other device left it alone and still waits
    q.put(_unit(y))  # nobody holds y: the waiting device takes it
    t_other.join(TIMEOUT)
    assert got["other"].circuit_id == "y"


def test_a_busy_holder_does_not_hold_back_work():
    holder, other = _device(0), _device(1)
    holder.used("x")  # holder is busy (not waiting in take)
    q = ProverQueue(8)
    q.put(_unit(plain_spec("x")))
    assert q.take(other).circuit_id == "x"


def proved_on(engine, job_id: str) -> str:
    """The device (its label, "cpu:1") whose prover lane proved the job's one partition."""
    (lane,) = {x["lane"] for x in prove_passes(engine, job_id)}
    return lane.removeprefix("prove-").rsplit("-", 1)[0]


def test_engine_sends_each_circuit_to_the_idle_device_holding_it_and_reports_each(state_dir, filecoin_params):
    """Two single-partition circuits (Filecoin's 2 KiB PoSt: a job is one proving pass, so the device
    that proves it is the one affinity chose), each held by one of two devices."""
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(state_dir)
    cfg.circuits.filecoin_params = str(filecoin_params)
    cfg.gpus.backend = "cpu"
    cfg.synthesis.kernel_threads = 0  # loading checks every point of the parameters: all cores
    devices = [_device(0, kernel_threads=0), _device(1, kernel_threads=0)]  # one proof at a time here
    win, window = CIRCUITS["winning"], CIRCUITS["window"]
    devices[0].used(window)  # as if each device had proven one of the circuits before
    devices[1].used(win)
    engine = Engine(cfg, devices=devices).start()
    try:
        where = {win: [], window: []}
        for kind, cid in [("winning", win), ("window", window)] * 2:
            for d in devices:  # both devices free: only affinity decides which one proves it
                _wait_idle(engine.prover_queue, d)
            fields = request_fields(kind)
            r = engine.prove(ProofRequest(circuit_id=cid, **fields), TIMEOUT)
            assert r.state == JobState.COMPLETED, r.error
            assert_post_proves(filecoin_params, cid, fields, r.proof, r.public_inputs)
            where[cid].append(proved_on(engine, r.job_id))
        assert where == {win: ["cpu:1"] * 2, window: ["cpu:0"] * 2}

        entered, release = threading.Event(), threading.Event()
        engine.fault_injector = lambda item: (entered.set(), release.wait(TIMEOUT))
        fields = request_fields("window")
        job_id = engine.submit(ProofRequest(circuit_id=window, **fields)).job_id
        assert entered.wait(TIMEOUT)
        st = {d.ordinal: d for d in engine.status().devices}
        release.set()
        assert sorted(st) == [0, 1]
        assert (st[0].busy_workers, st[0].current_job_id) == (1, job_id)  # the holder proves it, and says so
        assert (st[1].busy_workers, st[1].current_job_id) == (0, "")
        r = engine.await_job(job_id, TIMEOUT)
        assert_post_proves(filecoin_params, window, fields, r.proof, r.public_inputs)
    finally:
        engine.shutdown(drain=False)


def test_compare_gpus_needs_two_gpus_and_says_so():
    import subprocess
    import sys

    import pytest

    from cuzk.bench.pipeline_compare import gpu_count

    if gpu_count() >= 2:
        pytest.skip("two GPUs present: the comparison itself runs (cuzk bench batch --compare-gpus), not its refusal")
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "batch", "--compare-gpus", "--kind",
                        "synthetic", "--preset", "tiny", "--count", "2"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2
    assert f"needs at least two GPUs; this machine has {gpu_count()}" in r.stderr
    assert "Traceback" not in r.stderr


def test_hot_tier_holds_what_the_pin_hook_returns(make_engine, vanilla):
    """With a GPU the engine passes CudaBackend.pin_host as the SRS manager's hook (tested on the
    device in tests/backend); here a copying hook shows every decoded vector goes through it
    and proofs made from the hot tier verify."""
    engine = make_engine()
    pinned = []

    def pin(arr):
        out = arr.copy()
        pinned.append(out)
        return out

    engine.srs.pin = pin
    engine.preload("synthetic-tiny")
    with engine.srs.lease("synthetic-tiny") as lease:
        pk = lease._entry.pk
        cached = [pk._cache[name] for name in pk.vectors]
    assert len(pinned) == len(cached) == 5
    assert all(any(c is p for p in pinned) for c in cached)
    v = vanilla()
    check(engine, engine.prove(req(v), TIMEOUT), v)


def test_shared_backend_takes_turns_with_the_device():
    """SharedBackend (the daemon's aggregations on a proving GPU): a call waits while the
    device's lock is held (a prover worker's device section), then gives the MSM py_ecc computes."""
    from cuzk.curve import get_curve
    from cuzk.engine.resources.devices import SharedBackend

    import numpy as np

    import py_ecc.optimized_bn128 as bn

    dev = _device(0)
    shared = SharedBackend(dev)
    c = get_curve("bn254")
    logs, ks = [3 + 7 * i for i in range(8)], [11 + 1000003 * i for i in range(8)]
    bases = c.g1.from_ints([tuple(int(v) for v in bn.normalize(bn.multiply(bn.G1, k))) for k in logs])
    scalars = np.array([c.fr.canonical_from_ints([k])[0] for k in ks], dtype=np.uint64)
    want = tuple(int(v) for v in bn.normalize(bn.multiply(bn.G1, sum(a * b for a, b in zip(logs, ks)) % bn.curve_order)))
    got = {}
    with dev.lock:
        t = threading.Thread(target=lambda: got.setdefault("p", shared.msm(c, "g1", bases, scalars)))
        t.start()
        t.join(0.3)
        assert t.is_alive() and "p" not in got  # blocked on the device's lock
    t.join(TIMEOUT)
    assert not t.is_alive()
    assert c.g1.to_ints(got["p"][None])[0] == want  # py_ecc's sum(k_i s_i) G
    assert shared.name == "cpu" and not dev.lock.locked()
