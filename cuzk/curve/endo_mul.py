"""Scalar multiplication by endomorphism decomposition on BLS12-381 (GLV on
G1, GLS on G2), for points of the prime-order subgroups.

With u the curve parameter (u < 0, |u| ~ 2^63.7, r = u^4 - u^2 + 1):

- G1: E(x, y) = (beta x, -y) = [u^2]P (cuzk.curve.subgroup's beta, for which
  (beta x, y) = -[u^2]P). k = k1 + k2 u^2 with k1, k2 < 2^128: 128 doublings
  instead of 256.
- G2: N(x, y) = -psi(x, y) = (conj(x) psi_x, -conj(y) psi_y) = [|u|]P (psi
  acts as [u]). k = k0 + k1 |u| + k2 |u|^2 + k3 |u|^3, each k_j < 2^64: 64
  doublings instead of 256.

The digits are added interleaved (one shared doubling chain, mixed additions
of the affine P, E(P) or P, N(P), N^2(P), N^3(P)). `mul_add` also adds an
affine point at the end, which is what a GIPA fold (left + [x] right) needs.

The identities hold only in the prime-order subgroups: points outside them
(never produced by a valid proof or SRS; decoders check membership) get a
different answer than [k]P. Other curves fall back to Group.scalar_mul.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import BLS12_381_FQ, BLS12_381_FR
from cuzk.field.codegen import INTERNAL, build_module, fill, mont2_literal, mont_literal
from cuzk.field.threads import threads_for

from .curves import curve_kernels, get_curve
from .subgroup import bls12_381_constants

SOURCE = '''
@njit(nogil=True, cache=True)
def g1_vmul_add_glv_span(s0, s1, a, k, left, out):
    kstep = 0 if k.shape[0] == 1 else 1
    has_left = left.shape[0] > 0
    for i in range(s0, s1):
        q = g1_load_affine(a, i)
        e = g1_affine_neg((fq_mul(q[0], G1_BETA), q[1]))
        j = i * kstep
        acc = G1_XYZZ_ZERO
        for bit in range(127, -1, -1):
            acc = g1_xyzz_dbl(acc)
            w = bit >> 6
            s = np.uint64(bit & 63)
            if (k[j, 0, w] >> s) & ONE64:
                acc = g1_xyzz_add_affine(acc, q)
            if (k[j, 1, w] >> s) & ONE64:
                acc = g1_xyzz_add_affine(acc, e)
        if has_left:
            acc = g1_xyzz_add_affine(acc, g1_load_affine(left, i))
        g1_store_xyzz(out, i, acc)


def g1_vmul_add_glv(a, k, left, out):
    """out[i] = left[i] + [k[i, 0] + k[i, 1] u^2] a[i] as XYZZ; k uint64[n or 1, 2, 2]
    (128-bit digits, little-endian limbs), left empty or one point per element."""
    run_spans(g1_vmul_add_glv_span, a.shape[0], a, k, left, out)

{INTERNAL}
def _g2_n(q):
    """N(q) = -psi(q) = [|u|] q (affine; infinity stays infinity)."""
    if g2_affine_is_zero(q):
        return q
    return (fq2_mul(fq2_conj(q[0]), G2_PSI_X), fq2_neg(fq2_mul(fq2_conj(q[1]), G2_PSI_Y)))

@njit(nogil=True, cache=True)
def g2_vmul_add_gls_span(s0, s1, a, k, left, out):
    kstep = 0 if k.shape[0] == 1 else 1
    has_left = left.shape[0] > 0
    for i in range(s0, s1):
        q0 = g2_load_affine(a, i)
        q1 = _g2_n(q0)
        q2 = _g2_n(q1)
        q3 = _g2_n(q2)
        tab = np.empty((16, 4, 2, L), dtype=np.uint64)
        qs = np.empty((4, 2, 2, L), dtype=np.uint64)
        g2_store_affine(qs, 0, q0)
        g2_store_affine(qs, 1, q1)
        g2_store_affine(qs, 2, q2)
        g2_store_affine(qs, 3, q3)
        for mask in range(1, 16):
            low = mask & (-mask)
            b = 0 if low == 1 else (1 if low == 2 else (2 if low == 4 else 3))
            rest = mask ^ low
            if rest == 0:
                g2_store_xyzz(tab, mask, g2_from_affine(g2_load_affine(qs, b)))
            else:
                g2_store_xyzz(tab, mask, g2_xyzz_add_affine(g2_load_xyzz(tab, rest), g2_load_affine(qs, b)))
        j = i * kstep
        acc = G2_XYZZ_ZERO
        for bit in range(63, -1, -1):
            acc = g2_xyzz_dbl(acc)
            s = np.uint64(bit)
            mask = (int((k[j, 0] >> s) & ONE64) | (int((k[j, 1] >> s) & ONE64) << 1)
                    | (int((k[j, 2] >> s) & ONE64) << 2) | (int((k[j, 3] >> s) & ONE64) << 3))
            if mask == 1:
                acc = g2_xyzz_add_affine(acc, q0)
            elif mask == 2:
                acc = g2_xyzz_add_affine(acc, q1)
            elif mask == 4:
                acc = g2_xyzz_add_affine(acc, q2)
            elif mask == 8:
                acc = g2_xyzz_add_affine(acc, q3)
            elif mask != 0:
                acc = g2_xyzz_add(acc, g2_load_xyzz(tab, mask))
        if has_left:
            acc = g2_xyzz_add_affine(acc, g2_load_affine(left, i))
        g2_store_xyzz(out, i, acc)


def g2_vmul_add_gls(a, k, left, out):
    """out[i] = left[i] + [sum_j k[i, j] |u|^j] a[i] as XYZZ; k uint64[n or 1, 4]
    (64-bit digits), left empty or one point per element. One addition per bit
    position from a table of the 15 non-empty sums of N^j(a[i]) (singles affine:
    mixed additions; the 11 others XYZZ, made with 11 mixed additions)."""
    run_spans(g2_vmul_add_gls_span, a.shape[0], a, k, left, out)
'''


@functools.cache
def endo_mul_kernels():
    P = BLS12_381_FQ
    c = bls12_381_constants()
    head = [
        f"from {curve_kernels('bls12_381').__name__} import *",
        f"G1_BETA = {mont_literal(c['beta'], P)}",
        f"G2_PSI_X = {mont2_literal(c['psi_x'], P)}",
        f"G2_PSI_Y = {mont2_literal(c['psi_y'], P)}",
        f"L = {P.limbs}",
    ]
    return build_module("bls12_381_endo_mul", "\n".join(head) + "\n" + fill(SOURCE, INTERNAL=INTERNAL))


_M64 = (1 << 64) - 1


def decompose(group_name: str, ks: list[int]) -> np.ndarray:
    """The digits the kernels take, for scalars 0 <= k < r: G1 uint64[n, 2, 2]
    (k mod u^2, k // u^2), G2 uint64[n, 4] (base-|u| digits)."""
    u = abs(bls12_381_constants()["u"])
    r = BLS12_381_FR.p
    if group_name == "g1":
        base, ndig, nlimb = u * u, 2, 2
    else:
        base, ndig, nlimb = u, 4, 1
    rows = []
    for k in ks:
        k = int(k) % r
        for _ in range(ndig):
            k, d = divmod(k, base)
            rows.extend((d >> (64 * m)) & _M64 for m in range(nlimb))
        assert k == 0
    out = np.array(rows, dtype=np.uint64)
    return out.reshape((len(ks), ndig, nlimb) if group_name == "g1" else (len(ks), ndig))


def _ints(scalars) -> list[int]:
    """Python ints of an int, a list of ints or canonical uint64[n, 4]."""
    if isinstance(scalars, np.ndarray):
        k = np.ascontiguousarray(scalars, dtype="<u8").reshape(-1, 4)
        raw = k.tobytes()
        return [int.from_bytes(raw[32 * i : 32 * i + 32], "little") for i in range(k.shape[0])]
    if isinstance(scalars, (int, np.integer)):
        return [int(scalars)]
    return [int(s) for s in scalars]


def mul_add(group, points, scalars, left=None) -> np.ndarray:
    """Affine left + [k] points, elementwise (left omitted: [k] points). scalars: one int
    for all points, or one per point (ints or canonical uint64[n, 4]); points (and left)
    uint64[n, 2, *coord] in the prime-order subgroup."""
    pts = np.ascontiguousarray(points, dtype=np.uint64).reshape((-1, 2) + group.coord)
    n = pts.shape[0]
    ks = _ints(scalars)
    if len(ks) not in (1, n):
        raise ValueError(f"{n} points but {len(ks)} scalars")
    if group.curve != "bls12_381":
        full = ks * n if len(ks) == 1 else ks
        out = group.scalar_mul(pts, [k % _order(group) for k in full])
        return out if left is None else group.add(left, out)
    if left is None:
        lft = np.zeros((0, 2) + group.coord, dtype=np.uint64)
    else:
        lft = np.ascontiguousarray(left, dtype=np.uint64).reshape(pts.shape)
    digits = decompose(group.name, ks)
    tmp = np.empty((n, 4) + group.coord, dtype=np.uint64)
    fn = endo_mul_kernels().g1_vmul_add_glv if group.name == "g1" else endo_mul_kernels().g2_vmul_add_gls
    with threads_for(256 * n):
        fn(pts, digits, lft, tmp)
    return group.to_affine(tmp)


def _order(group) -> int:
    return get_curve(group.curve).fr.p
