"""A SnapDeals request as Curio sends it: decoded and checked, and generated for tests and benchmarks.

Curio's `prove_snap_deals` (extern/cuzk prover.rs) hands filecoin-proofs-api's
`generate_empty_sector_update_proof_with_vanilla` the request's `vanilla_proofs` (one bincode
`PartitionProof` per partition, in partition order), `registered_proof` (Go's
abi.RegisteredUpdateProof, 0-4) and the three 32-byte commitments `comm_r_old`, `comm_r_new`
(Poseidon domain) and `comm_d_new` (SHA-256 domain; all Fr elements, little-endian). h is not sent:
filecoin-proofs fixes it per size (`HSelect::from_nodes`: hs(nodes)[3], 10 in production), and
partition k's public inputs are [k | h_select << log2(partitions), comm_r_old, comm_d_new,
comm_r_new] (storage-proofs-update circuit.rs `PublicInputs::to_vec`).

`decode_update` decodes every partition proof (`snap_vanilla`) and checks it as the verifier does
(`check_partition_proof`: paths to their roots, the roots to the commitments, the challenges
derived from comm_r_new, the encoding, the apex leaves); a bad one is refused in one line naming
the partition, challenge and field. `sample_request(cfg, seed)` returns a valid request's fields
(`snap_sparse_gen`: any size, 32 GiB in seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import SnapConfig
from .vanilla_proof import SnapPartitionProof
from .public import commitment, partition_public_inputs
from .sparse_gen import make_update_proofs
from cuzk.errors import FormatError

from .vanilla_bincode import (
    check_partition_proof, decode_partition_proof, encode_partition_proof,
)

PROOF_KIND = "SNAP_DEALS_UPDATE"


@dataclass
class SnapUpdate:
    """A checked update: its config, h, the commitments (ints, public-input order) and the proofs."""

    cfg: SnapConfig
    h: int
    commitments: tuple[int, int, int]  # comm_r_old, comm_d_new, comm_r_new
    partitions: list[SnapPartitionProof]

    def public_inputs(self, k: int) -> list[int]:
        return partition_public_inputs(self.cfg, k, self.h, *self.commitments)


def decode_update(cfg: SnapConfig, vanilla_proofs, comm_r_old, comm_r_new, comm_d_new) -> SnapUpdate:
    """The request's partition proofs decoded and checked against its commitments (see the module
    docstring); FormatError naming what is wrong."""
    comms = (commitment(comm_r_old, "comm_r_old"), commitment(comm_d_new, "comm_d_new"),
             commitment(comm_r_new, "comm_r_new"))
    if len(vanilla_proofs) != cfg.partitions:
        raise FormatError(f"vanilla_proofs: expected {cfg.partitions} partition proof(s) for {cfg.name}, "
                          f"got {len(vanilla_proofs)}")
    h = cfg.h_default
    parts = []
    for k, data in enumerate(vanilla_proofs):
        proof = decode_partition_proof(data, cfg, partition=k, check_paths=False)
        check_partition_proof(proof, cfg, k, h, *comms)  # checks the paths too
        parts.append(proof)
    return SnapUpdate(cfg, h, comms, parts)


def sample_request(cfg: SnapConfig, seed=None) -> dict:
    """A valid SNAP_DEALS_UPDATE request's fields for `cfg` (a registered update proof's config)."""
    up = make_update_proofs(cfg, seed)
    return {"proof_kind": PROOF_KIND, "vanilla_proofs": [encode_partition_proof(p, cfg) for p in up.partitions],
            "registered_proof": cfg.registered_proof, "comm_r_old": bytes(up.comm_r_old),
            "comm_r_new": bytes(up.comm_r_new), "comm_d_new": bytes(up.comm_d_new)}
