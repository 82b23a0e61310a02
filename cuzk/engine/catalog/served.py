"""The circuits a configured engine serves (the cluster front builds the same registry as its nodes)."""

from __future__ import annotations

from ..config import EngineConfig
from ..types import ProofKind
from . import circom, filecoin_post, filecoin_sector, synthetic
from .registry import CircuitRegistry


def build_registry(config: EngineConfig) -> CircuitRegistry:
    """Filecoin's circuits (PoSt, PoRep, SnapDeals) at every size, the synthetic test circuit if
    enabled, and circom circuits from config."""
    registry = CircuitRegistry()
    filecoin_post.register(registry, config.filecoin_params_dir())
    filecoin_sector.register(registry, config.filecoin_params_dir())
    if config.circuits.synthetic:
        synthetic.register(registry, config.param_dir())
    for entry in config.circuits.circom:
        spec = circom.make_spec(entry)
        registry.register(spec, default_for_kind=spec.proof_kind != ProofKind.UNSPECIFIED)
    return registry
