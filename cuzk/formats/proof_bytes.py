"""Proof bytes on the wire (a job's `proof`): one fixed-size encoding per curve.

BLS12-381: bellperson's 192 bytes, A (48, compressed G1) || B (96, compressed
G2) || C (48), the layout Filecoin verifiers read. BN254 (circom circuits):
256 bytes uncompressed big-endian, A.x A.y B.x.c1 B.x.c0 B.y.c1 B.y.c0 C.x C.y,
the calldata order of Ethereum's pairing precompile and snarkjs' Solidity
verifier; infinity is all zeros. A multi-partition job's proof is its
partitions' encodings concatenated in partition order.
"""

from __future__ import annotations

import numpy as np

from cuzk.curve import get_curve
from cuzk.errors import FormatError
from cuzk.groth16.keys import Proof

from .bellperson import proof_to_bytes, proofs_from_bytes

SIZES = {"bls12_381": 192, "bn254": 256}


def proof_size(curve_name: str) -> int:
    try:
        return SIZES[curve_name]
    except KeyError:
        raise ValueError(f"no proof encoding for curve {curve_name!r}") from None


def encode(proof: Proof) -> bytes:
    curve = proof.curve
    if curve.name == "bls12_381":
        return proof_to_bytes(proof)
    if curve.name == "bn254":
        fq = curve.fq
        coords = [proof.a[0], proof.a[1], proof.b[0, 1], proof.b[0, 0], proof.b[1, 1], proof.b[1, 0],
                  proof.c[0], proof.c[1]]
        return b"".join(v.to_bytes(32, "big") for v in fq.to_ints(np.stack(coords)))
    raise ValueError(f"no proof encoding for curve {curve.name!r}")


def decode(curve_name: str, data: bytes) -> Proof:
    """One proof; points are checked to be on the curve (the verifier checks subgroups)."""
    curve = get_curve(curve_name)
    size = proof_size(curve_name)
    if len(data) != size:
        raise FormatError(f"proof: expected {size} bytes for {curve_name}, got {len(data)}")
    if curve_name == "bls12_381":
        return proofs_from_bytes(data)[0]
    fq = curve.fq
    vals = [int.from_bytes(data[i:i + 32], "big") for i in range(0, 256, 32)]
    if any(v >= fq.p for v in vals):
        raise FormatError("proof: a coordinate is not canonical (>= the field modulus)")
    m = fq.from_ints(vals)
    a = np.stack([m[0], m[1]])
    b = np.stack([np.stack([m[3], m[2]]), np.stack([m[5], m[4]])])
    c = np.stack([m[6], m[7]])
    return Proof(curve, a, b, c)


def split(curve_name: str, data: bytes) -> list[bytes]:
    """A job's proof bytes -> one encoding per partition."""
    size = proof_size(curve_name)
    if len(data) % size:
        raise FormatError(f"proof: {len(data)} bytes is not a multiple of the {size}-byte {curve_name} proof")
    return [data[i:i + size] for i in range(0, len(data), size)]
