"""Fuzz target and seeds of the SnarkPack aggregate-proof parser
(cuzk.aggregate.proof_format), registered in fuzz/targets.py."""

from __future__ import annotations

import functools

import numpy as np

from .readings import every_reading


def aggregate_proof(data: bytes):
    """Parse as an aggregate of either curve, as `cuzk verify-aggregate` does."""
    from cuzk.aggregate import proof_format
    from cuzk.curve import get_curve

    return every_reading(lambda name: proof_format.from_bytes(get_curve(name), data), ("bn254", "bls12_381"))


@functools.lru_cache(maxsize=None)
def seeds() -> list[bytes]:
    """Real aggregates of two proofs (the cube circuit's proof twice) on both curves."""
    from cuzk.aggregate import proof_format, prover, srs, transcript
    from cuzk.backend import get_backend

    from .seeds import groth16

    out = []
    for name in ("bn254", "bls12_381"):
        pk, proof, inputs = groth16(name)
        curve = pk.vk.curve
        generic = srs.generate(name, 2)
        canon = np.stack([curve.fr.canonical_from_ints(inputs)] * 2)
        include = transcript.statement_digest(pk.vk, canon, 2)
        a, b, c = (np.stack([getattr(proof, f)] * 2) for f in "abc")
        agg = prover.aggregate(srs.prover_key(generic, 2), a, b, c, include, get_backend("cpu"))
        out.append(proof_format.to_bytes(agg))
    return out
