"""A second `cuzk prove` process loads every kernel from numba's cache: it compiles nothing.

The compile notice (cuzk.field.compile_notice, forced on with CUZK_PROGRESS=1) prints when numba
compiles; cache hits raise no compile event. The first run may compile (a fresh cache); the
second must not, or every proof would pay seconds of compilation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(os.environ.get("CUZK_CIRCOM_FIXTURES", Path(__file__).resolve().parents[3] / "shared/fixtures/circom"))
BITS_MIX = FIXTURES / "bits_mix" / "bn128"


@pytest.mark.skipif(not BITS_MIX.is_dir(), reason=f"circom fixtures not found at {BITS_MIX}")
def test_a_second_prove_compiles_nothing(tmp_path):
    cmd = [sys.executable, "-m", "cuzk", "prove", "--zkey", str(BITS_MIX / "bits_mix.zkey"),
           "--wtns", str(BITS_MIX / "witness.wtns"), "--proof", str(tmp_path / "proof.json"),
           "--public", str(tmp_path / "public.json"), "--backend", "cpu"]
    env = {**os.environ, "CUZK_PROGRESS": "1"}
    runs = [subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900) for _ in range(2)]
    for res in runs:
        assert res.returncode == 0, res.stderr
    assert "cuzk prove:" in runs[1].stderr  # the timing line: the notice would be on the same stream
    assert "compiling" not in runs[1].stderr, runs[1].stderr
