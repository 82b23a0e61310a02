"""Fq6 / Fq12 tower arithmetic against Python-int references.

Fq12 is checked against py_ecc's FQ12 (the polynomial basis over Fq with
w^6 = xi, mapped by Fq12Field.to_poly_ints / from_poly_ints); Fq6, which
py_ecc lacks, against a schoolbook Fq2[v]/(v^3 - xi) written here.
"""

import random

import numpy as np
import pytest
from py_ecc.fields import optimized_bls12_381_FQ12, optimized_bn128_FQ12

from cuzk.field.tower import towers_of

CURVES = ["bn254", "bls12_381"]
PY_FQ12 = {"bn254": optimized_bn128_FQ12, "bls12_381": optimized_bls12_381_FQ12}
N = 3  # elements per test: compile time dominates, not the element count


@pytest.fixture(params=CURVES)
def curve(request):
    return request.param


def rand_poly(rng, p, n=N):
    return [[rng.randrange(p) for _ in range(12)] for _ in range(n)]


def poly(fq12, arr):
    return fq12.to_poly_ints(arr)


def ref(curve, polys):
    return [PY_FQ12[curve](list(c)) for c in polys]


def ref_ints(elems):
    return [tuple(int(c) for c in e.coeffs) for e in elems]


# ---- Fq12 -------------------------------------------------------------------


def test_fq12_layout_roundtrip(curve):
    _, fq12 = towers_of(curve)
    rng = random.Random(1)
    A = rand_poly(rng, fq12.p)
    a = fq12.from_poly_ints(A)
    assert a.shape == (N, 2, 3, 2, fq12.limbs)
    assert poly(fq12, a) == [tuple(x) for x in A]
    assert fq12.to_ints(fq12.from_ints(fq12.to_ints(a))) == fq12.to_ints(a)
    # the tower's one is the polynomial 1, and w^6 = xi
    assert poly(fq12, fq12.ones(1)) == [(1,) + (0,) * 11]
    w = fq12.from_poly_ints([[0, 1] + [0] * 10])
    w6 = fq12.pow(w, 6)
    xi0 = fq12.xi[0]
    assert fq12.to_ints(w6) == [(xi0, 1) + (0,) * 10]


def test_fq12_ring_ops_match_py_ecc(curve):
    _, fq12 = towers_of(curve)
    rng = random.Random(2)
    A, B = rand_poly(rng, fq12.p), rand_poly(rng, fq12.p)
    a, b = fq12.from_poly_ints(A), fq12.from_poly_ints(B)
    ra, rb = ref(curve, A), ref(curve, B)
    assert poly(fq12, fq12.mul(a, b)) == ref_ints(x * y for x, y in zip(ra, rb))
    assert poly(fq12, fq12.sqr(a)) == ref_ints(x * x for x in ra)
    assert poly(fq12, fq12.add(a, b)) == ref_ints(x + y for x, y in zip(ra, rb))
    assert poly(fq12, fq12.sub(a, b)) == ref_ints(x - y for x, y in zip(ra, rb))
    assert poly(fq12, fq12.neg(a)) == ref_ints(-x for x in ra)
    assert poly(fq12, fq12.pow(a, 1000003)) == ref_ints(x**1000003 for x in ra)


def test_fq12_inverse(curve):
    _, fq12 = towers_of(curve)
    rng = random.Random(3)
    A = rand_poly(rng, fq12.p)
    a = fq12.from_poly_ints(A)
    ia = fq12.inv(a)
    assert poly(fq12, ia) == ref_ints(x.inv() for x in ref(curve, A))
    assert fq12.is_one(fq12.mul(a, ia)).all()
    assert not fq12.inv(fq12.zeros(1)).any()  # zero maps to zero


def test_fq12_ring_laws(curve):
    _, fq12 = towers_of(curve)
    a, b, c = (fq12.random(N, np.random.default_rng(s)) for s in (4, 5, 6))
    m, add = fq12.mul, fq12.add
    assert fq12.equal(m(m(a, b), c), m(a, m(b, c))).all()
    assert fq12.equal(m(a, b), m(b, a)).all()
    assert fq12.equal(m(a, add(b, c)), add(m(a, b), m(a, c))).all()
    assert fq12.equal(fq12.sqr(a), m(a, a)).all()
    assert fq12.equal(m(a, fq12.ones(N)), a).all()


