"""The fused parallel setup kernels (groth16/setup_kernels.py) against outside references.

generate on a tiny circuit is checked point by point against the Groth16 definitions evaluated
with plain Python ints (u_i(tau) = sum_j A[j, i] L_j(tau), L_j from its product formula over the
domain) and py_ecc's scalar multiplication; the CSC transpose against numpy's stable argsort; the
Lagrange values, at sizes that split into parallel chunks, against the closed form in ints.
"""

from __future__ import annotations

import numpy as np
import pytest
from py_ecc import optimized_bls12_381, optimized_bn128

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.groth16 import setup, setup_kernels
from cuzk.r1cs import LC, ONE, RecordingCS
from cuzk.r1cs.compiled import CsrMatrix

TOXIC = (0x1D2C3B4A59687766_5544332211FFEEDD_CCBBAA9988776655, 3**90, 5**70, 7**60, 11**50)
PY_ECC = {"bls12_381": optimized_bls12_381, "bn254": optimized_bn128}


def tiny_circuit(curve: str):
    """y = x^3 + x + 5, z = 2x public, plus rows with big coefficients, repeated columns, an input in
    B and aux variables that occur only in B or only in C (so the densities are not trivial)."""
    cs = RecordingCS(curve)
    x, x2, x3 = (cs.alloc(lambda: 0) for _ in range(3))
    y, z = cs.alloc_input(lambda: 0), cs.alloc_input(lambda: 0)
    b_only, c_only = cs.alloc(lambda: 0), cs.alloc(lambda: 0)
    cs.enforce(x, x, x2)
    cs.enforce(x2, x, x3)
    cs.enforce(LC.of(x3, 1) + LC.of(x, 1) + LC.constant(5), ONE, y)
    cs.enforce(LC.of(x, 2), ONE, z)
    cs.enforce(LC.of(x, 3**100) + LC.of(x2, -7), LC.of(b_only, 1) + LC.of(z, 2**130), LC.of(c_only, 1))
    cs.enforce(LC.of(x2, 1), LC.of(y, -1) + LC.of(b_only, 5), LC.of(x3, 9) + LC.of(c_only, -1))
    return cs.compile()


def lagrange_ints(p: int, n: int, w: int, tau: int, count: int) -> list[int]:
    """L_j(tau) = prod_{m != j} (tau - w^m) / (w^j - w^m), straight from the definition."""
    dom = [pow(w, m, p) for m in range(n)]
    out = []
    for j in range(count):
        num = den = 1
        for m in range(n):
            if m != j:
                num = num * (tau - dom[m]) % p
                den = den * (dom[j] - dom[m]) % p
        out.append(num * pow(den, -1, p) % p)
    return out


