"""Optimal ate pairing of BN254 and BLS12-381 against py_ecc.

Points are built with py_ecc (generators times random scalars) and converted
with fq.from_ints / fq2.from_ints. Pairing values are compared in py_ecc's
FQ12 basis through Fq12Field.to_poly_ints. py_ecc.optimized_bn128 /
optimized_bls12_381 are used: same values as py_ecc.bn128 / bls12_381, but
about 0.5 s per pairing instead of 9 s.

BLS12-381 convention: x < 0, and py_ecc's miller_loop runs over |x| without
the final conjugation, so its value is f_{|x|,Q}(P)^((p^12-1)/r), the inverse
of the optimal ate pairing f_{x,Q}(P)^((p^12-1)/r) that blst, arkworks and
zkcrypto (and this module) compute. The test therefore checks ours ==
conj(py_ecc), conj being the inverse in the (unitary) target group. For
BN254 (6x+2 > 0) the two values are equal.
"""

import random

import numpy as np
import py_ecc.optimized_bls12_381 as bls
import py_ecc.optimized_bn128 as bn
import pytest

from cuzk.curve.pairing import (
    OP_INV6,
    OP_MUL,
    OP_MULC,
    OP_STORE,
    final_exp_program,
    final_exponentiation,
    miller_loop,
    multi_pairing,
    multi_pairing_is_one,
    pairing,
    pairing_params,
    run_on_exponents,
)
from cuzk.field import fields_of
from cuzk.field.tower import towers_of

CURVES = {"bn254": bn, "bls12_381": bls}


class Ctx:
    def __init__(self, name):
        self.name = name
        self.E = CURVES[name]
        self.r = self.E.curve_order
        _, self.fq, self.fq2 = fields_of(name)
        self.fq12 = towers_of(name)[1]
        self.rng = random.Random(name)

    def scalar(self):
        return self.rng.randrange(2, self.r)

    def g1(self, *ks):
        """Affine G1 array of [k]G1 (k = 0: infinity)."""
        out = np.zeros((len(ks), 2, self.fq.limbs), dtype=np.uint64)
        for i, k in enumerate(ks):
            if k % self.r:
                x, y = self.E.normalize(self.E.multiply(self.E.G1, k % self.r))
                out[i] = self.fq.from_ints([int(x), int(y)])
        return out

    def g2(self, *ks):
        out = np.zeros((len(ks), 2, 2, self.fq.limbs), dtype=np.uint64)
        for i, k in enumerate(ks):
            if k % self.r:
                x, y = self.E.normalize(self.E.multiply(self.E.G2, k % self.r))
                out[i] = self.fq2.from_ints([x.coeffs, y.coeffs])
        return out

    def py_ecc_pairing(self, a, b):
        """py_ecc's e([a]G1, [b]G2) as 12 poly coefficients."""
        E = self.E
        v = E.pairing(E.multiply(E.G2, b), E.multiply(E.G1, a))
        return tuple(int(c) for c in v.coeffs)


@pytest.fixture(scope="module", params=list(CURVES))
def ctx(request):
    return Ctx(request.param)


def test_value_matches_py_ecc(ctx):
    a, b = ctx.scalar(), ctx.scalar()
    ours = pairing(ctx.name, ctx.g1(a)[0], ctx.g2(b)[0])
    assert ours.shape == ctx.fq12.shape
    expected = ctx.py_ecc_pairing(a, b)
    if ctx.name == "bls12_381":
        ours = ctx.fq12.conj(ours)  # see module docstring
    assert ctx.fq12.to_poly_ints(ours)[0] == expected


def test_bilinear_and_non_degenerate(ctx):
    a, b = ctx.scalar(), ctx.scalar()
    e = pairing(ctx.name, ctx.g1(a, a * b, 1, 1), ctx.g2(b, 1, a * b, 1))
    fq12 = ctx.fq12
    assert fq12.equal(e[0], e[1]) and fq12.equal(e[0], e[2])
    g = e[3]  # e(G1, G2)
    assert not fq12.is_one(g)
    assert fq12.is_one(fq12.pow(g, ctx.r))  # order r
    assert fq12.equal(e[0], fq12.pow(g, a * b % ctx.r))


def test_multi_pairing_identities(ctx):
    a = ctx.scalar()
    P, Q = ctx.g1(a, ctx.r - 1), ctx.g2(1, a)  # e(aP, Q) e(-P, aQ) = 1
    assert multi_pairing_is_one(ctx.name, P, Q)
    assert not multi_pairing_is_one(ctx.name, P, ctx.g2(1, a + 1))
    # infinity on either side contributes 1; no pairs at all is the empty product
    P3, Q3 = np.concatenate([P, ctx.g1(0, 5)]), np.concatenate([Q, ctx.g2(7, 0)])
    assert multi_pairing_is_one(ctx.name, P3, Q3)
    assert multi_pairing_is_one(ctx.name, ctx.g1(0), ctx.g2(3))
    assert multi_pairing_is_one(ctx.name, P[:0], Q[:0])
    assert ctx.fq12.is_one(pairing(ctx.name, ctx.g1(0, 2), ctx.g2(3, 0))).all()
    with pytest.raises(ValueError):
        multi_pairing_is_one(ctx.name, P, Q[:1])


def test_groth16_shaped_check(ctx):
    """e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) as one 4-pair product."""
    r = ctx.r
    al, be, ga, de, l, c, a = (ctx.scalar() for _ in range(7))
    b = (al * be + l * ga + c * de) * pow(a, -1, r) % r
    g1 = ctx.g1(r - a, al, l, c)
    g2 = ctx.g2(b, be, ga, de)
    assert multi_pairing_is_one(ctx.name, g1, g2)
    assert not multi_pairing_is_one(ctx.name, ctx.g1(r - a, al, l, c + 1), g2)
    assert not multi_pairing_is_one(ctx.name, g1[::-1], g2)


def test_final_exponentiation_is_the_power(ctx):
    """The chained hard part equals plain exponentiation to (p^12 - 1)/r."""
    P, Q = ctx.g1(ctx.scalar(), ctx.scalar()), ctx.g2(ctx.scalar(), ctx.scalar())
    f = miller_loop(ctx.name, P, Q)
    p = ctx.fq.p
    fe = final_exponentiation(ctx.name, f)
    assert ctx.fq12.equal(fe, ctx.fq12.pow(f, (p**12 - 1) // ctx.r))
    assert ctx.fq12.equal(fe, multi_pairing(ctx.name, P, Q))


def test_final_exp_program_checker(ctx):
    """The generation-time check of the exponentiation program catches a slip."""
    p = pairing_params(ctx.name)["p"]
    code = [int(v) for v in final_exp_program(ctx.name)]
    assert run_on_exponents(code, p) == (p**12 - 1) // ctx.r
    i = next(i for i in range(len(code) - 2, 0, -2) if code[i] == OP_MUL)
    code[i] = OP_MULC
    assert run_on_exponents(code, p) != (p**12 - 1) // ctx.r


def test_final_exp_checker_keeps_inv6_in_fq6(ctx):
    """INV6 inverts only Fq6 values: the norm f conj(f) passes, f itself (not in Fq6 for most f) fails."""
    p = pairing_params(ctx.name)["p"]
    n = p**12 - 1
    assert run_on_exponents([OP_STORE, 0, OP_MULC, 0, OP_INV6, 0], p) == -(1 + p**6) % n
    with pytest.raises(AssertionError, match="INV6"):
        run_on_exponents([OP_STORE, 0, OP_INV6, 0], p)
