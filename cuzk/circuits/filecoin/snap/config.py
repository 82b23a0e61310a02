"""SnapDeals (EmptySectorUpdate) as its circuit sees it: partitions, challenges, h, tree shapes.

Facts, with their sources in rust-fil-proofs v28 (storage-proofs-update src/constants.rs,
vanilla.rs, compound.rs; filecoin-proofs parameters.json; Curio extern/cuzk prover.rs):

- Registered update proofs (Go `abi.RegisteredUpdateProof`, Curio `registered_update_proof_from_u64`):
  0-4 = StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1. filecoin-proofs builds them all with
  `EmptySectorUpdateCompound` (the partitioned circuit); the single-partition
  "EmptySectorUpdate-Poseidon" circuit (`poseidon/`, params `v28-empty-sector-update-poseidon-...`)
  belongs to no registered proof and is not modelled here.
- Sizes in 32-byte nodes (`ALLOWED_SECTOR_SIZES`): test sizes 1, 2, 4, 8, 16, 32 KiB, 8, 16 MiB,
  512 MiB; published 32 and 64 GiB. Tree R shapes (`validate_tree_r_shape`, base arity 8):
  1 KiB 8-4-0, 2 KiB 8-0-0, 4 KiB 8-2-0, 8 KiB 8-4-0, 16 KiB 8-8-0, 32 KiB 8-8-2, 8 MiB 8-0-0,
  16 MiB 8-2-0, 512 MiB 8-0-0, 32 GiB 8-8-0, 64 GiB 8-8-2. Tree D: binary SHA-256 (sha254).
- `partition_count`: 1 up to 8 KiB, 2 up to 32 KiB, 4 up to 16 MiB, else 16.
- `challenge_count` (per partition): 10 up to 16 MiB, else 86.
- `hs`: [1] * 6 up to 32 KiB, else [7, 8, 9, 10, 11, 12]; `h_default` = hs[3] (10 in production);
  the circuit takes h_select = 2^index(h) packed with k: k_and_h_select = k | h_select << log2(partitions).
- `apex_leaf_count`: 8 up to 8 KiB, else 128.
- Challenges (challenges.rs): per partition, random bits = log2(nodes) - log2(partitions) per
  challenge, Fr::CAPACITY (254) // that many challenges per digest, digest j of partition k =
  Poseidon_genrand(comm_r_new, k * digests_per_partition + j); partition bits appended on top.
- Randomness (vanilla.rs): phi = Poseidon_genrand(comm_d_new, comm_r_old), rho(high) =
  Poseidon_genrand(phi, high) where high = c >> (log2(nodes) - h); label_r_new = label_r_old +
  label_d_new * rho. Poseidon_genrand is neptune's arity-2 hash with HashType::Custom(Arbitrary(1)),
  i.e. Filecoin's arity-2 constants with domain tag 2^40 instead of 2^2 - 1
  (`POSEIDON_CONSTANTS_GEN_RANDOMNESS`; neptune hash_type.rs `CType::domain_tag`).
- Parameter files (compound.rs `cache_prefix`, parameter_cache.rs): `v28-empty-sector-update-
  merkletree-poseidon_hasher-<base>-<sub>-<top>-<sha256 of "empty_sector_update::PublicParams{
  sector_nodes: N }">`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cuzk.circuits.filecoin.common.registered_proofs import (
    BASE_ARITY, GIB, KIB, MIB, NODE_SIZE, TreeShape, UnknownRegisteredProof, registered,
)

PARAMS_VERSION = 28
FR_CAPACITY = 254
GEN_RANDOMNESS_TAG = 1 << 40  # neptune HashType::Custom(CType::Arbitrary(1)).domain_tag()

# (sub-tree arity, top-tree arity) per sector size in bytes (validate_tree_r_shape)
_SUB_TOP = {KIB: (4, 0), 2 * KIB: (0, 0), 4 * KIB: (2, 0), 8 * KIB: (4, 0), 16 * KIB: (8, 0),
            32 * KIB: (8, 2), 8 * MIB: (0, 0), 16 * MIB: (2, 0), 512 * MIB: (0, 0),
            32 * GIB: (8, 0), 64 * GIB: (8, 2)}
ALLOWED_SIZES = tuple(_SUB_TOP)
REGISTERED_UPDATE_SIZES = (2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB)
_NAMES = {KIB: "1KiB", 2 * KIB: "2KiB", 4 * KIB: "4KiB", 8 * KIB: "8KiB", 16 * KIB: "16KiB",
          32 * KIB: "32KiB", 8 * MIB: "8MiB", 16 * MIB: "16MiB", 512 * MIB: "512MiB",
          32 * GIB: "32GiB", 64 * GIB: "64GiB"}


def partition_count(nodes: int) -> int:
    if nodes <= (8 * KIB) // NODE_SIZE:
        return 1
    if nodes <= (32 * KIB) // NODE_SIZE:
        return 2
    if nodes <= (16 * MIB) // NODE_SIZE:
        return 4
    return 16


def challenge_count(nodes: int) -> int:
    return 10 if nodes <= (16 * MIB) // NODE_SIZE else 86


def hs(nodes: int) -> tuple[int, ...]:
    return (1,) * 6 if nodes <= (32 * KIB) // NODE_SIZE else (7, 8, 9, 10, 11, 12)


def apex_leaf_count(nodes: int) -> int:
    return 8 if nodes <= (8 * KIB) // NODE_SIZE else 128


def _log2(n: int) -> int:
    return n.bit_length() - 1


@dataclass(frozen=True)
class SnapConfig(TreeShape):
    """One EmptySectorUpdate partition circuit (every partition of a size is the same circuit)."""

    registered_proof: int | None  # Go abi.RegisteredUpdateProof; None for test-only sizes
    name: str
    sector_size: int
    base_arity: int
    sub_arity: int
    top_arity: int

    @property
    def size_name(self) -> str:
        """The sector size as Filecoin writes it: 2KiB, 32GiB, ..."""
        return _NAMES[self.sector_size]

    @property
    def challenge_bit_len(self) -> int:
        """log2(nodes): the bits of a challenge, the height of tree D."""
        return _log2(self.nodes)

    @property
    def partitions(self) -> int:
        return partition_count(self.nodes)

    @property
    def partition_bit_len(self) -> int:
        return _log2(self.partitions)

    @property
    def challenges(self) -> int:
        """Challenges per partition."""
        return challenge_count(self.nodes)

    @property
    def hs(self) -> tuple[int, ...]:
        return hs(self.nodes)

    @property
    def h_default(self) -> int:
        return self.hs[3]

    def h_select(self, h: int) -> int:
        """2^i where hs[i] == h (the first such i)."""
        if h not in self.hs:
            raise UnknownRegisteredProof(f"h: {h!r} is not allowed for {self.name} (allowed: {self.hs})")
        return 1 << self.hs.index(h)

    def k_and_h_select(self, k: int, h: int) -> int:
        """The circuit's first public input: k | h_select << partition_bit_len."""
        if not 0 <= k < self.partitions:
            raise UnknownRegisteredProof(f"k: partition {k!r} is not below {self.partitions} for {self.name}")
        return k | (self.h_select(h) << self.partition_bit_len)

    @property
    def apex_leaves(self) -> int:
        return apex_leaf_count(self.nodes)

    @property
    def apex_leaf_bit_len(self) -> int:
        return _log2(self.apex_leaves)

    @property
    def rand_bits(self) -> int:
        """Random bits per challenge (the challenge without its partition bits)."""
        return self.challenge_bit_len - self.partition_bit_len

    @property
    def challenges_per_digest(self) -> int:
        return FR_CAPACITY // self.rand_bits

    @property
    def digests_per_partition(self) -> int:
        return -(-self.challenges // self.challenges_per_digest)

    @property
    def path_to_apex_len(self) -> int:
        """Tree D levels from a leaf to its apex leaf."""
        return self.challenge_bit_len - self.partition_bit_len - self.apex_leaf_bit_len

    @property
    def base_levels(self) -> int:
        bits = self.challenge_bit_len - _log2(max(self.sub_arity, 1)) - _log2(max(self.top_arity, 1))
        return bits // _log2(self.base_arity)

    @property
    def num_public_inputs(self) -> int:
        """Without ONE: k_and_h_select, comm_r_old, comm_d_new, comm_r_new."""
        return 4

    def parameter_identifier(self) -> str:
        """vanilla.rs `PublicParams::identifier()`."""
        return f"empty_sector_update::PublicParams{{ sector_nodes: {self.nodes} }}"

    def parameter_stem(self) -> str:
        """The .params / .vk / .meta file name without extension."""
        digest = hashlib.sha256(self.parameter_identifier().encode()).hexdigest()
        return f"v{PARAMS_VERSION}-empty-sector-update-merkletree-poseidon_hasher-{self.shape}-{digest}"


def _make(sector_size: int) -> SnapConfig:
    sub, top = _SUB_TOP[sector_size]
    name = _NAMES[sector_size]
    if sector_size in REGISTERED_UPDATE_SIZES:
        n = REGISTERED_UPDATE_SIZES.index(sector_size)
        return SnapConfig(n, f"StackedDrg{name}V1 (update)", sector_size, BASE_ARITY, sub, top)
    return SnapConfig(None, f"EmptySectorUpdate{name}(test)", sector_size, BASE_ARITY, sub, top)


SNAP_PROOFS: dict[int, SnapConfig] = {n: _make(s) for n, s in enumerate(REGISTERED_UPDATE_SIZES)}


def snap_config(registered_update_proof: int) -> SnapConfig:
    """The config of a Go abi.RegisteredUpdateProof number (0-4)."""
    return registered(SNAP_PROOFS, registered_update_proof, "update proof", "RegisteredUpdateProof",
                      "0-4 = 2KiB, 8MiB, 512MiB, 32GiB, 64GiB")


def snap_config_for(sector_size: int) -> SnapConfig:
    """The config of a sector size in bytes (registered, or one of rust-fil-proofs' test sizes)."""
    if sector_size not in _SUB_TOP:
        raise UnknownRegisteredProof(f"sector_size: no EmptySectorUpdate shape for {sector_size!r} bytes "
                                     f"(known: {', '.join(_NAMES.values())})")
    return _make(sector_size)
