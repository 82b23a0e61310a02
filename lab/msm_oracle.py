"""Device MSMs at a 2^27 partition's sizes against an oracle that needs no big MSM: every base is one of 1024
random points, so sum s_i P_idx(i) = sum_k (sum of the s_i with idx(i) = k) P_k, a 1024-point MSM.

Written after the first H100 run of issue 44's budgets (2026-12-06): the 32 GiB PoRep partition 0 proved under
24 GiB (a, l, b_g2 streamed in 1 GiB chunks) differed from the same proof under the card's memory (those bases
resident, one MSM over 130M points); this says which MSM is wrong.

Scalars are s_i = u_i K (u_i < 2^20, K one random element: full-size scalars whose sums per pool point stay
exact in float64) for a fraction `big` of them and 0 or 1 for the rest, as PoRep's L, A and B have them;
`big` 1.0 is H's case. Each case: one MSM over all bases on the device, the same in chunks from device bases,
and in chunks streamed from host memory (streamed_msm.chunked_msm), each compared with the oracle (the
1024-point MSM on the CPU backend).

  python3 lab/msm_oracle.py [--n 130170221] [--chunk 11184810] [--g2-n 33112282]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from cuzk.backend.cpu import msm as cpu_msm  # noqa: E402
from cuzk.backend.cuda import msm as dmsm  # noqa: E402
from cuzk.backend.cuda.module import fn  # noqa: E402
from cuzk.backend.cuda.streamed_msm import chunked_msm  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402

POOL = 1024


def case(curve, group: str, n: int, big: float, chunk: int, rng) -> None:
    fr = curve.fr
    pool = getattr(curve, group).random(POOL, rng)
    idx = rng.integers(0, POOL, n)
    t = time.time()
    host = np.ascontiguousarray(pool[idx])
    u = np.where(rng.random(n) < big, rng.integers(2, 1 << 20, n), rng.integers(0, 2, n)).astype(np.uint64)
    is_big = u >= 2
    k = int(rng.integers(1, 1 << 62)) ** 4 % fr.p
    d_u = cp.zeros((n, 4), dtype=cp.uint64)
    d_u[:, 0] = cp.asarray(u)
    d_s = d_u.copy()  # canonical u K where big (Montgomery product of u's limbs with K R), else u
    big_rows = cp.asarray(np.nonzero(is_big)[0])
    scaled = cp.empty((int(big_rows.shape[0]), 4), dtype=cp.uint64)
    fn(curve.name, "fr_mul_const")(((scaled.shape[0] + 255) // 256,), (256,),
                                   (cp.ascontiguousarray(d_u[big_rows]), cp.asarray(fr.from_ints([k])), scaled,
                                    np.uint64(scaled.shape[0])))
    d_s[big_rows] = scaled
    del d_u, scaled
    sums_big = np.bincount(idx[is_big], weights=u[is_big].astype(np.float64), minlength=POOL)
    sums_one = np.bincount(idx[~is_big], weights=u[~is_big].astype(np.float64), minlength=POOL)
    per_point = [(int(a) * k + int(b)) % fr.p for a, b in zip(sums_big, sums_one)]
    want = cpu_msm.msm(curve.name, group, pool, fr.canonical_from_ints(per_point))
    print(f"{group} n={n} big={big}: data {time.time() - t:.1f} s", flush=True)
    d_bases = cp.asarray(host)
    results = {}
    t = time.time()
    results["whole"] = dmsm.msm(curve, group, d_bases, d_s)
    results["whole_s"] = time.time() - t
    t = time.time()
    results["chunks on device"] = chunked_msm(curve, group, None, d_bases, d_s, chunk, cp.cuda.Stream(non_blocking=True))
    results["chunks on device_s"] = time.time() - t
    del d_bases
    cp.get_default_memory_pool().free_all_blocks()
    t = time.time()
    results["chunks streamed"] = chunked_msm(curve, group, host, None, d_s, chunk, cp.cuda.Stream(non_blocking=True))
    results["chunks streamed_s"] = time.time() - t
    for name in ("whole", "chunks on device", "chunks streamed"):
        ok = np.array_equal(np.asarray(results[name]), np.asarray(want))
        print(f"  {name:18s} {'EQUAL to the oracle' if ok else 'WRONG'} ({results[name + '_s']:.2f} s)", flush=True)
    cp.get_default_memory_pool().free_all_blocks()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=130170221, help="G1 bases (PoRep 32 GiB: L's and A's length)")
    ap.add_argument("--g2-n", type=int, default=33112282, help="G2 bases (PoRep 32 GiB: B's length)")
    ap.add_argument("--chunk", type=int, default=11184810, help="points per chunk (1 GiB of G1 points)")
    ap.add_argument("--cases", default="g1-sparse,g2-sparse,g1-dense")
    args = ap.parse_args(argv)
    curve = get_curve("bls12_381")
    rng = np.random.default_rng(7)
    for name in args.cases.split(","):
        group, kind = name.split("-")
        n = args.n if group == "g1" else args.g2_n
        chunk = args.chunk if group == "g1" else args.chunk // 2
        case(curve, group, n, 0.03 if kind == "sparse" else 1.0, chunk, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
