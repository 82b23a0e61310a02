"""Group law of G1/G2 on both curves against py_ecc's optimized curves.

Points are made as [k]G with Python-int k on both sides, so scalar_mul is
checked first and everything else reuses those points. Off-subgroup points
are random curve points without cofactor clearing.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from py_ecc import optimized_bls12_381 as ecc_bls
from py_ecc import optimized_bn128 as ecc_bn

from cuzk.curve import get_curve
from cuzk.curve.subgroup import curve_b, in_subgroup, random_curve_points, validate_points
from cuzk.errors import ValidationError

GROUPS = [("bls12_381", "g1"), ("bls12_381", "g2"), ("bn254", "g1"), ("bn254", "g2")]
ORACLES = {"bls12_381": ecc_bls, "bn254": ecc_bn}


class Case:
    """One group with its py_ecc counterpart and a few shared points."""

    def __init__(self, curve: str, name: str):
        self.group = getattr(get_curve(curve), name)
        self.ecc = ORACLES[curve]
        self.G = self.ecc.G1 if name == "g1" else self.ecc.G2
        self.r = self.ecc.curve_order
        rng = np.random.default_rng(zlib.crc32(f"{curve}.{name}".encode()))
        self.ks = [int.from_bytes(rng.bytes(32), "little") % self.r for _ in range(3)]
        self.points = self.mul_gen(self.ks)

    def mul_gen(self, ks) -> np.ndarray:
        g = self.group
        return g.scalar_mul(np.broadcast_to(g.generator, (len(ks),) + g.generator.shape), ks)

    # py_ecc <-> our arrays, through ints
    def to_ecc(self, pts):
        out = []
        for p in self.group.to_ints(pts):
            if p is None:
                out.append(self.ecc.Z1 if self.group.name == "g1" else self.ecc.Z2)
            elif self.group.name == "g1":
                out.append((self.ecc.FQ(p[0]), self.ecc.FQ(p[1]), self.ecc.FQ.one()))
            else:
                out.append((self.ecc.FQ2(list(p[0])), self.ecc.FQ2(list(p[1])), self.ecc.FQ2.one()))
        return out

    def from_ecc(self, pts) -> np.ndarray:
        ints = []
        for p in pts:
            if self.ecc.is_inf(p):
                ints.append(None)
                continue
            x, y = self.ecc.normalize(p)
            if self.group.name == "g1":
                ints.append((x.n, y.n))
            else:
                ints.append((tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs)))
        return self.group.from_ints(ints)


_CASES: dict = {}


@pytest.fixture(params=GROUPS, ids=[f"{c}-{g}" for c, g in GROUPS])
def case(request) -> Case:
    if request.param not in _CASES:
        _CASES[request.param] = Case(*request.param)
    return _CASES[request.param]


def assert_points_equal(case: Case, got, want):
    assert case.group.to_ints(got) == case.group.to_ints(want)


def test_generator_matches_oracle(case):
    assert_points_equal(case, case.group.generator[None], case.from_ecc([case.G]))


def test_scalar_mul(case):
    r = case.r
    ks = case.ks + [0, 1, 2, r - 1, r, r + 1, 2**256 - 1]
    got = case.mul_gen(ks)
    want = case.from_ecc([case.ecc.multiply(case.G, k) for k in ks])
    assert_points_equal(case, got, want)
    g = case.group
    n = len(case.ks)
    assert g.equal(got[n : n + 1], g.identity(1)).all()  # [0]G
    assert g.equal(got[n + 4], g.identity(1)[0])  # [r]G
    assert g.equal(got[n + 3], g.neg(g.generator))  # [r-1]G = -G


def test_add_with_exceptional_cases(case):
    g = case.group
    P, Q, R = case.points
    O = g.identity(1)[0]
    negP = g.neg(P)
    a = np.stack([P, P, O, O, P, P, negP, Q])
    b = np.stack([Q, O, R, O, P, negP, P, R])
    got = g.add(a, b)
    ea, eb = case.to_ecc(a), case.to_ecc(b)
    want = case.from_ecc([case.ecc.add(x, y) for x, y in zip(ea, eb)])
    assert_points_equal(case, got, want)
    assert g.equal(got[3], O) and g.equal(got[5], O) and g.equal(got[6], O)
    assert g.equal(got[4], g.double(P))  # P + P goes through doubling


def test_double_and_neg(case):
    g = case.group
    pts = np.concatenate([case.points, g.identity(1)])
    e = case.to_ecc(pts)
    assert_points_equal(case, g.double(pts), case.from_ecc([case.ecc.double(p) for p in e]))
    assert_points_equal(case, g.neg(pts), case.from_ecc([case.ecc.neg(p) for p in e]))
    assert g.equal(g.neg(g.neg(pts)), pts).all()


def test_batch_to_affine_with_infinities(case):
    """XYZZ (x t^2, y t^3, t^2, t^3) with random t, and ZZ = 0 rows, normalize back."""
    g, f = case.group, case.group.field
    pts = np.concatenate([case.points[:1], g.identity(1), case.points[1:], g.identity(2)])
    n = len(pts)
    t = f.random(n, np.random.default_rng(7))
    zz = f.sqr(t)
    zzz = f.mul(zz, t)
    xyzz = np.stack([f.mul(pts[:, 0], zz), f.mul(pts[:, 1], zzz), zz, zzz], axis=1)
    inf = ~pts.reshape(n, -1).any(axis=1)
    xyzz[inf, 2] = 0  # ZZ = 0 is infinity; X, Y, ZZZ left as garbage
    assert inf.sum() == 3
    assert_points_equal(case, g.to_affine(xyzz), pts)


def test_is_on_curve(case):
    g, f = case.group, case.group.field
    pts = np.concatenate([case.points, g.identity(1)])
    assert g.is_on_curve(pts).all()
    bad = pts[: len(case.points)].copy()
    bad[:, 1] = f.add(bad[:, 1], f.ones(len(bad)))  # y + 1
    assert not g.is_on_curve(bad).any()
    # the oracle agrees that the perturbed points are off the curve
    b = case.ecc.b if g.name == "g1" else case.ecc.b2
    assert not any(case.ecc.is_on_curve(p, b) for p in case.to_ecc(bad))
    # and that ours are on it
    assert all(case.ecc.is_on_curve(p, b) for p in case.to_ecc(case.points))


def test_curve_b_matches_oracle(case):
    g = case.group
    b = case.ecc.b if g.name == "g1" else case.ecc.b2
    want = b.n if g.name == "g1" else tuple(int(c) for c in b.coeffs)
    got = g.field.to_ints(curve_b(g)[None])[0]
    assert got == want


def test_subgroup_checks(case):
    """[r]P check and the fast check agree with each other and with py_ecc's [r]P."""
    g = case.group
    rng = np.random.default_rng(11)
    off = random_curve_points(g, 3, rng)
    assert g.is_on_curve(off).all()
    cofactor_one = (g.curve, g.name) == ("bn254", "g1")
    # py_ecc's multiply does not reduce k mod r, so it is an honest [r]P oracle
    oracle = [case.ecc.is_inf(case.ecc.multiply(p, case.r)) for p in case.to_ecc(off[:2])]
    assert oracle == [cofactor_one] * 2
    pts = np.concatenate([case.points, g.identity(1), off])
    want = np.array([True] * (len(case.points) + 1) + [cofactor_one] * len(off))
    assert (g.is_in_subgroup(pts) == want).all()
    assert (in_subgroup(g, pts) == want).all()
    validate_points(g, pts, check_subgroup=False)
    if not cofactor_one:
        with pytest.raises(ValidationError, match="elements 4, 5, 6: point is not in the prime-order subgroup"):
            validate_points(g, pts)
    bad = pts.copy()
    bad[1, 1] = g.field.add(bad[1, 1], g.field.ones(1)[0])
    with pytest.raises(ValidationError, match="element 1: point is not on the curve"):
        validate_points(g, bad, check_subgroup=False)
    # scalar_mul on points outside the subgroup still matches the oracle
    got = g.scalar_mul(off[:2], [case.r, case.ks[0]])
    e = case.to_ecc(off[:2])
    want_pts = case.from_ecc([case.ecc.multiply(e[0], case.r), case.ecc.multiply(e[1], case.ks[0])])
    assert_points_equal(case, got, want_pts)


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_fast_subgroup_check_on_mixed_torsion(name):
    """BLS12-381: P_sub + P_off (a point with both components) is rejected by the fast check."""
    g = getattr(get_curve("bls12_381"), name)
    sub = _CASES.get(("bls12_381", name)) or Case("bls12_381", name)
    off = random_curve_points(g, 2, np.random.default_rng(3))
    # [r]Q removes Q's subgroup component, leaving a point whose order divides the cofactor
    torsion = g.scalar_mul(off, [sub.r, sub.r])
    mixed = g.add(torsion, sub.points[:2])
    pts = np.concatenate([torsion, mixed])
    assert not g.is_in_subgroup(pts).any()
    assert not in_subgroup(g, pts).any()
