"""`make run` installs what running needs (cuzk alone); `make test` adds the test and cluster extras; neither
installs quietly (issue 42 item 2: pip -q printed nothing for the minutes a fresh install takes)."""

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
    assert installs == [f"{tmp_path / 'venv'}/bin/python -m pip install --progress-bar off --disable-pip-version-check -e ."]
    assert "cuzk demo" in steps
    assert_not_quiet(steps)


def test_make_test_installs_the_test_extras(tmp_path):
    steps = dry_run("test", tmp_path / "venv")
    assert "pip install --progress-bar off --disable-pip-version-check -e '.[dev,cluster]'" in steps
    assert "pytest" in steps
    assert_not_quiet(steps)


def assert_not_quiet(steps: str) -> None:
    """Every install says what it does first and keeps its tool's own output; pytest keeps its progress."""
    lines = steps.splitlines()
    for i, line in enumerate(lines):
        if "pip install" in line or line.startswith("npm ci"):
            assert " -q" not in line and "--quiet" not in line, line
            assert any(prev.startswith("echo \"make: installing") for prev in lines[max(0, i - 2):i]), line
        if "-m pytest" in line:
            assert "--capture" not in line and " -s" not in line and "-p no:terminal" not in line, line
