"""PoRep challenge derivation and the circuit's public inputs (rust-fil-proofs v28).

Interactive PoRep challenges (storage-proofs-porep stacked/vanilla/challenges.rs
`InteractiveChallenges::derive`): for partition k and i in 0..challenges_per_partition, with
j = challenges_per_partition * k + i (u32),

    challenge = (LE int of sha256(replica_id || seed || u32_le(j))) % (nodes - 1) + 1

so node 0 (which has no parents) is never challenged. Synthetic and non-interactive PoRep draw
their challenges otherwise (not here); the circuit is the same.

The replica id (stacked/vanilla/params.rs `generate_replica_id`) binds a replica to its prover,
sector, ticket, data (comm_d) and porep id: the challenges derive from it.

Public inputs of one partition (stacked/circuit/proof.rs `generate_public_inputs`): replica_id,
comm_d, comm_r, then per challenge: its leaf index (tree D path), the 6 DRG parents' indices and
the 8 expander parents' indices (tree C paths), the challenge (`UInt64` packed), and the challenge
twice more (tree R-last and tree C paths). A path's input is its leaf index as one Fr
(gadgets/por.rs PoRCompound, private root).
"""

from __future__ import annotations

import hashlib

import numpy as np

from cuzk.gadgets.sha256.native import sha256

from cuzk.circuits.filecoin.common.fr_bytes import TOP_MASK
from .config import DEGREE, PorepConfig

PER_CHALLENGE_INPUTS = 1 + DEGREE + 3  # tree D path, 14 parents' tree C paths, challenge, tree R-last, tree C


def interactive_challenges(cfg: PorepConfig, replica_id: bytes, seed: bytes, partition: int) -> np.ndarray:
    """uint64[challenges]: partition `partition`'s challenged nodes."""
    replica_id, seed = bytes(replica_id), bytes(seed)
    if len(replica_id) != 32 or len(seed) != 32:
        raise ValueError("replica_id and seed are 32 bytes each")
    C = cfg.challenges
    j = (C * int(partition) + np.arange(C)).astype("<u4")
    msgs = np.frombuffer(replica_id + seed, dtype=np.uint8)[None, :].repeat(C, axis=0)
    msgs = np.concatenate([msgs, j.view(np.uint8).reshape(C, 4)], axis=1)
    digests = sha256(msgs)
    ints = [int.from_bytes(bytes(d), "little") for d in digests]
    return np.array([v % (cfg.nodes - 1) + 1 for v in ints], dtype=np.uint64)


def public_inputs(replica_id: int, comm_d: int, comm_r: int, challenges, drg_parents, exp_parents) -> list[int]:
    """The partition's public inputs as ints, generate_public_inputs' order."""
    out = [int(replica_id), int(comm_d), int(comm_r)]
    for c, drg, exp in zip(np.asarray(challenges).tolist(), np.asarray(drg_parents).tolist(),
                           np.asarray(exp_parents).tolist()):
        out += [c] + list(drg) + list(exp) + [c, c, c]
    return out


def generate_replica_id(prover_id: bytes, sector_id: int, ticket: bytes, comm_d: bytes, porep: bytes) -> bytes:
    """rust-fil-proofs stacked/vanilla/params.rs `generate_replica_id`: SHA-256 of prover_id ||
    sector_id (u64 BE) || ticket || comm_d || porep id, the two top bits cleared (fr32
    `bytes_into_fr_repr_safe`)."""
    d = bytearray(hashlib.sha256(bytes(prover_id) + int(sector_id).to_bytes(8, "big") + bytes(ticket)
                                 + bytes(comm_d) + bytes(porep)).digest())
    d[31] &= TOP_MASK
    return bytes(d)
