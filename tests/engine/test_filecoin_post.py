"""Filecoin PoSt through the engine from requests shaped as Curio sends them: proofs verify (arkworks,
outside oracle) under the .vk `cuzk setup --kind` wrote by Filecoin's file name (the session's
`filecoin_params`), against public inputs derived from the randomness (post_requests.py); bad vanilla
proofs are refused at submit, naming sector and field."""

from __future__ import annotations

import pytest
from groth16_oracle import R, read_vk, verify_job, verify_one
from post_requests import request_fields, statement as _statement

from cuzk.circuits.filecoin.post import provable as post_kind
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for
from cuzk.engine.errors import InvalidRequest, MissingParameters
from cuzk.engine.types import JobState, Priority, ProofKind, ProofRequest

TIMEOUT = 900
KINDS = {"window": ProofKind.WINDOW_POST_PARTITION, "winning": ProofKind.WINNING_POST}


def request(kind: str, seed: int, **over) -> ProofRequest:
    fields = request_fields(kind, seed, **over)
    fields["proof_kind"] = KINDS[kind]
    return ProofRequest(**fields)


def statement(kind: str, req: ProofRequest) -> list[int]:
    """The public inputs a verifier derives (post_requests.statement: from the randomness, the sector
    ids and comm_r in the proofs' own bytes)."""
    return _statement(kind, {"vanilla_proofs": req.vanilla_proofs, "randomness": req.randomness})


def test_curio_requests_prove_and_verify(make_engine, filecoin_params):
    engine = make_engine(circuits__filecoin_params=str(filecoin_params), gpus__gpu_threads=0,
                         synthesis__kernel_threads=0)
    reqs = {kind: request(kind, seed) for seed, kind in enumerate(KINDS)}
    ids = {kind: engine.submit(r).job_id for kind, r in reqs.items()}
    for kind, job_id in ids.items():
        res = engine.await_job(job_id, TIMEOUT)
        assert res.state == JobState.COMPLETED, res.error
        cfg = post_config_for(kind, SECTOR_SIZES["2KiB"])
        assert res.circuit_id == f"{kind}-post-2KiB"
        assert res.priority == (Priority.CRITICAL if kind == "winning" else Priority.HIGH)
        vk = read_vk(filecoin_params / f"{post_kind.parameter_stem(cfg)}.vk")
        expected = statement(kind, reqs[kind])
        assert [list(map(int, xs)) for xs in res.public_inputs] == [expected]
        assert verify_job(vk, res.proof, [expected])
        assert not verify_one(vk, res.proof, [(expected[0] + 1) % R] + expected[1:])


def test_bad_vanilla_proofs_are_refused_at_submit(make_engine, filecoin_params):
    engine = make_engine(circuits__filecoin_params=str(filecoin_params), gpus__gpu_threads=0,
                         synthesis__kernel_threads=0)
    good = request("window", 7)
    leaf_flipped = bytearray(good.vanilla_proofs[1])
    sector = int.from_bytes(leaf_flipped[:8], "little")
    leaf_flipped[-64 - 40] ^= 1  # the last inclusion proof's leaf (then root, then comm_c, comm_r_last)
    cases = {
        "leaf": (dict(vanilla_proofs=[good.vanilla_proofs[0], bytes(leaf_flipped)]), f"sector {sector}"),
        "truncated": (dict(vanilla_proofs=[good.vanilla_proofs[0][:-5]]), "vanilla_proofs[0]"),
        "randomness": (dict(randomness=good.randomness[:31]), "randomness"),
        "registered proof": (dict(registered_proof=3), "registered_proof"),  # Winning32GiBV1 for a window request
        "other randomness": (dict(randomness=bytes(32)), "challenge"),
    }
    accepted = engine.submit(good).job_id  # in the queue while the bad ones arrive
    for name, (change, says) in cases.items():
        bad = ProofRequest(**{**good.__dict__, **change})
        with pytest.raises(InvalidRequest) as err:
            engine.submit(bad)
        assert says in str(err.value), (name, str(err.value))
        assert "\n" not in str(err.value)
    res = engine.await_job(accepted, TIMEOUT)  # nothing accepted was lost
    assert res.state == JobState.COMPLETED, res.error
    st = engine.status()
    assert (st.completed, st.failed) == (1, 0)  # the refused requests never became jobs


def test_missing_parameters_are_refused_at_submit_naming_the_file(make_engine, tmp_path):
    engine = make_engine(circuits__filecoin_params=str(tmp_path))
    for kind in KINDS:
        with pytest.raises(MissingParameters) as err:
            engine.submit(request(kind, 1))
        # rust-fil-proofs' name of the PoSt parameters (filecoin-proof-parameters' parameters.json)
        assert f"{tmp_path}/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-" in str(err.value)
        assert ".params" in str(err.value) and "\n" not in str(err.value)
    st = engine.status()
    assert (st.jobs, st.completed, st.failed) == ([], 0, 0)  # never became jobs


def test_the_catalog_derives_the_public_inputs_a_verifier_derives(tmp_path):
    """spec.public_inputs (what `cuzk bench` checks daemon proofs against) is the statement the outside
    oracle derives from the request's randomness and the sectors in its proofs' bytes."""
    from cuzk.engine.catalog import filecoin_post

    for seed, kind in enumerate(KINDS, start=3):
        spec = filecoin_post.make_spec(kind, "2KiB", tmp_path)
        req = request(kind, seed)
        assert spec.public_inputs(req) == [statement(kind, req)]
