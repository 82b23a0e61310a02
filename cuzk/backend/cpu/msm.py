"""Multi-scalar multiplication on the CPU: Pippenger plus a batch-add path.

`msm` splits the scalars three ways, because Groth16 scalar vectors are
mostly 0 and 1: zeros are dropped, ones are summed by the batch-add path, and
the rest go to signed-digit Pippenger. Bucket accumulation has two kernels:
mixed XYZZ additions (10 field multiplications per point) and affine
additions that share one inversion per halving round (about 6 per point, but
one ~600-multiplication inversion per round); a cost model in field
multiplications picks the kernel and the window size c from the point count
and the scalars' actual bit width. Work is cut into (window, point range)
tasks that a pool of threads pulls from a shared counter (the kernels release
the GIL), so threads stay busy even when the machine is shared.
"""

from __future__ import annotations

import functools
import itertools
import math
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from cuzk.curve import curve_kernels, get_curve
from cuzk.field.codegen import build_module

from .msm_source import msm_source

U64 = np.uint64

# Cost model, in field multiplications (the non-multiply work folded in).
COST_XYZZ_POINT = 12  # mixed XYZZ addition into a bucket
COST_AFFINE_POINT = 9  # batched-inversion affine addition, incl. sort and gather
COST_BUCKET = 28  # running-sum reduction: one mixed + one full XYZZ addition
COST_ROUND = 600  # one field inversion per halving round
AFFINE_CHUNK = 1 << 16  # points per affine pass (memory bound), at least 8 * buckets
MAX_WINDOW = 20
PLAN_TIE = 0.01  # plans this close to the modelled minimum count as equal (choose_plan)
BUCKET_CACHE_BYTES = 2 << 20  # one core's L2 (2 MB on the 2-core VM)

# Batch-add path: affine halving over SUM_SEGMENTS side-by-side segments pays
# one inversion per round, so small sums use plain mixed additions.
AFFINE_SUM_MIN = 2048
SUM_CHUNK = 1 << 14
SUM_SEGMENTS = 64


@functools.cache
def msm_kernels(curve: str):
    """The generated MSM module for `curve` (g1_* and g2_* kernels)."""
    L = get_curve(curve).fq.limbs
    src = f"from {curve_kernels(curve).__name__} import *\n" + msm_source(L)
    return build_module(f"{curve}_msm", src)


def _group(curve_name: str, group: str):
    if group not in ("g1", "g2"):
        raise ValueError(f"group must be 'g1' or 'g2', got {group!r}")
    curve = get_curve(curve_name)
    return curve, getattr(curve, group)


def _bases(G, bases) -> np.ndarray:
    b = np.ascontiguousarray(bases, dtype=np.uint64)
    tail = (2,) + G.coord
    if b.ndim != 1 + len(tail) or b.shape[1:] != tail:
        raise ValueError(f"{G}: bases must have shape (n, {', '.join(map(str, tail))}), got {b.shape}")
    return b


def _fn(curve, G, name):
    return getattr(msm_kernels(curve.name), f"{G.name}_{name}")


def _xyzz_zero(G, n=1) -> np.ndarray:
    return np.zeros((n, 4) + G.coord, dtype=np.uint64)


def bit_length(scalars: np.ndarray) -> int:
    """Largest bit length among uint64[m, 4] scalars (0 when all are zero)."""
    if scalars.shape[0] == 0:
        return 0
    acc = np.bitwise_or.reduce(scalars, axis=0)
    for limb in range(3, -1, -1):
        if acc[limb]:
            return 64 * limb + int(acc[limb]).bit_length()
    return 0


def num_windows(bits: int, c: int) -> int:
    """Signed digits need ceil((bits + 1) / c) windows (the top carry)."""
    return (bits + c) // c


def plan_cost(m: int, bits: int, c: int, method: str) -> float:
    """Modelled cost (field multiplications) of one Pippenger run."""
    nb = 1 << (c - 1)
    per_window = COST_BUCKET * nb
    if method == "affine":
        chunks = max(1, math.ceil(m / max(AFFINE_CHUNK, 8 * nb)))
        per_chunk = m / chunks
        rounds = max(1, math.ceil(math.log2(max(2.0, per_chunk / nb)))) + 3
        per_window += COST_AFFINE_POINT * (m + nb * (chunks - 1)) + COST_ROUND * rounds * chunks
    else:
        per_window += COST_XYZZ_POINT * m
    return num_windows(bits, c) * per_window


