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

Given a window table of the bases (2^(c w) P_i for every window w, kept for a
daemon's resident keys: tables.py), every window adds into one bucket set per
point range and the buckets are reduced once (`pippenger_table`), where the
cost model puts that below the default plan.
"""

from __future__ import annotations

import functools
import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numba
import numpy as np

from cuzk.curve import curve_kernels, get_curve
from cuzk.field.codegen import build_module

from .msm_source import msm_source, table_source

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


@functools.cache
def table_kernels(curve: str):
    """The window-table kernels of `curve` (g1_/g2_tables_affine, g1_/g2_table_rows): a module of
    their own beside msm_kernels', compiled only where tables are kept (a daemon's resident keys)."""
    return build_module(f"{curve}_msm_tables", f"from {msm_kernels(curve).__name__} import *\n" + table_source())


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


# ---- window tables ------------------------------------------------------------------------------
# A base vector's table holds 2^(c w) P_i for every window w (row 0, the bases, is not copied): every
# window then adds into one bucket set, reduced once per point range instead of once per window
# (lab/JOURNAL.md, "CPU window tables"). Which vectors get one, and when, is tables.py's (resident keys).

TABLE_BUILD_CHUNK = 128  # points per build task: 5-25 ms at 2^16 (G1-G2), so a task started between proofs ends soon


@dataclass(frozen=True)
class WindowTable:
    """The window table of one base vector: `rows[w - 1]` = 2^(c w) * bases for 1 <= w < windows."""

    c: int
    rows: np.ndarray  # uint64[windows - 1, n, 2, *coord]

    @property
    def windows(self) -> int:
        return self.rows.shape[0] + 1

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes


def table_bytes(n: int, bits: int, c: int, point_bytes: int) -> int:
    """Bytes of the table of n bases for scalars of up to `bits` bits."""
    return (num_windows(bits, c) - 1) * n * point_bytes


def table_parts(m: int, nthreads: int) -> int:
    """Point ranges (phase 1) and bucket slices (phase 2) of a table MSM: 3 per thread, so that the pool
    balances them on a shared machine, none under 512 points."""
    return 1 if nthreads <= 1 else max(1, min(3 * nthreads, m // 512))


def table_cost(m: int, bits: int, c: int, parts: int) -> float:
    """Modelled cost (field multiplications) of an MSM over a width-c table: every window's points
    added in affine (plan_cost's per-point cost, one inversion per pass of up to a chunk of entries),
    the `parts` ranges' bucket sets summed (affine additions) and reduced once."""
    nb = 1 << (c - 1)
    nw = num_windows(bits, c)
    chunk = max(AFFINE_CHUNK, 8 * nb)
    passes = max(parts, math.ceil(nw * m / chunk))
    rounds = max(1, math.ceil(math.log2(max(2.0, nw * m / passes / nb)))) + 3
    return (COST_AFFINE_POINT * (nw * m + (parts - 1) * nb) + COST_BUCKET * nb
            + COST_ROUND * rounds * (passes + parts))


def table_window(n: int, bits: int, point_bytes: int) -> int:
    """The window width of a table over n bases: the modelled minimum at m = n (an H or L MSM uses
    nearly every base), under choose_plan's rule for bucket arrays that outgrow the cache."""
    parts = table_parts(n, threads())
    plans = [(table_cost(n, bits, c, parts), c) for c in range(2, MAX_WINDOW + 1)]
    best, c = min(plans)
    if (1 << (c - 1)) * point_bytes > BUCKET_CACHE_BYTES:
        c = min(k for cost, k in plans if cost <= best * (1 + PLAN_TIE))
    return c


def build_table(curve_name: str, group: str, bases: np.ndarray, c: int, bits: int,
                run: Callable[[int, Callable[[int], None]], None] = None) -> WindowTable:
    """The width-c table of `bases` for scalars of up to `bits` bits, row by row by c doublings (XYZZ)
    and one inversion per row and TABLE_BUILD_CHUNK points. `run(ntasks, fn)` runs the tasks
    (default: run_tasks, every thread; tables.py's builder runs them at idle priority)."""
    curve, G = _group(curve_name, group)
    b = _bases(G, bases)
    n = b.shape[0]
    rows = np.empty((num_windows(bits, c) - 1, n, 2) + G.coord, dtype=np.uint64)
    kern = getattr(table_kernels(curve.name), f"{G.name}_table_rows")
    ntasks = -(-n // TABLE_BUILD_CHUNK)

    def task(t):
        lo, hi = t * TABLE_BUILD_CHUNK, min(n, (t + 1) * TABLE_BUILD_CHUNK)
        kern(b, rows, c, lo, hi, np.empty((hi - lo, 4) + G.coord, U64), np.empty((hi - lo, 1) + G.coord, U64))

    if rows.shape[0] and n:
        (run or run_tasks)(ntasks, task)
    return WindowTable(c, rows)


def table_pays(table: WindowTable, m: int, bits: int, point_bytes: int) -> bool:
    """Whether an MSM of m points with `bits`-bit scalars should use `table`: it covers the windows,
    and the model puts it below the default plan."""
    if bits == 0 or num_windows(bits, table.c) > table.windows:
        return False
    method, c = choose_plan(m, bits, point_bytes)
    return table_cost(m, bits, table.c, table_parts(m, threads())) < plan_cost(m, bits, c, method)


def pippenger_table(curve, G, bases, table: WindowTable, scalars, idx) -> np.ndarray:
    """XYZZ uint64[1, 4, *coord] of sum scalars[i] * bases[i] over i in idx, by `table` (it must
    cover the scalars' windows: table_pays). Phase 1: point ranges fill a bucket set each, every
    window into it (tables_buckets); phase 2: bucket slices sum the sets and reduce (buckets_reduce)."""
    m = idx.shape[0]
    bits = bit_length(scalars[idx]) if m else 0
    if bits == 0:
        return _xyzz_zero(G)
    c = table.c
    nw = num_windows(bits, c)
    if nw > table.windows:
        raise ValueError(f"{bits}-bit scalars need {nw} windows of {c} bits; the table has {table.windows}")
    nb = 1 << (c - 1)
    hws = carry_bounds(nw, c)
    parts = table_parts(m, threads())
    ranges = [(p * m // parts, (p + 1) * m // parts) for p in range(parts)]
    pt = (2,) + G.coord
    sets = np.empty((parts, nb) + pt, dtype=np.uint64)
    kernels = table_kernels(curve.name)
    fill = getattr(kernels, f"{G.name}_tables_buckets")
    chunk = max(AFFINE_CHUNK, 8 * nb)

    def phase1(p):
        lo, hi = ranges[p]
        span = max(1, hi - lo)
        ent = min(chunk, span * min(nw, max(1, chunk // span)))
        cap = ent + nb
        fill(bases, table.rows, idx, scalars, c, nw, hws, lo, hi, chunk,
             np.empty((cap,) + pt, U64), np.empty((cap,) + pt, U64), np.empty((cap // 2 + 1, 1) + G.coord, U64),
             sets[p], np.empty((nb,), np.int64), np.empty((nb,), np.int64), np.empty((nb,), np.int64),
             np.empty((7, nb), np.int64), np.empty((ent,), np.int32))

    run_tasks(parts, phase1)
    slices = [(s * nb // parts, (s + 1) * nb // parts) for s in range(parts)]
    sums = np.empty((parts, 4) + G.coord, dtype=np.uint64)
    reduce = getattr(kernels, f"{G.name}_buckets_reduce")

    def phase2(s):
        b0, b1 = slices[s]
        k = b1 - b0
        cap = k * parts
        reduce(sets, b0, b1, np.empty((cap,) + pt, U64), np.empty((cap,) + pt, U64),
               np.empty((cap // 2 + 1, 1) + G.coord, U64), np.empty((k,) + pt, U64), np.empty((k,), np.int64),
               np.empty((k,), np.int64), np.empty((7, k), np.int64), sums, s)

    run_tasks(parts, phase2)
    out = _xyzz_zero(G)
    _fn(curve, G, "xyzz_sum")(sums, out)
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


def msm(curve_name: str, group: str, bases: np.ndarray, scalars: np.ndarray,
        table: WindowTable | None = None) -> np.ndarray:
    """sum_i scalars[i] * bases[i] as one affine point, shape (2, *coord).

    scalars: canonical uint64[n, 4] (any 256-bit integers); or uint64[k, n, 4]
    for k MSMs over the same bases (returns k points, shape (k, 2, *coord)).
    `table`: the bases' window table (build_table), used where table_pays."""
    curve, G = _group(curve_name, group)
    b = _bases(G, bases)
    s = np.ascontiguousarray(scalars, dtype=np.uint64)
    if s.ndim == 3:
        if s.shape[0] == 0:
            return G.identity(0)
        return np.stack([msm(curve_name, group, b, row, table) for row in s])
    if s.ndim != 2 or s.shape[1] != 4 or s.shape[0] != b.shape[0]:
        raise ValueError(f"{b.shape[0]} bases need scalars of shape ({b.shape[0]}, 4), got {s.shape}")
    high = s[:, 1:].any(axis=1)
    ones = np.flatnonzero(~high & (s[:, 0] == 1))
    rest = np.flatnonzero(high | (s[:, 0] > 1))
    if table is not None and table.rows.shape[1:] != b.shape:
        raise ValueError(f"a table over {table.rows.shape[1]} bases given for {b.shape[0]}")
    if table is not None and table_pays(table, rest.shape[0], bit_length(s[rest]), b[0].nbytes):
        many = pippenger_table(curve, G, b, table, s, rest)
    else:
        many = pippenger_xyzz(curve, G, b, s, rest)
    return _finish(curve, G, [sum_xyzz(curve, G, b, ones), many])
