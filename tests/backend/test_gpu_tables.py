"""MSM window tables on the device against the CPU (gpu marked)."""

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve

from msm_oracle import pool_of

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda():
    return get_backend("cuda")


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_table_rows_are_window_multiples(cuda, curve_name, group):
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 300)
    pts = np.concatenate([pool.points, pool.G.identity(2)])
    c = 13
    table = M.build_table(curve, group, M._bases_view(curve, group, cp.asarray(pts)), c)
    assert table.nwin == 20 and table.points.shape[0] == 20 * len(pts)
    rows = cp.asnumpy(table.points).view(np.uint64).reshape((table.nwin,) + pts.shape)
    for w in (0, 1, 7, table.nwin - 1):  # row w holds [2^(c w)] P_i: checked by the outside library on a sample
        got = pool.G.to_ints(rows[w])
        for i in (0, 1, 150, 299):
            assert got[i] == pool.times_g(pool.logs[i] << (c * w)), (w, i)
        assert got[300:] == [None, None]  # infinity stays infinity


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
@pytest.mark.parametrize("group,c", [("g1", 9), ("g1", 14), ("g2", 11)])
def test_msm_through_a_table_matches_cpu(cuda, curve_name, group, c):
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve(curve_name)
    grp = getattr(curve, group)
    rng = np.random.default_rng(c)
    n = 5000
    pool = pool_of(curve_name, group, 2500)
    idx = rng.integers(0, 2500, n)  # 2500 distinct bases, some twice: doublings inside buckets
    idx[17] = -1
    pts = np.concatenate([pool.points, grp.identity(1)])[idx]
    ints = pool.random_scalars(n, rng)
    for i in range(0, n, 5):
        ints[i] = 0
    for i in range(3, n, 11):
        ints[i] = pool.r - 1
    sc = pool.scalars(ints)
    flat = M._bases_view(curve, group, cp.asarray(pts))
    table = M.build_table(curve, group, flat, c)
    got = M.msm(curve, group, flat, cp.asarray(sc), table=lambda: table)
    assert (got == get_backend("cpu").msm(curve, group, pts, sc)).all()
    assert grp.to_ints(got[None])[0] == pool.expect([0 if i < 0 else pool.logs[i] for i in idx], ints)
    assert (got == M.msm(curve, group, flat, cp.asarray(sc))).all()  # and the plain path


def test_backend_keeps_one_table_per_base_array_within_budget(cuda):
    from cuzk.backend.cuda import CudaBackend

    curve = get_curve("bls12_381")
    rng = np.random.default_rng(5)
    n = 1 << 13
    pts = curve.g1.random(64, rng)[rng.integers(0, 64, n)]
    sc = curve.fr.from_mont(curve.fr.random(n, rng))
    be = CudaBackend()
    want = get_backend("cpu").msm(curve, "g1", pts, sc)
    assert (be.msm(curve, "g1", pts, sc) == want).all()
    table = be.window_table(curve, "g1", pts)
    assert table is not None and len(be.tables) == 1
    assert (be.msm(curve, "g1", pts, sc) == want).all() and be.window_table(curve, "g1", pts) is table
    bits = np.zeros_like(sc)
    bits[::2, 0] = 1
    bits[1 : n // 8 : 2] = sc[1 : n // 8 : 2]  # 0 and 1 but for n/16 full scalars: no table for these bases
    pts2 = curve.g1.random(n, rng)
    assert (be.msm(curve, "g1", pts2, bits) == get_backend("cpu").msm(curve, "g1", pts2, bits)).all()
    assert len(be.tables) == 1
    off = CudaBackend(table_fraction=0)
    assert off.window_table(curve, "g1", pts) is None and (off.msm(curve, "g1", pts, sc) == want).all()


def test_non_canonical_scalars_are_refused_through_a_table(cuda):
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve("bls12_381")
    n = 4096
    pts = curve.g1.random(n, np.random.default_rng(2))
    sc = np.zeros((n, 4), dtype=np.uint64)
    sc[:, 0] = 3
    sc[9, 3] = np.uint64(0xFFFF << 48)  # top digit above 2^15: a carry out of the last window
    flat = M._bases_view(curve, "g1", cp.asarray(pts))
    table = M.build_table(curve, "g1", flat, 16)
    with pytest.raises(ValueError, match="not canonical"):
        M.msm(curve, "g1", flat, cp.asarray(sc), table=lambda: table)
