"""StackedDRG PoRep (seal commit, C2) as its circuit sees it: sizes, layers, challenges, tree shapes.

Facts, with their sources in rust-fil-proofs v28 (filecoin-proofs, storage-proofs-porep):

- Layers (constants.rs `LAYERS`): 2 for every test size and 8 MiB / 512 MiB, 11 for 32 and 64 GiB.
- Partitions (constants.rs `POREP_PARTITIONS`): 1, except 10 at 32 and 64 GiB; non-interactive
  PoRep (`get_porep_non_interactive_partitions`): 13 for the small sizes, 126 for 32 / 64 GiB.
- Challenges: the minimum total (`get_porep_interactive_minimum_challenges`: 2 small, 176 at
  32 / 64 GiB; non-interactive `..._non_interactive_minimum_challenges`: 26 / 2253) spread over the
  partitions rounding up (parameters.rs `select_challenges`: div_ceil), at most
  MAX_CHALLENGES_PER_PARTITION = 18. So 2 challenges per partition for the small sizes and 18 at
  32 / 64 GiB, for every flavour: interactive, synthetic and non-interactive PoRep prove the same
  circuit (only how the challenges are drawn and how many partitions there are differ).
- Graph (drgraph.rs BASE_DEGREE, stacked/vanilla EXP_DEGREE): 6 DRG parents + 8 expander parents.
  A label hashes 37 parents (vanilla TOTAL_PARENTS): layer 1 its 6 DRG parents six times over and
  the first once more; later layers the 14 parents twice and the first 9 again.
- Trees: tree D (comm_d) is a binary SHA-256 ("sha254") tree over the data; tree C (comm_c, over the
  column hashes) and tree R-last (comm_r_last, over the replica) are Poseidon trees of the sector
  shape (constants.rs `SectorShape*`): base arity 8, a sub level of arity 8 at 32 GiB, sub 8 and
  top 2 at 64 GiB (the test sizes 4 / 16 / 32 KiB, 16 MiB, 1 GiB as for PoSt).
- The parameter files (parameter_cache.rs, stacked circuit/proof.rs `cache_prefix`):
  `v28-stacked-proof-of-replication-merkletree-poseidon_hasher-<base>-<sub>-<top>-sha256_hasher-<sha256
  of the public parameters' identifier>`; the identifier (vanilla params.rs) names the graph, the
  layers and the challenges per partition; every seal-proof version of a size shares the file
  (the graph's porep id does not enter the identifier). parameters.json lists the five.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cuzk.circuits.filecoin.common.registered_proofs import (
    BASE_ARITY, GIB, KIB, MIB, REGISTERED_SIZES, SEAL_PROOFS, SECTOR_SIZES, SIZE_NAMES, SUB_TOP, TreeShape,
    UnknownRegisteredProof, base_levels, registered,
)

PARAMS_VERSION = 28
BASE_DEGREE = 6
EXP_DEGREE = 8
DEGREE = BASE_DEGREE + EXP_DEGREE
TOTAL_PARENTS = 37
MAX_CHALLENGES_PER_PARTITION = 18

_SMALL = (2 * KIB, 4 * KIB, 16 * KIB, 32 * KIB, 8 * MIB, 16 * MIB, 512 * MIB, GIB)
_LARGE = (32 * GIB, 64 * GIB)
LAYERS = {**{s: 2 for s in _SMALL}, **{s: 11 for s in _LARGE}}
POREP_PARTITIONS = {**{s: 1 for s in _SMALL}, **{s: 10 for s in _LARGE}}
NI_POREP_PARTITIONS = {**{s: 13 for s in _SMALL}, **{s: 126 for s in _LARGE}}
MIN_CHALLENGES = {**{s: 2 for s in _SMALL}, **{s: 176 for s in _LARGE}}
NI_MIN_CHALLENGES = {**{s: 26 for s in _SMALL}, **{s: 2253 for s in _LARGE}}


API_BY_GROUP = ("1.0.0", "1.1.0", "1.2.0", "1.2.0")  # RegisteredSealProof // 5 -> api version
FLAVOURS = ("interactive", "interactive", "synthetic", "non-interactive")


def _div_ceil(x: int, y: int) -> int:
    return 1 + (x - 1) // y


@dataclass(frozen=True)
class PorepConfig(TreeShape):
    """One PoRep circuit: a sector size (the circuit is the same for every seal-proof version)."""

    registered_proof: int | None  # Go abi.RegisteredSealProof; None for test-only sizes
    name: str
    sector_size: int
    api_version: str  # the graph's (api 1.0.0: legacy DRG parent order)
    flavour: str  # "interactive" | "synthetic" | "non-interactive"
    layers: int
    partitions: int
    min_challenges: int  # the minimum total over all partitions
    base_arity: int
    sub_arity: int  # 0: no sub-tree level
    top_arity: int  # 0: no top-tree level

    @property
    def challenges(self) -> int:
        """Challenges per partition (select_challenges)."""
        c = _div_ceil(self.min_challenges, self.partitions)
        if c > MAX_CHALLENGES_PER_PARTITION:
            raise ValueError(f"{self.name}: {c} challenges per partition exceed {MAX_CHALLENGES_PER_PARTITION}")
        return c

    @property
    def base_levels(self) -> int:
        return base_levels(self.sector_size, self.base_arity, self.sub_arity, self.top_arity)

    @property
    def tree_d_depth(self) -> int:
        return self.nodes.bit_length() - 1

    @property
    def num_public_inputs(self) -> int:
        """Per partition, without ONE: replica_id, comm_d, comm_r, then per challenge its comm_d path,
        the 14 parents' tree C paths, the challenge, its tree R-last and tree C paths."""
        return 3 + self.challenges * (1 + DEGREE + 3)

    def parameter_identifier(self) -> str:
        """StackedDrg `PublicParams::identifier()` (vanilla params.rs; graph: StackedGraph, Poseidon)."""
        graph = (f"stacked_graph::StackedGraph{{expansion_degree: {EXP_DEGREE} base_graph: "
                 f"drgraph::BucketGraph{{size: {self.nodes}; degree: {BASE_DEGREE}; hasher: poseidon_hasher}} }}")
        return (f"layered_drgporep::PublicParams{{ graph: {graph}, challenges: LayerChallenges {{ layers: "
                f"{self.layers}, max_count: {self.challenges} }}, tree: merkletree-poseidon_hasher-{self.shape} }}")

    def parameter_stem(self) -> str:
        """The .params / .vk / .meta file name without extension."""
        digest = hashlib.sha256(self.parameter_identifier().encode()).hexdigest()
        return (f"v{PARAMS_VERSION}-stacked-proof-of-replication-merkletree-poseidon_hasher-{self.shape}-"
                f"sha256_hasher-{digest}")


