"""A circom circuit registered from config (.zkey), proven by the engine from .wtns bytes."""

import json
from pathlib import Path

import pytest
from groth16_oracle import snarkjs_vk, verify_job

from cuzk.engine import Engine, EngineConfig, JobState, ProofRequest

FIXTURE = Path("/work/shared/fixtures/circom/bits_mix/bls12381")
pytestmark = pytest.mark.skipif(not (FIXTURE / "bits_mix.zkey").exists(), reason="circom fixtures not present")


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(tmp_path_factory.mktemp("circom-state"))
    cfg.circuits.circom = [{"id": "bits-mix", "zkey": str(FIXTURE / "bits_mix.zkey"), "proof_kind": "winning-post"}]
    cfg.gpus.backend = "cpu"
    cfg.gpus.gpu_threads = 1
    with Engine(cfg) as e:
        yield e


def test_circom_job_proves_and_verifies(engine):
    wtns = (FIXTURE / "witness.wtns").read_bytes()
    r = engine.prove(ProofRequest(circuit_id="bits-mix", vanilla_proof=wtns), timeout=600)
    assert r.state == JobState.COMPLETED, r.error
    # the oracle: snarkjs's own verifying key and public signals for this witness, read by arkworks
    public = [int(x) for x in json.loads((FIXTURE / "public.json").read_text())]
    vk = snarkjs_vk(FIXTURE / "vk.json")
    assert r.public_inputs == [public]
    assert verify_job(vk, r.proof, [public])
    assert not verify_job(vk, r.proof, [[public[0] + 1] + public[1:]])


def test_circom_bad_witness_fails_clearly(engine):
    r = engine.prove(ProofRequest(circuit_id="bits-mix", vanilla_proof=b"wtns\x02\x00\x00\x00junk"), timeout=600)
    assert r.state == JobState.FAILED and "bits-mix: vanilla_proof" in r.error
    r = engine.prove(ProofRequest(proof_kind=4, vanilla_proof=(FIXTURE / "witness.wtns").read_bytes()[:-32]),
                     timeout=600)
    assert r.state == JobState.FAILED and "vanilla_proof" in r.error
