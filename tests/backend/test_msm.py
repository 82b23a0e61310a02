"""MSM and batch-add conformance, parametrized over backends (conftest `backend`).

References need no MSM of their own: bases are built as [k_i]G with known
k_i, so sum s_i [k_i]G = [sum s_i k_i mod r]G is one generator multiplication
(the group tests check scalar_mul against py_ecc). BLS12-381 results are
also compared with py_arkworks_bls12381's multiexp. The tests at the end
drive the CPU kernels directly (both bucket methods, several window sizes,
chunked affine passes).
"""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backend.cpu import msm as cpu_msm
from cuzk.curve import get_curve

GROUPS = [("bls12_381", "g1"), ("bls12_381", "g2"), ("bn254", "g1"), ("bn254", "g2")]


class Ref:
    """Bases with known discrete logs; expected MSM results from those logs."""

    def __init__(self, curve_name: str, group: str, n_distinct: int = 24, seed: int = 1):
        self.curve = get_curve(curve_name)
        self.name = curve_name
        self.group = group
        self.G = getattr(self.curve, group)
        self.r = self.curve.fr.p
        rng = np.random.default_rng(seed)
        self.logs = [int.from_bytes(rng.bytes(32), "little") % self.r for _ in range(n_distinct)]
        self.points = self.mul_gen(self.logs)

    def mul_gen(self, ks) -> np.ndarray:
        g = self.G
        return g.scalar_mul(np.broadcast_to(g.generator, (len(ks),) + g.generator.shape), [k % self.r for k in ks])

    def expect(self, logs, scalars) -> np.ndarray:
        return self.mul_gen([sum(int(k) * int(s) for k, s in zip(logs, scalars)) % self.r])[0]

    def scalars(self, ints) -> np.ndarray:
        return self.curve.fr.canonical_from_ints([int(s) for s in ints])

    def random_scalars(self, n, rng) -> list[int]:
        return [int.from_bytes(rng.bytes(32), "little") % self.r for _ in range(n)]


@pytest.fixture(scope="module", params=GROUPS, ids=[f"{c}-{g}" for c, g in GROUPS])
def ref(request):
    return Ref(*request.param)


def check(backend, ref: Ref, idx, ints, what=""):
    """MSM over ref.points[idx] (idx -1 = infinity) against the discrete-log reference."""
    idx = np.asarray(idx, dtype=np.int64)
    pts = np.concatenate([ref.points, ref.G.identity(1)])[idx]
    logs = [0 if i < 0 else ref.logs[i] for i in idx]
    got = backend.msm(ref.name, ref.group, pts, ref.scalars(ints))
    assert got.shape == (2,) + ref.G.coord
    assert (got == ref.expect(logs, ints)).all(), what


def test_random_small(backend, ref):
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 24):
        check(backend, ref, np.arange(n), ref.random_scalars(n, rng), f"n={n}")


def test_empty_and_zero(backend, ref):
    empty = backend.msm(ref.name, ref.group, ref.G.identity(0), np.zeros((0, 4), dtype=np.uint64))
    assert empty.shape == (2,) + ref.G.coord and not empty.any()
    check(backend, ref, np.arange(7), [0] * 7, "all-zero scalars")
    check(backend, ref, [3], [0], "n=1, zero")
    check(backend, ref, [3], [1], "n=1, one")
    check(backend, ref, [3], [ref.r - 1], "n=1, r-1")


def test_edge_scalars_and_bases(backend, ref):
    r = ref.r
    check(backend, ref, [0, 1, 2, 3], [r - 1, 1, r - 1, 2], "r-1")
    check(backend, ref, [-1, 0, -1, 1, 2], [5, 7, 1, r - 2, 1], "infinity bases")
    check(backend, ref, [-1, -1], [3, 1], "only infinity")
    check(backend, ref, [0, 1, 2, 3, 4, 5], [0, 1, 2, r - 1, 1 << 200, 99], "mixed 0/1/other")
    # scalars are integers below 2^256, not necessarily reduced mod r
    check(backend, ref, [0, 1, 2], [(1 << 256) - 1, r, r + 5], "unreduced scalars")
    check(backend, ref, np.arange(24), [(1 << 20) - i for i in range(24)], "short scalars")


def test_repeated_bases(backend, ref):
    """Same point many times: equal digits land in the same bucket (doubling),
    opposite points cancel inside a bucket (P + -P)."""
    rng = np.random.default_rng(5)
    check(backend, ref, [2] * 300, [12345] * 300, "identical (point, scalar) pairs")
    check(backend, ref, [2] * 40, [3] * 20 + [1] * 10 + [ref.r - 1] * 10, "repeated, mixed scalars")
    s = ref.random_scalars(1, rng)[0]
    check(backend, ref, [4, 4, 4, 5] * 50, [s, ref.r - s, s, 7] * 50, "cancelling pairs")
    check(backend, ref, rng.integers(0, 4, 1000), ref.random_scalars(1000, rng), "few distinct bases, n=1000")


def test_groth16_shaped(backend, ref):
    """Mostly 0/1 scalars, n not a power of two (the dispatcher's three paths)."""
    rng = np.random.default_rng(6)
    n = 3001
    idx = rng.integers(-1, len(ref.logs), n)
    kind = rng.integers(0, 10, n)
    other = ref.random_scalars(n, rng)
    ints = [0 if k < 5 else 1 if k < 9 else o for k, o in zip(kind, other)]
    check(backend, ref, idx, ints, "groth16-shaped")


