"""Filecoin PoSt challenge derivation and public inputs (rust-fil-proofs v28).

Leaf challenge (storage-proofs-post fallback/vanilla.rs
`generate_leaf_challenge_inner`):

    leaf = u64_le(sha256(randomness || u64_le(sector_id) || u64_le(challenge_index))[0:8]) % nodes

with `challenge_index` from fallback/utils.rs `get_challenge_index`:
api 1.0.0 / 1.1.0: sector_index * challenge_count + n; api 1.2.0: n.
`randomness` is the 32-byte little-endian encoding of an Fr element
(filecoin-proofs `as_safe_commitment` refuses anything >= r).

Public inputs of one partition (fallback/compound.rs
`generate_public_inputs`), for each slot i of the partition's sectors in
order: comm_r, then for n in 0..challenges_per_sector the challenged leaf
index (one packed Fr per challenge: gadgets/por.rs), with sector_index =
partition_index * sectors_per_partition + i. When the partition has fewer
sectors than slots, the last sector's inputs are repeated as they are (not
re-derived for the padded slot). WinningPoSt's verifier lists its one sector
66 times (filecoin-proofs api/winning_post.rs `verify_winning_post`), so slot
i challenges index i (api 1.0.0), exactly the n-th of the 66 challenges the
vanilla proof was made for (api/post_util.rs
`generate_fallback_sector_challenges`, sector_count 1).

The miner id does not enter the circuit or the leaf challenges; it selects
WinningPoSt's sector outside (`common.prover_id` is how it is encoded).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.errors import FormatError
from cuzk.gadgets.sha256.native import sha256

from cuzk.circuits.filecoin.common.registered_proofs import API_V1_0, API_V1_1, PostConfig
from cuzk.circuits.filecoin.common.fr_bytes import non_canonical_rows


def as_randomness(randomness) -> bytes:
    """The 32 randomness bytes, refused unless they encode an Fr element (as_safe_commitment)."""
    try:
        raw = bytes(randomness)
    except TypeError:
        raise FormatError(f"randomness: expected 32 bytes, got {type(randomness).__name__}") from None
    if len(raw) != 32:
        raise FormatError(f"randomness: expected 32 bytes, got {len(raw)}")
    if non_canonical_rows(np.frombuffer(raw, dtype=np.uint8)[None]).size:
        raise FormatError("randomness: not a field element (its little-endian value is >= r)")
    return raw


def challenge_index(api_version: str, sector_index, challenge_count: int, n) -> np.ndarray:
    """get_challenge_index, broadcast over sector_index and n (uint64)."""
    s = np.asarray(sector_index, dtype=np.uint64)
    n = np.asarray(n, dtype=np.uint64)
    if api_version in (API_V1_0, API_V1_1):
        return s * np.uint64(challenge_count) + n
    return np.broadcast_to(n, np.broadcast_shapes(s.shape, n.shape)).astype(np.uint64)


def leaf_challenges(config: PostConfig, randomness, sector_ids, challenge_indices) -> np.ndarray:
    """Leaf indices uint64[...] for sector_ids and challenge_indices (broadcast together)."""
    rand = as_randomness(randomness)
    ids, idx = np.broadcast_arrays(np.asarray(sector_ids, dtype=np.uint64),
                                   np.asarray(challenge_indices, dtype=np.uint64))
    shape = ids.shape
    n = int(np.prod(shape)) if shape else 1
    msg = np.empty((n, 48), dtype=np.uint8)
    msg[:, :32] = np.frombuffer(rand, dtype=np.uint8)
    msg[:, 32:40] = np.ascontiguousarray(ids.reshape(n), dtype="<u8").view(np.uint8).reshape(n, 8)
    msg[:, 40:48] = np.ascontiguousarray(idx.reshape(n), dtype="<u8").view(np.uint8).reshape(n, 8)
    digest = sha256(msg) if n else np.zeros((0, 32), dtype=np.uint8)
    head = np.ascontiguousarray(digest[:, :8]).view("<u8").reshape(n).astype(np.uint64)
    return (head % np.uint64(config.nodes)).reshape(shape)


def vanilla_challenges(config: PostConfig, randomness, sector_ids, sector_indices) -> np.ndarray:
    """uint64[S, vanilla_challenges]: the leaves each sector's vanilla proof must open
    (generate_fallback_sector_challenges). sector_indices: each sector's position in the
    whole PoSt's sector list (partition_index * sectors_per_partition + position); 0 for
    WinningPoSt's single sector."""
    ids = np.asarray(sector_ids, dtype=np.uint64).reshape(-1)
    pos = np.asarray(sector_indices, dtype=np.uint64).reshape(-1)
    n = np.arange(config.vanilla_challenges, dtype=np.uint64)
    idx = challenge_index(config.api_version, pos[:, None], config.vanilla_challenges, n[None, :])
    return leaf_challenges(config, randomness, ids[:, None], idx)


