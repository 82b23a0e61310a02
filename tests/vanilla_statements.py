"""The public inputs a request's vanilla proof states, read from its bytes by the circuit's
definition, with no cuzk code on the path (for the tests' outside oracles):

    synthetic (cuzk/engine/catalog)      per partition: y (the request carries it after the seed)

The layout: the synthetic circuit's bytes as its module docstring gives them. Filecoin's PoSt
requests have theirs in post_requests.py (filecoin/post_oracle.py).
"""

from __future__ import annotations

import struct

SYNTHETIC_MAGIC = b"CUZKSYNT"


def expected_public_inputs(vanilla: bytes) -> list[list[int]]:
    """Per partition, the public inputs (ONE excluded) of the statement the request's bytes make."""
    assert vanilla[:8] == SYNTHETIC_MAGIC, "only the synthetic circuit's statement is read here"
    # <8sHHIII header, then per partition: seed (32), y (32, LE)
    _, _, _, _, partitions, _ = struct.unpack_from("<8sHHIII", vanilla)
    return [[int.from_bytes(vanilla[24 + 64 * p + 32 : 24 + 64 * p + 64], "little")] for p in range(partitions)]
