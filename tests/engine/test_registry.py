"""Which circuit a request selects: proof kind + sector_size / registered_proof -> preset,
circuit ids and kind names; unknown sizes and unserved presets are clear errors."""

import pytest

from cuzk.engine import EngineConfig, ProofKind, ProofRequest
from cuzk.engine.catalog.served import build_registry
from cuzk.engine.errors import UnknownCircuit


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(tmp_path_factory.mktemp("registry"))
    return build_registry(cfg)  # nothing is compiled or generated until a job needs it


def cid(registry, **kw):
    return registry.resolve(ProofRequest(**kw)).circuit_id


def test_proof_kinds_map_to_the_workload_kinds_by_sector_size(registry):
    assert cid(registry, proof_kind=ProofKind.POREP_SEAL_COMMIT) == "porep-c2-like-tiny"
    assert cid(registry, proof_kind=ProofKind.SNAP_DEALS_UPDATE, sector_size=8 << 20) == "snap-like-small"
    assert cid(registry, proof_kind=ProofKind.WINDOW_POST_PARTITION, registered_proof=12) == "window-post-like-medium"
    assert cid(registry, proof_kind=ProofKind.WINNING_POST, sector_size=2048) == "winning-post-like-tiny"
    spec = registry.resolve(ProofRequest(proof_kind=ProofKind.POREP_SEAL_COMMIT))
    assert (spec.num_partitions, spec.batchable, spec.default_priority.name) == (10, True, "NORMAL")
    assert registry.resolve(ProofRequest(proof_kind=ProofKind.SNAP_DEALS_UPDATE)).num_partitions == 16


def test_circuit_ids_and_names(registry):
    assert cid(registry, circuit_id="snap-like-medium") == "snap-like-medium"
    assert cid(registry, circuit_id="winning-post-like", sector_size=512 << 20) == "winning-post-like-medium"
    assert registry.lookup("winning-post", "small").circuit_id == "winning-post-like-small"
    assert registry.lookup("porep-c2-like").circuit_id == "porep-c2-like-tiny"
    with pytest.raises(UnknownCircuit, match="proves WINNING_POST, not POREP_SEAL_COMMIT"):
        registry.resolve(ProofRequest(circuit_id="winning-post-like-tiny", proof_kind=ProofKind.POREP_SEAL_COMMIT))


def test_unknown_sizes_and_unserved_presets_are_clear(registry):
    with pytest.raises(UnknownCircuit, match="no preset for sector size 12345"):
        registry.resolve(ProofRequest(proof_kind=ProofKind.WINNING_POST, sector_size=12345))
    with pytest.raises(UnknownCircuit, match="at preset '32g'"):
        registry.resolve(ProofRequest(proof_kind=ProofKind.POREP_SEAL_COMMIT, sector_size=32 << 30))
    with pytest.raises(UnknownCircuit, match="unknown circuit 'synthetic-tiny'"):  # only when configured
        registry.resolve(ProofRequest(circuit_id="synthetic-tiny"))
