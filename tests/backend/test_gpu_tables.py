"""MSM window tables on the device against the CPU (gpu marked)."""

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve

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
    grp = getattr(curve, group)
    pts = np.concatenate([grp.random(300, np.random.default_rng(1)), grp.identity(2)])
    c = 13
    table = M.build_table(curve, group, M._bases_view(curve, group, cp.asarray(pts)), c)
    assert table.nwin == 20 and table.points.shape[0] == 20 * len(pts)
    rows = cp.asnumpy(table.points).view(np.uint64).reshape((table.nwin,) + pts.shape)
    for w in (0, 1, 7, table.nwin - 1):
        assert np.array_equal(rows[w], grp.scalar_mul(pts, [1 << (c * w)] * len(pts))), w


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
@pytest.mark.parametrize("group,c", [("g1", 9), ("g1", 14), ("g2", 11)])
def test_msm_through_a_table_matches_cpu(cuda, curve_name, group, c):
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve(curve_name)
    grp = getattr(curve, group)
    rng = np.random.default_rng(c)
    n = 5000
    pts = grp.random(50, rng)[rng.integers(0, 50, n)]  # repeats: doublings inside buckets
    pts[17] = grp.identity(1)[0]
    sc = curve.fr.from_mont(curve.fr.random(n, rng))
    sc[::5] = 0
    sc[3::11] = curve.fr.canonical_from_ints([curve.fr.p - 1])[0]
    flat = M._bases_view(curve, group, cp.asarray(pts))
    table = M.build_table(curve, group, flat, c)
    got = M.msm(curve, group, flat, cp.asarray(sc), table=lambda: table)
    assert (got == get_backend("cpu").msm(curve, group, pts, sc)).all()
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
