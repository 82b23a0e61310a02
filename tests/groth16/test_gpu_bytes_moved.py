"""The bytes a GPU proof copies from host to device (Proof.h2d_bytes, which `bench prove` prints beside
the time with the floor they set), against sums taken from the key's, circuit's and witness's own
arrays (gpu marked):

- the whole card: the first proof moves the witness, every base vector, the density indices and the
  circuit's matrices; the next one only the witness (the rest stays resident);
- a budget that streams every base: each proof moves every base vector again, and the witness.

Runs in a child process: the pool's cap is per process and device."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
LOG_ROWS = 14
VECTORS = ("h", "l", "a", "b_g1", "b_g2")


def child() -> dict:
    import cupy as cp
    import numpy as np

    from cuzk.backend import memory_plan as mp
    from cuzk.backend.cuda import CudaBackend
    from cuzk.bench.prove import random_key, stamped_sha256
    from cuzk.groth16 import prover

    cc, w, _ = stamped_sha256(LOG_ROWS)
    pk = random_key(cc)
    bases = sum(int(pk.bases(v).nbytes) for v in VECTORS)
    indices = int(np.asarray(pk.a_vars).nbytes + np.asarray(pk.b_vars).nbytes)
    matrices = sum(int(m.indptr.nbytes + m.cols.nbytes + m.coeff_idx.nbytes) for m in cc.matrices)
    out = {"witness": int(w.nbytes), "bases": bases, "indices": indices,
           "matrices": matrices + int(cc.coeff_table.nbytes)}

    def moved(backend):
        return prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], backend)[0].h2d_bytes

    whole = CudaBackend()
    out["whole"] = [moved(whole), moved(whole)]
    del whole
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    shape = mp.shape_of(pk, cc)
    limits = {"min_chunk_bytes": 1 << 16, "min_elementwise": 1 << 10, "buckets": True}
    free, total = cp.cuda.runtime.memGetInfo()
    outside = total - free - pool.total_bytes()
    for kib in range(16 << 10, 1 << 8, -64):  # the largest budget that streams every base and keeps the witness
        try:
            p = mp.plan(shape, kib << 10, **limits)
        except mp.MemoryBudgetError:
            continue
        if not p.resident and not p.park_witness:
            break
    else:
        raise AssertionError("no budget streams every base")
    streamed = CudaBackend(memory_limit=outside + (kib << 10))
    out["streamed"] = [moved(streamed), moved(streamed)]
    out["plan"] = streamed.plan.describe()
    out["matrices_resident"] = streamed.plan.matrices_resident
    return out


def test_bytes_moved_match_the_arrays(tmp_path):
    from cuzk.backend import cuda_unavailable_reason

    if (why := cuda_unavailable_reason()) is not None:
        pytest.skip(why)
    res = tmp_path / "moved.json"
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"from test_gpu_bytes_moved import child; open({str(res)!r}, 'w').write(json.dumps(child()))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(res.read_text())
    first, second = got["whole"]
    assert first == got["witness"] + got["bases"] + got["indices"] + got["matrices"], got
    assert second == got["witness"], got
    # streamed: every base again in each proof; the matrices and indices where the plan does not keep them
    for n in got["streamed"]:
        assert n >= got["witness"] + got["bases"], got
        assert n <= got["witness"] + got["bases"] + got["indices"] + 3 * got["matrices"] + 8 * got["witness"], got
    assert got["streamed"][1] >= got["witness"] + got["bases"] + (0 if got["matrices_resident"] else got["matrices"])
