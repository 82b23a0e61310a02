"""Paths of the circom/snarkjs fixture set (../shared/fixtures/circom) for the snarkjs tests."""

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(os.environ.get("CUZK_CIRCOM_FIXTURES", Path(__file__).resolve().parents[3] / "shared/fixtures/circom"))
SNARKJS_CURVES = {"bn254": "bn128", "bls12_381": "bls12381"}
CIRCUITS = ("bits_mix", "poseidon_chain")
CASES = [(c, k) for c in CIRCUITS for k in SNARKJS_CURVES]
CASE_IDS = [f"{c}-{k}" for c, k in CASES]


@dataclass(frozen=True)
class Fixture:
    circuit: str
    curve: str  # cuzk curve name
    dir: Path

    @property
    def zkey(self) -> Path:
        return self.dir / f"{self.circuit}.zkey"

    @property
    def r1cs(self) -> Path:
        return self.dir / f"{self.circuit}.r1cs"

    @property
    def wtns(self) -> Path:
        return self.dir / "witness.wtns"

    @property
    def vk(self) -> Path:
        return self.dir / "vk.json"

    @property
    def proof(self) -> Path:
        return self.dir / "proof.json"

    @property
    def public(self) -> Path:
        return self.dir / "public.json"


def fixture(circuit: str, curve: str) -> Fixture:
    d = FIXTURES / circuit / SNARKJS_CURVES[curve]
    if not d.is_dir():
        pytest.skip(f"circom fixtures not found at {d}")
    return Fixture(circuit, curve, d)


def other_circuit(circuit: str) -> str:
    return next(c for c in CIRCUITS if c != circuit)


def pairing_available() -> str | None:
    """None when cuzk.curve.pairing can be imported, else why not (verify needs it)."""
    try:
        import cuzk.curve.pairing  # noqa: F401
    except ImportError as exc:
        return f"cuzk.curve.pairing is not available yet ({exc})"
    return None
