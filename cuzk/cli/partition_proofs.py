"""A Filecoin proof checked partition by partition, as filecoin-proofs' verifiers check one.

A Filecoin proof (seal, PoSt, SnapDeals) is its partitions' Groth16 proofs back to back, 192 bytes
each (bellperson's A || B || C, compressed), in partition order (`MultiProof::new_from_reader`);
it is valid when every partition's proof verifies against that partition's public inputs under the
circuit's verifying key. `check_partitions` says which partitions fail and why.

Malformed input is a FormatError / ValidationError (a proof of the wrong length, a key of another
circuit, a key whose points are invalid); a partition whose bytes are not valid points or whose
pairing check fails makes the proof invalid, naming the partition.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cuzk.errors import CuzkError, FormatError
from cuzk.groth16.keys import VerifyingKey

PROOF_BYTES = 192


@dataclass
class Verdict:
    partitions: int
    invalid: list[tuple[int, str]] = field(default_factory=list)  # (partition, why), partition order

    @property
    def ok(self) -> bool:
        return not self.invalid

    def describe(self) -> str:
        """One line naming every failing partition."""
        return "; ".join(f"partition {k} of {self.partitions}: {why}" for k, why in self.invalid)


def check_partitions(vk: VerifyingKey, proof: bytes, inputs: list[list[int]], what: str = "the proof") -> Verdict:
    """Each partition's proof (192 bytes of `proof`, in order) against its public inputs."""
    from cuzk.formats.bellperson import proofs_from_bytes
    from cuzk.groth16.verifier import PreparedVerifyingKey, verify

    proof = bytes(proof)
    n = len(inputs)
    if len(proof) != n * PROOF_BYTES:
        raise FormatError(f"{what}: {len(proof)} bytes, expected {n * PROOF_BYTES} ({n} partition"
                          f"{'s' if n != 1 else ''} x {PROOF_BYTES})")
    widths = {len(x) for x in inputs}
    if widths != {vk.num_public}:
        raise FormatError(f"the verifying key takes {vk.num_public} public inputs, the proof's partitions "
                          f"have {', '.join(map(str, sorted(widths)))}: a key of another circuit or size?")
    pvk = PreparedVerifyingKey(vk)  # an invalid key is bad input, raised here
    verdict = Verdict(n)
    for k in range(n):
        try:
            part = proofs_from_bytes(proof[k * PROOF_BYTES:(k + 1) * PROOF_BYTES])[0]
            if not verify(pvk, part, inputs[k]):
                verdict.invalid.append((k, "the pairing check failed (the proof does not match this key and "
                                           "these public data)"))
        except CuzkError as exc:
            verdict.invalid.append((k, str(exc)))
    return verdict
