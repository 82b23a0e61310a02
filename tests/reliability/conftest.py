"""Reliability tests (issue 9): the daemon's journal, worker supervision, limits, access, chaos."""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "server"))  # daemon_helpers.Daemon
sys.path.insert(0, os.path.join(HERE, "..", "engine"))  # groth16_oracle


@pytest.fixture(scope="session")
def param_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cuzk-params")