def test_fq12_frobenius(curve):
    _, fq12 = towers_of(curve)
    rng = random.Random(7)
    A = rand_poly(rng, fq12.p, 2)
    a = fq12.from_poly_ints(A)
    p = fq12.p
    f1 = fq12.frobenius(a, 1)
    assert poly(fq12, f1) == ref_ints(x**p for x in ref(curve, A))
    fk = a
    for k in range(1, 13):
        fk = fq12.frobenius(fk, 1) if k > 1 else f1
        assert fq12.equal(fq12.frobenius(a, k), fk).all(), k
    assert fq12.equal(fk, a).all()  # p^12: identity
    assert fq12.equal(fq12.conj(a), fq12.frobenius(a, 6)).all()
    # a ring homomorphism
    b = fq12.random(2, np.random.default_rng(8))
    for k in (1, 2, 3):
        lhs = fq12.frobenius(fq12.mul(a, b), k)
        assert fq12.equal(lhs, fq12.mul(fq12.frobenius(a, k), fq12.frobenius(b, k))).all()


def test_fq12_cyclotomic(curve):
    _, fq12 = towers_of(curve)
    a = fq12.random(N, np.random.default_rng(9))
    # u = a^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic subgroup
    u = fq12.mul(fq12.conj(a), fq12.inv(a))
    u = fq12.mul(fq12.frobenius(u, 2), u)
    assert fq12.equal(fq12.cyclotomic_sqr(u), fq12.sqr(u)).all()
    assert fq12.is_one(fq12.mul(u, fq12.conj(u))).all()  # conj is the inverse there
    e = random.Random(10).getrandbits(130)
    assert fq12.equal(fq12.cyclotomic_pow(u, e), fq12.pow(u, e)).all()
    assert fq12.equal(fq12.cyclotomic_pow(u, -e), fq12.conj(fq12.pow(u, e))).all()


# ---- Fq6 (schoolbook reference) -------------------------------------------------


def f2mul(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def f6mul(a, b, p, xi):
    """(sum a_i v^i)(sum b_j v^j) with v^3 = xi, from the definition."""
    acc = [(0, 0)] * 5
    for i in range(3):
        for j in range(3):
            t = f2mul(a[i], b[j], p)
            acc[i + j] = ((acc[i + j][0] + t[0]) % p, (acc[i + j][1] + t[1]) % p)
    out = list(acc[:3])
    for k in (3, 4):
        t = f2mul(acc[k], xi, p)
        out[k - 3] = ((out[k - 3][0] + t[0]) % p, (out[k - 3][1] + t[1]) % p)
    return tuple(out)


def f6pow(a, e, p, xi):
    r = ((1, 0), (0, 0), (0, 0))
    while e:
        if e & 1:
            r = f6mul(r, a, p, xi)
        a = f6mul(a, a, p, xi)
        e >>= 1
    return r


def as_f6(flat):
    return tuple((flat[2 * i], flat[2 * i + 1]) for i in range(3))


def test_fq6_arithmetic(curve):
    fq6, _ = towers_of(curve)
    p, xi = fq6.p, fq6.xi
    rng = random.Random(11)
    A = [[rng.randrange(p) for _ in range(6)] for _ in range(N)]
    B = [[rng.randrange(p) for _ in range(6)] for _ in range(N)]
    a, b = fq6.from_ints(A), fq6.from_ints(B)
    got = [as_f6(x) for x in fq6.to_ints(fq6.mul(a, b))]
    assert got == [f6mul(as_f6(x), as_f6(y), p, xi) for x, y in zip(A, B)]
    assert [as_f6(x) for x in fq6.to_ints(fq6.sqr(a))] == [f6mul(as_f6(x), as_f6(x), p, xi) for x in A]
    v = ((0, 0), (1, 0), (0, 0))
    assert [as_f6(x) for x in fq6.to_ints(fq6.mul_by_v(a))] == [f6mul(as_f6(x), v, p, xi) for x in A]
    ia = [as_f6(x) for x in fq6.to_ints(fq6.inv(a))]
    assert all(f6mul(as_f6(x), y, p, xi) == ((1, 0), (0, 0), (0, 0)) for x, y in zip(A, ia))
    assert [as_f6(x) for x in fq6.to_ints(fq6.frobenius(a[:1], 1))] == [f6pow(as_f6(A[0]), p, p, xi)]
    # associativity / distributivity / frobenius order
    c = fq6.random(N, np.random.default_rng(12))
    m = fq6.mul
    assert fq6.equal(m(m(a, b), c), m(a, m(b, c))).all()
    assert fq6.equal(m(a, fq6.add(b, c)), fq6.add(m(a, b), m(a, c))).all()
    assert fq6.equal(fq6.sub(fq6.add(a, b), b), a).all()
    assert fq6.equal(fq6.frobenius(a, 6), a).all()
    assert fq6.equal(fq6.frobenius(fq6.frobenius(a, 2), 3), fq6.frobenius(a, 5)).all()
    assert fq6.equal(fq6.neg(fq6.neg(a)), a).all()
