"""Which circuit a request selects: proof kind + sector_size / registered_proof -> size, circuit ids,
family and kind names; unknown sizes and unserved presets are clear errors."""

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


def test_proof_kinds_map_to_the_circuits_by_sector_size(registry):
    # Filecoin's PoRep: by Go's abi.RegisteredSealProof (8 = StackedDrg32GiBV1_1), or sector size
    assert cid(registry, proof_kind=ProofKind.POREP_SEAL_COMMIT) == "porep-2KiB"
    assert cid(registry, proof_kind=ProofKind.POREP_SEAL_COMMIT, registered_proof=8) == "porep-32GiB"
    assert cid(registry, proof_kind=ProofKind.POREP_SEAL_COMMIT, sector_size=512 << 20) == "porep-512MiB"
    # Filecoin's SnapDeals: by Go's abi.RegisteredUpdateProof (3 = StackedDrg32GiBV1), or sector size
    assert cid(registry, proof_kind=ProofKind.SNAP_DEALS_UPDATE, sector_size=8 << 20) == "snap-8MiB"
    assert cid(registry, proof_kind=ProofKind.SNAP_DEALS_UPDATE, registered_proof=3) == "snap-32GiB"
    # Filecoin's PoSt: by Go's abi.RegisteredPoStProof (12 = StackedDrgWindow512MiBV1_1), or sector size
    assert cid(registry, proof_kind=ProofKind.WINDOW_POST_PARTITION, registered_proof=12) == "window-post-512MiB"
    assert cid(registry, proof_kind=ProofKind.WINNING_POST, sector_size=2048) == "winning-post-2KiB"
    assert cid(registry, proof_kind=ProofKind.WINNING_POST, registered_proof=3) == "winning-post-32GiB"
    spec = registry.resolve(ProofRequest(proof_kind=ProofKind.POREP_SEAL_COMMIT, registered_proof=13))
    assert (spec.num_partitions, spec.batchable, spec.default_priority.name) == (10, True, "NORMAL")
    assert registry.resolve(ProofRequest(proof_kind=ProofKind.SNAP_DEALS_UPDATE, registered_proof=3)).num_partitions == 16


def test_circuit_ids_and_names(registry):
    assert cid(registry, circuit_id="snap-512MiB") == "snap-512MiB"
    assert cid(registry, circuit_id="winning-post", sector_size=512 << 20) == "winning-post-512MiB"
    assert cid(registry, circuit_id="snap", sector_size=512 << 20) == "snap-512MiB"
    assert registry.lookup("winning-post", "8MiB").circuit_id == "winning-post-8MiB"
    assert registry.lookup("WINDOW_POST_PARTITION", "32GiB").circuit_id == "window-post-32GiB"
    assert registry.lookup("porep").circuit_id == "porep-2KiB"  # a family at its first (smallest) size
    assert cid(registry, circuit_id="porep") == "porep-2KiB"
    assert registry.presets("window-post")[0] == "2KiB" and registry.presets("porep")[0] == "2KiB"
    assert registry.presets("window-post-2KiB") == [] and registry.presets("nope") == []
    with pytest.raises(UnknownCircuit, match="proves WINNING_POST, not POREP_SEAL_COMMIT"):
        registry.resolve(ProofRequest(circuit_id="winning-post-2KiB", proof_kind=ProofKind.POREP_SEAL_COMMIT))


def test_unknown_sizes_and_unserved_presets_are_clear(registry):
    with pytest.raises(UnknownCircuit, match="no Filecoin SnapDeals update for 12345 bytes"):
        registry.resolve(ProofRequest(proof_kind=ProofKind.SNAP_DEALS_UPDATE, sector_size=12345))
    with pytest.raises(UnknownCircuit, match="no Filecoin PoSt for 12345 bytes"):
        registry.resolve(ProofRequest(proof_kind=ProofKind.WINNING_POST, sector_size=12345))
    with pytest.raises(UnknownCircuit, match="no Filecoin PoRep for 12345 bytes"):
        registry.resolve(ProofRequest(proof_kind=ProofKind.POREP_SEAL_COMMIT, sector_size=12345))
    with pytest.raises(UnknownCircuit, match="does not match registered_proof StackedDrg2KiBV1_1"):
        registry.resolve(ProofRequest(proof_kind=ProofKind.POREP_SEAL_COMMIT, registered_proof=5, sector_size=8 << 20))
    with pytest.raises(UnknownCircuit, match="unknown circuit 'synthetic-tiny'"):  # only when configured
        registry.resolve(ProofRequest(circuit_id="synthetic-tiny"))


def test_request_fields_name_their_proof_kind(registry):
    """A request's fields as CircuitSpec.sample_request gives them name the proof kind (as gRPC's enum
    names it); the request takes the name, and the registry routes it like the number."""
    fields = registry.get("winning-post-2KiB").sample_request(1)
    assert fields["proof_kind"] == "WINNING_POST" and "vanilla_proof" not in fields
    req = ProofRequest(**fields)
    assert req.proof_kind is ProofKind.WINNING_POST and registry.resolve(req).circuit_id == "winning-post-2KiB"
    assert ProofRequest(proof_kind="window-post").proof_kind is ProofKind.WINDOW_POST_PARTITION
