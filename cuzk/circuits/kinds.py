"""The workload kinds, their presets, and what the engine calls on them.

A `CircuitKind` ties a circuit module (`porep`, `snap`) to its
presets (shapes), its gRPC proof kind, default priority, batchability and
partition count. Compiled circuits are cached in memory and on disk under
`<cuzk cache>/circuits/` keyed by (kind, preset, shape, CIRCUITS_VERSION).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cuzk.errors import CuzkError, FormatError

from . import counts as counts_mod
from . import porep, porep_vanilla, snap
from .fr_bytes import CURVE, ints
from .porep import PorepShape
from .snap import SnapShape

# bump when any circuit's wiring changes (invalidates cached .pce files); 2: bellperson's SHA-256 layout
CIRCUITS_VERSION = 2
PRESETS = ("tiny", "small", "medium", "large", "32g")

PRESET_SHAPES: dict[str, dict[str, Any]] = {
    "porep-c2-like": {
        "tiny": PorepShape(nodes_log2=3, layers=2, challenges=1, base_degree=1, expansion_degree=0, hashed_parents=1),
        "small": PorepShape(nodes_log2=3, layers=2, challenges=1, base_degree=1, expansion_degree=1, hashed_parents=2),
        "medium": PorepShape(nodes_log2=6, layers=2, challenges=2, base_degree=2, expansion_degree=2,
                             hashed_parents=4),
        "large": PorepShape(nodes_log2=18, layers=4, challenges=9, base_degree=6, expansion_degree=8,
                            hashed_parents=14),
        "32g": PorepShape(nodes_log2=30, layers=11, challenges=18, base_degree=6, expansion_degree=8,
                          hashed_parents=37),
    },
    "snap-like": {
        "tiny": SnapShape(nodes_log2=6, challenges=1, apex_bits=1, high_bits=2),
        "small": SnapShape(nodes_log2=6, challenges=2, apex_bits=1, high_bits=2),
        "medium": SnapShape(nodes_log2=9, challenges=4, apex_bits=3, high_bits=3),
        "large": SnapShape(nodes_log2=27, challenges=17, apex_bits=6, high_bits=6),
        "32g": SnapShape(nodes_log2=30, challenges=86, apex_bits=7, high_bits=7),
    },
}

# Filecoin sector sizes -> presets (64 GiB has no shape of its own: the 32 GiB one)
SECTOR_SIZE_PRESETS = {2 << 10: "tiny", 8 << 20: "small", 512 << 20: "medium", 32 << 30: "32g", 64 << 30: "32g"}
# registered_proof % 5 -> sector size index (2K, 8M, 512M, 32G, 64G); holds for seal (V1, V1_1, ...)
# and update (0-4) numbering
SIZE_INDEX_PRESETS = ("tiny", "small", "medium", "32g", "32g")


class UnknownKind(CuzkError):
    pass


@dataclass(frozen=True)
class Vanilla:
    """A vanilla proof as named arrays (`cuzk.formats.vanilla` is its container
    layout: decoded arrays are read-only views into the bytes)."""

    kind: str
    preset: str
    arrays: dict

    def copy(self) -> "Vanilla":
        """A writable deep copy (to build altered inputs in tests)."""
        return Vanilla(self.kind, self.preset, {k: np.array(v) for k, v in self.arrays.items()})


@dataclass(frozen=True, eq=False)
class CircuitKind:
    name: str
    proof_kind: str  # gRPC ProofKind enum name
    default_priority: str  # gRPC Priority enum name
    batchable: bool
    partitions: int
    description: str
    _synthesize: Callable
    _counts: Callable
    _generate: Callable  # (shape, seed) -> arrays
    _expected: Callable  # shape -> {array name: shape, or (shape, dtype)}
    _partition: Callable  # (arrays, p) -> partition inputs

    curve = CURVE

    # ---- shapes -------------------------------------------------------------
    @property
    def presets(self) -> tuple[str, ...]:
        return PRESETS

    def shape(self, preset: str):
        try:
            return PRESET_SHAPES[self.name][preset]
        except KeyError:
            raise UnknownKind(f"{self.name}: unknown preset {preset!r} (have {', '.join(PRESETS)})") from None

    def circuit_id(self, preset: str) -> str:
        return f"{self.name}-{preset}"

    def counts(self, preset: str) -> counts_mod.Counts:
        """Per-partition sizes, computed without building the circuit."""
        return self._counts(self.shape(preset))

    # ---- circuit ------------------------------------------------------------------
    def synthesize(self, cs, preset: str, inputs=None) -> None:
        """One partition into `cs` (any mode; `inputs` = `partition_inputs(...)` for witness modes)."""
        self._synthesize(cs, self.shape(preset), inputs)

    def compile(self, preset: str):
        """The partition circuit (cached in memory and on disk)."""
        return _compiled(self.name, preset)

    def cache_path(self, preset: str) -> Path:
        from cuzk.field.codegen import cache_dir

        shape = dataclasses.asdict(self.shape(preset))
        tag = hashlib.sha256(repr((self.name, sorted(shape.items()), CIRCUITS_VERSION)).encode()).hexdigest()[:12]
        return cache_dir().parent / "circuits" / f"{self.name}-{preset}-v{CIRCUITS_VERSION}-{tag}.pce"

    # ---- vanilla proofs -----------------------------------------------------------
    def make_vanilla(self, preset: str, seed: int) -> Vanilla:
        """A valid vanilla proof from random sector data (the same seed gives the same arrays)."""
        return Vanilla(self.name, preset, self._generate(self.shape(preset), int(seed)))

    def expected_arrays(self, preset: str) -> dict:
        """The arrays a vanilla proof for `preset` carries: name -> shape, or (shape, dtype); dtype u1 if left out."""
        return self._expected(self.shape(preset))

    def partition_inputs(self, preset: str, vanilla: Vanilla, p: int):
        if not 0 <= p < self.partitions:
            raise ValueError(f"{self.name}: partition {p} out of range (0..{self.partitions - 1})")
        return self._partition(vanilla.arrays, p)

    def public_inputs(self, preset: str, vanilla: Vanilla) -> list[list[int]]:
        """Per partition, the public inputs (ONE excluded) a verifier needs."""
        try:
            return [ints(self._partition(vanilla.arrays, p).public_values()) for p in range(self.partitions)]
        except ValueError as exc:
            raise FormatError(f"vanilla proof for {self.circuit_id(preset)}: {exc}") from None

    def witness(self, preset: str, vanilla: Vanilla, p: int,
                out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
        """(w, public inputs) of partition p: w = [1, inputs..., aux...] Montgomery,
        written into `out` (uint64[num_vars, 4], e.g. a pinned buffer) if given."""
        from cuzk.r1cs import WitnessCS
        from cuzk.r1cs.witness_phases import phase

        with phase("partition inputs"):
            inputs = self.partition_inputs(preset, vanilla, p)
        cs = WitnessCS(CURVE)
        try:
            with phase("circuit code (numpy glue, input conversions)"):
                self._synthesize(cs, self.shape(preset), inputs)
        except ValueError as exc:  # a value that is not a field element
            raise FormatError(f"vanilla proof for {self.circuit_id(preset)}: partition {p}: {exc}") from None
        w = cs.witness(out)
        return w, ints(w[1 : cs.num_inputs])

    def witnesses(self, preset: str, vanilla: Vanilla) -> list[tuple[np.ndarray, list[int]]]:
        return [self.witness(preset, vanilla, p) for p in range(self.partitions)]


KINDS: dict[str, CircuitKind] = {
    "porep-c2-like": CircuitKind(
        "porep-c2-like", "POREP_SEAL_COMMIT", "NORMAL", True, 10,
        "PoRep C2 partition: SHA-256 comm_d paths, SDR-like labeling, Poseidon columns and trees",
        porep.synthesize, counts_mod.porep, porep_vanilla.generate, porep_vanilla.expected_arrays,
        porep_vanilla.partition),
    "snap-like": CircuitKind(
        "snap-like", "SNAP_DEALS_UPDATE", "NORMAL", True, 16,
        "SnapDeals partition: SHA-256 data paths to apex leaves, old/new Poseidon replica paths, rho encoding",
        snap.synthesize, counts_mod.snap, snap.generate, snap.expected_arrays, snap.partition),
}

_BY_PROOF_KIND = {k.proof_kind: k for k in KINDS.values()}


def get_kind(name: str) -> CircuitKind:
    """A kind by name ('porep-c2-like', ...) or gRPC proof kind name ('POREP_SEAL_COMMIT', ...)."""
    kind = KINDS.get(name) or _BY_PROOF_KIND.get(str(name).upper())
    if kind is None:
        raise UnknownKind(f"unknown circuit kind {name!r} (have {', '.join(KINDS)})")
    return kind


def preset_for(sector_size: int = 0, registered_proof: int | None = None, default: str = "tiny") -> str:
    """The preset for a request: by sector_size (bytes) when it is a Filecoin
    size, else by registered_proof (its size index, % 5), else `default`."""
    if sector_size:
        preset = SECTOR_SIZE_PRESETS.get(int(sector_size))
        if preset is None:
            raise UnknownKind(f"no preset for sector size {sector_size} "
                              f"(have {', '.join(str(s) for s in SECTOR_SIZE_PRESETS)})")
        return preset
    if registered_proof is not None and registered_proof >= 0:
        return SIZE_INDEX_PRESETS[int(registered_proof) % 5]
    return default


# ---- compile cache -------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _compiled(name: str, preset: str):
    from cuzk.r1cs.compile_cache import load_or_compile

    kind = get_kind(name)
    return load_or_compile(kind.cache_path(preset), CURVE, lambda cs: kind.synthesize(cs, preset))