def times_g(curve: str, group: str, k: int, r: int):
    """[k]G by py_ecc, as cuzk's coordinate ints (None: infinity)."""
    mod = PY_ECC[curve]
    if k % r == 0:
        return None
    x, y = mod.normalize(mod.multiply(mod.G1 if group == "g1" else mod.G2, k % r))
    if group == "g1":
        return int(x.n), int(y.n)
    return (int(x.coeffs[0]), int(x.coeffs[1])), (int(y.coeffs[0]), int(y.coeffs[1]))


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
def test_generate_matches_the_groth16_definitions(curve_name):
    cc = tiny_circuit(curve_name)
    curve = get_curve(curve_name)
    fr = curve.fr
    p = fr.p
    assert PY_ECC[curve_name].curve_order == p
    pk = setup.generate(cc, backend=get_backend("cpu"), progress=False, toxic=lambda i: TOXIC[i])
    tau, alpha, beta, gamma, delta = (t % p for t in TOXIC)

    n = 1
    while n < cc.num_rows:
        n *= 2
    assert n > cc.num_rows  # the domain has rows beyond the circuit's
    w = fr.params.root_of_unity_of_order(n.bit_length() - 1)
    assert pow(w, n, p) == 1 and pow(w, n // 2, p) != 1
    lag = lagrange_ints(p, n, w, tau, cc.num_rows)
    coeffs = cc.coefficient_ints()
    nv, ni = cc.num_vars, cc.num_inputs

    def at_tau(mat):
        acc, used = [0] * nv, [False] * nv
        for j in range(mat.num_rows):
            for k in range(int(mat.indptr[j]), int(mat.indptr[j + 1])):
                col = int(mat.cols[k])
                acc[col] = (acc[col] + coeffs[int(mat.coeff_idx[k])] * lag[j]) % p
                used[col] = True
        return acc, used

    (u, in_a), (v, in_b), (wv, _) = (at_tau(m) for m in cc.matrices)
    k = [(beta * u[i] + alpha * v[i] + wv[i]) % p for i in range(nv)]
    ic_s = [k[i] * pow(gamma, -1, p) % p for i in range(ni)]
    l_s = [k[i] * pow(delta, -1, p) % p for i in range(ni, nv)]
    a_vars = list(range(ni)) + [i for i in range(ni, nv) if in_a[i]]
    b_vars = [i for i in range(nv) if in_b[i]]
    t_tau = (pow(tau, n, p) - 1) % p
    h_s = [pow(tau, i, p) * t_tau * pow(delta, -1, p) % p for i in range(n - 1)]
    assert len(b_vars) < nv and len(a_vars) < nv  # b_only / c_only make the densities partial

    assert pk.a_vars.tolist() == a_vars and pk.b_vars.tolist() == b_vars
    assert (pk.num_inputs, pk.num_aux, pk.domain_size) == (ni, cc.num_aux, n)
    g1, g2 = curve.g1, curve.g2
    expect = {
        "ic": (g1, pk.vk.ic, ic_s),
        "l": (g1, pk.vectors["l"], l_s),
        "a": (g1, pk.vectors["a"], [u[i] for i in a_vars]),
        "b_g1": (g1, pk.vectors["b_g1"], [v[i] for i in b_vars]),
        "b_g2": (g2, pk.vectors["b_g2"], [v[i] for i in b_vars]),
        "h": (g1, pk.vectors["h"], h_s),
    }
    for name, (grp, pts, scalars) in expect.items():
        group = "g1" if grp is g1 else "g2"
        assert grp.to_ints(pts) == [times_g(curve_name, group, s, p) for s in scalars], name
    singles = {"alpha_g1": ("g1", alpha), "beta_g1": ("g1", beta), "beta_g2": ("g2", beta),
               "gamma_g2": ("g2", gamma), "delta_g1": ("g1", delta), "delta_g2": ("g2", delta)}
    for name, (group, x) in singles.items():
        grp = g1 if group == "g1" else g2
        assert grp.to_ints(getattr(pk.vk, name)[None])[0] == times_g(curve_name, group, x, p), name


def test_unconstrained_aux_variable_is_named():
    cs = RecordingCS("bls12_381")
    x, _free, y = (cs.alloc(lambda: 0) for _ in range(3))
    cs.enforce(x, x, y)
    with pytest.raises(ValueError, match="aux variable 1 is unconstrained"):
        setup.generate(cs.compile(), backend=get_backend("cpu"), progress=False, toxic=lambda i: TOXIC[i])


def reference_csc(mat, num_cols):
    """The transpose the old setup built: numpy's stable argsort of the column indices."""
    rows = np.repeat(np.arange(mat.num_rows, dtype=np.uint32), np.diff(mat.indptr.astype(np.int64)))
    order = np.argsort(mat.cols, kind="stable")
    indptr = np.zeros(num_cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(mat.cols, minlength=num_cols), out=indptr[1:])
    return indptr, rows[order], mat.coeff_idx[order]


def random_csr(rng, rows, num_cols, per_row, ip_dtype=np.int32, coeff_dtype=np.uint8, long=()):
    """Random CSR (sorted, distinct columns per row); `long` columns (col, count) get `count` rows."""
    picks = zip(rng.integers(0, max(rows, 1), rows * per_row), rng.integers(0, max(1, num_cols - 3), rows * per_row))
    entries = {(int(r), int(c)) for r, c in picks}
    for col, count in long:
        entries |= {(int(r), col) for r in rng.choice(rows, count, replace=False)}
    pairs = np.array(sorted(entries), dtype=np.int64).reshape(-1, 2)
    if rows > 1000:  # a clustered stretch too, like real circuits' column locality
        pairs[: len(pairs) // 2, 1] = np.sort(pairs[: len(pairs) // 2, 1])
        pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    indptr = np.zeros(rows + 1, dtype=ip_dtype)
    np.cumsum(np.bincount(pairs[:, 0], minlength=rows), out=indptr[1:])
    coeff = rng.integers(0, 250, len(pairs)).astype(coeff_dtype)
    return CsrMatrix(indptr, pairs[:, 1].astype(np.uint32), coeff)


@pytest.mark.parametrize("rows, num_cols, per_row, ip_dtype, coeff_dtype", [
    (0, 7, 0, np.int32, np.uint8),  # no rows
    (12, 5, 0, np.int32, np.uint8),  # rows, no entries
    (30, 4, 3, np.int64, np.uint16),  # one bucket, columns repeated across rows
    (3000, 70000, 5, np.int32, np.uint8),  # several buckets, trailing unused columns
    (60000, 200000, 4, np.int32, np.uint32),  # > 2^16 entries: split into parallel row chunks
])
def test_transpose_is_the_stable_csc(rows, num_cols, per_row, ip_dtype, coeff_dtype):
    rng = np.random.default_rng(rows + num_cols)
    mat = random_csr(rng, rows, num_cols, per_row, ip_dtype, coeff_dtype)
    got = setup_kernels.transpose(mat, num_cols)
    assert len(got.long_cols) == 0
    for g, e in zip((got.indptr, got.rows, got.coeff), reference_csc(mat, num_cols)):
        assert g.dtype == e.dtype and np.array_equal(g, e)


@pytest.mark.parametrize("head", [1, 3, 64])
def test_long_columns_continue_in_the_overflow_region(head):
    rng = np.random.default_rng(head)
    mat = random_csr(rng, 5000, 40000, 3, long=[(0, 900), (17000, 65), (39999, 64), (20, 2)])
    indptr, rows, coeff = reference_csc(mat, 40000)
    got = setup_kernels.transpose(mat, 40000, head=head)
    lens = np.diff(indptr)
    assert got.long_cols.tolist() == np.flatnonzero(lens > head).tolist()
    heads = np.minimum(lens, head)
    assert np.array_equal(got.indptr, np.concatenate([[0], np.cumsum(heads)]))
    overflow = {int(c): int(p) for c, p in zip(got.long_cols, got.long_pos)}
    assert list(overflow.values()) == sorted(overflow.values())  # long columns one after another
    assert not overflow or min(overflow.values()) == got.indptr[-1]  # ... after every head
    for c in range(40000):
        col = slice(got.indptr[c], got.indptr[c + 1])
        r, k = got.rows[col], got.coeff[col]
        if c in overflow:
            more = slice(overflow[c], overflow[c] + int(lens[c] - head))
            r, k = np.concatenate([r, got.rows[more]]), np.concatenate([k, got.coeff[more]])
        assert np.array_equal(r, rows[indptr[c]:indptr[c + 1]]) and np.array_equal(k, coeff[indptr[c]:indptr[c + 1]]), c


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
def test_transpose_product_with_long_columns_matches_ints(curve_name):
    """Columns of 2, SEGMENT, SEGMENT + 1 and 2 SEGMENT + 5 entries: summed over cut rows."""
    curve = get_curve(curve_name)
    fr, p, seg = curve.fr, curve.fr.p, setup.SEGMENT
    rng = np.random.default_rng(5)
    rows, num_cols = 3 * seg, 3000
    mat = random_csr(rng, rows, num_cols, 2, long=[(0, 2 * seg + 5), (1, seg), (2999, seg + 1), (40, 2)])
    table_ints = [1, p - 1] + [int.from_bytes(rng.bytes(32), "little") % p for _ in range(248)]
    table, values = fr.from_ints(table_ints), fr.random(rows, rng)
    got = setup.transpose_product(get_backend("cpu"), curve, mat, table, values, num_cols)
    vals = fr.to_ints(values)
    want = [0] * num_cols
    for r in range(rows):
        for k in range(int(mat.indptr[r]), int(mat.indptr[r + 1])):
            c = int(mat.cols[k])
            want[c] = (want[c] + table_ints[int(mat.coeff_idx[k])] * vals[r]) % p
    assert got.shape == (num_cols, 4) and fr.to_ints(got) == want


def test_transpose_rejects_a_column_out_of_range():
    mat = CsrMatrix(np.array([0, 2], np.int32), np.array([1, 9], np.uint32), np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="num_cols"):
        setup_kernels.transpose(mat, 5)


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
@pytest.mark.parametrize("log_n, count", [(0, 1), (3, 5), (13, 8192), (13, 6001)])
def test_lagrange_values_match_the_closed_form(curve_name, log_n, count):
    """(tau^n - 1)/n * w^j / (tau - w^j) in ints; 2^13 values run in parallel chunks."""
    fr = get_curve(curve_name).fr
    p, n = fr.p, 1 << log_n
    tau = TOXIC[0] % p
    w = fr.params.root_of_unity_of_order(log_n)
    scale = (pow(tau, n, p) - 1) * pow(n, -1, p) % p
    want = [scale * pow(w, j, p) * pow(tau - pow(w, j, p), -1, p) % p for j in range(count)]
    got = fr.to_ints(setup.lagrange_at(get_curve(curve_name), n, tau, count))
    assert got == want
    if count == n > 1:  # the basis sums to 1 and reproduces x at tau
        assert sum(got) % p == 1 and sum(g * pow(w, j, p) for j, g in enumerate(got)) % p == tau
    if log_n == 3:
        assert got == lagrange_ints(p, n, w, tau, count)


def test_lagrange_refuses_tau_in_the_domain():
    curve = get_curve("bn254")
    w = curve.fr.params.root_of_unity_of_order(4)
    with pytest.raises(ValueError, match="evaluation domain"):
        setup.lagrange_at(curve, 16, pow(w, 5, curve.fr.p))


@pytest.mark.parametrize("count", [0, 1, 9000])
def test_scaled_powers_and_combine_match_ints(count):
    fr = get_curve("bls12_381").fr
    p = fr.p
    base, scale = TOXIC[1] % p, TOXIC[2] % p
    assert fr.to_ints(setup_kernels.scaled_powers(fr, base, scale, count)) == [
        scale * pow(base, i, p) % p for i in range(count)]
    rng = np.random.default_rng(count)
    u, v, w = (fr.random(max(count, 3), rng) for _ in range(3))
    ni = 2
    u[2] = v[2] = w[2] = 0  # an aux row whose combination is zero: counted
    alpha, beta, gamma, delta = (t % p for t in TOXIC[1:])
    ic, l_s, zeros = setup_kernels.combine(fr, u, v, w, ni, alpha, beta, gamma, delta)
    k = [(beta * a + alpha * b + c) % p for a, b, c in zip(fr.to_ints(u), fr.to_ints(v), fr.to_ints(w))]
    assert fr.to_ints(ic) == [x * pow(gamma, -1, p) % p for x in k[:ni]]
    assert fr.to_ints(l_s) == [x * pow(delta, -1, p) % p for x in k[ni:]]
    assert zeros == 1
    idx = rng.permutation(len(u))
    u_ints = fr.to_ints(u)
    assert fr.canonical_to_ints(setup_kernels.canonical_rows(fr, u, idx, 1, len(u))) == [u_ints[i] for i in idx[1:]]
