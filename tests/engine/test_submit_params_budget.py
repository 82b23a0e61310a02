"""A job whose parameters and one partition's working memory together exceed memory.total_budget can
never run (the parameters stay hot while it proves): refused at submit, naming the budget; so is one whose
device-memory budget (gpus.memory_limit) cannot hold one chunk of its proof, naming what it needs."""

from __future__ import annotations

import math
import re

import pytest
from groth16_oracle import assert_proves

from cuzk.engine import JobState
from cuzk.engine.errors import BudgetTooSmall
from cuzk.engine.types import ProofRequest

CID = "synthetic-tiny"


def test_parameters_and_working_memory_beyond_the_budget_are_refused_at_submit(make_engine, vanilla):
    probe = make_engine()
    probe.preload(CID)
    hot = probe.srs.hot_bytes()
    need = probe.registry.get(CID).working_bytes()
    total = need + hot // 2  # room for the working set, not for the parameters beside it
    engine = make_engine(memory__total_budget=str(total))
    engine.srs.verifying_key(CID)  # the key is open (warm): its decoded size is known without reading
    with pytest.raises(BudgetTooSmall, match=r"parameters' .* but the budget \(memory.total_budget\) is"):
        engine.submit(ProofRequest(circuit_id=CID, vanilla_proof=vanilla()))
    assert engine.store.active() == []
    roomy = make_engine(memory__total_budget=str(need + 2 * hot))
    roomy.srs.verifying_key(CID)
    assert roomy.submit(ProofRequest(circuit_id=CID, vanilla_proof=vanilla())).job_id


def test_a_device_budget_too_small_for_the_circuit_is_refused_at_submit_naming_what_it_needs(make_engine, vanilla):
    small = make_engine(gpus__memory_limit="4KiB")
    small.preload(CID)  # the key in memory: its proof's shape is known at submit
    with pytest.raises(BudgetTooSmall, match=r"gpus.memory_limit.*too small .* needs at least ") as refused:
        small.submit(ProofRequest(circuit_id=CID, vanilla_proof=vanilla()))
    assert small.store.active() == []
    value, unit = re.search(r"needs at least ([0-9.]+) (GiB|MiB|KiB)", str(refused.value)).groups()
    named = math.ceil(float(value) * {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10}[unit] * 1.01)
    # what it names is enough: under that budget the job is accepted and its proof verifies
    enough = make_engine(gpus__memory_limit=str(named))
    enough.preload(CID)
    v = vanilla()
    r = enough.prove(ProofRequest(circuit_id=CID, vanilla_proof=v), 900)
    assert r.state == JobState.COMPLETED, r.error
    assert_proves(enough.config.param_dir(), r.circuit_id, v, r.proof, r.public_inputs)
