"""Kernel benchmark: Fr mul, NTT, MSM on a backend, with arkworks side by side.

For BLS12-381 MSMs, py-arkworks-bls12381's `multiexp_unchecked` is timed on
the same points and scalars in the same process (conversion of inputs into
arkworks objects is done before its clock starts) and the ratio printed.
"""

from __future__ import annotations

import functools
import sys
import time

import numpy as np

from cuzk.backend import get_backend
from cuzk.curve import get_curve

from .report import event_median_ms, median_ms, print_table, write_json

DEFAULT_PLAN = {
    "cpu": {"fr_mul": [1 << 20], "ntt": [1 << 16, 1 << 20], "msm_g1": [1 << 12, 1 << 16], "msm_g2": [1 << 12]},
    "cuda": {
        "fr_mul": [1 << 24],
        "ntt": [1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 27],
        "msm_g1": [1 << 20, 1 << 22, 1 << 24, 1 << 26],
        "msm_g2": [1 << 20, 1 << 22],
    },
}


def bench_points(curve, group: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """n distinct points B, 2B, ..., nB for a random B, built by doubling blocks."""
    grp = getattr(curve, group)
    base = grp.random(1, rng)
    pts = np.empty((n,) + base.shape[1:], dtype=np.uint64)
    pts[0] = base[0]
    m = 1
    step = base  # = m * B
    while m < n:
        k = min(m, n - m)
        pts[m : m + k] = grp.add(pts[:k], np.ascontiguousarray(np.broadcast_to(step, (k,) + base.shape[1:])))
        step = grp.double(step)
        m += k
    return pts


def random_scalars(curve, n: int, rng: np.random.Generator) -> np.ndarray:
    return curve.fr.from_mont(curve.fr.random(n, rng))  # canonical, uniform in [0, r)


# sppark on an H200, BLS12-381, inputs on the device, median of >= 5 (issue 5's table)
SPPARK_H200_MS = {
    ("msm_g1", 1 << 20): 20.6, ("msm_g1", 1 << 22): 53.7, ("msm_g1", 1 << 24): 154.7, ("msm_g1", 1 << 26): 557.7,
    ("msm_g2", 1 << 20): 47.6, ("msm_g2", 1 << 22): 138.6,
    ("ntt", 1 << 20): 0.276, ("ntt", 1 << 22): 1.12, ("ntt", 1 << 24): 4.75, ("ntt", 1 << 26): 23.8, ("ntt", 1 << 27): 44.4,
    ("ntt_coset", 1 << 20): 0.317, ("ntt_coset", 1 << 22): 1.29, ("ntt_coset", 1 << 24): 5.35, ("ntt_coset", 1 << 26): 26.2,
    ("ntt_coset", 1 << 27): 49.1,
}
ARK_MAX_N = 1 << 16  # arkworks on the CPU is only run where it finishes in seconds


class Arkworks:
    """Adapter to py-arkworks-bls12381 (absent: reference columns stay empty)."""

    def __init__(self):
        try:
            import py_arkworks_bls12381 as ark  # optional (dev extra)
        except ImportError:
            ark = None
        self.ark = ark

    def convert(self, curve, group, pts, scalars):
        ark = self.ark
        fq = curve.fq
        if group == "g1":
            xy = fq.to_bytes(np.ascontiguousarray(pts).reshape(-1, fq.limbs), "big")
            size, cls = 96, ark.G1Point
        else:
            # arkworks' xy form writes each Fq2 coordinate c0 then c1 (zcash's is c1 then c0)
            xy = fq.to_bytes(np.ascontiguousarray(pts).reshape(-1, fq.limbs), "big")
            size, cls = 192, ark.G2Point
        points = [cls.from_xy_bytes_unchecked_be(xy[i : i + size]) for i in range(0, len(xy), size)]
        sc_bytes = np.ascontiguousarray(scalars, dtype="<u8").tobytes()
        sc = [ark.Scalar.from_le_bytes(sc_bytes[i : i + 32]) for i in range(0, len(sc_bytes), 32)]
        return cls, points, sc


def run(backend_name: str = "cpu", json_path: str | None = None, sizes: dict | None = None,
        curves=("bls12_381", "bn254"), repeat: int = 5, out=None) -> list[dict]:
    out = out or sys.stdout
    backend = get_backend(backend_name)
    plan = sizes or DEFAULT_PLAN["cuda" if backend.name == "cuda" else "cpu"]
    ark = Arkworks()
    rng = np.random.default_rng(2026)
    records: list[dict] = []
    sync = getattr(backend, "synchronize", None)
    on_device = backend.name == "cuda"

    @functools.cache
    def no_tables():  # the same device, window tables off
        return type(backend)(device=backend.device_id, table_fraction=0)
    if on_device:
        import cupy  # only on the GPU backend

        dev = cupy.asarray  # time kernels with inputs already on the device

        def timed(fn, repeat, sync=None):  # CUDA events on the device, as the issue asks
            return event_median_ms(fn, repeat)
    else:
        timed = median_ms

        def dev(x):
            return x
    print(f"cuzk bench kernels: backend {backend.describe()}", file=out)
    t_start = time.perf_counter()

    def emit(**rec):
        rec.setdefault("ref", None)
        rec.setdefault("ref_ms", None)
        rec["backend"] = backend.name
        if rec["ref_ms"] is None and on_device and rec["curve"] == "bls12_381":
            ref = SPPARK_H200_MS.get((rec["op"], rec["n"]))
            if ref:
                rec.update(ref="sppark-h200", ref_ms=ref)
        if rec["ref_ms"]:
            rec["ratio"] = rec["ms"] / rec["ref_ms"]
        records.append(rec)
        print(f"  {rec['op']:<8} {rec['curve']:<10} n=2^{int(rec['n']).bit_length() - 1:<3} {rec['ms']:10.3f} ms"
              + (f"   {rec['ref']} {rec['ref_ms']:.3f} ms  ratio {rec['ratio']:.2f}" if rec["ref_ms"] else "")
              + (f"   [window table c={rec['table_c']}, {rec['table_sets']} sets, {rec['table_gib']} GiB past the bases, "
                 f"built once in {rec['table_build_ms']:.0f} ms]"
                 if "table_c" in rec else "   [no window table]" if rec.get("no_table") else ""),
              file=out, flush=True)

    for cname in curves:
        curve = get_curve(cname)
        fr = curve.fr
        fr_mul = getattr(backend, "fr_mul", None) or (lambda c, x, y: c.fr.mul(x, y))
        for n in plan.get("fr_mul", []):
            a, b = dev(fr.random(n, rng)), dev(fr.random(n, rng))
            ms = timed(lambda: fr_mul(curve, a, b), repeat, sync=sync)
            emit(op="fr_mul", curve=cname, n=n, ms=ms, ns_per_elem=ms * 1e6 / n)
        for n in plan.get("ntt", []):
            a = dev(fr.random(n, rng))
            emit(op="ntt", curve=cname, n=n, ms=timed(lambda: backend.ntt(curve, a), repeat, sync=sync))
            if on_device:
                g = fr.params.generator
                emit(op="ntt_coset", curve=cname, n=n,
                     ms=timed(lambda: backend.ntt(curve, a, coset=g), repeat, sync=sync))
            del a
        for group in ("g1", "g2"):
            for n in plan.get(f"msm_{group}", []):
                pts = bench_points(curve, group, n, rng)
                sc = random_scalars(curve, n, rng)
                d_pts, d_sc = dev(pts), dev(sc)
                ms = timed(lambda: backend.msm(curve, group, d_pts, d_sc), repeat, sync=sync)
                rec = dict(op=f"msm_{group}", curve=cname, n=n, ms=ms)
                tables = getattr(backend, "tables", None)
                table = tables.find(d_pts.data.ptr) if tables is not None else None
                if table is not None:  # built once by the warm-up call, kept for the timed ones
                    rec.update(table_c=table.c, table_sets=table.sets, table_gib=round(table.nbytes / 2**30, 2),
                               table_build_ms=round(table.build_ms, 1), table=f"c={table.c}, {table.sets} set(s)")
                    # and without: the issue's bars are with and without precomputed tables
                    ms = timed(lambda: no_tables().msm(curve, group, d_pts, d_sc), repeat, sync=sync)
                    if not (no_tables().msm(curve, group, d_pts, d_sc) == backend.msm(curve, group, d_pts, d_sc)).all():
                        raise AssertionError(f"MSM with and without a window table differ ({group}, n={n})")
                    plain = dict(op=f"msm_{group}", curve=cname, n=n, ms=ms, no_table=True, table="none")
                else:
                    plain = None
                del d_pts, d_sc, table
                if cname == "bls12_381" and ark.ark is not None and n <= ARK_MAX_N:
                    cls, apts, asc = ark.convert(curve, group, pts, sc)
                    ours = backend.msm(curve, group, pts, sc)
                    ref_pt = cls.multiexp_unchecked(apts, asc)
                    _, ref_ours, _ = ark.convert(curve, group, ours[None], sc[:1])
                    if ref_ours[0] != ref_pt:
                        raise AssertionError(f"MSM result differs from arkworks ({group}, n={n})")
                    rec.update(ref="arkworks", ref_ms=median_ms(lambda: cls.multiexp_unchecked(apts, asc), repeat))
                emit(**rec)
                if plain:
                    emit(**plain)
    print(file=out)
    print_table(records, [("op", "op"), ("curve", "curve"), ("n", "n"), ("backend", "backend"), ("table", "window table"),
                          ("ms", "ms"), ("ref", "ref"), ("ref_ms", "ref ms"), ("ratio", "ratio")], out=out)
    print(f"\ntotal {time.perf_counter() - t_start:.1f} s (includes first-run kernel compilation)", file=out)
    write_json(json_path, records)
    return records
