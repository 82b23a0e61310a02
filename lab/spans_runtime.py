"""Study: do kernels on threads (cuzk.field.threads.run_spans over serial nogil kernels) run as
fast as the `parallel=True` kernels they replaced? Times a few passes of each kind at sizes where all
threads work, through public APIs only, so the same script runs on any tree:

    .venv/bin/python lab/spans_runtime.py [OUT.json]                     # this tree
    PYTHONPATH=OLD_TREE .venv/bin/python lab/spans_runtime.py [OUT.json] # e.g. a `git archive` of 3fef726

Each figure is the median of 7 runs after one warm-up (which also compiles). Inputs come from a fixed seed.
"""

import json
import statistics
import sys
import time

import numpy as np

import cuzk
from cuzk.backend.cpu.ntt import ntt
from cuzk.backend.cpu.spmv import spmv
from cuzk.curve import get_curve
from cuzk.curve.encoding import decode_uncompressed, encode_array
from cuzk.curve.subgroup import in_subgroup
from cuzk.field import fields_of
from cuzk.groth16 import setup_kernels


def timed(fn, reps=7) -> float:
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main() -> None:
    rng = np.random.default_rng(29)
    rows = []

    def row(what, ms):
        rows.append({"what": what, "ms": round(ms, 2)})
        print(f"{what:40s} {ms:9.2f} ms", flush=True)

    fr = fields_of("bn254")[0]
    a, b = fr.random(1 << 20, rng), fr.random(1 << 20, rng)
    row("bn254 fr mul 2^20", timed(lambda: fr.mul(a, b)))
    row("bn254 ntt 2^20", timed(lambda: ntt("bn254", a)))
    row("bn254 coset intt 2^20", timed(lambda: ntt("bn254", a, inverse=True, coset=7)))
    n = 1 << 20
    indptr = np.arange(0, 3 * n + 1, 3, dtype=np.int64)
    cols = rng.integers(0, n, size=3 * n, dtype=np.uint32)
    coeff_idx = rng.integers(0, 3, size=3 * n, dtype=np.uint8)
    table = fr.random(3, rng)
    out = np.empty((n, 4), dtype=np.uint64)
    row("bn254 spmv 2^20 rows x 3", timed(lambda: spmv(indptr, cols, coeff_idx, table, a, out, curve="bn254")))
    row("bls12_381 lagrange 2^20", timed(lambda: setup_kernels.lagrange(fields_of("bls12_381")[0], 1 << 20, 12345, 1 << 20)))

    curve = get_curve("bls12_381")
    for g, m in (("g1", 1 << 16), ("g2", 1 << 14)):
        G = getattr(curve, g)
        pts = G.random(m, rng)
        xyzz = np.empty((m, 4) + G.coord, dtype=np.uint64)
        G._fn("vadd")(pts, pts[::-1].copy(), xyzz)  # XYZZ sums, to normalize
        row(f"bls12_381 {g} to_affine 2^{m.bit_length() - 1}", timed(lambda: G.to_affine(xyzz)))
        row(f"bls12_381 {g} in_subgroup 2^{m.bit_length() - 1}", timed(lambda: in_subgroup(G, pts)))
        raw = encode_array(G, pts, compressed=False)
        row(f"bls12_381 {g} encode uncompressed 2^{m.bit_length() - 1}",
            timed(lambda: encode_array(G, pts, compressed=False)))
        row(f"bls12_381 {g} decode uncompressed 2^{m.bit_length() - 1}",
            timed(lambda: decode_uncompressed(G, raw, check_subgroup=False)))
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump({"tree": cuzk.__file__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
