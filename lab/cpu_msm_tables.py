"""Study (session 28): would window tables kept by a resident key make the CPU MSM cheaper?

The CPU Pippenger (cuzk/backend/cpu/msm.py) reduces one bucket set per window: at 2^16 points and
c = 13 that is 20 reductions of 4096 buckets, ~16 % of the MSM by the cost model. With a table of
2^(c w) P_i for every window w (kept beside a resident key, as the GPU does), every window adds into
one bucket set, reduced once, and c can grow. This times, on the machine it runs on, the default MSM
against a prototype kernel that loops over the windows inside one task (the affine accumulation of
`window_affine`, unchanged), for several c, and checks both results equal (and the default's against
a plain sum of scalar multiples on a few points first). It prints each table's size: the price.

    python lab/cpu_msm_tables.py [--curve bn254] [--log-n 16] [--c 13,14,15,16] [--group g1]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.backend.cpu import msm as M  # noqa: E402
from cuzk.backend.cpu.msm_source import AFFINE_TEMPLATE  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402
from cuzk.field.fields import fields_of  # noqa: E402
from cuzk.field.codegen import build_module, fill  # noqa: E402

def kernel_source() -> str:
    """window_affine from msm_source's template, its chunk loop run once per window w < nwin into the
    same bucket set, with window w's bases read from table[w] (= 2^(c w) bases)."""
    text = AFFINE_TEMPLATE[AFFINE_TEMPLATE.index("@njit(nogil=True, cache=True)\ndef {g}_window_affine"):]
    text = text[:text.index("\n\n\n")]
    head, body = text.split("    for clo in range(lo, hi, chunk):", 1)
    loop, tail = body.split("    run = {G}_XYZZ_ZERO", 1)
    head = head.replace("def {g}_window_affine(bases, idx, scalars, c, w, hw,",
                        "def {g}_tables_affine(table, idx, scalars, c, nwin, hws,")
    loop = "    for clo in range(lo, hi, chunk):" + loop
    loop = "".join("    " + line if line.strip() else line for line in loop.splitlines(keepends=True))
    return (head + "    for w in range(nwin):\n        bases = table[w]\n        hw = hws[w]\n" + loop
            + "    run = {G}_XYZZ_ZERO" + tail + "\n")


def kernel(curve: str, g: str):
    f = "fq" if g == "g1" else "fq2"
    src = f"from {M.msm_kernels(curve).__name__} import *\n" + fill(kernel_source(), g=g, f=f)
    return getattr(build_module(f"{curve}_msm_tables_study", src), f"{g}_tables_affine")


def table_of(G, bases: np.ndarray, c: int, nwin: int) -> np.ndarray:
    rows = [bases]
    for _ in range(1, nwin):
        rows.append(G.scalar_mul(rows[-1], [1 << c] * bases.shape[0]))
    return np.ascontiguousarray(np.stack(rows))


def tables_msm(curve, G, kern, table, scalars, idx, c: int, nwin: int) -> np.ndarray:
    """The prototype: tasks are point ranges (every window in each), then their sums added."""
    m = idx.shape[0]
    nb = 1 << (c - 1)
    parts = max(1, min(3 * M.threads(), m // 512))
    bounds = [(p * m // parts, (p + 1) * m // parts) for p in range(parts)]
    hws = M.carry_bounds(nwin, c)
    sums = np.empty((parts, 4) + G.coord, dtype=np.uint64)
    pt = (2,) + G.coord
    U = np.uint64

    def task(t):
        lo, hi = bounds[t]
        ch = min(max(M.AFFINE_CHUNK, 8 * nb), hi - lo)
        cap = ch + nb
        kern(table, idx, scalars, c, nwin, hws, lo, hi, ch, np.empty((cap,) + pt, U), np.empty((cap,) + pt, U),
             np.empty((cap // 2 + 1, 1) + G.coord, U), np.empty((nb,) + pt, U), np.empty((nb,), np.int64),
             np.empty((nb,), np.int64), np.empty((nb,), np.int64), np.empty((7, nb), np.int64),
             np.empty((ch,), np.int32), sums, t)

    M.run_tasks(parts, task)
    out = M._xyzz_zero(G)
    M._fn(curve, G, "xyzz_sum")(sums, out)
    return G.to_affine(out)[0]


def median_ms(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--curve", default="bn254")
    ap.add_argument("--group", default="g1", choices=("g1", "g2"))
    ap.add_argument("--log-n", type=int, default=16)
    ap.add_argument("--c", default="13,14,15,16")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    curve = get_curve(a.curve)
    G = getattr(curve, a.group)
    n = 1 << a.log_n
    rng = np.random.default_rng(1)
    fr = fields_of(curve.name)[0]
    bases = G.random(n, rng)
    scalars = np.ascontiguousarray(fr.from_mont(fr.random(n, rng)))
    idx = np.arange(n, dtype=np.int64)
    # the default against a plain sum of scalar multiples, on 64 points
    few = np.arange(64, dtype=np.int64)
    plain = G.scalar_mul(bases[:64], scalars[:64])
    acc = plain[0]
    for p in plain[1:]:
        acc = G.add(acc[None], p[None])[0]
    small = G.to_affine(M.pippenger_xyzz(curve, G, bases, scalars, few))[0]
    assert np.array_equal(small, acc), "the default MSM differs from the sum of scalar multiples"
    bits = M.bit_length(scalars)
    method, c0 = M.choose_plan(n, bits, bases[0].nbytes)
    ref = G.to_affine(M.pippenger_xyzz(curve, G, bases, scalars, idx))[0]
    base_ms = median_ms(lambda: M.pippenger_xyzz(curve, G, bases, scalars, idx), a.reps)
    print(f"{a.curve} {a.group} 2^{a.log_n}, {M.threads()} threads: default ({method}, c = {c0}) "
          f"{base_ms:.1f} ms", flush=True)
    kern = kernel(curve.name, a.group)
    for c in map(int, a.c.split(",")):
        nwin = M.num_windows(bits, c)
        t = time.perf_counter()
        table = table_of(G, bases, c, nwin)
        build_s = time.perf_counter() - t
        got = tables_msm(curve, G, kern, table, scalars, idx, c, nwin)
        assert np.array_equal(got, ref), f"c = {c}: the table MSM differs from the default"
        ms = median_ms(lambda: tables_msm(curve, G, kern, table, scalars, idx, c, nwin), a.reps)
        print(f"  table c = {c} ({nwin} rows, {table.nbytes / 2**20:.0f} MiB, built in {build_s:.1f} s): "
              f"{ms:.1f} ms, {ms / base_ms:.2f}x the default", flush=True)


if __name__ == "__main__":
    main()
