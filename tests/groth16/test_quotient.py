"""Groth16's H scalars (Backend.quotient) against polynomial arithmetic in Python integers.

The oracle interpolates a, b, c naively (O(n^2) sums over the roots of unity), evaluates
on the coset point by point, interpolates back on the coset, and for a satisfied system
divides A(x)B(x) - C(x) by x^n - 1 by long division: none of it uses the NTTs under test."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.groth16.keys import H_BELLPERSON, H_SNARKJS
from cuzk.groth16.qap import h_scalars

CURVES = ["bls12_381", "bn254"]


def _interpolate(values, points, p):
    """Coefficients of the polynomial of degree < n through (points[i], values[i]) on a coset
    x_i = g w^i: f_k = g^-k / n * sum_i v_i w^-ik."""
    n = len(points)
    w_inv = pow(points[1] * pow(points[0], -1, p), -1, p)
    g_inv, n_inv = pow(points[0], -1, p), pow(n, -1, p)
    return [n_inv * pow(g_inv, k, p) * sum(v * pow(w_inv, i * k, p) for i, v in enumerate(values)) % p
            for k in range(n)]


def _evaluate(coeffs, x, p):
    acc = 0
    for f in reversed(coeffs):
        acc = (acc * x + f) % p
    return acc


def _oracle(fr, a, b, c, n, shift, scale, to_coefficients):
    p = fr.p
    w = fr.params.root_of_unity_of_order(n.bit_length() - 1)
    domain = [pow(w, i, p) for i in range(n)]
    coset = [shift * x % p for x in domain]
    polys = [_interpolate(v + [0] * (n - len(v)), domain, p) for v in (a, b, c)]
    s = 1 if scale is None else scale
    vals = [(_evaluate(polys[0], x, p) * _evaluate(polys[1], x, p) - _evaluate(polys[2], x, p)) * s % p
            for x in coset]
    return _interpolate(vals, coset, p) if to_coefficients else vals


def _long_division(num, den, p):
    """(quotient, remainder) of polynomials over F_p, coefficients lowest first."""
    num = list(num)
    q = [0] * (len(num) - len(den) + 1)
    lead = pow(den[-1], -1, p)
    for k in range(len(q) - 1, -1, -1):
        q[k] = num[k + len(den) - 1] * lead % p
        for j, d in enumerate(den):
            num[k + j] = (num[k + j] - q[k] * d) % p
    return q, num[: len(den) - 1]


def _mul(f, g, p):
    out = [0] * (len(f) + len(g) - 1)
    for i, x in enumerate(f):
        for j, y in enumerate(g):
            out[i + j] = (out[i + j] + x * y) % p
    return out


def quotient_case(curve_name: str, to_coefficients: bool, seed: int):
    """(curve, a, b, c, n, shift, scale, count): random a, b, c of 13 rows (not a satisfied system) on
    a domain of 16, with the shift, scale and output count of either convention."""
    curve = get_curve(curve_name)
    fr = curve.fr
    rng = np.random.default_rng(seed)
    n, rows = 16, 13
    a, b, c = (fr.random(rows, rng) for _ in range(3))
    shift = fr.params.generator if to_coefficients else fr.params.root_of_unity_of_order(5)
    scale = 987654321 if to_coefficients else None
    count = n - 1 if to_coefficients else n
    return curve, a, b, c, n, shift, scale, count


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("to_coefficients", [True, False])
def test_quotient_matches_polynomial_arithmetic(curve_name, to_coefficients):
    """Random a, b, c (not a satisfied system), fewer rows than the domain, both conventions'
    shapes: the coset interpolant of (A B - C) s, or its coset evaluations."""
    curve, a, b, c, n, shift, scale, count = quotient_case(curve_name, to_coefficients, seed=5)
    fr = curve.fr
    got = get_backend("cpu").quotient(curve, a, b, c, n, shift=shift, scale=scale,
                                      to_coefficients=to_coefficients, count=count)
    want = _oracle(fr, fr.to_ints(a), fr.to_ints(b), fr.to_ints(c), n, shift, scale, to_coefficients)
    assert fr.canonical_to_ints(got) == want[:count]


@pytest.mark.parametrize("curve_name", CURVES)
def test_bellperson_h_is_the_polynomial_quotient(curve_name):
    """A satisfied system (c = a b row by row): h = (A B - C) / (x^n - 1) exactly, the remainder 0."""
    curve = get_curve(curve_name)
    fr = curve.fr
    p = fr.p
    rng = np.random.default_rng(8)
    n, rows = 16, 11
    a, b = fr.random(rows, rng), fr.random(rows, rng)
    c = fr.mul(a, b)
    ai, bi, ci = fr.to_ints(a), fr.to_ints(b), fr.to_ints(c)
    w = fr.params.root_of_unity_of_order(4)
    domain = [pow(w, i, p) for i in range(n)]
    A, B, C = (_interpolate(v + [0] * (n - rows), domain, p) for v in (ai, bi, ci))
    num = _mul(A, B, p)
    for k, x in enumerate(C):
        num[k] = (num[k] - x) % p
    h, rem = _long_division(num, [p - 1] + [0] * (n - 1) + [1], p)
    assert rem == [0] * n
    got = h_scalars(H_BELLPERSON, get_backend("cpu"), curve, a, b, c, n)
    assert fr.canonical_to_ints(got) == (h + [0] * n)[: n - 1]


@pytest.mark.parametrize("curve_name", CURVES)
def test_snarkjs_h_is_the_odd_coset_evaluation(curve_name):
    """snarkjs's H scalars: A B - C on w_2n <w_n>, point by point."""
    curve = get_curve(curve_name)
    fr = curve.fr
    rng = np.random.default_rng(9)
    n, rows = 16, 16
    a, b, c = (fr.random(rows, rng) for _ in range(3))
    got = h_scalars(H_SNARKJS, get_backend("cpu"), curve, a, b, c, n)
    want = _oracle(fr, fr.to_ints(a), fr.to_ints(b), fr.to_ints(c), n, fr.params.root_of_unity_of_order(5), None,
                   False)
    assert fr.canonical_to_ints(got) == want
