"""Keys from `cuzk setup --zkey` work in the outside tools, on every fixture (both curves):
snarkjs proves with them and accepts the proofs under our vk JSON, `snarkjs zkey export
verificationkey` gives our vk JSON, rapidsnark proves with the BN254 ones, and proofs from
`cuzk prove --zkey` with them pass snarkjs. A changed public input is rejected.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "formats"))
from snarkjs_fixtures import (  # noqa: E402
    CASE_IDS, CASES, RAPIDSNARK, fixture, needs_snarkjs, snarkjs, snarkjs_verify,
)

from cuzk.cli.main import main  # noqa: E402

pytestmark = needs_snarkjs


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """Per fixture: our zkey and vk JSON (`cuzk setup`), and snarkjs's proof made with them."""
    root = tmp_path_factory.mktemp("zkey-interop")
    out = {}
    for case in CASES:
        fx = fixture(*case)
        d = root / f"{fx.circuit}-{fx.curve}"
        d.mkdir()
        assert main(["setup", "--r1cs", str(fx.r1cs), "--zkey", str(d / "k.zkey"),
                     "--vk-json", str(d / "vk.json"), "--backend", "cpu"]) == 0
        res = snarkjs("groth16", "prove", d / "k.zkey", fx.wtns, d / "proof.json", d / "public.json")
        assert res.returncode == 0, res.stdout + res.stderr
        out[case] = d
    return out


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_snarkjs_proves_with_our_key(keys, case):
    d = keys[case]
    ok, text = snarkjs_verify(d / "vk.json", d / "public.json", d / "proof.json")
    assert ok, text
    assert json.loads((d / "public.json").read_text()) == json.loads(fixture(*case).public.read_text())


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_snarkjs_rejects_a_changed_public_input(keys, case, tmp_path):
    d = keys[case]
    public = json.loads((d / "public.json").read_text())
    (tmp_path / "public.json").write_text(json.dumps([str(int(public[0]) + 1)] + public[1:]))
    ok, text = snarkjs_verify(d / "vk.json", tmp_path / "public.json", d / "proof.json")
    assert not ok, text


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_exported_vk_is_ours(keys, case, tmp_path):
    d = keys[case]
    res = snarkjs("zkey", "export", "verificationkey", d / "k.zkey", tmp_path / "exported.json")
    assert res.returncode == 0, res.stdout + res.stderr
    exported = json.loads((tmp_path / "exported.json").read_text())
    exported.pop("vk_alphabeta_12")  # e(alpha, beta), for Solidity only: our writer leaves it out
    assert exported == json.loads((d / "vk.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cuzk_proof_with_our_key_passes_snarkjs(keys, case, tmp_path):
    fx, d = fixture(*case), keys[case]
    assert main(["prove", "--zkey", str(d / "k.zkey"), "--wtns", str(fx.wtns), "--proof", str(tmp_path / "proof.json"),
                 "--public", str(tmp_path / "public.json"), "--r1cs", str(fx.r1cs), "--backend", "cpu", "--quiet"]) == 0
    ok, text = snarkjs_verify(d / "vk.json", tmp_path / "public.json", tmp_path / "proof.json")
    assert ok, text


@pytest.mark.skipif(not RAPIDSNARK.is_file(), reason=f"rapidsnark prover not found at {RAPIDSNARK}")
@pytest.mark.parametrize("case", [c for c in CASES if c[1] == "bn254"], ids=lambda c: f"{c[0]}-{c[1]}")
def test_rapidsnark_proves_with_our_key(keys, case, tmp_path):
    fx, d = fixture(*case), keys[case]
    res = subprocess.run([str(RAPIDSNARK), d / "k.zkey", fx.wtns, tmp_path / "proof.json", tmp_path / "public.json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    ok, text = snarkjs_verify(d / "vk.json", tmp_path / "public.json", tmp_path / "proof.json")
    assert ok, text
