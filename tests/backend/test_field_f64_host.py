"""field_f64.cuh's FP64 Montgomery product built as host C++ (g++) against Python's integers:
the study's arithmetic checked without a GPU (scripts/fp64_host_check.py does the work)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fp64_host_check.py"


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build the header as host code")
def test_fp64_product_matches_python_integers():
    r = subprocess.run([sys.executable, str(SCRIPT), "3000"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert ": 0 wrong" in r.stdout
