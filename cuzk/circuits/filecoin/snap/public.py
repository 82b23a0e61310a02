"""A SnapDeals update's public inputs, every partition, as `verify_empty_sector_update_proof` derives them.

filecoin-proofs api/update.rs takes comm_r_old, comm_r_new and comm_d_new (32 bytes each, Fr
elements: `as_safe_commitment`); h is the size's (`HSelect::from_nodes`: hs(nodes)[3]). Partition
k's inputs are [k | h_select << log2(partitions), comm_r_old, comm_d_new, comm_r_new]
(storage-proofs-update circuit.rs `PublicInputs::to_vec`); the proof holds one 192-byte Groth16
proof per partition. The engine's requests (snap.request) take theirs from here.
"""

from __future__ import annotations

import numpy as np

from cuzk.circuits.filecoin.common.fr_bytes import fr
from cuzk.errors import FormatError

from .config import SnapConfig

COMMITMENTS = ("comm_r_old", "comm_d_new", "comm_r_new")  # the public inputs' order


def commitment(value, name: str) -> int:
    """A 32-byte commitment (little-endian Fr) as an int; FormatError naming it when it is of
    another length or not a field element."""
    data = bytes(value or b"")
    if len(data) != 32:
        raise FormatError(f"{name}: expected 32 bytes, got {len(data)}")
    if not fr().is_canonical(np.frombuffer(data, dtype="<u8").astype(np.uint64)[None])[0]:
        raise FormatError(f"{name}: not a field element (>= r)")
    return int.from_bytes(data, "little")


def partition_public_inputs(cfg: SnapConfig, k: int, h: int, comm_r_old: int, comm_d_new: int,
                            comm_r_new: int) -> list[int]:
    """Partition k's public inputs, the commitments as ints."""
    return [cfg.k_and_h_select(k, h), int(comm_r_old), int(comm_d_new), int(comm_r_new)]


def update_public_inputs(cfg: SnapConfig, comm_r_old, comm_r_new, comm_d_new, h: int | None = None) -> list[list[int]]:
    """verify_empty_sector_update_proof's public inputs, one list per partition, from the three
    32-byte commitments; h defaults to the size's."""
    comms = (commitment(comm_r_old, "comm_r_old"), commitment(comm_d_new, "comm_d_new"),
             commitment(comm_r_new, "comm_r_new"))
    h = cfg.h_default if h is None else h
    return [partition_public_inputs(cfg, k, h, *comms) for k in range(cfg.partitions)]