def choose_plan(m: int, bits: int, point_bytes: int = 64) -> tuple[str, int]:
    """(method, c) minimizing the modelled cost, except that when the cheapest plan's bucket array
    ((2^(c-1) affine points of `point_bytes`) outgrows BUCKET_CACHE_BYTES, the plan with the smallest
    window within PLAN_TIE of it wins. The model counts multiplications, not cache misses: at 917,509
    points c = 16 and 17 model 0.6 % apart, but 17 (a 4 MB G1 / 8 MB G2 bucket array) measured 5-7 %
    slower for G1 and G2 on the 2-core VM; at 57,353 points (arrays in cache) c = 13 beat the tied 12."""
    plans = [(plan_cost(m, bits, c, method), c, method) for method in ("xyzz", "affine")
             for c in range(2, MAX_WINDOW + 1)]
    best, c, method = min(plans)
    if (1 << (c - 1)) * point_bytes > BUCKET_CACHE_BYTES:
        c, _, method = min((c, cost, method) for cost, c, method in plans if cost <= best * (1 + PLAN_TIE))
    return method, c


def threads() -> int:
    return max(1, numba.get_num_threads())


@functools.cache
def _pool(n: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=n, thread_name_prefix="cuzk-msm")


def run_tasks(ntasks: int, fn) -> None:
    """Call fn(i) for i in range(ntasks) on the thread pool, dynamically balanced."""
    workers = min(threads(), ntasks)
    if workers <= 1:
        for i in range(ntasks):
            fn(i)
        return
    counter = itertools.count()

    def worker():
        while (i := next(counter)) < ntasks:
            fn(i)

    for fut in [_pool(threads()).submit(worker) for _ in range(workers)]:
        fut.result()


