"""Filecoin's SnapDeals update through the engine from requests shaped as Curio sends them (one bincode
PartitionProof per partition, the registered update proof, comm_r_old / comm_r_new / comm_d_new):
found by registered proof or sector size; checked at submit (a wrong commitment, a broken Merkle
path, a wrong partition count or an unknown registered proof refused in one line naming the field);
a 2 KiB partition's witness satisfies the compiled circuit for the public inputs a verifier derives;
and (opt-in on the CPU, always on a GPU) the whole path: test parameters under the Filecoin file
name, a proof out, verified by arkworks (outside oracle) against those public inputs."""

from __future__ import annotations

import pytest
from sector_proofs import proving_tests, refused_at_submit, setup_refuses_a_size, witness_satisfies_the_circuit

from cuzk.circuits.filecoin.snap.config import snap_config
from cuzk.engine.catalog.served import build_registry
from cuzk.engine.config import EngineConfig
from cuzk.engine.errors import UnknownCircuit
from cuzk.engine.types import Priority, ProofKind, ProofRequest
from cuzk.circuits.filecoin.snap import vanilla_bincode as sv
from cuzk.circuits.filecoin.snap.request import sample_request

# rust-fil-proofs parameters.json: StackedDrg2KiBV1's update parameters
PARAMS_STEM = ("v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
               "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194")


def request(seed: int = 1, number: int = 0, **over) -> ProofRequest:
    fields = sample_request(snap_config(number), seed)
    fields["proof_kind"] = ProofKind.SNAP_DEALS_UPDATE
    fields.update(over)
    return ProofRequest(**fields)


def statement(req: ProofRequest) -> list[list[int]]:
    """Each partition's public inputs as rust-fil-proofs forms them (circuit.rs PublicInputs::to_vec),
    from the request's bytes and the Rust constants, not from the engine: for 2 KiB hs = [1] * 6
    (constants.rs hs(): sectors up to 32 KiB), h = hs[3] (filecoin-proofs HSelect::from_nodes), one
    partition, so k_and_h_select = k | 2^index(h) << log2(1) = 1."""
    val = lambda name: int.from_bytes(getattr(req, name), "little")  # noqa: E731
    hs = [1] * 6
    h = hs[3]
    return [[0 | (1 << hs.index(h)), val("comm_r_old"), val("comm_d_new"), val("comm_r_new")]]


def broken_path(req: ProofRequest) -> list[bytes]:
    """Partition 0 with challenge 1's first tree R old sibling changed (still a field element)."""
    cfg = snap_config(int(req.registered_proof))
    proof = sv.decode_partition_proof(req.vanilla_proofs[0], cfg, check_paths=False)
    proof.r_old.siblings[0][1, 0, 0] ^= 1
    return [sv.encode_partition_proof(proof, cfg)]


def test_requests_find_the_circuit_by_registered_proof_or_size(tmp_path):
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(tmp_path)
    registry = build_registry(cfg)

    def cid(**kw):
        return registry.resolve(ProofRequest(proof_kind=ProofKind.SNAP_DEALS_UPDATE, **kw)).circuit_id

    # Go's abi.RegisteredUpdateProof: 0-4 = StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 (Curio prover.rs)
    assert [cid(registered_proof=n) for n in range(1, 5)] == ["snap-8MiB", "snap-512MiB", "snap-32GiB", "snap-64GiB"]
    assert cid() == "snap-2KiB"  # registered proof 0
    assert cid(sector_size=32 << 30) == "snap-32GiB"
    assert cid(registered_proof=3, sector_size=32 << 30) == "snap-32GiB"
    spec = registry.lookup("snap", "32GiB")
    assert (spec.circuit_id, spec.num_partitions, spec.batchable, spec.default_priority) == (
        "snap-32GiB", 16, True, Priority.NORMAL)  # storage-proofs-update constants.rs partition_count
    assert registry.presets("snap") == ["2KiB", "8MiB", "512MiB", "32GiB", "64GiB"]
    for kw, says in ((dict(registered_proof=7), "registered_proof: unknown RegisteredUpdateProof 7"),
                     (dict(sector_size=12345), "sector_size: no Filecoin SnapDeals update for 12345 bytes"),
                     (dict(registered_proof=3, sector_size=2048), "does not match registered_proof 3")):
        with pytest.raises(UnknownCircuit, match=says):
            cid(**kw)


