"""Shared helpers of the r1cs tests (fixture paths, a dense view of compiled matrices)."""

import os
from pathlib import Path

import pytest

FIXTURES = Path(os.environ.get("CUZK_CIRCOM_FIXTURES", Path(__file__).resolve().parents[3] / "shared/fixtures/circom"))
CURVE_DIRS = {"bn254": "bn128", "bls12_381": "bls12381"}
CIRCUITS = ("bits_mix", "poseidon_chain")


def fixture_files(circuit: str, curve: str) -> tuple[Path, Path]:
    d = FIXTURES / circuit / CURVE_DIRS[curve]
    if not d.is_dir():
        pytest.skip(f"circom fixtures not found at {d}")
    return d / f"{circuit}.r1cs", d / "witness.wtns"


def dense_rows(cc, matrix) -> list[dict[int, int]]:
    """A compiled matrix as a list of {column: coefficient int} (test oracle helper)."""
    table = cc.coefficient_ints()
    out = []
    for r in range(matrix.num_rows):
        lo, hi = int(matrix.indptr[r]), int(matrix.indptr[r + 1])
        out.append({int(matrix.cols[j]): table[int(matrix.coeff_idx[j])] for j in range(lo, hi)})
    return out
