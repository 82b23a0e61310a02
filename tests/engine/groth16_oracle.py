"""Independent Groth16 check of proof bytes with py-arkworks-bls12381 (the test oracle).

e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta), with the 192-byte
bellperson proof decoded by arkworks itself, not by cuzk.
"""

from __future__ import annotations

import py_arkworks_bls12381 as ark

from cuzk.curve.encoding import encode_points


def _g1(vk, pt):
    return ark.G1Point.from_compressed_bytes(encode_points(vk.curve.g1, pt[None]))


def _g2(vk, pt):
    return ark.G2Point.from_compressed_bytes(encode_points(vk.curve.g2, pt[None]))


def verify_one(vk, proof: bytes, public_inputs: list[int]) -> bool:
    assert len(proof) == 192
    a = ark.G1Point.from_compressed_bytes(proof[:48])
    b = ark.G2Point.from_compressed_bytes(proof[48:144])
    c = ark.G1Point.from_compressed_bytes(proof[144:])
    assert len(public_inputs) + 1 == vk.ic.shape[0]
    ic = _g1(vk, vk.ic[0])
    for x, base in zip(public_inputs, vk.ic[1:]):
        ic = ic + _g1(vk, base) * ark.Scalar(int(x))
    lhs = ark.GT.pairing(a, b)
    rhs = (ark.GT.pairing(_g1(vk, vk.alpha_g1), _g2(vk, vk.beta_g2)) * ark.GT.pairing(ic, _g2(vk, vk.gamma_g2))
           * ark.GT.pairing(c, _g2(vk, vk.delta_g2)))
    return lhs == rhs


def verify_job(vk, proof: bytes, public_inputs: list[list[int]]) -> bool:
    """A job's proof: one 192-byte proof per partition, in order."""
    if len(proof) != 192 * len(public_inputs):
        return False
    return all(verify_one(vk, proof[192 * i:192 * (i + 1)], xs) for i, xs in enumerate(public_inputs))
