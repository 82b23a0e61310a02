"""A job whose parameters and one partition's working memory together exceed memory.total_budget can
never run (the parameters stay hot while it proves): refused at submit, naming the budget (issue 44)."""

from __future__ import annotations

import pytest

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
