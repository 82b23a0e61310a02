"""Filecoin's registered proof numbers and what each means for a PoSt circuit.

Curio sends `registered_proof` as the number of Go's `abi.RegisteredPoStProof`
(the FFI's `#[repr(i32)]` enum). Facts, with their sources:

- Numbers 0-4 are WinningPoSt V1, 5-9 WindowPoSt V1, 10-14 WindowPoSt V1_1,
  each for 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB in that order (Curio
  extern/cuzk/cuzk-core/src/prover.rs `registered_post_proof_from_u64`).
  Go's V1_1 is filecoin-proofs-api's V1_2 (filecoin-ffi maps one to the
  other: "grindability fix"); proofs-api gives V1 proofs ApiVersion 1.0.0
  and V1_2 proofs 1.2.0 (rust-filecoin-proofs-api src/registry.rs
  `RegisteredPoStProof::version`).
- Challenge and sector counts: WINNING_POST_CHALLENGE_COUNT = 66,
  WINNING_POST_SECTOR_COUNT = 1, WINDOW_POST_CHALLENGE_COUNT = 10,
  WINDOW_POST_SECTOR_COUNT per sector size (rust-fil-proofs
  filecoin-proofs/src/constants.rs). The circuit of a WinningPoSt sees the
  one sector's 66 challenges as 66 "sectors" of one challenge each
  (filecoin-proofs/src/parameters.rs `winning_post_setup_params`).
- Tree shapes (constants.rs `SectorShape*`): tree_r_last is an arity-8
  Poseidon tree; 4 KiB / 16 MiB / 1 GiB add a sub-tree level of arity 2,
  16 KiB / 32 GiB one of arity 8, 32 KiB / 64 GiB a sub level of arity 8
  and a top level of arity 2. The base path length is log8 of the leaves
  under one base tree (storage-proofs-core merkle/proof.rs
  `base_path_length`).
- RegisteredSealProof numbers (Curio lib/proof/porep_vproof_types.go):
  0-4 V1, 5-9 V1_1, 10-14 V1_1_Feat_SyntheticPoRep, 15-19 V1_2_Feat_NiPoRep.
"""

from __future__ import annotations

from dataclasses import dataclass

from cuzk.errors import FormatError

NODE_SIZE = 32
WINNING_POST_CHALLENGE_COUNT = 66
WINNING_POST_SECTOR_COUNT = 1
WINDOW_POST_CHALLENGE_COUNT = 10

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
SECTOR_SIZES = {"2KiB": 2 * KIB, "4KiB": 4 * KIB, "16KiB": 16 * KIB, "32KiB": 32 * KIB, "8MiB": 8 * MIB,
                "16MiB": 16 * MIB, "512MiB": 512 * MIB, "1GiB": GIB, "32GiB": 32 * GIB, "64GiB": 64 * GIB}
SIZE_NAMES = {v: k for k, v in SECTOR_SIZES.items()}
# sizes with registered proofs, in the order of the enums
REGISTERED_SIZES = (2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB)

WINDOW_POST_SECTOR_COUNT = {2 * KIB: 2, 4 * KIB: 2, 16 * KIB: 2, 32 * KIB: 2, 8 * MIB: 2, 16 * MIB: 2,
                            512 * MIB: 2, GIB: 2, 32 * GIB: 2349, 64 * GIB: 2300}

# (sub-tree arity, top-tree arity) per sector size; the base arity is always 8
SUB_TOP = {2 * KIB: (0, 0), 8 * MIB: (0, 0), 512 * MIB: (0, 0),
            4 * KIB: (2, 0), 16 * MIB: (2, 0), GIB: (2, 0),
            16 * KIB: (8, 0), 32 * GIB: (8, 0),
            32 * KIB: (8, 2), 64 * GIB: (8, 2)}
BASE_ARITY = 8

API_V1_0 = "1.0.0"
API_V1_1 = "1.1.0"
API_V1_2 = "1.2.0"


class UnknownRegisteredProof(FormatError):
    """A registered proof number or sector size this module does not know."""


def registered(table: dict, number, field: str, enum: str, known: str):
    """table[number] for a Go registered-proof number, else UnknownRegisteredProof naming the known ones."""
    try:
        return table[int(number)]
    except (KeyError, TypeError, ValueError):
        raise UnknownRegisteredProof(f"{field}: unknown {enum} {number!r} (known: {known})") from None


def base_levels(sector_size: int, base: int, sub: int, top: int) -> int:
    """Path elements inside one base tree: log_base of the leaves under it."""
    leaves = sector_size // NODE_SIZE // max(sub, 1) // max(top, 1)
    levels = 0
    while leaves > 1:
        leaves //= base
        levels += 1
    return levels


class TreeShape:
    """What the PoSt, PoRep and SnapDeals configs derive alike from their sector_size and tree R's
    base_arity, sub_arity, top_arity (0: no such level) and base_levels."""

    @property
    def nodes(self) -> int:
        """Leaves of tree R / R-last (32-byte nodes)."""
        return self.sector_size // NODE_SIZE

    @property
    def arities(self) -> tuple[int, ...]:
        """Path arities (tree R / R-last, PoRep's tree C), leaf upwards: base levels, then sub, then top."""
        return (self.base_arity,) * self.base_levels + tuple(a for a in (self.sub_arity, self.top_arity) if a)

    @property
    def shape(self) -> str:
        """base-sub-top, as parameter file names write it."""
        return f"{self.base_arity}-{self.sub_arity}-{self.top_arity}"

    @property
    def merkle_variant(self) -> int:
        """bincode tag of rust-fil-proofs' ProofData for tree R proofs: 0 Single, 1 Sub, 2 Top."""
        return 2 if self.top_arity else 1 if self.sub_arity else 0


