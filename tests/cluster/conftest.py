"""Cluster tests: a local multi-node Ray cluster per module (every node on 127.0.0.1, one CPU each,
a 100 MB object store), proving the synthetic circuit (real proofs, two partitions a job, checked by
the Groth16 oracle) and, through the gRPC front, Filecoin's 2 KiB WindowPoSt from a Curio-shaped
request. Skipped where Ray (the `cluster` extra) is not installed."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before Ray is imported: keep it on loopback
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "engine"))  # the Groth16 oracle

import pytest  # noqa: E402

pytest.importorskip("ray", reason="cluster mode needs the `cluster` extra (ray)")

from synthetic_engine import synthetic_config  # noqa: E402

from cuzk.engine import EngineConfig  # noqa: E402
from cuzk.engine.catalog import synthetic  # noqa: E402

CID = "synthetic-tiny"
TIMEOUT = 600  # a cold CI run compiles the kernels inside each node actor first
SLOW = "slow-"  # job ids with this prefix wait 1.5 s before proving, on every node (a job surely in flight)
NODE_FAULTS = f"delay={SLOW}:1500"


def cluster_config(state_dir, param_dir) -> EngineConfig:
    """What every node's engine runs: the CPU backend, one kernel thread, the tiny circuits and the
    synthetic one, one shared parameter directory (as a shared filesystem would give real nodes)."""
    return synthetic_config(state_dir, param_dir, synthesis__threads=1, memory__total_budget="2GiB")


@pytest.fixture(scope="session")
def vanilla():
    return lambda: synthetic.generate_vanilla("tiny")



@pytest.fixture(scope="module")
def ray_tmp():
    """A fresh folder for Ray's session, removed afterwards; short, since Ray puts unix sockets in it."""
    import shutil
    import tempfile

    path = tempfile.mkdtemp(prefix="cuzk-ray-")
    yield path
    shutil.rmtree(path, ignore_errors=True)
