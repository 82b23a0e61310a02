"""Groth16: setup, prover, verifier over compiled circuits; key/proof types."""

from .keys import H_BELLPERSON, H_SNARKJS, Proof, ProvingKey, VerifyingKey

__all__ = ["H_BELLPERSON", "H_SNARKJS", "Proof", "ProvingKey", "VerifyingKey"]
