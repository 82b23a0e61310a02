"""What the engine, trace, reliability, cluster and daemon tests share: an engine config on the
synthetic circuit (the CPU backend, one kernel thread), and waiting over a client for a job's state."""

from __future__ import annotations

import time

from cuzk.engine import EngineConfig


def synthetic_config(state_dir, param_dir=None, **settings) -> EngineConfig:
    """A config (not yet validated) with state under `state_dir`, parameters under `param_dir` when
    given, the synthetic circuits on the CPU backend with one kernel thread; `section__key=value`
    settings override."""
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(state_dir)
    if param_dir is not None:
        cfg.srs.param_cache = str(param_dir)
    cfg.circuits.synthetic = True
    cfg.gpus.backend = "cpu"
    cfg.gpus.gpu_threads = 1
    for dotted, value in settings.items():
        section, key = dotted.split("__")
        setattr(getattr(cfg, section), key, value)
    return cfg


def wait_state(client, job_id, states, limit=300.0):
    """The client's AwaitProof reply once job `job_id` is in one of `states` (AssertionError after `limit` s)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r = client.await_proof(job_id, timeout_ms=20)
        if r.state in states:
            return r
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} never reached {states}")
