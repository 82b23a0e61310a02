"""`cuzk prove` / `cuzk verify` on snarkjs files: outputs, verdicts and exit codes."""

import json
import subprocess
import sys

import pytest
from snarkjs_fixtures import fixture, other_circuit, pairing_available

from cuzk.cli.main import main
from cuzk.formats import snarkjs_json as sj

NO_PAIRING = pairing_available()
needs_pairing = pytest.mark.skipif(NO_PAIRING is not None, reason=NO_PAIRING or "")


@pytest.fixture(scope="module")
def proved(tmp_path_factory):
    """One `cuzk prove` run (in process) on the BN254 bits_mix fixture."""
    fx = fixture("bits_mix", "bn254")
    out = tmp_path_factory.mktemp("prove")
    rc = main(["prove", "--zkey", str(fx.zkey), "--wtns", str(fx.wtns), "--proof", str(out / "proof.json"),
               "--public", str(out / "public.json"), "--backend", "cpu"])
    assert rc == 0
    return fx, out


def test_prove_writes_snarkjs_files(proved):
    fx, out = proved
    assert json.loads((out / "public.json").read_text()) == json.loads(fx.public.read_text())
    proof = json.loads((out / "proof.json").read_text())
    assert (proof["protocol"], proof["curve"]) == ("groth16", "bn128")
    sj.read_proof(out / "proof.json")  # points on the curve, in the subgroup


def test_prove_prints_timings(tmp_path, capsys):
    fx = fixture("bits_mix", "bn254")
    rc = main(["prove", "--zkey", str(fx.zkey), "--wtns", str(fx.wtns), "--proof", str(tmp_path / "p.json"),
               "--public", str(tmp_path / "pub.json"), "--verbose"])
    err = capsys.readouterr().err
    assert rc == 0
    for phase in ("read", "abc", "bases", "msm_h", "ntt_h", "nVars 2733"):
        assert phase in err


def prove_args(fx, tmp_path, **over):
    args = {"zkey": fx.zkey, "wtns": fx.wtns, "proof": tmp_path / "p.json", "public": tmp_path / "pub.json"}
    args.update(over)
    return ["prove"] + [x for k, v in args.items() for x in (f"--{k}", str(v))]


def test_prove_refuses_mismatched_or_broken_inputs(tmp_path, capsys):
    fx = fixture("bits_mix", "bn254")
    cases = [
        (dict(wtns=fixture("bits_mix", "bls12_381").wtns), "witness is over bls12_381"),
        (dict(wtns=fixture(other_circuit("bits_mix"), "bn254").wtns), "expects nVars = 2733"),
        (dict(zkey=tmp_path / "absent.zkey"), "no such file"),
        (dict(wtns=tmp_path / "absent.wtns"), "absent.wtns"),
    ]
    (tmp_path / "cut.zkey").write_bytes(fx.zkey.read_bytes()[:5000])
    cases.append((dict(zkey=tmp_path / "cut.zkey"), r"section 4 (coefficients): truncated"))
    for over, message in cases:
        assert main(prove_args(fx, tmp_path, **over)) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "p.json").exists()


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "cuzk", *map(str, args)], capture_output=True, text=True)


def test_malformed_files_exit_2_without_traceback(tmp_path):
    fx = fixture("bits_mix", "bn254")
    (tmp_path / "bad.json").write_text('{"pi_a": ')
    res = run_cli("verify", "--vk", fx.vk, "--public", fx.public, "--proof", tmp_path / "bad.json")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0 and "invalid JSON" in res.stderr
    (tmp_path / "bad.zkey").write_bytes(b"zkey" + bytes(20))
    res = run_cli(*prove_args(fx, tmp_path, zkey=tmp_path / "bad.zkey"))
    assert res.returncode == 2 and "Traceback" not in res.stderr and res.stderr.strip().count("\n") == 0


def verify_args(fx, proof=None, public=None, vk=None):
    return ["verify", "--vk", str(vk or fx.vk), "--public", str(public or fx.public), "--proof", str(proof or fx.proof)]


def test_verify_usage_errors_exit_2(tmp_path, capsys):
    fx = fixture("poseidon_chain", "bls12_381")
    vk = json.loads(fx.vk.read_text())
    (tmp_path / "vk.json").write_text(json.dumps(dict(vk, curve="mnt4")))
    (tmp_path / "pub.json").write_text('["0x12"]')
    for args, message in (
        (verify_args(fx, vk=tmp_path / "vk.json"), "unsupported curve 'mnt4'"),
        (verify_args(fx, public=tmp_path / "pub.json"), "element 0"),
        (verify_args(fx, proof=tmp_path / "absent.json"), "no such file"),
    ):
        assert main(args) == 2
        assert message in capsys.readouterr().err


def test_verify_off_curve_proof_is_invalid(tmp_path, capsys):
    fx = fixture("poseidon_chain", "bls12_381")
    proof = json.loads(fx.proof.read_text())
    proof["pi_c"][1] = "7"
    (tmp_path / "p.json").write_text(json.dumps(proof))
    assert main(verify_args(fx, proof=tmp_path / "p.json")) == 1
    assert capsys.readouterr().out.startswith("INVALID: ")


@needs_pairing
def test_verify_accepts_fixture_and_our_proof(proved, capsys):
    fx, out = proved
    assert main(verify_args(fx)) == 0
    assert main(verify_args(fx, proof=out / "proof.json", public=out / "public.json")) == 0
    assert capsys.readouterr().out.splitlines() == ["OK", "OK"]


@needs_pairing
def test_verify_rejects_with_exit_1(proved, tmp_path, capsys):
    fx, out = proved
    public = json.loads(fx.public.read_text())
    (tmp_path / "changed.json").write_text(json.dumps([str(int(public[0]) + 1)] + public[1:]))
    (tmp_path / "short.json").write_text(json.dumps(public[:-1]))
    r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
    (tmp_path / "big.json").write_text(json.dumps([str(int(public[0]) + r)] + public[1:]))
    other = fixture("bits_mix", "bls12_381")
    for args, why in (
        (verify_args(fx, public=tmp_path / "changed.json"), "pairing check failed"),
        (verify_args(fx, public=tmp_path / "short.json"), "expected 5 public inputs"),
        (verify_args(fx, public=tmp_path / "big.json"), "not a field element"),
        (verify_args(fx, proof=out / "proof.json", public=out / "public.json", vk=fixture("poseidon_chain", "bn254").vk),
         "expected 1 public inputs"),
        (verify_args(fx, proof=other.proof), "the proof is over bls12_381"),
    ):
        assert main(args) == 1
        text = capsys.readouterr().out
        assert text.startswith("INVALID: ") and why in text, text


def test_verify_names_the_changed_coordinate(tmp_path, capsys):
    """Coordinate 1 of pi_c changed: the message names pi_c's coordinate [1] (y), not an 'element 0'."""
    fx = fixture("bits_mix", "bn254")
    proof = json.loads(fx.proof.read_text())
    proof["pi_c"][1] = str(int(proof["pi_c"][1]) + 1)
    (tmp_path / "p.json").write_text(json.dumps(proof))
    assert main(verify_args(fx, proof=tmp_path / "p.json")) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: ") and "pi_c: coordinate [1] (y) does not match coordinate [0] (x)" in out, out
    assert "element" not in out
