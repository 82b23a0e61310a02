"""Stage timings of the device MSM and NTT (for tuning; prints a table)."""

import sys
import time

import cupy as cp
import numpy as np

from cuzk.backend.cuda import msm as M
from cuzk.backend.cuda import ntt as T
from cuzk.backend.cuda.module import fn
from cuzk.curve import get_curve


def stamp(label, t0, rows):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    rows.append((label, (t - t0) * 1e3))
    return t


def profile_msm(curve, group, log_n, rng, c=None):
    grp = getattr(curve, group)
    n = 1 << log_n
    base = grp.random(1024, rng)
    pts = cp.asarray(np.ascontiguousarray(base[rng.integers(0, 1024, n)]))
    sc = cp.asarray(curve.fr.from_mont(curve.fr.random(n, rng))).view(cp.uint32)
    flat = M._bases_view(curve, group, pts)
    c = c or M.choose_window(n)
    for rep in range(2 if log_n > 20 or c != 17 else 1):
        rows = []
        t0 = time.perf_counter()
        nwin = (256 + c) // c
        half = 1 << (c - 1)
        nb = nwin * half
        counts = cp.zeros(nb + 1, dtype=cp.uint32)
        keys = cp.empty(nwin * n, dtype=cp.uint32)
        t = stamp("alloc", t0, rows)
        fn(curve.name, "msm_digits")(((n + 255) // 256,), (256,), (sc, np.uint64(n), np.uint32(c), np.uint32(nwin), keys, counts))
        t = stamp("digits", t, rows)
        offsets = cp.zeros(nb + 1, dtype=cp.uint32)
        cp.cumsum(counts[:nb], out=offsets[1:])
        cursor = offsets[:-1].copy()
        t = stamp("scan", t, rows)
        total = nwin * n
        ordered = cp.empty(total, dtype=cp.uint32)
        fn(curve.name, "msm_scatter")(((total + 255) // 256,), (256,), (keys, np.uint64(n), np.uint32(nwin), cursor, ordered))
        t = stamp("scatter", t, rows)
        words = M._coord_words(group, curve) * 4
        buckets = cp.empty(nb * words, dtype=cp.uint32)
        fn(curve.name, f"{group}_msm_accumulate")(((nb + 127) // 128,), (128,), (flat, ordered, offsets, np.uint32(nb), buckets))
        t = stamp("accumulate", t, rows)
        seglen = min(half, 64)
        nseg = half // seglen
        segs = cp.empty(nwin * nseg * words, dtype=cp.uint32)
        fn(curve.name, f"{group}_msm_reduce_segments")(((nwin * nseg + 127) // 128,), (128,),
                                                       (buckets, np.uint32(half), np.uint32(nwin), np.uint32(seglen), segs))
        t = stamp("reduce_segments", t, rows)
        windows = M._sum_groups(curve, group, segs, nwin, nseg)
        t = stamp("sum_groups", t, rows)
        fn(curve.name, f"{group}_scale_windows")(((nwin + 31) // 32,), (32,), (windows, np.uint32(c), np.uint32(nwin)))
        t = stamp("scale_windows", t, rows)
        M._sum_groups(curve, group, windows, 1, nwin)
        t = stamp("final_sum", t, rows)
        total_ms = (t - t0) * 1e3
    print(f"MSM {curve.name} {group} 2^{log_n} c={c}: total {total_ms:.1f} ms  "
          + "  ".join(f"{k} {v:.1f}" for k, v in rows))
    sys.stdout.flush()


def profile_ntt(curve, log_n, rng):
    n = 1 << log_n
    a = cp.asarray(curve.fr.random(n, rng))
    for stages, tile in ((8, 512), (6, 512), (7, 256), (8, 256)):
        T.MAX_STAGES, T.TILE = stages, tile
        T.ntt(curve.name, a)
        cp.cuda.Device().synchronize()
        reps = 10
        t0 = time.perf_counter()
        for _ in range(reps):
            T.ntt(curve.name, a)
        cp.cuda.Device().synchronize()
        print(f"NTT 2^{log_n} max_stages={stages} tile={tile}: {(time.perf_counter() - t0) / reps * 1e3:.3f} ms")
    T.MAX_STAGES, T.TILE = 8, 1024


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    curve = get_curve("bls12_381")
    for log_n, c in ((20, 13), (20, 15), (20, None), (22, 16), (24, None), (24, 18)):
        profile_msm(curve, "g1", log_n, rng, c)
    profile_msm(curve, "g2", 20, rng, 13)
    profile_ntt(curve, 24, rng)
