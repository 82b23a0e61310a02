"""A PoSt request as Curio sends it, generated for tests and benchmarks, and as a JSON file.

`sample_request(config, seed)` returns the SubmitProofRequest fields of a valid
request over random sectors: vanilla_proofs (bincode, one per sector),
registered_proof, randomness, miner_id, partition_index, proof_kind. The JSON
form (`cuzk bench gen-vanilla` writes it for the PoSt kinds; `--vanilla FILE`
reads it back) holds the same fields, bytes as base64 (`request_json`).
"""

from __future__ import annotations

import numpy as np

from .vanilla_gen import make_sector_proofs
from cuzk.circuits.filecoin.common.registered_proofs import PostConfig

from .vanilla_bincode import encode_sector_proof

PROOF_KIND_NAMES = {"window": "WINDOW_POST_PARTITION", "winning": "WINNING_POST"}


def sample_request(cfg: PostConfig, seed=None, sectors: int | None = None) -> dict:
    """A valid request for `cfg`'s circuit: `sectors` random sectors (window: a full partition
    by default, as a provider's deadline sends it; winning: 1), randomness and sector ids from
    `seed`."""
    rng = np.random.default_rng(seed)
    randomness = bytearray(rng.integers(0, 256, 32, dtype=np.uint8).tobytes())
    randomness[31] &= 0x3F  # an Fr element
    if cfg.kind == "winning":
        count = 1
    else:
        count = min(sectors or cfg.sectors_per_partition, cfg.sectors_per_partition)
    ids = sorted(int(x) for x in rng.choice(1 << 20, size=count, replace=False))
    proofs = make_sector_proofs(cfg, ids, bytes(randomness), seed=int(rng.integers(1 << 31)))
    fields = {
        "proof_kind": PROOF_KIND_NAMES[cfg.kind],
        "vanilla_proofs": [encode_sector_proof(p, cfg) for p in proofs],
        "randomness": bytes(randomness),
        "miner_id": int(rng.integers(1000, 1 << 20)),
        "partition_index": 0,
    }
    if cfg.registered_proof is not None:
        fields["registered_proof"] = cfg.registered_proof
    else:
        fields["sector_size"] = cfg.sector_size
    return fields
