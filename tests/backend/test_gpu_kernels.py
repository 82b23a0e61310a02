"""CUDA backend against the CPU backend and naive references (gpu marked)."""

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve

pytestmark = pytest.mark.gpu

CURVES = ["bls12_381", "bn254"]


def naive_msm(grp, pts, ints):
    """sum k_i P_i through per-point scalar multiplication and affine additions."""
    prods = grp.scalar_mul(pts, [k % (1 << 256) for k in ints])
    acc = grp.identity(1)[0]
    for p in prods:
        acc = grp.add(acc[None], p[None])[0]
    return acc


@pytest.fixture(scope="module")
def cuda():
    return get_backend("cuda")


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_msm_edge_cases(cuda, curve_name, group):
    curve = get_curve(curve_name)
    grp = getattr(curve, group)
    fr = curve.fr
    rng = np.random.default_rng(7)
    base = grp.random(6, rng)
    r = fr.p
    cases = {
        "n=1": (base[:1], [12345]),
        "zeros": (base[:4], [0, 0, 0, 0]),
        "ones": (base[:5], [1, 1, 1, 0, 1]),
        "r-1": (base[:3], [r - 1, 1, r - 1]),
        "infinity bases": (np.concatenate([grp.identity(2), base[:2]]), [5, 7, r - 2, 3]),
        "repeated": (np.repeat(base[:1], 40, axis=0), [3] * 20 + [1] * 10 + [r - 1] * 10),
        "mixed": (base, [0, 1, 2, r - 1, 1 << 200, 99]),
    }
    for name, (pts, ks) in cases.items():
        got = cuda.msm(curve, group, pts, fr.canonical_from_ints(ks))
        want = naive_msm(grp, pts, ks)
        assert (got == want).all(), name
    empty = cuda.msm(curve, group, grp.identity(0), np.zeros((0, 4), dtype=np.uint64))
    assert not empty.any()


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group,log_n", [("g1", 12), ("g1", 16), ("g2", 12)])
def test_msm_matches_cpu(cuda, curve_name, group, log_n):
    curve = get_curve(curve_name)
    grp = getattr(curve, group)
    rng = np.random.default_rng(log_n)
    n = 1 << log_n
    pts = grp.random(64, rng)[rng.integers(0, 64, n)]  # repeats exercise doubling in buckets
    sc = curve.fr.from_mont(curve.fr.random(n, rng))
    sc[::7] = 0
    sc[1::7] = 0
    sc[1::7, 0] = 1
    cpu = get_backend("cpu")
    assert (cuda.msm(curve, group, pts, sc) == cpu.msm(curve, group, pts, sc)).all()
    mask = sc.any(axis=1)
    assert (cuda.batch_add(curve, group, pts, mask) == cpu.batch_add(curve, group, pts, mask)).all()


@pytest.mark.parametrize("curve_name", CURVES)
def test_ntt_large_matches_cpu(cuda, curve_name):
    curve = get_curve(curve_name)
    cpu = get_backend("cpu")
    a = curve.fr.random(3 << 16, np.random.default_rng(3)).reshape(3, 1 << 16, 4)
    g = curve.fr.params.generator
    for kw in ({}, {"coset": g}, {"inverse": True}, {"inverse": True, "coset": g}):
        assert (cuda.ntt(curve, a, **kw) == cpu.ntt(curve, a, **kw)).all(), kw


@pytest.mark.parametrize("curve_name", CURVES)
def test_spmv_matches_cpu(cuda, curve_name):
    curve = get_curve(curve_name)
    fr = curve.fr
    rng = np.random.default_rng(5)
    rows, cols, nnz = 1000, 700, 6000
    counts = rng.multinomial(nnz, np.ones(rows) / rows)
    indptr = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(counts, out=indptr[1:])
    colidx = rng.integers(0, cols, nnz).astype(np.uint32)
    table = fr.random(300, rng)
    table[0] = fr.from_int(1)
    table[1] = fr.from_int(fr.p - 1)
    cidx = rng.integers(0, 300, nnz).astype(np.uint16)
    w = fr.random(cols, rng)
    cpu = get_backend("cpu")
    assert (cuda.spmv(curve, indptr, colidx, cidx, table, w) == cpu.spmv(curve, indptr, colidx, cidx, table, w)).all()


@pytest.mark.parametrize("curve_name", CURVES)
def test_groth16_quotient_matches_cpu(cuda, curve_name):
    curve = get_curve(curve_name)
    fr = curve.fr
    rng = np.random.default_rng(11)
    n = 1 << 12
    a, b, c = (fr.random(n - 100, rng) for _ in range(3))
    cpu = get_backend("cpu")
    g = fr.params.generator
    for kw in (dict(shift=g, scale=12345, to_coefficients=True, count=n - 1),
               dict(shift=fr.params.root_of_unity_of_order(13), scale=None, to_coefficients=False, count=n)):
        got = cuda.quotient(curve, a, b, c, n, **kw)
        assert (got.get() == cpu.quotient(curve, a, b, c, n, **kw)).all()


def test_pinned_uploads_and_hot_tier_copies(cuda):
    """pin_host (the SRS hot tier) and the pinned witness path give the same device data."""
    import cupy as cp

    from cuzk.backend.cuda import CudaBackend

    a = np.random.default_rng(3).integers(0, 2**63, (1 << 18, 4), dtype=np.uint64)
    pinned = cuda.pin_host(a)
    assert np.array_equal(pinned, a) and pinned.ctypes.data != a.ctypes.data
    assert np.array_equal(cp.asnumpy(cp.asarray(pinned)), a)
    be = CudaBackend(transfer="pinned")
    assert np.array_equal(cp.asnumpy(be.witness(a)), a)  # staged through the pool
    held = be.uploader.host_array(a.shape)
    held[:] = a
    assert be.uploader.pool.owns(held)
    assert np.array_equal(cp.asnumpy(be.witness(held)), a)  # already pinned: no staging copy
