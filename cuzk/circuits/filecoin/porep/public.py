"""A seal's PoRep public inputs from public data alone, as filecoin-proofs' `verify_seal` derives them.

verify_seal (filecoin-proofs api/seal.rs) takes the prover id, sector number, ticket, seed,
comm_r and comm_d; the porep config gives the sector size, the porep id and the api version. From
them (storage-proofs-porep stacked):

    replica_id = generate_replica_id(prover_id, sector_number, ticket, comm_d, porep_id)
    partition k: challenges = InteractiveChallenges::derive(replica_id, seed, k)
                 parents    = the SDR graph's 14 parents of each challenge
                 inputs     = generate_public_inputs(replica_id, comm_d, comm_r, challenges, parents)

The graph is built from (sector size, porep id, api version), not looked up by proof number: a
porep id and api pair need not be a registered proof's. comm_r and comm_d must be field elements
and not all zero (`as_safe_commitment`, verify_seal's `ensure!`s); they are the raw 32 bytes
Filecoin stores (little-endian Fr). The engine derives a request's inputs here too
(`replica_public_inputs`, from the C1 output's replica id and seed).

Only interactive PoRep's challenges are derived here (registered seal proofs V1 and V1_1);
synthetic and non-interactive PoRep draw theirs otherwise (`partition_public_inputs` packs any).
"""

from __future__ import annotations

import numpy as np

from cuzk.errors import FormatError

from .challenges import generate_replica_id, interactive_challenges, public_inputs
from .config import PorepConfig
from .sdr import SdrGraph
from cuzk.circuits.filecoin.common.fr_bytes import non_canonical_rows


def commitment(value, name: str) -> bytes:
    """32 bytes that verify_seal accepts as comm_r / comm_d: a field element, not all zero."""
    raw = bytes(value)
    if len(raw) != 32:
        raise FormatError(f"{name}: expected 32 bytes, got {len(raw)}")
    if raw == bytes(32):
        raise FormatError(f"{name}: all zero (filecoin-proofs refuses an all-zero commitment)")
    if non_canonical_rows(np.frombuffer(raw, dtype=np.uint8)[None]).size:
        raise FormatError(f"{name}: not a field element (its little-endian value is >= r)")
    return raw


def _bytes32(value, name: str) -> bytes:
    raw = bytes(value)
    if len(raw) != 32:
        raise FormatError(f"{name}: expected 32 bytes, got {len(raw)}")
    return raw


def _le(b: bytes) -> int:
    return int.from_bytes(bytes(b), "little")


def partition_public_inputs(graph: SdrGraph, replica_id: bytes, comm_d: bytes, comm_r: bytes,
                            challenges) -> list[int]:
    """One partition's public inputs (generate_public_inputs' order) for its challenged nodes; the
    parents are the graph's."""
    ch = np.asarray(challenges, dtype=np.uint64).reshape(-1)
    parents = graph.parents(ch.astype(np.int64))
    return public_inputs(_le(replica_id), _le(comm_d), _le(comm_r), ch, parents[:, :6], parents[:, 6:])


def replica_public_inputs(cfg: PorepConfig, graph: SdrGraph, replica_id: bytes, seed: bytes, comm_d: bytes,
                          comm_r: bytes) -> list[list[int]]:
    """Every partition's public inputs of an interactive PoRep, from its replica id and seed."""
    if cfg.flavour != "interactive":
        raise FormatError(f"{cfg.name}: {cfg.flavour} PoRep draws its challenges otherwise; only interactive "
                          "PoRep's (seal proofs V1, V1_1) are derived here")
    if graph.sector_size != cfg.sector_size:
        raise FormatError(f"the graph is of {graph.sector_size}-byte sectors, {cfg.name} of {cfg.sector_size}")
    replica_id, seed = _bytes32(replica_id, "replica_id"), _bytes32(seed, "seed")
    return [partition_public_inputs(graph, replica_id, comm_d, comm_r,
                                    interactive_challenges(cfg, replica_id, seed, k))
            for k in range(cfg.partitions)]


def seal_public_inputs(cfg: PorepConfig, graph: SdrGraph, *, prover_id: bytes, sector_number: int, ticket: bytes,
                       seed: bytes, comm_d: bytes, comm_r: bytes) -> list[list[int]]:
    """verify_seal's public inputs, one list per partition, from the seal's public data."""
    comm_d, comm_r = commitment(comm_d, "comm_d"), commitment(comm_r, "comm_r")
    if not 0 <= int(sector_number) < 1 << 64:
        raise FormatError(f"sector_number: must be a u64, got {sector_number}")
    replica_id = generate_replica_id(_bytes32(prover_id, "prover_id"), int(sector_number),
                                     _bytes32(ticket, "ticket"), comm_d, graph.porep_id)
    return replica_public_inputs(cfg, graph, replica_id, seed, comm_d, comm_r)
