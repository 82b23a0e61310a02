"""Shared pieces of the reliability tests: engines, in-process servers, job polling."""

from __future__ import annotations

import socket
import time

from synthetic_engine import synthetic_config

from cuzk.engine import Engine, EngineConfig
from cuzk.engine.catalog import synthetic
from cuzk.proto import proving_pb2 as pb

WAIT_MS = 600_000  # generous: a cold CI run compiles kernels inside the daemon first
TERMINAL = (pb.JOB_COMPLETED, pb.JOB_FAILED, pb.JOB_CANCELLED)
CID = "synthetic-tiny"  # the engine mechanics' circuit: two partitions, parameters made in milliseconds


def vanilla(seed: int | None = None) -> bytes:
    """A valid input of synthetic-tiny (the same seed, the same bytes)."""
    return synthetic.generate_vanilla("tiny", seed)


def engine_config(state_dir, param_dir, **settings) -> EngineConfig:
    return synthetic_config(state_dir, param_dir, **settings).validate()


def make_engine(state_dir, param_dir, store=None, **settings) -> Engine:
    return Engine(engine_config(state_dir, param_dir, **settings), store=store).start()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(cond, limit=300.0, what="condition"):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError(f"{what} did not happen within {limit:.0f} s")