def slot_challenges(config: PostConfig, randomness, slot_sector_ids, partition_index: int) -> np.ndarray:
    """uint64[P, challenges_per_sector]: the challenged leaves of the circuit's first P slots
    as the verifier derives them (generate_public_inputs), P <= sectors_per_partition."""
    ids = np.asarray(slot_sector_ids, dtype=np.uint64).reshape(-1)
    k = config.challenges_per_sector
    slots = np.uint64(partition_index * config.sectors_per_partition) + np.arange(len(ids), dtype=np.uint64)
    idx = challenge_index(config.api_version, slots[:, None], k, np.arange(k, dtype=np.uint64)[None, :])
    return leaf_challenges(config, randomness, ids[:, None], idx)


@dataclass
class PublicSectors:
    """The sectors a request proves, in request order: ids and sealed commitments."""

    ids: np.ndarray  # uint64[S]
    comm_r: np.ndarray  # uint8[S, 32]

    @classmethod
    def of(cls, sectors) -> "PublicSectors":
        """From a PublicSectors or an (ids, comm_r) pair; comm_r is uint8[S, 32] or S 32-byte strings."""
        if isinstance(sectors, PublicSectors):
            return sectors
        try:
            ids, comm = sectors
            ids = np.asarray(ids, dtype=np.uint64).reshape(-1)
            if not isinstance(comm, np.ndarray):
                rows = [bytes(c) for c in comm]
                if any(len(r) != 32 for r in rows):
                    raise FormatError("sectors: every comm_r must be 32 bytes")
                comm = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), 32)
            comm = np.ascontiguousarray(comm, dtype=np.uint8)
        except FormatError:
            raise
        except (TypeError, ValueError, OverflowError) as exc:
            raise FormatError(f"sectors: expected (ids, comm_r): {exc}") from None
        if comm.shape != (len(ids), 32):
            raise FormatError(f"sectors: comm_r must be uint8[{len(ids)}, 32], got shape {comm.shape}")
        return cls(ids, comm)


def public_inputs(config: PostConfig, randomness, sectors, partition_index: int = 0) -> list[int]:
    """The circuit's public inputs for one partition, as Python ints in
    generate_public_inputs' order (config.num_public_inputs of them).

    sectors: this partition's sectors in request order (PublicSectors, or (ids, comm_r)):
    up to sectors_per_partition for WindowPoSt, exactly one for WinningPoSt."""
    sec = PublicSectors.of(sectors)
    s = len(sec.ids)
    if s == 0:
        raise FormatError("sectors: a partition needs at least one sector")
    if partition_index < 0:
        raise FormatError(f"partition_index: must be >= 0, got {partition_index}")
    bad = non_canonical_rows(sec.comm_r)
    if bad.size:
        raise FormatError(f"sector {int(sec.ids[bad[0]])}: comm_r is not a field element (>= r)")
    if config.kind == "winning":
        if s != config.vanilla_sectors:
            raise FormatError(f"sectors: WinningPoSt proves {config.vanilla_sectors} sector, got {s}")
        if partition_index != 0:
            raise FormatError(f"partition_index: WinningPoSt has one partition, got {partition_index}")
        ids = np.repeat(sec.ids, config.sectors_per_partition)
        comm = np.repeat(sec.comm_r, config.sectors_per_partition, axis=0)
    else:
        if s > config.sectors_per_partition:
            raise FormatError(f"sectors: a {config.name} partition holds at most "
                              f"{config.sectors_per_partition} sectors, got {s}")
        ids, comm = sec.ids, sec.comm_r
    chal = slot_challenges(config, randomness, ids, partition_index)
    comm_ints = [int.from_bytes(bytes(row), "little") for row in comm]
    rows = [[c] + [int(x) for x in ch] for c, ch in zip(comm_ints, chal)]
    while len(rows) < config.sectors_per_partition:
        rows.append(rows[-1])
    return [v for row in rows for v in row]

