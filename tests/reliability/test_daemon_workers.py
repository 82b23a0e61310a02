"""A pipeline worker thread that dies is replaced; the unit it held is retried once or its
jobs fail with a message, never dropped (engine in process, faults from cuzk.engine.pipeline.faults)."""

from __future__ import annotations

import dataclasses

from reliability_helpers import CID, engine_config, vanilla, wait_until

from cuzk.engine import Engine, JobState, ProofRequest
from cuzk.engine.pipeline import faults
from cuzk.engine.catalog.served import build_registry
from cuzk.engine.errors import WorkerDeath


def _alive(threads):
    return sum(t.is_alive() for t in threads)


def test_prover_worker_death_is_retried_then_failed(tmp_path, param_dir):
    engine = Engine(engine_config(tmp_path, param_dir)).start()
    rules = faults.parse("die_once=crash-,die=doom-")
    # on each job's first partition only (synthetic-tiny has two): one dying pass per attempt
    engine.fault_injector = lambda item: rules(item) if item.unit.partition == 0 else None
    try:
        provers = _alive(engine._threads)
        crash = engine.prove(ProofRequest(circuit_id=CID, request_id="crash-1", vanilla_proof=vanilla(1)),
                             timeout=600)
        assert crash.state == JobState.COMPLETED and crash.retries == 1  # the replacement proved it
        doom = engine.prove(ProofRequest(circuit_id=CID, request_id="doom-1", vanilla_proof=vanilla(2)),
                            timeout=600)
        assert doom.state == JobState.FAILED and doom.retries == 1
        assert "after 2 attempt(s): the prover worker died (WorkerDeath" in doom.error
        wait_until(lambda: engine.worker_restarts == 3, what="three replacements")  # the job ends first
        wait_until(lambda: _alive(engine._threads) == provers, what="every prover worker replaced")
        ok = engine.prove(ProofRequest(circuit_id=CID, vanilla_proof=vanilla(3)), timeout=600)
        assert ok.state == JobState.COMPLETED
    finally:
        engine.shutdown(drain=False)


def test_synthesis_worker_death_is_retried_once(tmp_path, param_dir):
    cfg = engine_config(tmp_path, param_dir)
    registry = build_registry(cfg)
    real = registry.get(CID)
    deaths = {"once": 0, "always": 0}

    def dying_parse(which):
        def parse(request):
            if which == "always" or deaths[which] == 0:
                deaths[which] += 1
                raise WorkerDeath(f"synthesis worker killed ({which})")
            return real.parse(request)
        return parse

    for which in deaths:
        registry.register(dataclasses.replace(real, circuit_id=f"dies-{which}", parse=dying_parse(which)))
    engine = Engine(cfg, registry=registry).start()
    try:
        synths = _alive(engine._synth_threads)
        once = engine.prove(ProofRequest(circuit_id="dies-once", vanilla_proof=vanilla(4)), timeout=600)
        assert once.state == JobState.COMPLETED and deaths["once"] == 1
        always = engine.prove(ProofRequest(circuit_id="dies-always", vanilla_proof=vanilla(5)), timeout=600)
        assert always.state == JobState.FAILED and "synthesis worker died twice" in always.error
        assert deaths["always"] == 2
        wait_until(lambda: engine.worker_restarts == 3, what="three replacements")  # the job ends first
        wait_until(lambda: _alive(engine._synth_threads) == synths, what="every synthesis worker replaced")
    finally:
        engine.shutdown(drain=False)