def _make(sector_size: int, number: int | None, name: str, api: str, flavour: str) -> PorepConfig:
    sub, top = SUB_TOP[sector_size]
    ni = flavour == "non-interactive"
    return PorepConfig(number, name, sector_size, api, flavour, LAYERS[sector_size],
                       (NI_POREP_PARTITIONS if ni else POREP_PARTITIONS)[sector_size],
                       (NI_MIN_CHALLENGES if ni else MIN_CHALLENGES)[sector_size], BASE_ARITY, sub, top)


def _registered() -> dict[int, PorepConfig]:
    out = {}
    for n, info in SEAL_PROOFS.items():
        out[n] = _make(info.sector_size, n, info.name, API_BY_GROUP[n // 5], FLAVOURS[n // 5])
    return out


POREP_PROOFS: dict[int, PorepConfig] = _registered()


def porep_config(registered_seal_proof: int) -> PorepConfig:
    """The config of a Go abi.RegisteredSealProof number (0-19)."""
    return registered(POREP_PROOFS, registered_seal_proof, "seal proof", "RegisteredSealProof", "0-19")


def porep_config_for(sector_size: int, flavour: str = "interactive") -> PorepConfig:
    """The config of a sector size in bytes: the V1_1 proof (api 1.1.0) of a registered size, or a
    test shape (4, 16, 32 KiB, 16 MiB, 1 GiB; registered_proof None)."""
    if sector_size not in SUB_TOP:
        raise UnknownRegisteredProof(f"sector_size: no Filecoin sector shape for {sector_size!r} bytes "
                                     f"(known: {', '.join(SECTOR_SIZES)})")
    if flavour not in FLAVOURS:
        raise UnknownRegisteredProof(f"flavour: expected one of {', '.join(sorted(set(FLAVOURS)))}, got {flavour!r}")
    if sector_size in REGISTERED_SIZES:
        group = {"interactive": 1, "synthetic": 2, "non-interactive": 3}[flavour]
        return POREP_PROOFS[5 * group + REGISTERED_SIZES.index(sector_size)]
    api = "1.1.0" if flavour == "interactive" else "1.2.0"
    return _make(sector_size, None, f"StackedDrg{SIZE_NAMES[sector_size]}(test, {flavour})", api, flavour)
