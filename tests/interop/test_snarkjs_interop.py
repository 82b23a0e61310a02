"""cuzk and snarkjs 0.7.6 accept each other's Groth16 proofs and reject the same tampered ones.

Runs the real snarkjs (`node_modules/.bin/snarkjs`, installed by `npm ci`
from the repo's package-lock.json) on every fixture: both circuits, both
curves. Our proofs are made in process (`cuzk prove` through the CLI entry
point) into a temporary folder; the fixtures stay untouched.
"""

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "formats"))
from snarkjs_fixtures import (  # noqa: E402
    CASE_IDS, CASES, fixture, needs_snarkjs, other_circuit, pairing_available, snarkjs_verify,
)

from cuzk.cli.main import main  # noqa: E402
from cuzk.formats import snarkjs_json as sj  # noqa: E402
from cuzk.formats.zkey import read_zkey  # noqa: E402

pytestmark = needs_snarkjs
NO_PAIRING = pairing_available()
needs_pairing = pytest.mark.skipif(NO_PAIRING is not None, reason=NO_PAIRING or "")
TAMPERINGS = ("changed_public", "other_point", "off_curve_point", "other_circuit")


def cuzk_verify(vk, public, proof) -> int:
    return main(["verify", "--vk", str(vk), "--public", str(public), "--proof", str(proof)])


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """Per fixture: our proof, our public.json, our vk.json (written from the zkey)."""
    root = tmp_path_factory.mktemp("interop")
    out = {}
    for circuit, curve in CASES:
        fx = fixture(circuit, curve)
        d = root / f"{circuit}-{curve}"
        d.mkdir()
        rc = main(["prove", "--zkey", str(fx.zkey), "--wtns", str(fx.wtns), "--proof", str(d / "proof.json"),
                   "--public", str(d / "public.json"), "--backend", "cpu", "--quiet"])
        assert rc == 0
        sj.write_vk(d / "vk.json", read_zkey(fx.zkey).vk)
        out[(circuit, curve)] = d
    return out


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_snarkjs_accepts_our_proof(work, case):
    fx, d = fixture(*case), work[case]
    ok, text = snarkjs_verify(fx.vk, d / "public.json", d / "proof.json")
    assert ok, text
    assert json.loads((d / "public.json").read_text()) == json.loads(fx.public.read_text())


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_snarkjs_accepts_our_vk_json(work, case):
    fx, d = fixture(*case), work[case]
    ok, text = snarkjs_verify(d / "vk.json", fx.public, fx.proof)
    assert ok, text


@needs_pairing
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cuzk_accepts_snarkjs_proof_and_ours(work, case, capsys):
    fx, d = fixture(*case), work[case]
    assert cuzk_verify(fx.vk, fx.public, fx.proof) == 0
    assert cuzk_verify(fx.vk, d / "public.json", d / "proof.json") == 0
    assert capsys.readouterr().out.split() == ["OK", "OK"]


def tampered(work, case, kind, tmp_path):
    """(vk, public, proof) paths for one way of breaking our proof of `case`."""
    fx, d = fixture(*case), work[case]
    public = json.loads((d / "public.json").read_text())
    proof = json.loads((d / "proof.json").read_text())
    if kind == "changed_public":
        public = [str(int(public[0]) + 1)] + public[1:]
    elif kind == "other_point":  # a valid G1 point, but not this proof's A
        proof["pi_a"] = json.loads(fx.proof.read_text())["pi_a"]
    elif kind == "off_curve_point":
        proof["pi_c"] = copy.deepcopy(proof["pi_c"])
        proof["pi_c"][1] = str(int(proof["pi_c"][1]) + 1)
    elif kind == "other_circuit":  # a valid proof, but of the other circuit on the same curve
        proof = json.loads(work[(other_circuit(case[0]), case[1])].joinpath("proof.json").read_text())
    (tmp_path / "public.json").write_text(json.dumps(public))
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    return fx.vk, tmp_path / "public.json", tmp_path / "proof.json"


@pytest.mark.parametrize("kind", TAMPERINGS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_snarkjs_rejects_tampered(work, case, kind, tmp_path):
    ok, text = snarkjs_verify(*tampered(work, case, kind, tmp_path))
    assert not ok, text


@pytest.mark.parametrize("kind", TAMPERINGS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cuzk_rejects_tampered(work, case, kind, tmp_path, capsys):
    if kind != "off_curve_point" and NO_PAIRING:  # an off-curve point is refused before any pairing
        pytest.skip(NO_PAIRING)
    assert cuzk_verify(*tampered(work, case, kind, tmp_path)) == 1
    assert capsys.readouterr().out.startswith("INVALID: ")
