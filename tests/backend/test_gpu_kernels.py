"""CUDA backend against the CPU backend and outside references (msm_oracle: arkworks / py_ecc,
distinct bases with known logs) (gpu marked)."""

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve

from msm_oracle import pool_of

pytestmark = pytest.mark.gpu

CURVES = ["bls12_381", "bn254"]


@pytest.fixture(scope="module")
def cuda():
    return get_backend("cuda")


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_msm_edge_cases(cuda, curve_name, group):
    pool = pool_of(curve_name, group, 64)
    r = pool.r
    cases = {  # base indices (-1: infinity), scalars
        "n=1": ([0], [12345]),
        "zeros": ([0, 1, 2, 3], [0, 0, 0, 0]),
        "ones": ([0, 1, 2, 3, 4], [1, 1, 1, 0, 1]),
        "r-1": ([0, 1, 2], [r - 1, 1, r - 1]),
        "infinity bases": ([-1, -1, 0, 1], [5, 7, r - 2, 3]),
        "repeated": ([0] * 40, [3] * 20 + [1] * 10 + [r - 1] * 10),
        "mixed": (list(range(6)), [0, 1, 2, r - 1, 1 << 200, 99]),
    }
    for name, (idx, ks) in cases.items():
        pts = np.concatenate([pool.points, pool.G.identity(1)])[idx]
        got = cuda.msm(pool.curve, group, pts, pool.scalars(ks))
        assert pool.G.to_ints(got[None])[0] == pool.expect([0 if i < 0 else pool.logs[i] for i in idx], ks), name
    empty = cuda.msm(pool.curve, group, pool.G.identity(0), np.zeros((0, 4), dtype=np.uint64))
    assert not empty.any()


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group,log_n", [("g1", 12), ("g1", 16), ("g2", 12)])
def test_msm_matches_cpu(cuda, curve_name, group, log_n):
    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 4096)
    rng = np.random.default_rng(log_n)
    n = 1 << log_n
    # 4096 distinct bases: each once at n = 2^12, repeated at 2^16 (doublings in buckets)
    idx = rng.permutation(4096) if n == 4096 else rng.integers(0, 4096, n)
    pts = pool.points[idx]
    ints = pool.random_scalars(n, rng)
    for i in range(0, n, 7):
        ints[i] = 0
    for i in range(1, n, 7):
        ints[i] = 1
    sc = pool.scalars(ints)
    logs = [pool.logs[i] for i in idx]
    cpu = get_backend("cpu")
    got = cuda.msm(curve, group, pts, sc)
    assert (got == cpu.msm(curve, group, pts, sc)).all()
    assert pool.G.to_ints(got[None])[0] == pool.expect(logs, ints)
    mask = sc.any(axis=1)
    got = cuda.batch_add(curve, group, pts, mask)
    assert (got == cpu.batch_add(curve, group, pts, mask)).all()
    assert pool.G.to_ints(got[None])[0] == pool.expect(logs, mask.astype(int))


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group,other_share", [("g1", 0.03), ("g1", 0.3), ("g2", 0.1)])
def test_sparse_msm_matches_cpu(curve_name, group, other_share):
    """Mostly 0/1 scalars (PoRep's L, A, B): the few others are gathered with their indices
    before Pippenger; at 30 % a window table serves them too (rows offset by window)."""
    from cuzk.backend.cuda import CudaBackend

    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 4096)
    rng = np.random.default_rng(int(other_share * 100))
    n = 1 << 14
    idx = rng.integers(0, 4096, n)
    ints = [int(x) for x in rng.integers(0, 2, n)]
    others = rng.choice(n, int(other_share * n), replace=False)
    full = pool.random_scalars(len(others), rng)
    for j, (i, k) in enumerate(zip(others, full)):
        ints[i] = [pool.r - 1, 2, 1 << 200, k][j % 4]
    sc = pool.scalars(ints)
    be = CudaBackend()
    pts = pool.points[idx]
    got = be.msm(curve, group, pts, sc)
    assert (got == get_backend("cpu").msm(curve, group, pts, sc)).all()
    assert pool.G.to_ints(got[None])[0] == pool.expect([pool.logs[i] for i in idx], ints)
    assert (len(be.tables) == 1) == (other_share >= 0.25)


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group,log_n", [("g1", 15), ("g2", 13)])
def test_msm_scalars_concentrated_on_few_values(curve_name, group, log_n):
    """Half the scalars one value, a fifth r - 1 or 2 (PoRep's L/A/B at 32g repeat Poseidon values
    thousands of times): one bucket of every window holds thousands of points, which accumulation
    cuts into parts summed by several threads. Plain Pippenger and through a window table."""
    import cupy as cp

    from cuzk.backend.cuda import CudaBackend
    from cuzk.backend.cuda import msm as cuda_msm

    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 4096)
    rng = np.random.default_rng(log_n)
    n = 1 << log_n
    idx = rng.integers(0, 4096, n)
    ints = pool.random_scalars(n, rng)
    v = pool.random_scalars(1, rng)[0]
    kind = rng.random(n)
    for i in range(n):
        ints[i] = v if kind[i] < 0.5 else pool.r - 1 if kind[i] < 0.6 else 2 if kind[i] < 0.7 else ints[i]
    sc = pool.scalars(ints)
    pts = pool.points[idx]
    want = pool.expect([pool.logs[i] for i in idx], ints)
    plain = cuda_msm.msm(curve, group, cp.asarray(pts), cp.asarray(sc))
    be = CudaBackend()
    tabled = be.msm(curve, group, pts, sc)
    assert len(be.tables) == 1
    cpu = get_backend("cpu").msm(curve, group, pts, sc)
    for got in (plain, tabled):
        assert (got == cpu).all()
        assert pool.G.to_ints(got[None])[0] == want


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
@pytest.mark.parametrize("index_dtype,coeff_dtype", [(np.int32, np.uint8), (np.int64, np.uint32)])
def test_spmv_long_rows_match_cpu(cuda, curve_name, index_dtype, coeff_dtype):
    """Rows around the one-thread/one-warp boundary (32 terms) and far past it, among short
    ones, empty rows included: every row is written, by exactly one of the two kernels."""
    curve = get_curve(curve_name)
    fr = curve.fr
    rng = np.random.default_rng(17)
    lengths = np.concatenate([rng.integers(0, 4, 3000), [0, 1, 31, 32, 33, 63, 64, 65, 200, 5000, 32, 33]])
    rng.shuffle(lengths)
    indptr = np.zeros(len(lengths) + 1, dtype=index_dtype)
    np.cumsum(lengths, out=indptr[1:])
    nnz, cols = int(indptr[-1]), 900
    colidx = rng.integers(0, cols, nnz).astype(np.uint32)
    table = fr.random(200, rng)
    table[0] = fr.from_int(1)
    table[1] = fr.from_int(fr.p - 1)
    cidx = rng.integers(0, 200, nnz).astype(coeff_dtype)
    w = fr.random(cols, rng)
    cpu = get_backend("cpu")
    want = cpu.spmv(curve, indptr, colidx, cidx, table, w)
    got = cuda.spmv(curve, indptr, colidx, cidx, table, w)
    assert (got == want).all()
    # and against plain integers, for the longest row
    r = int(np.argmax(lengths))
    lo, hi = int(indptr[r]), int(indptr[r + 1])
    tv, wv = fr.to_ints(table), fr.to_ints(w)
    assert fr.to_ints(got[r:r + 1])[0] == sum(tv[cidx[k]] * wv[colidx[k]] for k in range(lo, hi)) % fr.p


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




