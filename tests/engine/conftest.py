"""Engines serving Filecoin's circuits plus the synthetic circuit, sharing one parameter directory
per test session; Filecoin's circuits read the session's test parameters (the `filecoin_params`
fixture, tests/conftest.py) where a test passes them."""

from __future__ import annotations

import pytest

from cuzk.engine import Engine, EngineConfig
from cuzk.engine.catalog import synthetic


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cuzk-state")


@pytest.fixture
def make_engine(state_dir):
    engines = []

    def make(**settings):
        cfg = EngineConfig()
        cfg.daemon.state_dir = str(state_dir)
        cfg.circuits.synthetic = True
        cfg.gpus.backend = "cpu"
        cfg.gpus.gpu_threads = 1  # tiny circuits: parallel kernels only add overhead
        for dotted, value in settings.items():
            section, key = dotted.split("__")
            setattr(getattr(cfg, section), key, value)
        engine = Engine(cfg).start()
        engines.append(engine)
        return engine

    yield make
    for e in engines:
        e.shutdown(drain=False)


@pytest.fixture(scope="session")
def vanilla():
    """A fresh valid vanilla proof for the synthetic circuit at the tiny preset."""
    def make() -> bytes:
        return synthetic.generate_vanilla("tiny")

    return make
