"""Filecoin's PoRep C2 through the engine from requests shaped as Curio sends them (the C1 envelope,
registered proof, sector number, miner id): checked at submit (a bad C1 output, another miner's or
sector's, a size mismatch or non-interactive PoRep refused in one line naming the field), a 2 KiB
partition's witness satisfies the compiled circuit for the public inputs a verifier derives, and
(opt-in on the CPU, always on a GPU) the whole path: test parameters under the Filecoin file name, a
proof out, verified by arkworks (outside oracle) against those public inputs."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from sector_proofs import proving_tests, refused_at_submit, setup_refuses_a_size, witness_satisfies_the_circuit

from cuzk.circuits.filecoin.porep.challenges import interactive_challenges, public_inputs
from cuzk.circuits.filecoin.porep.config import porep_config
from cuzk.circuits.filecoin.porep.sdr import SdrGraph
from cuzk.engine.errors import InvalidRequest
from cuzk.engine.types import ProofKind, ProofRequest
from cuzk.circuits.filecoin.porep.request import sample_request

V1_1_2K = 5  # Go abi.RegisteredSealProof StackedDrg2KiBV1_1
PARAMS_STEM = ("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
               "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f")  # rust-fil-proofs parameters.json


def request(seed: int = 1, number: int = V1_1_2K, **over) -> ProofRequest:
    fields = sample_request(porep_config(number), seed)
    fields["proof_kind"] = ProofKind.POREP_SEAL_COMMIT
    fields.update(over)
    return ProofRequest(**fields)


def inner(req: ProofRequest) -> dict:
    """The SealCommitPhase1Output JSON inside Curio's envelope, decoded with the json module (test only:
    2 KiB)."""
    return json.loads(base64.b64decode(json.loads(req.vanilla_proof)["Phase1Out"]))


def rewrap(req: ProofRequest, doc: dict) -> bytes:
    env = json.loads(req.vanilla_proof)
    env["Phase1Out"] = base64.b64encode(json.dumps(doc, separators=(",", ":")).encode()).decode()
    return json.dumps(env, separators=(",", ":")).encode()


def statement(req: ProofRequest) -> list[list[int]]:
    """Each partition's public inputs as a verifier derives them: replica_id, comm_d and comm_r from the
    C1 output's bytes, the challenges from replica_id and the seed, their parents from the graph."""
    doc = inner(req)
    cfg = porep_config(doc_number(doc))
    val = lambda k: int.from_bytes(bytes(doc[k]), "little")  # noqa: E731
    graph = SdrGraph.for_proof(cfg.registered_proof)
    out = []
    for p in range(cfg.partitions):
        ch = interactive_challenges(cfg, bytes(doc["replica_id"]), bytes(doc["seed"]), p).astype(np.int64)
        out.append(public_inputs(val("replica_id"), val("comm_d"), val("comm_r"), ch, graph.drg_parents(ch),
                                 graph.expander_parents(ch)))
    return out


def doc_number(doc: dict) -> int:
    from cuzk.circuits.filecoin.porep.c1_layout import API_NAMES

    return {v: k for k, v in API_NAMES.items()}[doc["registered_proof"]]


def test_curio_requests_are_checked_at_submit(make_engine, tmp_path):
    """A good request is accepted (and, with no parameters in the folder, fails naming the file it
    looked for); bad ones are refused at submit, one line each, and never become jobs."""
    engine = make_engine(circuits__filecoin_params=str(tmp_path), gpus__gpu_threads=0)
    good = request(3)
    doc = inner(good)
    sib = json.loads(json.dumps(doc))
    sib["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["comm_d_proofs"]["data"]["Single"]["path"]["path"][2][
        "hashes"][0][5] ^= 1
    cases = {
        "sibling": (dict(vanilla_proof=rewrap(good, sib)), "partition 0, challenge 1"),
        "miner": (dict(miner_id=good.miner_id + 1), "replica_id"),
        "sector": (dict(sector_number=good.sector_number + 1), "sector_number"),
        "size": (dict(registered_proof=6), "8MiB"),  # StackedDrg8MiBV1_1: another circuit than the C1 output's
        "truncated": (dict(vanilla_proof=good.vanilla_proof[:-9]), "C1 output"),
        "no vanilla proof": (dict(vanilla_proof=b""), "no vanilla proof"),
    }
    refused_at_submit(engine, good, cases, "porep-2KiB", PARAMS_STEM)


def test_non_interactive_porep_is_refused(make_engine, tmp_path):
    engine = make_engine(circuits__filecoin_params=str(tmp_path))
    with pytest.raises(InvalidRequest, match="not non-interactive PoRep"):
        engine.submit(request(4, number=15))  # StackedDrg2KiBV1_2_Feat_NiPoRep: 13 partitions


def test_partition_witness_satisfies_the_circuit():
    """The engine's view of a 2 KiB request: the witness of its one partition satisfies the compiled
    circuit (SpMV) and its public inputs are the ones a verifier derives."""
    from cuzk.circuits.filecoin.porep import provable as porep
    from cuzk.engine.catalog.filecoin_sector import make_spec

    req = request(5)
    witness_satisfies_the_circuit(make_spec(porep, "2KiB", "/nonexistent"), req, statement(req))


test_curio_request_proves_and_verifies_cpu, test_curio_request_proves_and_verifies_gpu = proving_tests(
    "porep", request, statement, "porep-2KiB", PARAMS_STEM, "PoRep on the CPU takes minutes (setup ~2-4, proof ~1)")


def test_setup_of_porep_refuses_a_size_filecoin_lacks_before_any_work(tmp_path, capsys):
    setup_refuses_a_size("porep", tmp_path, capsys)