def plan_tasks(nw: int, m: int, nthreads: int) -> list[tuple[int, int, int]]:
    """(window, lo, hi) tasks: whole windows, each cut into enough point ranges
    that there are at least 3 tasks per thread (extra cuts cost one bucket
    reduction each, so small inputs stay whole)."""
    parts = 1
    if nthreads > 1 and m >= 1024:
        parts = max(1, min(-(-3 * nthreads // nw), m // 512))
    return [(w, p * m // parts, (p + 1) * m // parts) for w in range(nw - 1, -1, -1) for p in range(parts)]


def carry_bounds(nw: int, c: int) -> np.ndarray:
    """uint64[nw, 4]: H_w = sum_(v<w) 2^(c-1) 2^(vc), the carry threshold of window w."""
    out = np.zeros((nw, 4), dtype=np.uint64)
    for w in range(nw):
        h = (1 << (c - 1)) * ((1 << (w * c)) - 1) // ((1 << c) - 1)
        out[w] = [(h >> (64 * k)) & 0xFFFFFFFFFFFFFFFF for k in range(4)]
    return out


def pippenger_xyzz(curve, G, bases, scalars, idx, c: int | None = None, method: str | None = None) -> np.ndarray:
    """XYZZ uint64[1, 4, *coord] of sum scalars[i] * bases[i] over i in idx."""
    m = idx.shape[0]
    bits = bit_length(scalars[idx]) if m else 0
    if bits == 0:
        return _xyzz_zero(G)
    auto_method, auto_c = choose_plan(m, bits, bases[0].nbytes)
    method = method or auto_method
    if c is None:
        c = auto_c if method == auto_method else min(range(2, MAX_WINDOW + 1), key=lambda k: plan_cost(m, bits, k, method))
    nw = num_windows(bits, c)
    nb = 1 << (c - 1)
    hws = carry_bounds(nw, c)
    tasks = plan_tasks(nw, m, threads())
    sums = np.empty((len(tasks), 4) + G.coord, dtype=np.uint64)
    pt = (2,) + G.coord
    if method == "affine":
        kern = _fn(curve, G, "window_affine")
        chunk = max(AFFINE_CHUNK, 8 * nb)

        def task(t):
            w, lo, hi = tasks[t]
            ch = min(chunk, hi - lo)
            cap = ch + nb
            kern(bases, idx, scalars, c, w, hws[w], lo, hi, ch,
                 np.empty((cap,) + pt, U64), np.empty((cap,) + pt, U64), np.empty((cap // 2 + 1, 1) + G.coord, U64),
                 np.empty((nb,) + pt, U64), np.empty((nb,), np.int64), np.empty((nb,), np.int64),
                 np.empty((nb,), np.int64), np.empty((7, nb), np.int64), np.empty((ch,), np.int32),
                 sums, t)
    else:
        kern = _fn(curve, G, "window_xyzz")

        def task(t):
            w, lo, hi = tasks[t]
            kern(bases, idx, scalars, c, w, hws[w], lo, hi, np.empty((nb, 4) + G.coord, U64), sums, t)

    run_tasks(len(tasks), task)
    out = _xyzz_zero(G)
    _fn(curve, G, "msm_combine")(sums, np.array([t[0] for t in tasks], dtype=np.int64), nw, c, out)
    return out


def sum_xyzz(curve, G, bases: np.ndarray, idx: np.ndarray, method: str | None = None) -> np.ndarray:
    """XYZZ uint64[1, 4, *coord] of the sum of bases[idx]."""
    m = idx.shape[0]
    if m == 0:
        return _xyzz_zero(G)
    method = method or ("affine" if m >= AFFINE_SUM_MIN else "xyzz")
    nparts = 1 if m < 1024 else min(3 * threads(), m // 512)
    bounds = [(p * m // nparts, (p + 1) * m // nparts) for p in range(nparts)]
    parts = np.empty((nparts, 4) + G.coord, dtype=np.uint64)
    pt = (2,) + G.coord
    if method == "affine":
        kern = _fn(curve, G, "sum_affine")

        def task(t):
            lo, hi = bounds[t]
            ch = max(1, min(SUM_CHUNK, hi - lo))
            seg = SUM_SEGMENTS
            kern(bases, idx, lo, hi, ch, seg, np.empty((ch,) + pt, U64), np.empty((ch,) + pt, U64),
                 np.empty((ch // 2 + 1, 1) + G.coord, U64), np.empty((seg,) + pt, U64),
                 np.empty((seg,), np.int64), np.empty((seg,), np.int64),
                 np.empty((7, seg), np.int64), parts, t)
    else:
        kern = _fn(curve, G, "sum_xyzz")

        def task(t):
            lo, hi = bounds[t]
            kern(bases, idx, lo, hi, parts, t)

    run_tasks(nparts, task)
    out = _xyzz_zero(G)
    _fn(curve, G, "xyzz_sum")(parts, out)
    return out


def _finish(curve, G, parts: list[np.ndarray]) -> np.ndarray:
    total = _xyzz_zero(G)
    _fn(curve, G, "xyzz_sum")(np.concatenate(parts, axis=0), total)
    return G.to_affine(total)[0]


def _indices(sel: np.ndarray, n: int) -> np.ndarray:
    sel = np.asarray(sel)
    if sel.dtype == np.bool_:
        if sel.shape != (n,):
            raise ValueError(f"mask has shape {sel.shape}, expected ({n},)")
        return np.flatnonzero(sel)
    idx = sel.astype(np.int64, copy=False).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("batch_add index out of range")
    return np.ascontiguousarray(idx)


def batch_add(curve_name: str, group: str, bases: np.ndarray, mask_or_indices: np.ndarray) -> np.ndarray:
    """Sum of the selected bases: a bool mask of length n, or an index array
    (an index listed twice counts twice). Returns one affine point (2, *coord)."""
    curve, G = _group(curve_name, group)
    b = _bases(G, bases)
    return _finish(curve, G, [sum_xyzz(curve, G, b, _indices(mask_or_indices, b.shape[0]))])


def msm(curve_name: str, group: str, bases: np.ndarray, scalars: np.ndarray) -> np.ndarray:
    """sum_i scalars[i] * bases[i] as one affine point, shape (2, *coord).

    scalars: canonical uint64[n, 4] (any 256-bit integers); or uint64[k, n, 4]
    for k MSMs over the same bases (returns k points, shape (k, 2, *coord))."""
    curve, G = _group(curve_name, group)
    b = _bases(G, bases)
    s = np.ascontiguousarray(scalars, dtype=np.uint64)
    if s.ndim == 3:
        if s.shape[0] == 0:
            return G.identity(0)
        return np.stack([msm(curve_name, group, b, row) for row in s])
    if s.ndim != 2 or s.shape[1] != 4 or s.shape[0] != b.shape[0]:
        raise ValueError(f"{b.shape[0]} bases need scalars of shape ({b.shape[0]}, 4), got {s.shape}")
    high = s[:, 1:].any(axis=1)
    ones = np.flatnonzero(~high & (s[:, 0] == 1))
    rest = np.flatnonzero(high | (s[:, 0] > 1))
    return _finish(curve, G, [sum_xyzz(curve, G, b, ones), pippenger_xyzz(curve, G, b, s, rest)])
