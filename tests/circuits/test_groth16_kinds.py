"""A Groth16 proof of each workload model (tiny preset) verifies, and fails
with a changed public input. porep-c2-like and snap-like are SHA-256 heavy
even at tiny (~2^18 and ~2^19 constraints): parameter generation dominates,
so they are marked slow. (Filecoin's PoSt circuits: tests/filecoin and
tests/engine/test_filecoin_post.py.)"""

import pytest

from cuzk.circuits import KINDS, get_kind
from cuzk.groth16 import prover, setup
from cuzk.groth16.verifier import PreparedVerifyingKey, verify
from cuzk.r1cs import evaluate

SLOW = {"porep-c2-like", "snap-like"}


@pytest.mark.parametrize("name", [pytest.param(k, marks=pytest.mark.slow) if k in SLOW else k for k in KINDS])
def test_groth16_proof_of_tiny_partition_verifies(name):
    kind = get_kind(name)
    cc = kind.compile("tiny")
    vanilla = kind.make_vanilla("tiny", 3)
    p = kind.partitions - 1
    w, public = kind.witness("tiny", vanilla, p)
    assert public == kind.public_inputs("tiny", vanilla)[p]
    pk = setup.generate(cc, progress=False)
    proof = prover.prove(pk, w, evaluate(cc, w))
    pvk = PreparedVerifyingKey(pk.vk)
    assert verify(pvk, proof, public)
    assert not verify(pvk, proof, [public[0] + 1] + public[1:])
