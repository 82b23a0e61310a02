"""MSM timings: cuzk CPU Pippenger vs py_arkworks_bls12381 in the same process.

Not a test: prints a table (and JSON with --json PATH). Inputs are converted
to arkworks objects before timing; both sides are warmed up first, and each
figure is the best of --reps runs, alternating ours and theirs. Wall time is
the figure of merit; CPU time (all threads) is printed too because on a
shared machine it shows the per-core cost independent of the load
(py_arkworks_bls12381's multiexp runs on one thread, ours on all of numba's).

    python -m cuzk.bench.msm_vs_arkworks [--sizes bls12_381:g1:12,bn254:g2:12] [--reps 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from cuzk.backend.cpu import msm as msm_mod
from cuzk.curve import get_curve

from .kernels import random_scalars


def random_bases(G, n, rng):
    """n distinct-looking points as a_i + b_j sums of two small random sets (fast to make)."""
    k = 1 << ((max(n, 4).bit_length()) // 2 + 1)
    a = G.random(k, rng)
    b = G.random(k, rng)
    ii = np.arange(n) // k
    jj = np.arange(n) % k
    return G.add(a[ii % k], b[jj])


def to_arkworks(G, pts, scalars):
    import py_arkworks_bls12381 as ark  # optional (dev extra): only the bls12_381 rows need it

    cls = ark.G1Point if G.name == "g1" else ark.G2Point
    canon = G.field.base.from_mont(pts.reshape(-1, 6)) if G.name == "g2" else G.field.from_mont(pts.reshape(-1, 6))
    raw = np.ascontiguousarray(canon, dtype="<u8").tobytes()
    size = 96 if G.name == "g1" else 192
    points = [cls.from_xy_bytes_unchecked_le(raw[i * size : (i + 1) * size]) for i in range(pts.shape[0])]
    sraw = np.ascontiguousarray(scalars, dtype="<u8").tobytes()
    sc = [ark.Scalar.from_le_bytes(sraw[i * 32 : (i + 1) * 32]) for i in range(scalars.shape[0])]
    return cls, points, sc


def ours_to_bytes(G, pt):
    canon = G.field.base.from_mont(pt.reshape(-1, 6)) if G.name == "g2" else G.field.from_mont(pt.reshape(-1, 6))
    return np.ascontiguousarray(canon, dtype="<u8").tobytes()


def timed(fn):
    """(wall seconds, CPU seconds of the whole process)."""
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cuzk.bench.msm_vs_arkworks",
                                 description="CPU MSM timings (wall and CPU time) against py_arkworks_bls12381.")
    ap.add_argument("--sizes", default="bls12_381:g1:12,bls12_381:g1:16,bls12_381:g2:12,bn254:g1:12,bn254:g1:16,bn254:g2:12",
                    help="comma-separated curve:group:log2_n cases (arkworks runs on the bls12_381 ones)")
    ap.add_argument("--reps", type=int, default=3, help="timed runs per case (best reported; default 3)")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2024)

    t = time.perf_counter()
    for name in ("bls12_381", "bn254"):
        msm_mod.msm_kernels(name)
    print(f"msm module import/compile: {time.perf_counter() - t:.2f} s")

    rows = []
    for spec in args.sizes.split(","):
        cname, gname, logn = spec.split(":")
        curve = get_curve(cname)
        G = getattr(curve, gname)
        n = 1 << int(logn)
        bases = random_bases(G, n, rng)
        k = random_scalars(curve, n, rng)
        t = time.perf_counter()
        ours_pt = msm_mod.msm(cname, gname, bases, k)  # warm-up (first call compiles if cold)
        first = time.perf_counter() - t
        row = {"curve": cname, "group": gname, "log_n": int(logn), "first_call_s": first}
        ark_fn = None
        if cname == "bls12_381":
            cls, pts, sc = to_arkworks(G, bases, k)
            ark_fn = lambda: cls.multiexp_unchecked(pts, sc)  # noqa: E731
            ref = ark_fn()
            row["agree"] = ref.to_xy_bytes_le() == ours_to_bytes(G, ours_pt)
        ours_t, ark_t = [], []
        for _ in range(args.reps):
            ours_t.append(timed(lambda: msm_mod.msm(cname, gname, bases, k)))
            if ark_fn:
                ark_t.append(timed(ark_fn))
        row["ours_ms"], row["ours_cpu_ms"] = (1e3 * min(t[i] for t in ours_t) for i in (0, 1))
        line = f"{cname:10s} {gname} 2^{logn:<3s} ours {row['ours_ms']:8.1f} ms (cpu {row['ours_cpu_ms']:7.1f})"
        if ark_t:
            row["arkworks_ms"], row["arkworks_cpu_ms"] = (1e3 * min(t[i] for t in ark_t) for i in (0, 1))
            row["ratio"] = row["ours_ms"] / row["arkworks_ms"]
            line += (f"   arkworks {row['arkworks_ms']:8.1f} ms (cpu {row['arkworks_cpu_ms']:7.1f})"
                     f"   ratio {row['ratio']:.2f}   agree {row['agree']}")
        rows.append(row)
        print(line, flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
