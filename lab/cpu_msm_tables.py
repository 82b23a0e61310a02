"""Window tables for the CPU MSM (cuzk/backend/cpu/msm.py, pippenger_table): time and size per width.

A resident key's base vector may keep a table of 2^(c w) P_i for every window w (tables.py decides
which, within the daemon's byte budget); its MSMs then add every window into one bucket set per point
range, reduced once. This builds the table of random bases at each width c, checks its MSM equals the
default's, and times the two alternately (one default, one table run per round, so a shared machine's
slow moments fall on both), printing the median of each, the table's bytes and its build time (every
thread), and the model's cost (msm.table_cost) beside the measurement.

    python lab/cpu_msm_tables.py [--curve bn254] [--group g1] [--log-n 16] [--c 13,15,16] [--rounds 7]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.backend.cpu import msm as M  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402


def bases_of(G, n: int, rng) -> np.ndarray:
    """n distinct-enough random points, cheaply: sums of two of 256 random points."""
    small = G.random(256, rng)
    return np.ascontiguousarray(G.add(small[rng.integers(0, 256, n)], small[rng.integers(0, 256, n)]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--curve", default="bn254")
    ap.add_argument("--group", default="g1", choices=("g1", "g2"))
    ap.add_argument("--log-n", type=int, default=16)
    ap.add_argument("--c", default="", help="table widths (default: the one table_window picks)")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    curve = get_curve(a.curve)
    G = getattr(curve, a.group)
    n = 1 << a.log_n
    rng = np.random.default_rng(1)
    bases = bases_of(G, n, rng)
    scalars = np.ascontiguousarray(curve.fr.from_mont(curve.fr.random(n, rng)))
    bits = curve.fr.p.bit_length()
    pb = bases[0].nbytes
    method, c0 = M.choose_plan(n, bits, pb)
    pick = M.table_window(n, bits, pb)
    widths = [int(c) for c in a.c.split(",")] if a.c else [pick]
    ref = M.msm(curve.name, a.group, bases, scalars)
    print(f"{a.curve} {a.group} 2^{a.log_n}, {M.threads()} threads; default {method} c = {c0} "
          f"(model {M.plan_cost(n, bits, c0, method) / 1e6:.1f}M); table_window picks c = {pick}", flush=True)
    for c in widths:
        t = time.perf_counter()
        table = M.build_table(curve.name, a.group, bases, c, bits)
        build_s = time.perf_counter() - t
        got = M.msm(curve.name, a.group, bases, scalars, table)
        assert np.array_equal(got, ref), f"c = {c}: the table MSM differs from the default"
        plain, tab = [], []
        for _ in range(a.rounds):
            for out, tb in ((plain, None), (tab, table)):
                t = time.perf_counter()
                M.msm(curve.name, a.group, bases, scalars, tb)
                out.append((time.perf_counter() - t) * 1e3)
        p, q = statistics.median(plain), statistics.median(tab)
        model = M.table_cost(n, bits, c, M.table_parts(n, M.threads()))
        print(f"  c = {c}: default {p:.1f} ms, table {q:.1f} ms ({q / p:.3f}x; model {model / 1e6:.1f}M), "
              f"{table.nbytes / 2**20:.0f} MiB built in {build_s:.2f} s", flush=True)


if __name__ == "__main__":
    main()
