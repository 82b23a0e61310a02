"""MSM and batch-add conformance, parametrized over backends (conftest `backend`).

The expected values come from outside cuzk (msm_oracle.py): 5000 distinct bases per group with
known discrete logs, made by py-arkworks-bls12381 (BLS12-381) or py_ecc's bn128 (BN254), and
the expected sum [sum s_i log_i]G multiplied by the same outside library. Scalars include the
adversarial shapes of bucket methods (equal digits, few digit values, carries through every
window). BLS12-381 results are also compared with arkworks' multiexp over random points. The
tests at the end drive the CPU kernels directly (both bucket methods, several window sizes,
chunked affine passes).
"""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backend.cpu import msm as cpu_msm
from cuzk.curve import get_curve

from msm_oracle import Pool, ark

GROUPS = [("bls12_381", "g1"), ("bls12_381", "g2"), ("bn254", "g1"), ("bn254", "g2")]
N = 5000  # distinct bases per group


@pytest.fixture(scope="module", params=GROUPS, ids=[f"{c}-{g}" for c, g in GROUPS])
def pool(request):
    return Pool(*request.param, n=N)


def check(backend, pool: Pool, idx, ints, what=""):
    """MSM over pool.points[idx] (idx -1 = infinity) against the outside implementation."""
    idx = np.asarray(idx, dtype=np.int64)
    pts = np.concatenate([pool.points, pool.G.identity(1)])[idx]
    logs = [0 if i < 0 else pool.logs[i] for i in idx]
    got = backend.msm(pool.name, pool.group, pts, pool.scalars(ints))
    assert got.shape == (2,) + pool.G.coord
    assert pool.G.to_ints(got[None])[0] == pool.expect(logs, ints), what


def distinct(rng, n: int) -> np.ndarray:
    return rng.permutation(N)[:n]


def test_pool_bases_are_distinct_points_of_the_group(pool):
    assert len({tuple(map(tuple, p.reshape(2, -1))) for p in pool.points}) == N
    assert pool.G.is_on_curve(pool.points).all()
    sample = pool.points[:: N // 7]
    assert pool.G.is_in_subgroup(sample).all()


def test_random_small(backend, pool):
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 24, 100):
        check(backend, pool, distinct(rng, n), pool.random_scalars(n, rng), f"n={n}")


def test_empty_and_zero(backend, pool):
    empty = backend.msm(pool.name, pool.group, pool.G.identity(0), np.zeros((0, 4), dtype=np.uint64))
    assert empty.shape == (2,) + pool.G.coord and not empty.any()
    check(backend, pool, np.arange(7), [0] * 7, "all-zero scalars")
    check(backend, pool, [3], [0], "n=1, zero")
    check(backend, pool, [3], [1], "n=1, one")
    check(backend, pool, [3], [pool.r - 1], "n=1, r-1")


def test_edge_scalars_and_bases(backend, pool):
    r = pool.r
    check(backend, pool, [0, 1, 2, 3], [r - 1, 1, r - 1, 2], "r-1")
    check(backend, pool, [-1, 0, -1, 1, 2], [5, 7, 1, r - 2, 1], "infinity bases")
    check(backend, pool, [-1, -1], [3, 1], "only infinity")
    check(backend, pool, [0, 1, 2, 3, 4, 5], [0, 1, 2, r - 1, 1 << 200, 99], "mixed 0/1/other")
    # scalars are integers below 2^256, not necessarily reduced mod r
    check(backend, pool, [0, 1, 2], [(1 << 256) - 1, r, r + 5], "unreduced scalars")
    check(backend, pool, np.arange(24), [(1 << 20) - i for i in range(24)], "short scalars")


def _digits(ds, c: int) -> int:
    """The integer whose base-2^c digits, least significant first, are `ds`."""
    return sum(int(d) << (c * j) for j, d in enumerate(ds))


