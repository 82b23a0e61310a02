"""One shared daemon for most tests; parameters generated once per session (Filecoin's PoSt circuits:
the session's test parameters, tests/conftest.py)."""

from __future__ import annotations

import os
import socket
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "engine"))  # the Groth16 oracle

from daemon_helpers import Daemon  # noqa: E402


@pytest.fixture(scope="session")
def param_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cuzk-params")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def daemon(tmp_path_factory, param_dir, filecoin_params):
    port = free_port()
    d = Daemon(tmp_path_factory.mktemp("daemon"), param_dir, daemon_settings=f'metrics_listen = "127.0.0.1:{port}"',
               settings="[scheduler]\nmax_batch_size = 2\nmax_batch_wait_ms = 300\n[synthesis]\nkernel_threads = 0\n",
               faults="hold=hold-,fail=fail-", filecoin_params=filecoin_params)
    d.metrics_url = f"http://127.0.0.1:{port}/metrics"
    d.start()
    yield d
    d.stop()
