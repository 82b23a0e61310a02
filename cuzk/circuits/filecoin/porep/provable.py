"""Filecoin's StackedDRG PoRep partition as a provable thing: id, compiled circuit, witness, parameter name.

One circuit per sector size: every registered seal proof of a size (V1, V1_1, synthetic,
non-interactive) synthesizes the same R1CS (the graph and the challenges are public inputs), so
they share one circuit and one parameter file, as in rust-fil-proofs (parameters.json names five).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from cuzk.errors import FormatError

from cuzk.circuits.filecoin.common import partition_cache
from . import stamped as porep_circuit
from .config import PorepConfig, porep_config_for
from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES

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
    x = inputs(part)
    return partition_cache.witness(lambda cs: porep_circuit.synthesize(cs, cfg, x), out)


def cache_path(cfg: PorepConfig) -> Path:
    return partition_cache.cache_path(circuit_id(cfg), CIRCUIT_VERSION)


compiled = partition_cache.compiler(porep_config_for, circuit_id, CIRCUIT_VERSION, porep_circuit.synthesize)


def counts(cfg: PorepConfig) -> porep_circuit.PorepCounts:
    """porep_circuit.counts(cfg), kept on disk beside the compiled circuit (partition_cache.kept_counts)."""
    return porep_circuit.PorepCounts(*partition_cache.kept_counts(
        circuit_id(cfg), CIRCUIT_VERSION, lambda: dataclasses.astuple(porep_circuit.counts(cfg))))
