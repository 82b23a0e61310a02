"""Client-side proof checking: a job's proof bytes against the circuit's verifying key.

The verifying key comes from the daemon (GetVerifyingKey); the public inputs
should come from the client's own knowledge of the statement (for the
built-in circuits, the vanilla proofs it sent), not from the daemon's answer.
"""

from __future__ import annotations

from cuzk.errors import CuzkError
from cuzk.formats import proof_bytes
from cuzk.groth16.verifier import PreparedVerifyingKey, verify_batch

from . import convert


class ProofChecker:
    """Caches prepared verifying keys per circuit."""

    def __init__(self, client):
        self.client = client
        self._pvk = {}

    def prepared(self, circuit_id: str):
        if circuit_id not in self._pvk:
            vk = convert.vk_from_proto(self.client.verifying_key(circuit_id))
            self._pvk[circuit_id] = PreparedVerifyingKey(vk)
        return self._pvk[circuit_id]

    def check(self, circuit_id: str, proof: bytes, public_inputs: list[list[int]]) -> bool:
        """True iff every partition's proof verifies (one batched pairing check)."""
        pvk = self.prepared(circuit_id)
        curve = pvk.curve.name
        try:
            parts = [proof_bytes.decode(curve, p) for p in proof_bytes.split(curve, proof)]
        except CuzkError:
            return False
        if len(parts) != len(public_inputs) or not parts:
            return False
        try:
            return verify_batch(pvk, parts, public_inputs)
        except CuzkError:
            return False
