"""Paths of the circom/snarkjs fixture set (../shared/fixtures/circom) and the outside
provers (snarkjs from `npm ci`, the rapidsnark anchor) for the snarkjs tests."""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared"
FIXTURES = Path(os.environ.get("CUZK_CIRCOM_FIXTURES", SHARED / "fixtures/circom"))
REPO = Path(__file__).resolve().parents[2]
SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
NODE = shutil.which("node")
RAPIDSNARK = Path(os.environ.get("CUZK_RAPIDSNARK", SHARED / "anchors/rapidsnark/prover"))
needs_snarkjs = pytest.mark.skipif(
    not SNARKJS.exists() or NODE is None,
    reason=f"snarkjs not installed ({SNARKJS} missing or no node): run `npm ci` in {REPO}",
)
SNARKJS_CURVES = {"bn254": "bn128", "bls12_381": "bls12381"}
CIRCUITS = ("bits_mix", "poseidon_chain")
CASES = [(c, k) for c in CIRCUITS for k in SNARKJS_CURVES]
CASE_IDS = [f"{c}-{k}" for c, k in CASES]


def _file(name: str) -> property:
    """The fixture's file `name` ("{circuit}" stands for the circuit's name)."""
    return property(lambda self: self.dir / name.format(circuit=self.circuit))


@dataclass(frozen=True)
class Fixture:
    circuit: str
    curve: str  # cuzk curve name
    dir: Path

    zkey = _file("{circuit}.zkey")
    r1cs = _file("{circuit}.r1cs")
    wtns = _file("witness.wtns")
    vk, proof, public = (_file(f"{name}.json") for name in ("vk", "proof", "public"))  # snarkjs's outputs


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


def snarkjs(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(SNARKJS), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def snarkjs_verify(vk, public, proof) -> tuple[bool, str]:
    res = snarkjs("groth16", "verify", vk, public, proof)
    text = res.stdout + res.stderr
    return res.returncode == 0 and "OK!" in text, text
