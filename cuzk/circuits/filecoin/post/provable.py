"""The Filecoin PoSt circuits as provable things: ids, compiled circuits, witnesses, parameter names.

One circuit per (kind, sector size): WindowPoSt V1 and V1_1 differ only in
how challenges are derived (public inputs), not in the R1CS, so they share
the circuit and its parameters, as in rust-fil-proofs. Parameter files are
named as rust-fil-proofs names them (storage-proofs-core
parameter_cache.rs: `v28-<cache prefix>-<sha256 of the public parameters'
identifier>`, the prefix `proof-of-spacetime-fallback-merkletree-
poseidon_hasher-<base>-<sub>-<top>`), so a provider's official files are
found where paramfetch puts them.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numpy as np

from cuzk.errors import FormatError
from cuzk.r1cs import WitnessCS
from cuzk.r1cs.compile_cache import load_or_compile
from cuzk.r1cs.witness_phases import phase
from cuzk.user_dirs import build_cache_dir

from cuzk.circuits.filecoin.common.fr_bytes import CURVE, ints
from . import circuit as post_circuit
from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES, PostConfig, post_config_for

PARAMS_VERSION = 28
KINDS = ("window", "winning")
CIRCUIT_VERSION = 1  # bump when the circuit's wiring changes (invalidates cached .pce files)


def circuit_id(cfg: PostConfig) -> str:
    return f"{cfg.kind}-post-{SIZE_NAMES[cfg.sector_size]}"


def parameter_identifier(cfg: PostConfig) -> str:
    """FallbackPoSt's `PublicParams::identifier()` (storage-proofs-post fallback/vanilla.rs)."""
    return (f"FallbackPoSt::PublicParams{{sector_size: {cfg.sector_size}, "
            f"challenge_count: {cfg.challenges_per_sector}, sector_count: {cfg.sectors_per_partition}}}")


def parameter_stem(cfg: PostConfig) -> str:
    """The file name without extension rust-fil-proofs gives this circuit's .params/.vk/.meta."""
    digest = hashlib.sha256(parameter_identifier(cfg).encode()).hexdigest()
    shape = f"{cfg.base_arity}-{cfg.sub_arity}-{cfg.top_arity}"
    return f"v{PARAMS_VERSION}-proof-of-spacetime-fallback-merkletree-poseidon_hasher-{shape}-{digest}"


def synthesize(cs, cfg: PostConfig, slots=None) -> None:
    """One partition into `cs`; `slots`: `post_partition.PartitionSlots` in witness modes."""
    x = None
    if slots is not None:
        try:
            with phase("inputs to Montgomery"):
                x = post_circuit.PostInputs.from_slots(slots)
        except ValueError as exc:  # a node that is not a field element
            raise FormatError(f"vanilla proofs: {exc}") from None
    post_circuit.synthesize(cs, cfg, x)


def witness(cfg: PostConfig, slots, out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """(w = [1, inputs..., aux...] Montgomery, public inputs) of one partition."""
    cs = WitnessCS(CURVE)
    synthesize(cs, cfg, slots)
    with phase("witness assembled (w)"):
        w = cs.witness(out)
    return w, ints(w[1 : cs.num_inputs])


def cache_path(cfg: PostConfig) -> Path:
    return build_cache_dir() / "circuits" / f"{circuit_id(cfg)}-v{CIRCUIT_VERSION}.pce"


@functools.lru_cache(maxsize=None)
def _compiled(cfg: PostConfig):
    return load_or_compile(cache_path(cfg), CURVE, lambda cs: synthesize(cs, cfg))


def compiled(cfg: PostConfig):
    """The partition circuit, cached in memory and on disk (keyed by its wiring version)."""
    return _compiled(_circuit_config(cfg))


def _circuit_config(cfg: PostConfig) -> PostConfig:
    """The config that names the circuit: the api version and proof number do not change the R1CS."""
    return post_config_for(cfg.kind, cfg.sector_size)
