"""`cuzk setup` and `cuzk params check` as a user runs them (subprocesses)."""

import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "circom"
R1CS = FIXTURES / "bits_mix" / "bls12381" / "bits_mix.r1cs"


needs_fixtures = pytest.mark.skipif(not R1CS.is_file(),
                                    reason=f"circom fixtures not found at {R1CS.parent} (../shared is optional)")


def cuzk(*args):
    return subprocess.run([sys.executable, "-m", "cuzk", *map(str, args)], capture_output=True, text=True, timeout=900)


@needs_fixtures
def test_setup_then_check(tmp_path):
    params, vk = tmp_path / "c.params", tmp_path / "c.vk"
    r = cuzk("setup", "--r1cs", R1CS, "--params", params, "--vk", vk, "--backend", "cpu")
    assert r.returncode == 0, r.stderr
    r = cuzk("params", "check", params, "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout
    r = cuzk("params", "check", vk)
    assert r.returncode == 0 and "OK" in r.stdout
    # a flipped bit inside the l vector: reported invalid, exit 1, no traceback
    data = bytearray(params.read_bytes())
    data[len(data) // 2] ^= 0x04
    bad = tmp_path / "bad.params"
    bad.write_bytes(bytes(data))
    r = cuzk("params", "check", bad, "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "INVALID" in r.stdout and "Traceback" not in r.stderr
    # truncated: malformed, exit 2 naming the section
    (tmp_path / "short.params").write_bytes(bytes(data[: len(data) // 3]))
    r = cuzk("params", "check", tmp_path / "short.params")
    assert r.returncode == 2 and "params." in r.stderr and "Traceback" not in r.stderr


def test_setup_refuses_bn254(tmp_path):
    r1cs = Path(__file__).resolve().parents[2] / "examples" / "bits_mix" / "bits_mix.r1cs"  # BN254
    r = cuzk("setup", "--r1cs", r1cs, "--params", tmp_path / "p", "--vk", tmp_path / "v")
    assert r.returncode == 2 and "BLS12-381" in r.stderr
