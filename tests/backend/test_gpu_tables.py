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
@pytest.mark.parametrize("group,sets", [("g1", 1), ("g2", 1), ("g1", 3)])
def test_table_rows_are_window_multiples(cuda, curve_name, group, sets):
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 300)
    pts = np.concatenate([pool.points, pool.G.identity(2)])
    c = 13
    table = M.build_table(curve, group, M._bases_view(curve, group, cp.asarray(pts)), c, sets)
    nrows = -(-20 // sets)  # 20 windows of 13 bits
    assert (table.nwin, table.sets, table.nrows) == (20, sets, nrows)
    assert table.rows.shape[0] == (nrows - 1) * len(pts)  # row 0 is the bases themselves
    rows = cp.asnumpy(table.rows).view(np.uint64).reshape((nrows - 1,) + pts.shape)
    for j in sorted({1, 2, nrows - 1}):  # row j holds [2^(c sets j)] P_i: checked by the outside library on a sample
        got = pool.G.to_ints(rows[j - 1])
        for i in (0, 1, 150, 299):
            assert got[i] == pool.times_g(pool.logs[i] << (c * sets * j)), (j, i)
        assert got[300:] == [None, None]  # infinity stays infinity


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
@pytest.mark.parametrize("group,c,sets", [("g1", 9, 1), ("g1", 9, 4), ("g1", 9, 28), ("g1", 14, 1), ("g1", 14, 10),
                                          ("g2", 11, 1), ("g2", 11, 12)])
def test_msm_through_a_table_matches_cpu(cuda, curve_name, group, c, sets):
    """A row for every window (sets = 1), for every sets-th one, and two rows (the bases and one
    more: sets = nwin - 1 at c = 9, 10 of 19 at c = 14): each against the CPU and the outside library."""
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve(curve_name)
    grp = getattr(curve, group)
    rng = np.random.default_rng(c * 100 + sets)
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
    table = M.build_table(curve, group, flat, c, sets)
    got = M.msm(curve, group, flat, cp.asarray(sc), table=lambda: table)
    assert (got == get_backend("cpu").msm(curve, group, pts, sc)).all()
    assert grp.to_ints(got[None])[0] == pool.expect([0 if i < 0 else pool.logs[i] for i in idx], ints)
    assert (got == M.msm(curve, group, flat, cp.asarray(sc))).all()  # and the plain path


@pytest.mark.parametrize("sets", [1, 7])
def test_table_over_many_distinct_bases_matches_cpu(cuda, sets):
    """2^16 distinct random bases at c = 20 (13 windows: every row, or 2 rows of 7 bucket sets),
    scalars random, r - 1 (a carry through every window), 2^(c-1) and 2^(c-1) + 1 (a digit on
    the sets' edge, in every window), and one value repeated, gathered by the sparse path too."""
    import cupy as cp

    from cuzk.backend.cuda import msm as M

    curve = get_curve("bls12_381")
    rng = np.random.default_rng(sets)
    n = 1 << 16
    pts = curve.g1.random(n, rng)
    r = curve.fr.p
    ints = [int.from_bytes(rng.bytes(32), "little") % r for _ in range(n)]
    edge = sum(1 << (20 * w + 19) for w in range(12))  # digit 2^19 (negated or kept) in every window
    special = [r - 1, edge, edge + sum(1 << (20 * w) for w in range(12)), ints[5], 0, 1]
    for i in range(0, n, 4):
        ints[i] = special[(i // 4) % len(special)]
    sc = np.array([[(x >> (64 * k)) & (2**64 - 1) for k in range(4)] for x in ints], dtype=np.uint64)
    flat = M._bases_view(curve, "g1", cp.asarray(pts))
    table = M.build_table(curve, "g1", flat, 20, sets)
    want = get_backend("cpu").msm(curve, "g1", pts, sc)
    assert (M.msm(curve, "g1", flat, cp.asarray(sc), table=lambda: table) == want).all()
    sparse = sc.copy()
    sparse[1::3] = 0  # a third of the scalars need Pippenger: gathered with their indices, through the table
    sparse[2::3, 1:] = 0
    sparse[2::3, 0] = 1
    assert (M.msm(curve, "g1", flat, cp.asarray(sparse), table=lambda: table)
            == get_backend("cpu").msm(curve, "g1", pts, sparse)).all()


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


def test_backend_keeps_fewer_rows_where_every_window_does_not_fit(cuda):
    """A budget of 4 rows of the bases' size plus the build's scratch (2 XYZZ-halves a base): at
    c = 8 (32 windows, 2^13 bases) that is 5 rows, so 7 bucket sets (ceil(32/7) = 5; 6 would need 6)."""
    from cuzk.backend.cuda import CudaBackend

    curve = get_curve("bls12_381")
    rng = np.random.default_rng(8)
    n = 1 << 13
    pts = curve.g1.random(n, rng)
    sc = curve.fr.from_mont(curve.fr.random(n, rng))
    be = CudaBackend()
    be.tables.budget = 6 * n * 96  # G1 affine: 96 bytes a point
    table = be.window_table(curve, "g1", pts)
    assert (table.c, table.sets, table.nrows, table.nbytes) == (8, 7, 5, 4 * n * 96)
    assert (be.msm(curve, "g1", pts, sc) == get_backend("cpu").msm(curve, "g1", pts, sc)).all()


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


def squaring_chain(cs, x, k):
    """Public y = x^(2^k): k rows, so H has 2^(ceil(log2(k + 2))) - 1 bases."""
    p = get_curve("bls12_381").fr.p
    v, val = cs.alloc(x), x
    for _ in range(k - 1):
        val = val * val % p
        nxt = cs.alloc(lambda val=val: val)
        cs.enforce(v, v, nxt)
        v = nxt
    from cuzk.r1cs import LC

    y = cs.alloc_input(lambda: val * val % p)
    cs.enforce(v, v, LC.of(y, 1))


def test_proofs_take_a_window_table_from_the_second_on():
    """The first proof on a backend (and the first after its memory is released) runs without a
    window table while its memory pool reaches its high-water mark; the second sizes one from the
    memory the pool never needed (window_tables.table_room) for H's 8191 bases. Every proof verifies."""
    from cuzk.backend.cuda import CudaBackend
    from cuzk.groth16 import prover, setup
    from cuzk.groth16.verifier import PreparedVerifyingKey, verify
    from cuzk.r1cs import RecordingCS, WitnessCS
    from cuzk.r1cs.evaluation import evaluate

    curve = get_curve("bls12_381")
    k, x = 5000, 3
    rec = RecordingCS("bls12_381")
    squaring_chain(rec, 0, k)
    cc = rec.compile()
    ws = WitnessCS("bls12_381")
    squaring_chain(ws, x, k)
    w = ws.witness()
    pk = setup.generate(cc, backend=get_backend("cuda"))
    assert pk.bases("h").shape[0] == 8191
    pvk, public = PreparedVerifyingKey(pk.vk), [pow(x, 1 << k, curve.fr.p)]
    be = CudaBackend()
    counts = []
    for release in (False, False, True, False):
        if release:
            be.release_memory()
        proof = prover.prove(pk, w, evaluate(cc, w), backend=be)
        assert verify(pvk, proof, public)
        counts.append(len(be.tables))
    assert counts[0] == 0 and counts[1] >= 1 and counts[2] == 0 and counts[3] >= 1, counts