@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group,log_n", [("g1", 14), ("g2", 12)])
def test_msm_every_window_width(curve_name, group, log_n):
    """Plain Pippenger at every width the code chooses (choose_window: 8, 16, 20), with scalars whose
    signed digits carry through every window (r - 1), sit on a bucket edge (2^(c-1) + 1) or are small."""
    import cupy as cp

    from cuzk.backend.cuda import msm as cuda_msm

    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 4096)
    rng = np.random.default_rng(log_n)
    n = 1 << log_n
    idx = rng.integers(0, 4096, n)
    flat = cuda_msm._bases_view(curve, group, cp.asarray(pool.points[idx]))
    for c in (8, 16, 20):
        ints = pool.random_scalars(n, rng)
        for i in range(0, n, 5):
            ints[i] = [pool.r - 1, 2, (1 << (c - 1)) + 1, pool.r - (1 << 200), ints[i]][(i // 5) % 5]
        pt = cuda_msm.pippenger(curve, group, flat, cp.asarray(pool.scalars(ints)).view(cp.uint32), n, c=c)
        got = cuda_msm._combine(curve, group, [cuda_msm._xyzz_to_host(curve, group, pt, 1)])
        assert pool.G.to_ints(got[None])[0] == pool.expect([pool.logs[i] for i in idx], ints), f"c = {c}"


@pytest.mark.parametrize("log_n,rows", [(12, 3001), (6, 40)])
def test_transform_of_a_short_vector_minus_a_table(cuda, log_n, rows):
    """transform(size=n, sub=...) of fewer than n rows equals the CPU NTT of the zero-padded vector
    minus the table: read as it is by a first middle pass (2^12), padded before a single pass (2^6)."""
    import cupy as cp

    from cuzk.backend.cuda import ntt as cuda_ntt

    name = "bls12_381"
    fr = get_curve(name).fr
    n = 1 << log_n
    rng = np.random.default_rng(log_n)
    a, sub = fr.random(rows, rng), fr.random(n, rng)
    padded = np.zeros((n, 4), dtype=np.uint64)
    padded[:rows] = a
    cpu, g = get_backend("cpu"), fr.params.generator
    cases = [(dict(), dict()), (dict(inverse=True, scale=cuda_ntt.const(name, pow(n, -1, fr.p))), dict(inverse=True)),
             (dict(pre=cuda_ntt.power_table(name, g, n)), dict(coset=g))]
    for kw, cpu_kw in cases:
        got = cuda_ntt.transform(name, cp.asarray(a), size=n, sub=cp.asarray(sub), **kw).get()
        assert np.array_equal(got, fr.sub(cpu.ntt(name, padded, **cpu_kw), sub)), kw
    with pytest.raises(ValueError, match="do not fit"):
        cuda_ntt.transform(name, cp.asarray(padded), size=n // 2)
    with pytest.raises(ValueError, match="single vector"):
        cuda_ntt.transform(name, cp.asarray(padded[: n // 2]).reshape(2, n // 4, 4), size=n)


def test_classify_finds_every_zero_one_and_other(cuda):
    """msm_classify against numpy: every index of a scalar 1 and of a scalar neither 0 nor 1, once,
    each block's indices contiguous and increasing; near misses of 1 count as others."""
    import cupy as cp

    from cuzk.backend.cuda import msm as cuda_msm
    from cuzk.backend.cuda.module import fn

    rng = np.random.default_rng(4)
    block = cuda_msm.CLASSIFY_BLOCK
    n = 3 * block + 37
    s = rng.integers(0, 2**63, (n, 4), dtype=np.uint64)
    kind = rng.integers(0, 3, n)
    kind[: block // 2] = 1  # a run of ones, then blocks of mixed classes
    s[kind == 0] = 0
    s[kind == 1] = [1, 0, 0, 0]
    for i, row in zip(range(block, block + 4), ([1, 0, 0, 1 << 62], [0, 1, 0, 0], [2, 0, 0, 0], [1, 1, 0, 0])):
        s[i], kind[i] = row, 2
    ones, others = cp.empty(n, dtype=cp.uint32), cp.empty(n, dtype=cp.uint32)
    counts = cp.zeros(2, dtype=cp.uint32)
    fn("bls12_381", "msm_classify")(((n + block - 1) // block,), (256,),
                                    (cp.asarray(s).view(cp.uint32), np.uint64(n), ones, others, counts))
    n1, n2 = (int(x) for x in counts.get())
    for got, want in ((ones.get()[:n1], np.flatnonzero(kind == 1)), (others.get()[:n2], np.flatnonzero(kind == 2))):
        assert np.array_equal(np.sort(got), want)
        blk = got // block
        starts = np.flatnonzero(np.r_[True, blk[1:] != blk[:-1]])
        assert len(starts) == len(np.unique(blk))  # one contiguous run per block
        runs = np.split(got, starts[1:])
        assert all((np.diff(r) > 0).all() for r in runs)


def test_msm_2_20_matches_the_oracle(cuda):
    """2^20 scalars (random, with 0, 1 and r - 1 mixed in) through msm(): classification, batch
    addition and a window table at the size where the prover's MSMs begin."""
    curve_name, group = "bls12_381", "g1"
    curve = get_curve(curve_name)
    pool = pool_of(curve_name, group, 4096)
    rng = np.random.default_rng(20)
    n = 1 << 20
    idx = rng.integers(0, 4096, n)
    ints = pool.random_scalars(n, rng)
    for i in range(0, n, 11):
        ints[i] = [0, 1, pool.r - 1][(i // 11) % 3]
    pts, sc = pool.points[idx], pool.scalars(ints)
    got = cuda.msm(curve, group, pts, sc)
    assert pool.G.to_ints(got[None])[0] == pool.expect([pool.logs[i] for i in idx], ints)


def _signed_digit_entries(ints, c, nwin, sets, table_n, index):
    """(bucket, value) of every nonzero signed digit, in Python integers: the specification of
    bucket_sort's output (scalars equal to 1 belong to batch addition and have none). Window w's
    digit goes to bucket set w % sets and names table row w // sets (rows table_n points apart)."""
    half, out = 1 << (c - 1), []
    for j, s in enumerate(ints):
        s = 0 if s == 1 else s
        base = index[j] if index is not None else j
        carry = 0
        for w in range(nwin):
            d = ((s >> (w * c)) & ((1 << c) - 1)) + carry
            neg, carry = (1, 1) if d > half else (0, 0)
            d = (1 << c) - d if neg else d
            if d:
                out.append(((w % sets) * half + d - 1, (base + (w // sets) * table_n) | (neg << 31)))
    return np.array(out, dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("c", [8, 16, 20])
@pytest.mark.parametrize("layout", ["plain", "gathered", "table", "strided", "strided-gathered"])
def test_bucket_sort_groups_every_digit_in_its_bucket(c, layout):
    """bucket_sort against a Python model of the signed digits: the same (bucket, base | sign) pairs,
    each bucket's in its offsets range, with scalars that carry through every window (r - 1),
    sit on a bucket edge (2^(c-1), 2^(c-1) + 1), are 0, 1 or 2, or repeat one value. Through a
    table with a row for every window, or for every third (3 bucket sets)."""
    import cupy as cp

    from cuzk.backend.cuda import msm as cuda_msm

    r = get_curve("bls12_381").fr.p
    rng = np.random.default_rng(c)
    n = 5000
    ints = [int(x) for x in rng.integers(0, 2**63, n)]
    ints = [(a << 192 | b << 128 | a * b) % r for a, b in zip(ints, reversed(ints))]
    special = [0, 1, 2, r - 1, 1 << (c - 1), (1 << (c - 1)) + 1, ints[7]]
    for i in range(0, n, 3):
        ints[i] = special[(i // 3) % len(special)]
    tabled = layout in ("table", "strided", "strided-gathered")
    nwin = -(-256 // c) if tabled else (256 + c) // c
    sets = 1 if layout == "table" else 3 if tabled else nwin
    table_n = 1 << 14 if tabled else 0
    index = rng.permutation(1 << 14)[:n].astype(np.uint32) if layout.endswith("gathered") else None
    scalars = np.array([[(x >> (64 * k)) & (2**64 - 1) for k in range(4)] for x in ints], dtype=np.uint64)
    err = cp.zeros(1, dtype=cp.uint32)
    offsets, ordered = cuda_msm.bucket_sort("bls12_381", cp.asarray(scalars).view(cp.uint32), n, c, nwin, err,
                                            sets=sets, table_n=table_n,
                                            index=None if index is None else cp.asarray(index))
    offsets, ordered = cp.asnumpy(offsets).astype(np.int64), cp.asnumpy(ordered).astype(np.int64)
    want = _signed_digit_entries(ints, c, nwin, sets, table_n, index)
    nb = sets << (c - 1)
    assert offsets.shape == (nb + 1,) and offsets[0] == 0 and (np.diff(offsets) >= 0).all()
    assert offsets[-1] == len(want)
    got = np.stack([np.repeat(np.arange(nb), np.diff(offsets)), ordered[:offsets[-1]]], axis=1)
    for pairs in (got, want):
        pairs[:] = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    assert np.array_equal(got, want)
    assert int(err.get()[0]) == 0
