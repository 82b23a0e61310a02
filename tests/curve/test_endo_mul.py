"""endo_mul (GLV on G1, GLS on G2 of BLS12-381; left + [k]P) against py_ecc.

Expected values are py_ecc's multiply and add on points made by py_ecc
itself; scalars include the digit boundaries of the decompositions (u^2,
|u|^j and their neighbours), 0, 1, r - 1, and left points that hit the
exceptional cases of the final addition (infinity, equal, opposite).
"""

from __future__ import annotations

import numpy as np
import pytest
from py_ecc import optimized_bls12_381 as ecc
from py_ecc import optimized_bn128 as ecc_bn

from cuzk.curve import endo_mul, get_curve

R = ecc.curve_order
U = 0xD201000000010000


def _to_ints(group_name, pts):
    out = []
    for p in pts:
        if ecc.is_inf(p):
            out.append(None)
            continue
        x, y = ecc.normalize(p)
        out.append((x.n, y.n) if group_name == "g1" else (tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs)))
    return out


def _arr(group, pts):
    return group.from_ints(_to_ints(group.name, pts))


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_mul_add_matches_py_ecc(name):
    group = getattr(get_curve("bls12_381"), name)
    G = ecc.G1 if name == "g1" else ecc.G2
    rng = np.random.default_rng(20)
    base = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(3)]
    ks = base + [0, 1, R - 1, U * U, U * U - 1, U * U + 1, U, U**3, U**3 - 1, (1 << 128) + 5, R - U * U]
    m = len(ks)
    ps = [ecc.multiply(G, 7 + 3 * i) for i in range(m)]
    kp = [ecc.multiply(p, k) for p, k in zip(ps, ks)]
    lefts = [ecc.multiply(G, 1000 + i) for i in range(m)]
    lefts[1] = ecc.Z1 if name == "g1" else ecc.Z2  # infinity
    lefts[4] = kp[4]  # equal: a doubling
    lefts[5] = ecc.neg(kp[5])  # opposite: infinity
    want = [ecc.add(lf, q) for lf, q in zip(lefts, kp)]
    got = endo_mul.mul_add(group, _arr(group, ps), ks, _arr(group, lefts))
    assert group.to_ints(got) == _to_ints(name, want)
    assert group.to_ints(endo_mul.mul_add(group, _arr(group, ps), ks)) == _to_ints(name, kp)
    # one scalar for every point
    k = base[0]
    assert group.to_ints(endo_mul.mul_add(group, _arr(group, ps[:4]), k)) == _to_ints(
        name, [ecc.multiply(p, k) for p in ps[:4]])
    # canonical uint64[n, 4] scalars, an infinity input point
    pts = _arr(group, ps[:3] + [ecc.Z1 if name == "g1" else ecc.Z2])
    limbs = np.array([[(kk >> (64 * j)) & (2**64 - 1) for j in range(4)] for kk in base + [5]], dtype=np.uint64)
    assert group.to_ints(endo_mul.mul_add(group, pts, limbs)) == _to_ints(
        name, [ecc.multiply(p, kk) for p, kk in zip(ps[:3], base)]) + [None]


def test_decomposition_digits():
    for k in (0, 1, R - 1, U * U, U**3 + 17):
        a = endo_mul.decompose("g1", [k])[0]
        k1 = int(a[0, 0]) | int(a[0, 1]) << 64
        k2 = int(a[1, 0]) | int(a[1, 1]) << 64
        assert k1 + k2 * U * U == k and k1 < U * U
        d = [int(x) for x in endo_mul.decompose("g2", [k])[0]]
        assert sum(x * U**j for j, x in enumerate(d)) == k and max(d) < 2**64


def test_other_curves_fall_back():
    group = get_curve("bn254").g1
    ps = [ecc_bn.multiply(ecc_bn.G1, 5), ecc_bn.multiply(ecc_bn.G1, 9)]
    arr = group.from_ints([tuple(c.n for c in ecc_bn.normalize(p)) for p in ps])
    got = endo_mul.mul_add(group, arr, 12345, arr[::-1])
    want = [ecc_bn.add(ecc_bn.multiply(p, 12345), q) for p, q in zip(ps, ps[::-1])]
    assert group.to_ints(got) == [tuple(c.n for c in ecc_bn.normalize(p)) for p in want]
