"""A real engine (CPU backend, the synthetic two-partition circuit) whose trace the tests read."""

from __future__ import annotations

import pytest

from cuzk.engine import Engine

from trace_helpers import engine_config, prove_jobs


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("trace-state")


@pytest.fixture(scope="session")
def recorded(state_dir):
    """(job ids, the engine's JSON-lines trace, its lanes) of three jobs proven on a fresh engine."""
    with Engine(engine_config(state_dir, synthesis__threads=1)) as engine:
        ids = prove_jobs(engine, 3)
        text = engine.trace.jsonl()
        lanes = [x["lane"] for x in engine.trace.active()]
    return ids, text, lanes