def test_curio_requests_are_checked_at_submit(make_engine, tmp_path):
    """A good request is accepted (and, with no parameters in the folder, fails naming the file it
    looked for); bad ones are refused at submit, one line each naming the field, and never become jobs."""
    engine = make_engine(circuits__filecoin_params=str(tmp_path), gpus__gpu_threads=0)
    good = request(3)
    other = bytearray(good.comm_r_new)
    other[0] ^= 1
    cases = {
        "comm_r_new": (dict(comm_r_new=bytes(other)), "partition 0: comm_c: Poseidon(comm_c, root_r_new) is not "
                                                      "the public comm_r_new"),
        "merkle path": (dict(vanilla_proofs=broken_path(good)), "partition 0: challenge 1: proof_r_old: leaf and "
                                                                "path hash to"),
        "partitions": (dict(vanilla_proofs=list(good.vanilla_proofs) * 2), "vanilla_proofs: expected 1 partition"),
        "registered proof": (dict(registered_proof=9), "registered_proof: unknown RegisteredUpdateProof 9"),
        "size": (dict(registered_proof=1), "vanilla_proofs: expected 4 partition"),  # an 8 MiB update has 4
        "comm_d_new": (dict(comm_d_new=good.comm_d_new[:31]), "comm_d_new: expected 32 bytes, got 31"),
        "comm_r_old >= r": (dict(comm_r_old=b"\xff" * 32), "comm_r_old: not a field element"),
        "truncated": (dict(vanilla_proofs=[good.vanilla_proofs[0][:-9]]), "partition 0"),
    }
    refused_at_submit(engine, good, cases, "snap-2KiB", PARAMS_STEM)


def test_partition_witness_satisfies_the_circuit():
    """The engine's view of a 2 KiB request: the witness of its one partition satisfies the compiled
    circuit (SpMV) and its public inputs are the ones a verifier derives."""
    from cuzk.circuits.filecoin.snap import provable as snap
    from cuzk.engine.catalog.filecoin_sector import make_spec

    req = request(5)
    assert len(statement(req)) == 1
    witness_satisfies_the_circuit(make_spec(snap, "2KiB", "/nonexistent"), req, statement(req))


test_curio_request_proves_and_verifies_cpu, test_curio_request_proves_and_verifies_gpu = proving_tests(
    "snap", request, statement, "snap-2KiB", PARAMS_STEM, "SnapDeals proof on the CPU takes minutes (setup of 1.7M constraints)")


def test_gen_vanilla_writes_a_curio_shaped_request(tmp_path):
    """`cuzk bench gen-vanilla --kind snap` writes the request as Curio's fields (JSON, bytes base64),
    which reads back as the same request and passes the submit-time check."""
    from cuzk.bench.circuit_inputs import read_inputs_file
    from cuzk.cli.main import main
    from cuzk.circuits.filecoin.snap import provable as snap
    from cuzk.engine.catalog.filecoin_sector import make_spec
    from cuzk.formats.filecoin.request_json import to_json

    path = tmp_path / "snap.json"
    assert main(["bench", "gen-vanilla", "--kind", "snap", "--preset", "2KiB", "--out", str(path), "--seed", "4"]) == 0
    assert path.read_bytes() == to_json(sample_request(snap_config(0), 4))
    (fields,) = read_inputs_file(str(path))
    assert fields["proof_kind"] == "SNAP_DEALS_UPDATE" and len(fields["vanilla_proofs"]) == 1
    assert {"comm_r_old", "comm_r_new", "comm_d_new", "registered_proof"} <= set(fields)
    req = ProofRequest(**fields)
    assert make_spec(snap, "2KiB", "/nonexistent").public_inputs(req) == statement(req)


def test_setup_of_snap_refuses_a_size_filecoin_lacks_before_any_work(tmp_path, capsys):
    setup_refuses_a_size("snap", tmp_path, capsys)