def test_adversarial_scalars(backend, pool):
    """Scalars that stress bucket methods: every window digit equal (for the window width the CPU
    plan picks and for others), digits concentrated on few values (0, the signed-digit boundary
    2^(c-1), the largest 2^c - 1: carries through every window), all ones, single bits; over
    distinct bases."""
    rng = np.random.default_rng(13)
    n, r = 1000, pool.r
    idx = distinct(rng, n)
    check(backend, pool, idx, [r - 1] * n, "all r-1")
    check(backend, pool, idx, [pool.random_scalars(1, rng)[0]] * n, "one value everywhere")
    check(backend, pool, idx, [(r - 1) * (i % 2) for i in range(n)], "0 and r-1 alternating")
    check(backend, pool, idx, [1 << int(j) for j in rng.integers(0, 252, n)], "single bits")
    check(backend, pool, idx, [(1 << int(k)) - 1 for k in rng.integers(200, 253, n)], "all ones")
    for c in sorted({cpu_msm.choose_plan(n, 253)[1], cpu_msm.choose_plan(200, 253)[1], 5, 16}):
        m = 252 // c  # windows below 2^252 < r: reduction leaves the digits as they are
        for d in (1, (1 << (c - 1)), (1 << c) - 1):
            check(backend, pool, idx[:200], [_digits([d] * m, c)] * 200, f"c={c}: every digit {d}")
        few = np.array([0, 1 << (c - 1), (1 << c) - 1])
        ints = [_digits(few[rng.integers(0, 3, m)], c) for _ in range(n)]
        check(backend, pool, idx, ints, f"c={c}: digits in {few.tolist()}")
    # large enough for the CPU's affine bucket kernel: equal points meet in one bucket (P + P, P + -P)
    big = 2500
    c = cpu_msm.choose_plan(big, 253)[1]
    check(backend, pool, distinct(rng, big), [_digits([(1 << c) - 1] * (252 // c), c)] * big, "affine: max digits")
    s = pool.random_scalars(1, rng)[0]
    check(backend, pool, [7] * big, [s] * big, "affine: one point, one scalar")
    check(backend, pool, [7, 7, 8] * (big // 3), [s, r - s, 3] * (big // 3), "affine: cancelling pairs")


def test_repeated_bases(backend, pool):
    """Same point many times: equal digits land in the same bucket (doubling),
    opposite points cancel inside a bucket (P + -P)."""
    rng = np.random.default_rng(5)
    check(backend, pool, [2] * 300, [12345] * 300, "identical (point, scalar) pairs")
    check(backend, pool, [2] * 40, [3] * 20 + [1] * 10 + [pool.r - 1] * 10, "repeated, mixed scalars")
    s = pool.random_scalars(1, rng)[0]
    check(backend, pool, [4, 4, 4, 5] * 50, [s, pool.r - s, s, 7] * 50, "cancelling pairs")
    check(backend, pool, rng.integers(0, 4, 1000), pool.random_scalars(1000, rng), "few distinct bases, n=1000")


def test_groth16_shaped(backend, pool):
    """Mostly 0/1 scalars, n not a power of two (the dispatcher's three paths), some infinity bases."""
    rng = np.random.default_rng(6)
    n = 3001
    idx = distinct(rng, n)
    idx[rng.random(n) < 0.05] = -1
    kind = rng.integers(0, 10, n)
    other = pool.random_scalars(n, rng)
    ints = [0 if k < 5 else 1 if k < 9 else o for k, o in zip(kind, other)]
    check(backend, pool, idx, ints, "groth16-shaped")


def test_large_random(backend, pool):
    """Enough points for the affine bucket kernel and several tasks per thread, all distinct."""
    rng = np.random.default_rng(8)
    check(backend, pool, distinct(rng, N), pool.random_scalars(N, rng), f"n={N}")


def test_batch_add(backend, pool):
    rng = np.random.default_rng(9)
    for n in (0, 1, 3, 2500):
        idx = distinct(rng, n)
        idx[rng.random(n) < 0.1] = -1
        pts = np.concatenate([pool.points, pool.G.identity(1)])[idx]
        mask = rng.integers(0, 2, n).astype(bool)
        logs = [0 if i < 0 else pool.logs[i] for i in idx]
        got = backend.batch_add(pool.name, pool.group, pts, mask)
        assert pool.G.to_ints(got[None])[0] == pool.expect(logs, mask.astype(int)), n


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_arkworks_bls12_381(backend, group):
    """arkworks' own multiexp over random points (no known logs) as the expected value."""
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


def test_cpu_methods_and_windows(pool, monkeypatch):
    """Both bucket kernels, several c, affine passes cut into small chunks,
    against the same reference."""
    rng = np.random.default_rng(11)
    n = 300
    idx = distinct(rng, n)
    idx[rng.random(n) < 0.1] = -1
    idx[:40] = 2  # a crowded bucket for the halving rounds
    pts = np.concatenate([pool.points, pool.G.identity(1)])[idx]
    logs = [0 if i < 0 else pool.logs[i] for i in idx]
    ints = pool.random_scalars(n, rng)
    ints[:20] = [777] * 20
    scal = pool.scalars(ints)
    want = pool.expect(logs, ints)
    sel = np.arange(n, dtype=np.int64)
    monkeypatch.setattr(cpu_msm, "AFFINE_CHUNK", 16)  # several chunks: bucket sums carried over
    for method in ("xyzz", "affine"):
        for c in (2, 5, 9):
            got = pool.G.to_affine(cpu_msm.pippenger_xyzz(pool.curve, pool.G, pts, scal, sel, c=c, method=method))
            assert pool.G.to_ints(got)[0] == want, (method, c)
    ones = pool.expect(logs, [1] * n)
    for method in ("xyzz", "affine"):
        for seg in (1, 3, 64):
            monkeypatch.setattr(cpu_msm, "SUM_SEGMENTS", seg)
            monkeypatch.setattr(cpu_msm, "SUM_CHUNK", 37)
            got = pool.G.to_affine(cpu_msm.sum_xyzz(pool.curve, pool.G, pts, sel, method=method))
            assert pool.G.to_ints(got)[0] == ones, (method, seg)


def test_cpu_batch_and_indices(pool):
    rng = np.random.default_rng(12)
    n = 50
    idx = distinct(rng, n)
    pts = pool.points[idx]
    logs = [pool.logs[i] for i in idx]
    ks = [pool.random_scalars(n, rng) for _ in range(3)]
    got = cpu_msm.msm(pool.name, pool.group, pts, np.stack([pool.scalars(k) for k in ks]))
    assert got.shape == (3, 2) + pool.G.coord
    for row, k in zip(got, ks):
        assert pool.G.to_ints(row[None])[0] == pool.expect(logs, k)
    sel = np.array([0, 5, 5, 49])  # indices, a repeat counts twice
    counts = np.bincount(sel, minlength=n)
    assert pool.G.to_ints(cpu_msm.batch_add(pool.name, pool.group, pts, sel)[None])[0] == pool.expect(logs, counts)


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
