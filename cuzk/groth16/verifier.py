"""Groth16 verification: single proofs and random-linear-combination batches.

Checks e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta) as one
multi-pairing e(-A, B) e(alpha, beta) e(IC(x), gamma) e(C, delta) == 1.
A batch of k proofs costs one multi-pairing of k + 3 pairs: each proof's
equation is raised to a random 128-bit z_j and the fixed-G2 terms merged.
"""

from __future__ import annotations

import secrets

import numpy as np

from cuzk.curve.pairing import multi_pairing_is_one
from cuzk.curve.subgroup import in_subgroup
from cuzk.errors import ValidationError

from .keys import Proof, VerifyingKey


class PreparedVerifyingKey:
    """A verifying key with its points checked once, ready for many proofs."""

    def __init__(self, vk: VerifyingKey):
        curve = vk.curve
        for name in ("alpha_g1", "beta_g2", "gamma_g2", "delta_g2"):
            pt = getattr(vk, name)
            grp = curve.g2 if name.endswith("g2") else curve.g1
            if not pt.any():
                raise ValidationError(f"verifying key: {name} is the point at infinity")
            if not _valid_points(grp, pt[None])[0]:
                raise ValidationError(f"verifying key: {name} is not a valid {grp.name.upper()} point")
        ic = np.asarray(vk.ic)
        if ic.ndim != 3 or ic.shape[0] == 0:
            raise ValidationError("verifying key: ic must hold at least the point for ONE")
        ok = _valid_points(curve.g1, ic)
        if not ok.all():
            raise ValidationError(f"verifying key: ic[{int(np.argmin(ok))}] is not a valid G1 point")
        self.vk = vk
        self.curve = curve

    def public_input_point(self, public_inputs) -> np.ndarray:
        return public_input_point(self.vk, public_inputs)


def public_input_point(vk: VerifyingKey, public_inputs) -> np.ndarray:
    """IC(x) = ic[0] + sum x_i ic[i+1], after range-checking x_i < r."""
    curve = vk.curve
    xs = [int(x) for x in public_inputs]
    if len(xs) != vk.num_public:
        raise ValidationError(f"expected {vk.num_public} public inputs, got {len(xs)}")
    for i, x in enumerate(xs):
        if not 0 <= x < curve.fr.p:
            raise ValidationError(f"public input {i} is not a field element (must be in [0, r))")
    if not xs:
        return vk.ic[0]
    acc = curve.g1.scalar_mul(vk.ic[1:], xs)
    total = vk.ic[0]
    for p in acc:
        total = curve.g1.add(total[None], p[None])[0]
    return total


def _valid_points(grp, pts: np.ndarray) -> np.ndarray:
    """bool[n]: limbs canonical (< p, Montgomery), on the curve and in the prime-order subgroup."""
    fq = grp.field if grp.name == "g1" else grp.field.base
    pts = np.ascontiguousarray(pts, dtype=np.uint64)
    ok = fq.is_canonical(pts.reshape(-1, fq.limbs)).reshape(pts.shape[0], -1).all(axis=1)
    if not ok.all():
        return ok
    return grp.is_on_curve(pts) & in_subgroup(grp, pts)  # the endomorphism tests where proven (subgroup.py)


def _check_proof_points(curve, proof: Proof) -> None:
    """bellperson's rule: proof points are valid subgroup points and none is the point at infinity."""
    for name, grp in (("A", curve.g1), ("B", curve.g2), ("C", curve.g1)):
        pt = getattr(proof, name.lower())
        if not np.asarray(pt).any():
            raise ValidationError(f"proof point {name} is the point at infinity")
        if not _valid_points(grp, pt[None])[0]:
            raise ValidationError(f"proof point {name} is not a valid {grp.name.upper()} point")


def verify(pvk: PreparedVerifyingKey, proof: Proof, public_inputs) -> bool:
    """True iff the proof is valid for the public inputs (ONE excluded)."""
    _check_proof_points(pvk.curve, proof)
    return equation_holds(pvk.vk, proof, public_inputs)


def equation_holds(vk: VerifyingKey, proof: Proof, public_inputs) -> bool:
    """The pairing equation alone, its points taken as valid: for a proof this process made with a key
    it trusts (`cuzk prove` without the circuit's .r1cs), where the subgroup checks would only cost time."""
    curve = vk.curve
    icx = public_input_point(vk, public_inputs)
    g1 = np.stack([curve.g1.neg(proof.a[None])[0], vk.alpha_g1, icx, proof.c])
    g2 = np.stack([proof.b, vk.beta_g2, vk.gamma_g2, vk.delta_g2])
    return bool(multi_pairing_is_one(curve.name, g1, g2))


def verify_batch(pvk: PreparedVerifyingKey, proofs: list[Proof], inputs: list) -> bool:
    """True iff all proofs are valid (a false batch means at least one is not)."""
    if len(proofs) != len(inputs):
        raise ValueError("one list of public inputs per proof is required")
    if not proofs:
        return True
    curve, vk = pvk.curve, pvk.vk
    g1 = curve.g1
    zs = [secrets.randbits(128) | 1 for _ in proofs]
    for p in proofs:
        _check_proof_points(curve, p)
    icx = np.stack([pvk.public_input_point(x) for x in inputs])
    neg_a = g1.neg(np.stack([p.a for p in proofs]))
    za = g1.scalar_mul(neg_a, zs)
    z_ic = g1.scalar_mul(icx, zs)
    z_c = g1.scalar_mul(np.stack([p.c for p in proofs]), zs)
    z_alpha = g1.scalar_mul(vk.alpha_g1[None], [sum(zs) % curve.fr.p])[0]

    def total(points):
        acc = points[0]
        for pt in points[1:]:
            acc = g1.add(acc[None], pt[None])[0]
        return acc

    lhs_g1 = np.concatenate([za, np.stack([z_alpha, total(z_ic), total(z_c)])])
    lhs_g2 = np.concatenate([np.stack([p.b for p in proofs]), np.stack([vk.beta_g2, vk.gamma_g2, vk.delta_g2])])
    return bool(multi_pairing_is_one(curve.name, lhs_g1, lhs_g2))
