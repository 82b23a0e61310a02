"""Shared by the trace tests: an engine config on the synthetic circuit, and proving jobs on it."""

from __future__ import annotations

from cuzk.engine import Engine, EngineConfig, ProofRequest, synthetic

CIRCUIT = "synthetic-tiny"


def engine_config(state_dir, **settings) -> EngineConfig:
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(state_dir)
    cfg.circuits.presets = ["tiny"]
    cfg.circuits.synthetic = True
    cfg.gpus.backend = "cpu"
    cfg.gpus.gpu_threads = 1
    for dotted, value in settings.items():
        section, key = dotted.split("__")
        setattr(getattr(cfg, section), key, value)
    return cfg


def prove_jobs(engine: Engine, n: int, priority: int = 0) -> list[str]:
    ids = [engine.submit(ProofRequest(circuit_id=CIRCUIT, vanilla_proof=synthetic.generate_vanilla("tiny"),
                                      priority=priority)).job_id for _ in range(n)]
    for i in ids:
        assert engine.await_job(i, 300).state.name == "COMPLETED"
    return ids
