"""Prime-order subgroup membership, fast where a proven shortcut exists.

`Group.is_in_subgroup` computes [r]P (a 255-bit scalar multiplication). The
checks here give the same answer for points on the curve, more cheaply:

- BN254 G1 has cofactor 1: every curve point is in the subgroup.
- BLS12-381 G1: phi(P) == -[u^2]P with phi(x, y) = (beta x, y), beta a cube
  root of unity (Scott, eprint 2021/1130 sec. 6; proven in 2022/352); a
  128-bit multiplication instead of 255.
- BLS12-381 G2: psi(P) == [u]P with psi the untwist-Frobenius-twist map
  (same papers); a 64-bit multiplication.
- BN254 G2: falls back to [r]P.

All constants are derived here from the curve parameters; which of the two
cube roots is beta is decided by testing the generator.

`validate_points` is the one place that turns failed checks into
`ValidationError`s naming the offending element indices.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.errors import ValidationError
from cuzk.field import BLS12_381_FQ, BLS12_381_FR
from cuzk.field.codegen import build_module, elementwise, limbs_literal, mont2_literal, mont_literal
from cuzk.field.fq2_ints import fq2_inv, fq2_pow

from .curves import SPECS, Group, curve_kernels

# ---- Python-int helpers, used once to derive constants ----------------------


def _g1_mul_int(pt, k: int, p: int):
    """[k]pt on y^2 = x^3 + b over F_p, affine ints, None = infinity (slow; constants only)."""

    def add(a, b):
        if a is None:
            return b
        if b is None:
            return a
        if a[0] == b[0]:
            if (a[1] + b[1]) % p == 0:
                return None
            lam = 3 * a[0] * a[0] * pow(2 * a[1], -1, p) % p
        else:
            lam = (b[1] - a[1]) * pow(b[0] - a[0], -1, p) % p
        x = (lam * lam - a[0] - b[0]) % p
        return (x, (lam * (a[0] - x) - a[1]) % p)

    acc = None
    for bit in bin(k)[2:]:
        acc = add(acc, acc)
        if bit == "1":
            acc = add(acc, pt)
    return acc


@functools.cache
def bls12_381_constants() -> dict:
    """beta (Fq), psi coefficients (Fq2) and u as ints."""
    p, r = BLS12_381_FQ.p, BLS12_381_FR.p
    spec = SPECS["bls12_381"]
    u = spec.param_u
    w = pow(BLS12_381_FQ.generator, (p - 1) // 3, p)  # a primitive cube root of unity
    gx, gy = spec.g1_gen
    target = _g1_mul_int((gx, gy), r - u * u % r, p)  # -[u^2]G
    beta = next(b for b in (w, w * w % p) if (b * gx % p, gy) == target)
    xi = (1, 1)  # the M-twist's non-residue u + 1
    return {
        "u": u,
        "beta": beta,
        "psi_x": fq2_inv(fq2_pow(xi, (p - 1) // 3, p), p),
        "psi_y": fq2_inv(fq2_pow(xi, (p - 1) // 2, p), p),
    }


def _bls12_381_source() -> str:
    P = BLS12_381_FQ
    c = bls12_381_constants()
    u = abs(c["u"])
    assert c["u"] < 0
    head = [
        f"from {curve_kernels('bls12_381').__name__} import *",
        f"G1_BETA = {mont_literal(c['beta'], P)}",
        f"G2_PSI_X = {mont2_literal(c['psi_x'], P)}",
        f"G2_PSI_Y = {mont2_literal(c['psi_y'], P)}",
        f"U_ABS = {limbs_literal(u, 1)}",
        f"U_SQ = {limbs_literal(u * u, 2)}",
    ]
    g1 = elementwise(
        "g1_vendo_in_subgroup", ("a", "out"), "g1_xyzz_eq(lhs, rhs)", doc="phi(P) == -[u^2]P; infinity passes.",
        body=["q = g1_load_affine(a, i)", "lhs = g1_from_affine((fq_mul(q[0], G1_BETA), q[1]))",
              "rhs = g1_xyzz_neg(g1_mul_limbs(q, U_SQ))"],
    )
    g2 = elementwise(
        "g2_vendo_in_subgroup", ("a", "out"), "g2_xyzz_eq(lhs, rhs)",
        doc="psi(P) == [u]P = -[|u|]P (u < 0); psi(x, y) = (conj(x) psi_x, conj(y) psi_y).",
        body=["q = g2_load_affine(a, i)",
              "lhs = g2_from_affine((fq2_mul(fq2_conj(q[0]), G2_PSI_X), fq2_mul(fq2_conj(q[1]), G2_PSI_Y)))",
              "rhs = g2_xyzz_neg(g2_mul_limbs(q, U_ABS))"],
    )
    return "\n".join(head) + "\n\n" + g1 + "\n" + g2


@functools.cache
def subgroup_kernels():
    return build_module("bls12_381_subgroup", _bls12_381_source())


def as_points(group: Group, points) -> np.ndarray:
    """Points as a contiguous uint64[n, 2, *coord] array (shape checked)."""
    a = np.ascontiguousarray(points, dtype=np.uint64)
    tail = (2,) + group.coord
    if a.shape[-len(tail):] != tail:
        raise ValueError(f"{group}: expected trailing shape {tail}, got {a.shape}")
    return a.reshape((-1,) + tail)


def in_subgroup(group: Group, points) -> np.ndarray:
    """bool[n]: point is in the prime-order subgroup (points assumed on the curve)."""
    a = as_points(group, points)
    if group.curve == "bn254" and group.name == "g1":
        return np.ones(a.shape[0], dtype=bool)
    if group.curve == "bls12_381":
        out = np.empty(a.shape[0], dtype=np.bool_)
        getattr(subgroup_kernels(), f"{group.name}_vendo_in_subgroup")(a, out)
        return out
    return group.is_in_subgroup(a)


def describe_indices(bad: np.ndarray, offset: int = 0, limit: int = 5) -> str:
    """'element 3' / 'elements 3, 7 (and 12 more)' for a boolean mask of failures."""
    idx = np.flatnonzero(bad) + offset
    if len(idx) == 1:
        return f"element {idx[0]}"
    shown = ", ".join(str(i) for i in idx[:limit])
    more = f" (and {len(idx) - limit} more)" if len(idx) > limit else ""
    return f"elements {shown}{more}"


def validate_points(group: Group, points, *, check_subgroup: bool = True, what: str = "point",
                    where: str = "") -> None:
    """Raise ValidationError unless every point is on the curve (and in the subgroup); the
    message begins with `where` (default "<group> <what>") and names the failing elements."""
    a = as_points(group, points)
    where = where or f"{group} {what}"
    on = group.is_on_curve(a)
    if not on.all():
        raise ValidationError(f"{where}: {describe_indices(~on)}: point is not on the curve")
    if check_subgroup:
        sub = in_subgroup(group, a)
        if not sub.all():
            raise ValidationError(f"{where}: {describe_indices(~sub)}: point is not in the prime-order subgroup")


def curve_b(group: Group) -> np.ndarray:
    """The constant b of y^2 = x^3 + b for this group (Montgomery, coordinate shape)."""
    return np.array(getattr(group.k, f"{group.name.upper()}_B"), dtype=np.uint64).reshape(group.coord)


def random_curve_points(group: Group, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """n points on the curve with random x and no cofactor clearing.

    For a group with a cofactor these are outside the prime-order subgroup
    except with negligible probability; tests use them to exercise rejection.
    """
    rng = rng or np.random.default_rng()
    field, b = group.field, curve_b(group)
    out = group.identity(n)
    filled = 0
    while filled < n:
        m = 2 * (n - filled) + 4
        x = field.random(m, rng)
        ok, y = field.sqrt(field.add(field.mul(field.sqr(x), x), np.broadcast_to(b, x.shape).copy()))
        take = np.flatnonzero(ok)[: n - filled]
        out[filled : filled + len(take), 0] = x[take]
        out[filled : filled + len(take), 1] = y[take]
        filled += len(take)
    return out
