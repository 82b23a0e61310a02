"""The oracle for aggregates an engine returns: cuzk.aggregate's verifier, called here directly with
the bellperson .vk file the engine's parameter directory holds and a statement the test derives
itself (from vanilla proofs), so neither the key nor the public inputs are what the engine reports."""

from __future__ import annotations

from cuzk.aggregate import proof_format, srs, transcript, verifier
from cuzk.backend import get_backend
from cuzk.errors import FormatError
from cuzk.formats.bellperson import read_vk
from cuzk.groth16.verifier import PreparedVerifyingKey


def aggregate_verifies(generic: srs.GenericSRS, vk_path, rows: list[list[int]], data: bytes,
                       domain: bytes = transcript.DOMAIN) -> bool:
    """Whether `data` is an aggregate of proofs of the statements `rows` (one per proof, in order)
    under the key in `vk_path`, made with the SRS `generic` and the transcript domain `domain`."""
    vk = read_vk(vk_path)
    fr = vk.curve.fr
    canon = fr.canonical_from_ints([x for row in rows for x in row]).reshape(len(rows), -1, 4)
    include = transcript.statement_digest(vk, canon, len(rows), domain)
    try:
        agg = proof_format.from_bytes(vk.curve, data)
    except FormatError:
        return False
    mont = fr.to_mont(canon.reshape(-1, 4)).reshape(canon.shape)
    return verifier.verify(srs.verifier_key(generic), PreparedVerifyingKey(vk), mont, agg, include,
                           get_backend("cpu"))[0]
