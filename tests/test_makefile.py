"""`make run` installs what running needs (cuzk alone); `make test` adds the test and cluster extras."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def dry_run(target: str, venv: Path) -> str:
    if shutil.which("make") is None:
        pytest.fail("make is not installed")
    return subprocess.run(["make", "-n", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def test_make_run_installs_no_extras(tmp_path):
    steps = dry_run("run", tmp_path / "venv")
    installs = [line for line in steps.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs == [f"{tmp_path / 'venv'}/bin/python -m pip install -q -e ."]
    assert "cuzk demo" in steps


def test_make_test_installs_the_test_extras(tmp_path):
    steps = dry_run("test", tmp_path / "venv")
    assert "pip install -q -e '.[dev,cluster]'" in steps
    assert "pytest" in steps
