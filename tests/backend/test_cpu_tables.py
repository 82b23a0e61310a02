"""CPU MSM window tables (cuzk/backend/cpu/msm.py: build_table, pippenger_table) against outside oracles.

Expected values come from msm_oracle.py: bases with known discrete logs made by py_ecc (BN254) or
py-arkworks-bls12381 (BLS12-381), so each table row and each MSM is one multiplication of the
generator by that outside library. The table path is driven directly (not only where the cost model
would pick it), at small widths so that the tables stay small, with the scalars that stress bucket
methods: 0, 1, r - 1, equal digits, points at infinity, repeated and cancelling points.
"""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backend.cpu import msm as cpu_msm

from msm_oracle import pool_of

GROUPS = [("bls12_381", "g1"), ("bls12_381", "g2"), ("bn254", "g1"), ("bn254", "g2")]
N = 1200  # enough points for two point ranges (table_parts) on two threads


@pytest.fixture(scope="module", params=GROUPS, ids=[f"{c}-{g}" for c, g in GROUPS])
def pool(request):
    return pool_of(*request.param, n=N)


def bits_of(pool) -> int:
    return pool.r.bit_length()


def points_and_logs(pool, idx):
    """The pool's points at idx (-1: infinity) and their logs (0 for infinity)."""
    idx = np.asarray(idx, dtype=np.int64)
    pts = np.ascontiguousarray(np.concatenate([pool.points, pool.G.identity(1)])[idx])
    return pts, [0 if i < 0 else pool.logs[i] for i in idx]


def test_rows_are_the_bases_times_powers_of_two(pool):
    c = 7
    pts, logs = points_and_logs(pool, [0, 1, -1, 2, 3])
    table = cpu_msm.build_table(pool.name, pool.group, pts, c, bits_of(pool))
    assert table.windows == cpu_msm.num_windows(bits_of(pool), c)
    assert table.nbytes == cpu_msm.table_bytes(len(pts), bits_of(pool), c, pts[0].nbytes)
    for w in (1, 2, table.windows - 1):
        got = pool.G.to_ints(table.rows[w - 1])
        assert got == [pool.times_g(k << (c * w)) for k in logs], w


def check(pool, table, idx, ints, what):
    """The table MSM (driven directly, and through msm) against the outside sum."""
    pts, logs = points_and_logs(pool, idx)
    want = pool.expect(logs, ints)
    scal = pool.scalars(ints)
    sel = np.arange(len(ints), dtype=np.int64)
    direct = pool.G.to_affine(cpu_msm.pippenger_table(pool.curve, pool.G, pts, table(pts), scal, sel))
    assert pool.G.to_ints(direct)[0] == want, what
    got = cpu_msm.msm(pool.name, pool.group, pts, scal, table(pts))
    assert pool.G.to_ints(got[None])[0] == want, what


@pytest.mark.parametrize("c, chunk", [(4, 16), (9, None)])
def test_table_msm_equals_the_outside_sum(pool, monkeypatch, c, chunk):
    """c = 4 with 16-entry passes: many point chunks per range (buckets carried over); c = 9: passes of
    several windows of a range at once. Every case on N points is two ranges and two bucket slices."""
    if chunk is not None:
        monkeypatch.setattr(cpu_msm, "AFFINE_CHUNK", chunk)
    tables = {}

    def table(pts):
        key = pts.tobytes()
        if key not in tables:
            tables[key] = cpu_msm.build_table(pool.name, pool.group, pts, c, bits_of(pool))
        return tables[key]

    rng = np.random.default_rng(21)
    r = pool.r
    idx = rng.permutation(N)
    check(pool, table, idx, pool.random_scalars(N, rng), "random")
    edge = [0, 1, r - 1, 2, r - 2, (1 << 200) + 3, 1 << (c - 1), (1 << c) - 1]
    ints = [edge[i % len(edge)] for i in range(N)]
    check(pool, table, idx, ints, "0, 1, r-1 and digit boundaries")
    holes = idx.copy()
    holes[rng.random(N) < 0.1] = -1
    check(pool, table, holes, pool.random_scalars(N, rng), "points at infinity")
    m = (bits_of(pool) - 1) // c
    check(pool, table, idx, [sum(((1 << c) - 1) << (c * j) for j in range(m))] * N, "every digit 2^c - 1")
    s = pool.random_scalars(1, rng)[0]
    check(pool, table, [7, 7, 8] * (N // 3), [s, r - s, 3] * (N // 3), "cancelling pairs, one point many times")
    check(pool, table, [5, 6], [0, 0], "all zero")
    check(pool, table, [-1, -1, -1], [3, r - 1, 1], "only infinity")


def test_scalars_wider_than_the_table_take_the_default_path(pool):
    """A table covers scalars below r; unreduced 256-bit scalars need more windows at some widths, and
    msm then proves without the table (still the right sum)."""
    c = 5  # 255 or 254 bits: 52 windows; 256 bits: 52 or 53
    pts, logs = points_and_logs(pool, np.arange(40))
    table = cpu_msm.build_table(pool.name, pool.group, pts, c, bits_of(pool))
    ints = [(1 << 256) - 1 - i for i in range(40)]
    got = cpu_msm.msm(pool.name, pool.group, pts, pool.scalars(ints), table)
    assert pool.G.to_ints(got[None])[0] == pool.expect(logs, ints)
    if cpu_msm.num_windows(256, c) > table.windows:
        with pytest.raises(ValueError, match="windows"):
            cpu_msm.pippenger_table(pool.curve, pool.G, pts, table, pool.scalars(ints), np.arange(40))


def test_table_planning():
    for n in (1 << 10, 1 << 16, 1 << 20):
        for pb in (64, 128, 96, 192):
            c = cpu_msm.table_window(n, 254, pb)
            assert 2 <= c <= cpu_msm.MAX_WINDOW
            assert cpu_msm.table_bytes(n, 254, c, pb) == (cpu_msm.num_windows(254, c) - 1) * n * pb
    # at 2^16 BN254 points the model keeps c small enough for the buckets to stay in cache
    assert cpu_msm.table_window(1 << 16, 254, 64) in (13, 14, 15, 16)
    assert cpu_msm.table_parts(100, 2) == 1 and cpu_msm.table_parts(1 << 16, 2) == 6
    assert cpu_msm.table_parts(1 << 16, 1) == 1
