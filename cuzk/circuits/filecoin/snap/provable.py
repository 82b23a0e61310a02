"""Filecoin's SnapDeals (EmptySectorUpdate) partition as a provable thing: id, compiled circuit,
witness, parameter name.

One circuit per sector size, `snap-<size>` (snap-32GiB: sixteen partitions of 81,049,499
constraints); every partition of an update is the same circuit (the partition index k is a
public input), so a size has one parameter file, named as rust-fil-proofs names it
(`snap_config.parameter_stem`: v28-empty-sector-update-merkletree-poseidon_hasher-...). The
compiled circuit and the witnesses come from the stamped partition (`snap_stamped`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cuzk.errors import FormatError

from cuzk.circuits.filecoin.common import partition_cache
from . import circuit as snap_circuit
from . import stamped as snap_stamped
from .config import SnapConfig, snap_config_for

CIRCUIT_VERSION = 1  # bump when the circuit's wiring changes (invalidates cached .pce files)


def circuit_id(cfg: SnapConfig) -> str:
    return f"snap-{cfg.size_name}"


def parameter_stem(cfg: SnapConfig) -> str:
    return cfg.parameter_stem()


def inputs(cfg: SnapConfig, proof, k: int, h: int, comm_r_old, comm_d_new, comm_r_new) -> snap_circuit.SnapInputs:
    """A decoded `snap_proof.SnapPartitionProof` of partition k and the update's public values as the
    circuit's arrays; FormatError on a node >= r."""
    try:
        return snap_circuit.SnapInputs.from_proof(cfg, proof, k, h, comm_r_old, comm_d_new, comm_r_new)
    except ValueError as exc:
        raise FormatError(f"partition {k}: {exc}") from None


def witness(cfg: SnapConfig, x: snap_circuit.SnapInputs, out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """(w = [1, inputs..., aux...] Montgomery, public inputs) of one partition."""
    return partition_cache.witness(lambda cs: snap_stamped.synthesize(cs, cfg, x), out)


def cache_path(cfg: SnapConfig) -> Path:
    return partition_cache.cache_path(circuit_id(cfg), CIRCUIT_VERSION)


compiled = partition_cache.compiler(snap_config_for, circuit_id, CIRCUIT_VERSION, snap_stamped.synthesize)
