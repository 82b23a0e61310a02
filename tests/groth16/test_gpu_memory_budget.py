"""A proof on the GPU under a device-memory budget small enough that the plan streams every base,
chunks every MSM and splits H, and under a smaller one that also parks the witness in host memory
during H (gpu marked): CuPy's pool never holds more than the cap less what the card holds
outside it, the driver's count of the whole card never exceeds the cap (nothing else may allocate
on the card meanwhile: the GPU tests run one at a time), the proof equals the unconstrained one
with the same r, s, and verifies.

The proof runs in a child process: the pool's cap is per process and device, and the other GPU
tests' backends keep bases and NTT tables in the pool."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
LOG_ROWS = 16


def child(park: bool) -> dict:
    import cupy as cp

    from cuzk.backend import memory_plan as mp
    from cuzk.backend.cuda import CudaBackend
    from cuzk.bench.prove import stamped_sha256
    from cuzk.groth16 import prover, setup
    from cuzk.groth16.verifier import PreparedVerifyingKey, verify

    cc, w, _ = stamped_sha256(LOG_ROWS)
    pk = setup.generate(cc, backend=CudaBackend(), progress=False)
    rs = [(12345, 67890)]
    want = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], CudaBackend(), rs=rs)[0]
    pool = cp.get_default_memory_pool()
    gc.collect()  # the unconstrained backends (their resident bases) go back to the pool, then to the device
    pool.free_all_blocks()
    shape = mp.shape_of(pk, cc)
    # what this process's earlier backends left in the pool (NTT tables the module keeps): the cap goes
    # on top of it, and the capped backend plans with the cap, so the search plans with it too
    used = pool.total_bytes()
    limits = {"min_chunk_bytes": 1 << 16, "min_elementwise": 1 << 10, "buckets": True}
    budget = None
    for kib in range(64 << 10, 1 << 10, -256):  # the largest budget whose plan streams everything, splits H
        try:                                       # and, with `park`, parks the witness
            p = mp.plan(shape, used + (kib << 10), **limits)
        except mp.MemoryBudgetError:
            continue
        if p.split_h and not p.resident and p.chunk_points(96) < shape.n // 2 and p.park_witness == park:
            budget = kib << 10
            break
    assert budget is not None, "no budget forces every streaming path"
    # the budget means the card: what it holds outside the pool (this context, its kernels, the test
    # process's own) counts against it, so the capped backend plans with cap - outside = used + budget
    free, total = cp.cuda.runtime.memGetInfo()
    outside = total - free - pool.total_bytes()
    cap = outside + used + budget
    backend = CudaBackend(memory_limit=cap)
    peak, driver, stop = [pool.total_bytes()], [total - free], threading.Event()

    def sample():
        while not stop.wait(0.002):
            peak[0] = max(peak[0], pool.total_bytes())
            f, t = cp.cuda.runtime.memGetInfo()  # the driver's count of the whole card
            driver[0] = max(driver[0], t - f)

    t = threading.Thread(target=sample)
    t.start()
    try:
        got = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], backend, rs=rs)[0]
    finally:
        stop.set()
        t.join()
    plan = backend.plan
    public = cc.fr.to_ints(w[1:cc.num_inputs])
    return {"cap": cap, "pool_cap": used + budget, "peak": max(peak[0], pool.total_bytes()),
            "driver_peak": driver[0], "split": plan.split_h,
            "parked": plan.park_witness,
            "resident": sorted(plan.resident), "equal": all(np.array_equal(x, y) for x, y in
                                                             ((got.a, want.a), (got.b, want.b), (got.c, want.c))),
            "verified": bool(verify(PreparedVerifyingKey(pk.vk), got, public))}


@pytest.mark.parametrize("park", [False, True], ids=["streamed", "witness-parked"])
def test_the_pool_stays_under_the_cap_and_the_proof_verifies(park):
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, __file__, "child", str(int(park))], cwd=root, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["split"] and r["resident"] == [] and r["parked"] == park
    assert r["peak"] <= r["pool_cap"] and r["driver_peak"] <= r["cap"]
    assert r["equal"] and r["verified"]


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    print(json.dumps(child(sys.argv[2] == "1")))
