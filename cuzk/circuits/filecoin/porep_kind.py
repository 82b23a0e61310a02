"""Filecoin's StackedDRG PoRep partition as a provable thing: id, compiled circuit, witness, parameter name.

One circuit per sector size: every registered seal proof of a size (V1, V1_1, synthetic,
non-interactive) synthesizes the same R1CS (the graph and the challenges are public inputs), so
they share one circuit and one parameter file, as in rust-fil-proofs (parameters.json names five).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from cuzk.errors import FormatError

from ..fr_bytes import CURVE, ints
from . import porep_circuit
from .porep_config import PorepConfig, porep_config_for
from .registered_proofs import SIZE_NAMES

CIRCUIT_VERSION = 1  # bump when the circuit's wiring changes (invalidates cached .pce files)


def circuit_id(cfg: PorepConfig) -> str:
    return f"porep-{SIZE_NAMES[cfg.sector_size]}"


def parameter_stem(cfg: PorepConfig) -> str:
    return cfg.parameter_stem()


def inputs(part) -> porep_circuit.PorepInputs:
    """A `porep_proof.PorepPartitionProof` as the circuit's arrays; FormatError on a node >= r."""
    try:
        return porep_circuit.PorepInputs.from_proof(part)
    except ValueError as exc:
        raise FormatError(f"vanilla proof: {exc}") from None


def witness(cfg: PorepConfig, part, out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """(w = [1, inputs..., aux...] Montgomery, public inputs) of one partition's vanilla proof."""
    from cuzk.r1cs import WitnessCS
    from cuzk.r1cs.witness_phases import phase

    x = inputs(part)
    cs = WitnessCS(CURVE)
    porep_circuit.synthesize(cs, cfg, x)
    with phase("witness assembled (w)"):
        w = cs.witness(out)
    return w, ints(w[1 : cs.num_inputs])


def cache_path(cfg: PorepConfig) -> Path:
    from cuzk.field.codegen import cache_dir

    return cache_dir().parent / "circuits" / f"{circuit_id(cfg)}-v{CIRCUIT_VERSION}.pce"


@functools.lru_cache(maxsize=None)
def _compiled(size: int):
    from cuzk.r1cs.compile_cache import load_or_compile

    cfg = porep_config_for(size)
    return load_or_compile(cache_path(cfg), CURVE, lambda cs: porep_circuit.synthesize(cs, cfg))


def compiled(cfg: PorepConfig):
    """The partition circuit, cached in memory and on disk (keyed by its wiring version)."""
    return _compiled(cfg.sector_size)
