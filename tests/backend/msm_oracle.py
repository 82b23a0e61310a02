"""Outside references for the MSM tests: many distinct bases with known discrete logs, and expected
sums, from implementations that are not cuzk's.

Bases are P_i = [b + i a]G for random a, b, made by an addition chain (P_{i+1} = P_i + [a]G), so an
MSM over any of them is one multiplication of the generator: sum s_i P_i = [sum s_i log_i mod r]G.

    BLS12-381  py-arkworks-bls12381 makes the chain and every [k]G.
    BN254      py_ecc's bn128 makes [a]G, [b]G and every [k]G; the chain is the affine addition
               law written below on plain ints (y^2 = x^3 + b over Fp, or Fp2 with u^2 = -1), and
               a sample of its points is checked against py_ecc's own multiplication.

Points are exchanged as coordinate ints, the form cuzk's `Group.from_ints` / `to_ints` use:
G1 (x, y), G2 ((x0, x1), (y0, y1)) with x = x0 + x1 u; None is the point at infinity.
"""

from __future__ import annotations

import functools

import numpy as np
import py_arkworks_bls12381 as ark
from py_ecc import optimized_bn128 as bn

from cuzk.curve import get_curve

BLS_R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


# ---- BLS12-381 through arkworks -----------------------------------------------------------


def _ark_ints(pt, group: str):
    raw = pt.to_xy_bytes_be()
    if pt == type(pt).identity():
        return None
    v = [int.from_bytes(raw[i : i + 48], "big") for i in range(0, len(raw), 48)]
    return (v[0], v[1]) if group == "g1" else ((v[0], v[1]), (v[2], v[3]))


def _ark_gen(group: str):
    return ark.G1Point() if group == "g1" else ark.G2Point()


# ---- BN254: py_ecc, and an affine adder on ints --------------------------------------------

BN_P, BN_R = bn.field_modulus, bn.curve_order


def _f2(a):
    return a if isinstance(a, tuple) else (a, 0)


def _sub(a, b, g2):
    if not g2:
        return (a - b) % BN_P
    return ((a[0] - b[0]) % BN_P, (a[1] - b[1]) % BN_P)


def _mul(a, b, g2):
    if not g2:
        return a * b % BN_P
    return ((a[0] * b[0] - a[1] * b[1]) % BN_P, (a[0] * b[1] + a[1] * b[0]) % BN_P)


def _inv(a, g2):
    if not g2:
        return pow(a, -1, BN_P)
    t = pow(a[0] * a[0] + a[1] * a[1], -1, BN_P)  # 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2)
    return (a[0] * t % BN_P, -a[1] * t % BN_P)


def _affine_add(p, q, g2):
    """p + q for p != +-q (affine chord rule; the chain never meets the exceptions)."""
    (x1, y1), (x2, y2) = p, q
    assert x1 != x2, "the chain hit P = +-D"
    lam = _mul(_sub(y2, y1, g2), _inv(_sub(x2, x1, g2), g2), g2)
    x3 = _sub(_sub(_mul(lam, lam, g2), x1, g2), x2, g2)
    return x3, _sub(_mul(lam, _sub(x1, x3, g2), g2), y1, g2)


def _bn_ints(pt, group: str):
    if bn.is_inf(pt):
        return None
    x, y = bn.normalize(pt)
    if group == "g1":
        return int(x), int(y)
    return (int(x.coeffs[0]), int(x.coeffs[1])), (int(y.coeffs[0]), int(y.coeffs[1]))


def _bn_gen(group: str):
    return bn.G1 if group == "g1" else bn.G2


# ---- the pool --------------------------------------------------------------------------------


class Pool:
    """`n` distinct bases of (curve, group) with known logs, as cuzk point arrays."""

    def __init__(self, curve_name: str, group: str, n: int = 5000, seed: int = 1):
        self.name, self.group = curve_name, group
        self.curve = get_curve(curve_name)
        self.G = getattr(self.curve, group)
        self.bls = curve_name == "bls12_381"
        self.r = BLS_R if self.bls else BN_R
        assert self.r == self.curve.fr.p
        rng = np.random.default_rng(seed)
        a, b = (int.from_bytes(rng.bytes(32), "little") % self.r for _ in range(2))
        self.logs = [(b + i * a) % self.r for i in range(n)]
        if self.bls:
            gen = _ark_gen(group)
            step, pt, ints = gen * ark.Scalar(a), gen * ark.Scalar(b), []
            for _ in range(n):
                ints.append(_ark_ints(pt, group))
                pt = pt + step
        else:
            g2 = group == "g2"
            step, pt = self.times_g(a), self.times_g(b)
            ints = [pt]
            for _ in range(n - 1):
                ints.append(_affine_add(ints[-1], step, g2))
            for i in {0, 1, n // 2, n - 1}:  # the hand-written adder agrees with py_ecc
                assert ints[i] == self.times_g(self.logs[i]), i
        assert len(set(ints)) == n  # distinct bases
        self.ints = ints
        self.points = self.G.from_ints(ints)

    def times_g(self, k: int):
        """[k]G by the outside implementation, as coordinate ints (None: infinity)."""
        k %= self.r
        if k == 0:
            return None
        if self.bls:
            return _ark_ints(_ark_gen(self.group) * ark.Scalar(k), self.group)
        return _bn_ints(bn.multiply(_bn_gen(self.group), k), self.group)

    def expect(self, logs, scalars):
        """sum s_i [log_i]G, by the outside implementation."""
        return self.times_g(sum(int(k) * int(s) for k, s in zip(logs, scalars)))

    def scalars(self, ints) -> np.ndarray:
        """Python ints below 2^256 -> canonical uint64[n, 4] (what an MSM takes)."""
        raw = b"".join(int(s).to_bytes(32, "little") for s in ints)
        return np.frombuffer(raw, dtype="<u8").reshape(-1, 4).astype(np.uint64)

    def random_scalars(self, n, rng) -> list[int]:
        return [int.from_bytes(rng.bytes(32), "little") % self.r for _ in range(n)]


@functools.lru_cache(maxsize=None)
def pool_of(curve_name: str, group: str, n: int, seed: int = 1) -> Pool:
    """One Pool per (curve, group, n, seed) for the test session."""
    return Pool(curve_name, group, n, seed)
