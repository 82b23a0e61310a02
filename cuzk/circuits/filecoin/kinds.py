"""Filecoin's circuits by their config, whichever the proof: one way to name them, compile them and
find their parameter files (a PostConfig is a PoSt partition, a PorepConfig a PoRep one, a
SnapConfig a SnapDeals one)."""

from __future__ import annotations

from .porep import stamped as porep_circuit
from .porep import provable as porep_kind
from .post import circuit as post_circuit
from .post import provable as post_kind
from .snap import circuit as snap_circuit
from .snap import provable as snap_kind
from cuzk.circuits.filecoin.porep.config import PorepConfig
from cuzk.circuits.filecoin.snap.config import SnapConfig


def _kind(cfg):
    if isinstance(cfg, PorepConfig):
        return porep_kind
    return snap_kind if isinstance(cfg, SnapConfig) else post_kind


def circuit_id(cfg) -> str:
    return _kind(cfg).circuit_id(cfg)


def parameter_stem(cfg) -> str:
    """The .params/.vk/.meta file name (without extension) rust-fil-proofs gives the circuit."""
    return _kind(cfg).parameter_stem(cfg)


def compiled(cfg):
    """The compiled partition circuit (cached in memory and on disk)."""
    return _kind(cfg).compiled(cfg)


def counts(cfg):
    """One partition's constraints, inputs (with ONE) and aux, from the gadgets' sizes (nothing built)."""
    if isinstance(cfg, PorepConfig):
        return porep_circuit.counts(cfg)
    return (snap_circuit if isinstance(cfg, SnapConfig) else post_circuit).counts(cfg)