def test_large_random(backend, ref):
    """Enough points for the affine bucket kernel and several tasks per thread."""
    rng = np.random.default_rng(8)
    n = 5000
    check(backend, ref, rng.integers(0, len(ref.logs), n), ref.random_scalars(n, rng), "n=5000")


def test_batch_add(backend, ref):
    rng = np.random.default_rng(9)
    for n in (0, 1, 3, 2500):
        idx = rng.integers(-1, len(ref.logs), n)
        pts = np.concatenate([ref.points, ref.G.identity(1)])[idx]
        mask = rng.integers(0, 2, n).astype(bool)
        logs = [0 if i < 0 else ref.logs[i] for i in idx]
        got = backend.batch_add(ref.name, ref.group, pts, mask)
        assert (got == ref.expect(logs, mask.astype(int))).all(), n


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_arkworks_bls12_381(backend, group):
    ark = pytest.importorskip("py_arkworks_bls12381")
    curve = get_curve("bls12_381")
    G = getattr(curve, group)
    rng = np.random.default_rng(10)
    n = 700 if group == "g1" else 300
    small = G.random(32, rng)
    pts = G.add(small[rng.integers(0, 32, n)], small[rng.integers(0, 32, n)])
    sc = curve.fr.from_mont(curve.fr.random(n, rng))
    sc[::5] = 0
    sc[1::5] = [1, 0, 0, 0]
    got = backend.msm("bls12_381", group, pts, sc)

    cls, size = (ark.G1Point, 96) if group == "g1" else (ark.G2Point, 192)

    def xy_le(a):
        return np.ascontiguousarray(curve.fq.from_mont(a.reshape(-1, curve.fq.limbs)), dtype="<u8").tobytes()

    raw = xy_le(pts)
    apts = [cls.from_xy_bytes_unchecked_le(raw[i * size : (i + 1) * size]) for i in range(n)]
    sraw = np.ascontiguousarray(sc, dtype="<u8").tobytes()
    asc = [ark.Scalar.from_le_bytes(sraw[i * 32 : (i + 1) * 32]) for i in range(n)]
    assert cls.multiexp_unchecked(apts, asc).to_xy_bytes_le() == xy_le(got)


# ---- CPU kernels directly --------------------------------------------------


def test_cpu_methods_and_windows(ref, monkeypatch):
    """Both bucket kernels, several c, affine passes cut into small chunks,
    against the same reference."""
    rng = np.random.default_rng(11)
    n = 300
    idx = rng.integers(-1, len(ref.logs), n)
    idx[:40] = 2  # a crowded bucket for the halving rounds
    pts = np.concatenate([ref.points, ref.G.identity(1)])[idx]
    logs = [0 if i < 0 else ref.logs[i] for i in idx]
    ints = ref.random_scalars(n, rng)
    ints[:20] = [777] * 20
    scal = ref.scalars(ints)
    want = ref.expect(logs, ints)
    sel = np.arange(n, dtype=np.int64)
    monkeypatch.setattr(cpu_msm, "AFFINE_CHUNK", 16)  # several chunks: bucket sums carried over
    for method in ("xyzz", "affine"):
        for c in (2, 5, 9):
            got = ref.G.to_affine(cpu_msm.pippenger_xyzz(ref.curve, ref.G, pts, scal, sel, c=c, method=method))[0]
            assert (got == want).all(), (method, c)
    for method in ("xyzz", "affine"):
        for seg in (1, 3, 64):
            monkeypatch.setattr(cpu_msm, "SUM_SEGMENTS", seg)
            monkeypatch.setattr(cpu_msm, "SUM_CHUNK", 37)
            got = ref.G.to_affine(cpu_msm.sum_xyzz(ref.curve, ref.G, pts, sel, method=method))[0]
            assert (got == ref.expect(logs, [1] * n)).all(), (method, seg)


def test_cpu_batch_and_indices(ref):
    rng = np.random.default_rng(12)
    n = 50
    idx = rng.integers(0, len(ref.logs), n)
    pts = ref.points[idx]
    logs = [ref.logs[i] for i in idx]
    ks = [ref.random_scalars(n, rng) for _ in range(3)]
    got = cpu_msm.msm(ref.name, ref.group, pts, np.stack([ref.scalars(k) for k in ks]))
    assert got.shape == (3, 2) + ref.G.coord
    for row, k in zip(got, ks):
        assert (row == ref.expect(logs, k)).all()
    sel = np.array([0, 5, 5, 49])  # indices, a repeat counts twice
    counts = np.bincount(sel, minlength=n)
    assert (cpu_msm.batch_add(ref.name, ref.group, pts, sel) == ref.expect(logs, counts)).all()


def test_cpu_window_planning():
    assert cpu_msm.bit_length(np.zeros((3, 4), dtype=np.uint64)) == 0
    assert cpu_msm.bit_length(np.array([[5, 0, 0, 0], [0, 0, 1, 0]], dtype=np.uint64)) == 129
    assert cpu_msm.num_windows(255, 13) == 20 and cpu_msm.num_windows(16, 16) == 2
    # short scalars get fewer windows; plans are sane across sizes
    for m in (1, 100, 1 << 12, 1 << 16, 1 << 20):
        method, c = cpu_msm.choose_plan(m, 255)
        assert method in ("xyzz", "affine") and 2 <= c <= cpu_msm.MAX_WINDOW
    for nw, m in ((20, 1 << 16), (3, 5000), (1, 100)):
        tasks = cpu_msm.plan_tasks(nw, m, 2)
        for w in range(nw):  # every window's point range is covered exactly once
            spans = sorted((lo, hi) for tw, lo, hi in tasks if tw == w)
            assert spans[0][0] == 0 and spans[-1][1] == m
            assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
