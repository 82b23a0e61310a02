"""A PoSt's public inputs, every partition, from public data alone, as filecoin-proofs verifies one.

`verify_window_post` (filecoin-proofs api/window_post.rs) takes the randomness and the proven
sectors as a BTreeMap<SectorId, PublicReplicaInfo>: the sectors sorted by number, each once. They
fill partitions of sectors_per_partition in that order (`get_partitions_for_window_post`: the
proof holds ceil(sectors / sectors_per_partition) partition proofs), and partition k's inputs are
post_challenges.public_inputs(k) of its chunk, the last one padded by repeating its last sector.

`verify_winning_post` (api/winning_post.rs) takes exactly one sector (WINNING_POST_SECTOR_COUNT);
its 66 challenges make the one partition's inputs. Which sector a miner had to prove
(`generate_winning_post_sector_challenge`, from the randomness, prover id and sector set size) is
checked outside the proof.

The prover id enters neither: the leaf challenges derive from the randomness and the sector
numbers only (fallback vanilla.rs `generate_leaf_challenge`). The engine derives a request's
inputs with the same per-partition function (post_challenges.public_inputs).
"""

from __future__ import annotations

import numpy as np

from cuzk.errors import FormatError

from .challenges import PublicSectors, as_randomness, public_inputs
from cuzk.circuits.filecoin.common.registered_proofs import PostConfig


def partition_count(config: PostConfig, sectors: int) -> int:
    """Partition proofs a PoSt of `sectors` sectors holds (get_partitions_for_window_post)."""
    return -(-int(sectors) // config.sectors_per_partition) if config.kind == "window" else 1


def _sorted_sectors(sectors) -> PublicSectors:
    sec = PublicSectors.of(sectors)
    if len(sec.ids) == 0:
        raise FormatError("sectors: a PoSt proves at least one sector")
    order = np.argsort(sec.ids, kind="stable")
    ids, comm = sec.ids[order], sec.comm_r[order]
    dup = np.flatnonzero(ids[1:] == ids[:-1])
    if dup.size:
        raise FormatError(f"sectors: sector {int(ids[dup[0]])} is given twice")
    return PublicSectors(ids, comm)


def window_post_public_inputs(config: PostConfig, randomness, sectors) -> list[list[int]]:
    """verify_window_post's public inputs, one list per partition. sectors: PublicSectors or
    (ids, comm_r) in any order (sorted by id here, as the BTreeMap orders them)."""
    if config.kind != "window":
        raise FormatError(f"{config.name} is not a WindowPoSt proof")
    rand = as_randomness(randomness)
    sec = _sorted_sectors(sectors)
    n = config.sectors_per_partition
    return [public_inputs(config, rand, PublicSectors(sec.ids[lo:lo + n], sec.comm_r[lo:lo + n]), k)
            for k, lo in enumerate(range(0, len(sec.ids), n))]


def winning_post_public_inputs(config: PostConfig, randomness, sectors) -> list[list[int]]:
    """verify_winning_post's public inputs: one partition, of exactly one sector."""
    if config.kind != "winning":
        raise FormatError(f"{config.name} is not a WinningPoSt proof")
    sec = PublicSectors.of(sectors)
    if len(sec.ids) != config.vanilla_sectors:
        raise FormatError(f"sectors: a WinningPoSt proves {config.vanilla_sectors} sector, got {len(sec.ids)}")
    return [public_inputs(config, as_randomness(randomness), sec, 0)]
