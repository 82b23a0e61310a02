"""The pairing commitments and GT arithmetic of cuzk.aggregate against py_ecc.

Points are [k]G built by py_ecc; pairing values are compared in py_ecc's FQ12
basis (Fq12Field.to_poly_ints). py_ecc's BLS12-381 pairing is the inverse of
the optimal ate pairing we compute (see tests/curve/test_pairing.py), so for
that curve py_ecc's value is conjugated first.
"""

from __future__ import annotations

import random

import numpy as np
import py_ecc.optimized_bls12_381 as bls
import py_ecc.optimized_bn128 as bn
import pytest

from cuzk.aggregate import commitments, gt
from cuzk.curve import get_curve
from cuzk.field.tower import towers_of

E = {"bn254": bn, "bls12_381": bls}


class Oracle:
    def __init__(self, name):
        self.name, self.E = name, E[name]
        self.curve = get_curve(name)
        self.fq12 = towers_of(name)[1]
        self.rng = random.Random(name)

    def scalar(self):
        return self.rng.randrange(2, self.E.curve_order)

    def g1(self, ks):
        pts = [tuple(int(c) for c in self.E.normalize(self.E.multiply(self.E.G1, k))) for k in ks]
        return self.curve.g1.from_ints(pts)

    def g2(self, ks):
        pts = []
        for k in ks:
            x, y = self.E.normalize(self.E.multiply(self.E.G2, k))
            pts.append((tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs)))
        return self.curve.g2.from_ints(pts)

    def pair(self, a, b):
        """py_ecc's e([a]G1, [b]G2) in our convention, as an FQ12 value."""
        v = self.E.pairing(self.E.multiply(self.E.G2, b), self.E.multiply(self.E.G1, a))
        if self.name == "bls12_381":
            v = v.inv()  # conj == inverse in GT
        return v

    def ours(self, fq12_value):
        return self.E.FQ12(list(self.fq12.to_poly_ints(fq12_value)[0]))


@pytest.fixture(scope="module", params=list(E))
def oracle(request):
    return Oracle(request.param)


def test_pair_and_single_commitments(oracle):
    """pair(v, w, A, B) = (e(A, v1) e(w1, B), e(A, v2) e(w2, B)) and single(v, C) for n = 1."""
    o = oracle
    a, b, c, v1, v2, w1, w2 = (o.scalar() for _ in range(7))
    v = (o.g2([v1]), o.g2([v2]))
    w = (o.g1([w1]), o.g1([w2]))
    got = commitments.commit_pair(o.curve, v, w, o.g1([a]), o.g2([b]))
    e = {k: o.pair(*k) for k in ((a, v1), (w1, b), (a, v2), (w2, b), (c, v1), (c, v2))}
    assert o.ours(got[0]) == e[(a, v1)] * e[(w1, b)]
    assert o.ours(got[1]) == e[(a, v2)] * e[(w2, b)]
    single = commitments.commit_single(o.curve, v, o.g1([c]))
    assert o.ours(single[0]) == e[(c, v1)] and o.ours(single[1]) == e[(c, v2)]
    # GT multi-exponentiation and the compressed bytes, on these GT values
    vals = np.stack([got[0], got[1], single[0]])
    ks = [o.scalar() for _ in range(3)]
    want = e[(a, v1)] * e[(w1, b)]
    want = want ** ks[0] * (e[(a, v2)] * e[(w2, b)]) ** ks[1] * e[(c, v1)] ** ks[2]
    assert o.ours(gt.multiexp(o.name, vals, ks)) == want
    back = gt.decode(o.name, gt.encode(o.name, vals))
    assert [o.ours(x) for x in back] == [o.ours(x) for x in vals]
    assert len(gt.encode(o.name, vals)) == 3 * gt.element_size(o.name)


def test_decoder_rejects_values_outside_the_group(oracle):
    """Random Fq6 b (almost surely) decompress outside the cyclotomic subgroup; non-canonical bytes fail."""
    from cuzk.aggregate.errors import AggregateFormatError

    o = oracle
    fq = o.curve.fq
    rnd = np.random.default_rng(3)
    b = bytes(rnd.integers(0, 256, gt.element_size(o.name), dtype=np.uint8))
    b = bytes([0]) + b[1:]  # keep each coefficient below p most of the time
    raw = bytearray(b)
    for i in range(6):
        raw[i * fq.nbytes] = 0
    with pytest.raises(AggregateFormatError):
        gt.decode(o.name, bytes(raw))
    with pytest.raises(AggregateFormatError):
        gt.decode(o.name, b"\xff" * gt.element_size(o.name))
    assert bool(o.fq12.is_one(gt.decode(o.name, bytes(gt.element_size(o.name))))[0])