@dataclass(frozen=True)
class PostConfig(TreeShape):
    """One PoSt flavour as its circuit sees it.

    `challenges_per_sector` x `sectors_per_partition` are the circuit's
    slots (window: 10 x WINDOW_POST_SECTOR_COUNT; winning: 1 x 66).
    `vanilla_challenges` is how many inclusion proofs one sector's vanilla
    proof carries (window 10, winning 66) and `vanilla_sectors` how many
    sector proofs a request may carry (window: sectors_per_partition,
    winning: 1)."""

    registered_proof: int | None  # Go abi.RegisteredPoStProof; None for test-only sizes
    name: str  # Go / lotus name, e.g. StackedDrgWindow32GiBV1_1
    kind: str  # "window" | "winning"
    sector_size: int  # bytes
    api_version: str  # storage-proofs ApiVersion: "1.0.0" | "1.2.0"
    base_arity: int
    sub_arity: int  # 0: no sub-tree level
    top_arity: int  # 0: no top-tree level
    base_levels: int  # path elements inside one base tree
    challenges_per_sector: int
    sectors_per_partition: int
    vanilla_challenges: int
    vanilla_sectors: int

    @property
    def path_length(self) -> int:
        return len(self.arities)

    @property
    def num_public_inputs(self) -> int:
        """Per partition: every slot's comm_r, then its challenged leaf indices."""
        return self.sectors_per_partition * (1 + self.challenges_per_sector)


def _make(kind: str, sector_size: int, api_version: str, number: int | None, name: str) -> PostConfig:
    sub, top = SUB_TOP[sector_size]
    if kind == "window":
        k, s = WINDOW_POST_CHALLENGE_COUNT, WINDOW_POST_SECTOR_COUNT[sector_size]
        vk, vs = k, s
    else:
        # winning_post_setup_params: 1 sector x 66 challenges -> 66 sectors x 1 challenge
        s = WINNING_POST_CHALLENGE_COUNT // WINNING_POST_SECTOR_COUNT
        k = WINNING_POST_CHALLENGE_COUNT // s
        vk, vs = WINNING_POST_CHALLENGE_COUNT, WINNING_POST_SECTOR_COUNT
    return PostConfig(number, name, kind, sector_size, api_version, BASE_ARITY, sub, top,
                      base_levels(sector_size, BASE_ARITY, sub, top), k, s, vk, vs)


def _registered() -> dict[int, PostConfig]:
    out = {}
    for i, size in enumerate(REGISTERED_SIZES):
        tag = SIZE_NAMES[size]
        out[i] = _make("winning", size, API_V1_0, i, f"StackedDrgWinning{tag}V1")
        out[5 + i] = _make("window", size, API_V1_0, 5 + i, f"StackedDrgWindow{tag}V1")
        out[10 + i] = _make("window", size, API_V1_2, 10 + i, f"StackedDrgWindow{tag}V1_1")
    return out


POST_PROOFS: dict[int, PostConfig] = _registered()


def post_config(registered_proof: int) -> PostConfig:
    """The PostConfig of a Go abi.RegisteredPoStProof number (as Curio sends it)."""
    return registered(POST_PROOFS, registered_proof, "registered_proof", "RegisteredPoStProof",
                      "0-4 winning V1, 5-9 window V1, 10-14 window V1_1")


def post_config_for(kind: str, sector_size: int, api_version: str | None = None) -> PostConfig:
    """The config of `kind` ("window" | "winning") for a sector size in bytes.

    Defaults to what the network uses today: WindowPoSt V1_1 (api 1.2.0),
    WinningPoSt V1 (api 1.0.0). Sizes without a registered proof (4, 16,
    32 KiB, 16 MiB, 1 GiB: rust-fil-proofs' test shapes, the cheapest way
    to exercise sub- and top-tree paths) get registered_proof None."""
    if kind not in ("window", "winning"):
        raise UnknownRegisteredProof(f"kind: expected 'window' or 'winning', got {kind!r}")
    if sector_size not in SUB_TOP:
        raise UnknownRegisteredProof(f"sector_size: no Filecoin sector shape for {sector_size!r} bytes "
                                     f"(known: {', '.join(SECTOR_SIZES)})")
    if api_version is None:
        api_version = API_V1_2 if kind == "window" else API_V1_0
    if api_version not in (API_V1_0, API_V1_1, API_V1_2):
        raise UnknownRegisteredProof(f"api_version: unknown {api_version!r}")
    for cfg in POST_PROOFS.values():
        if (cfg.kind, cfg.sector_size, cfg.api_version) == (kind, sector_size, api_version):
            return cfg
    tag = SIZE_NAMES[sector_size]
    name = f"StackedDrg{kind.capitalize()}{tag}(test, api {api_version})"
    return _make(kind, sector_size, api_version, None, name)


@dataclass(frozen=True)
class SealProofInfo:
    registered_proof: int  # Go abi.RegisteredSealProof
    name: str
    sector_size: int


def _seal_proofs() -> dict[int, SealProofInfo]:
    suffixes = ("V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NiPoRep")
    out = {}
    for g, suffix in enumerate(suffixes):
        for i, size in enumerate(REGISTERED_SIZES):
            n = 5 * g + i
            out[n] = SealProofInfo(n, f"StackedDrg{SIZE_NAMES[size]}{suffix}", size)
    return out


SEAL_PROOFS: dict[int, SealProofInfo] = _seal_proofs()


def seal_proof(registered_proof: int) -> SealProofInfo:
    """What a Go abi.RegisteredSealProof number (e.g. postpub.json's SealProof) means."""
    return registered(SEAL_PROOFS, registered_proof, "seal proof", "RegisteredSealProof", "0-19")
