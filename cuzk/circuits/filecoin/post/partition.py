"""A Curio PoSt request's sector proofs -> the circuit's slots, as filecoin-proofs builds them.

WindowPoSt (api/post_util.rs `single_partition_vanilla_proofs`, and Curio's
cuzk-core pipeline.rs `synthesize_window_post`): the request's sectors in
order; for each, the first vanilla proof carrying that sector id; then the
last slot repeated until the partition's sectors_per_partition slots are
full. WinningPoSt (same function, and `synthesize_winning_post`): the one
sector's 66 inclusion proofs unrolled into 66 slots of one challenge each,
every slot with the sector's comm_r, comm_c and comm_r_last.

Each slot's public sector (comm_r) is the vanilla proof's own comm_r
(generate_single_window_post_with_vanilla builds the public sectors from
the vanilla proofs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from cuzk.errors import FormatError

from cuzk.circuits.filecoin.common.registered_proofs import PostConfig
from .vanilla_proof import PostSectorProof


@dataclass
class PartitionSlots:
    """The circuit's per-slot inputs: P = sectors_per_partition slots, k = challenges_per_sector."""

    config: PostConfig
    partition_index: int
    real_slots: int  # slots before padding
    sector_ids: np.ndarray  # uint64[P]
    comm_r: np.ndarray  # uint8[P, 32]  public
    comm_c: np.ndarray  # uint8[P, 32]
    comm_r_last: np.ndarray  # uint8[P, 32]
    leaves: np.ndarray  # uint8[P, k, 32]
    siblings: tuple[np.ndarray, ...]  # per path level l: uint8[P, k, a_l - 1, 32]
    indices: np.ndarray  # uint64[P, k, L]  per level, the path node's position in its group
    challenges: np.ndarray  # uint64[P, k]  the leaf each path opens (the public challenge)

    def public_values(self) -> list[int]:
        """comm_r then the challenged leaves, per slot, as ints: the circuit's public inputs
        (equal to post_challenges.public_inputs once the proofs were checked)."""
        comm = [int.from_bytes(bytes(r), "little") for r in self.comm_r]
        return [v for c, ch in zip(comm, self.challenges) for v in [c] + [int(x) for x in ch]]


def _stack(proofs: list[PostSectorProof], config: PostConfig, partition_index: int, real: int) -> PartitionSlots:
    k = config.challenges_per_sector

    def nodes(attr):
        return np.stack([np.asarray(getattr(p, attr), dtype=np.uint8) for p in proofs])

    return PartitionSlots(
        config=config, partition_index=partition_index, real_slots=real,
        sector_ids=np.array([p.sector_id for p in proofs], dtype=np.uint64),
        comm_r=nodes("comm_r"), comm_c=nodes("comm_c"), comm_r_last=nodes("comm_r_last"),
        leaves=nodes("leaves"),
        siblings=tuple(np.stack([p.siblings[lv] for p in proofs]) for lv in range(config.path_length)),
        indices=np.stack([p.indices for p in proofs]).astype(np.uint64),
        challenges=np.stack([p.leaf_index() for p in proofs]).reshape(len(proofs), k),
    )


def _where(proof: PostSectorProof, position: int) -> str:
    return f"vanilla_proofs[{position}] (sector {proof.sector_id})"


def partition_slots(config: PostConfig, proofs: Sequence[PostSectorProof], partition_index: int = 0) -> PartitionSlots:
    """Arrange decoded sector proofs (request order) into the partition's circuit slots."""
    proofs = list(proofs)
    if not proofs:
        raise FormatError("vanilla_proofs: empty (a partition needs at least one sector proof)")
    if partition_index < 0:
        raise FormatError(f"partition_index: must be >= 0, got {partition_index}")
    for i, p in enumerate(proofs):
        if p.num_inclusion_proofs != config.vanilla_challenges:
            raise FormatError(f"{_where(p, i)}: inclusion_proofs: expected {config.vanilla_challenges}, "
                              f"got {p.num_inclusion_proofs}")
        if p.arities != config.arities:
            raise FormatError(f"{_where(p, i)}: path: arities {p.arities}, expected {config.arities} "
                              f"for {config.name}")
    if config.kind == "winning":
        if len(proofs) != config.vanilla_sectors:
            raise FormatError(f"vanilla_proofs: WinningPoSt takes {config.vanilla_sectors} sector proof, "
                              f"got {len(proofs)}")
        if partition_index != 0:
            raise FormatError(f"partition_index: WinningPoSt has one partition, got {partition_index}")
        sector = proofs[0]
        slots = [sector.select([n]) for n in range(sector.num_inclusion_proofs)]
    else:
        if len(proofs) > config.sectors_per_partition:
            raise FormatError(f"vanilla_proofs: a {config.name} partition holds at most "
                              f"{config.sectors_per_partition} sectors, got {len(proofs)}")
        first: dict[int, PostSectorProof] = {}
        for p in proofs:
            first.setdefault(p.sector_id, p)
        slots = [first[p.sector_id] for p in proofs]
    real = len(slots)
    slots += [slots[-1]] * (config.sectors_per_partition - real)
    return _stack(slots, config, partition_index, real)