@pytest.mark.parametrize("curve", list(E))
def test_shared_pairs_match_multi_pairing(curve):
    """pairings.SharedPairs (pairs grouped by G2 point, one f per product) against
    cuzk.curve.pairing.multi_pairing (checked against py_ecc in tests/curve), with
    points at infinity on both sides."""
    from cuzk.aggregate.pairings import SharedPairs
    from cuzk.curve.pairing import multi_pairing

    c = get_curve(curve)
    fq12 = towers_of(curve)[1]
    rng = np.random.default_rng(11)
    m = 9
    q1, q2 = c.g2.random(m, rng), c.g2.random(m, rng)
    a, b, d = c.g1.random(m, rng), c.g1.random(m, rng), c.g1.random(m, rng)
    a[2] = 0
    q2[4] = 0
    sp = SharedPairs(curve, 3)
    sp.add(q1, [(a, 0), (b, 2)])
    sp.add(q2, [(d, 1), (a, 2), (b, 0)])
    got = sp.products()
    want = [multi_pairing(curve, np.concatenate([a, b]), np.concatenate([q1, q2])),
            multi_pairing(curve, d, q2),
            multi_pairing(curve, np.concatenate([b, a]), np.concatenate([q1, q2]))]
    for k in range(3):
        assert fq12.equal(got[k], want[k])


def test_wnaf_kernel_digits():
    """gt.wnaf_array: the digits recombine to e (sum d_i 2^i, checked with Python ints),
    are 0 or odd with |d| < 2^(WINDOW-1), and any WINDOW consecutive digits hold at
    most one non-zero (the width-w NAF, unique, so it also equals wnaf_digits)."""
    rnd = random.Random(5)
    w = gt.WINDOW
    es = [0, 1, 2, 15, 16, 17, 31, 2**255 - 1, 2**256 - 1] + [rnd.getrandbits(rnd.choice([7, 64, 128, 255]))
                                                                 for _ in range(200)]
    width = 258
    digits = gt.wnaf_array("bls12_381", es, width)
    for e, row in zip(es, digits.tolist()):
        assert sum(d << (width - 1 - i) for i, d in enumerate(row)) == e
        nz = [i for i, d in enumerate(row) if d]
        assert all(row[i] % 2 and abs(row[i]) < 1 << (w - 1) for i in nz)
        assert all(b - a >= w for a, b in zip(nz, nz[1:]))
        assert row == gt.wnaf_digits(e, width)
    with pytest.raises(ValueError):
        gt.wnaf_array("bls12_381", [2**200], 200)


def test_fused_decoder_matches_field_formulas(oracle):
    """gt.decompress_checked (one kernel, batch inversion) against the vectorized field
    formulas (decompress + in_cyclotomic_subgroup) on GT values from py_ecc's pairing,
    the identity and random Fq6 b (outside G_Phi12), split over several parts."""
    o = oracle
    fq6 = towers_of(o.name)[0]
    vals = np.concatenate([o.fq12.from_poly_ints([[int(c) for c in o.pair(o.scalar(), o.scalar()).coeffs]])
                           for _ in range(3)] + [o.fq12.ones(1)])
    b = np.concatenate([gt.compress(o.name, vals), o.curve.fq.random(5 * 6, np.random.default_rng(9)).reshape(
        (5,) + fq6.shape)])
    b = np.concatenate([b] * 7)  # 56 elements: several kernel parts
    a, ok = gt.decompress_checked(o.name, b)
    ref = gt.decompress(o.name, b)
    assert o.fq12.equal(a, ref).all()
    assert (ok == gt.in_cyclotomic_subgroup(o.name, ref)).all()
    k = len(vals)
    assert ok.reshape(7, -1)[:, :k].all() and not ok.reshape(7, -1)[:, k:].any()
    assert [o.ours(x) for x in a[:k]] == [o.ours(x) for x in vals]


def test_shared_pairs_line_pairs_match_py_ecc(oracle):
    """SharedPairs multiplies the lines of two pairs of a product together before
    multiplying them into f (an odd line left over is multiplied alone): products
    of 1, 2 and 3 pairs over two G2 points against py_ecc's pairings."""
    from cuzk.aggregate.pairings import SharedPairs

    o = oracle
    a = [o.scalar() for _ in range(3)]
    q = [o.scalar() for _ in range(2)]
    sp = SharedPairs(o.name, 3)
    sp.add(o.g2(q[:1]), [(o.g1(a[:1]), 0), (o.g1(a[1:2]), 1), (o.g1(a[2:3]), 2)])
    sp.add(o.g2(q[1:]), [(o.g1(a[1:2]), 1), (o.g1(a[0:1]), 2)])
    got = sp.products()
    want = [o.pair(a[0], q[0]), o.pair(a[1], q[0]) * o.pair(a[1], q[1]), o.pair(a[2], q[0]) * o.pair(a[0], q[1])]
    assert [o.ours(x) for x in got] == want
