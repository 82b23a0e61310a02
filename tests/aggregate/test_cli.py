"""`cuzk aggregate-srs`, `cuzk aggregate`, `cuzk verify-aggregate` on real snarkjs proofs
(../shared/fixtures/circom, plus one fresh proof made by snarkjs from the fixture's zkey
and witness) and on cuzk proofs given as bellperson bytes with a bellperson .vk."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "circom" / "poseidon_chain"
SNARKJS = ROOT / "node_modules" / ".bin" / "snarkjs"
DIRS = {"bn254": "bn128", "bls12_381": "bls12381"}


def run(capsys, *argv):
    rc = main(list(map(str, argv)))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module", params=list(DIRS))
def snarkjs_set(request, tmp_path_factory):
    """(curve, folder, vk, [proof files], [public files]): the fixture proof, a fresh snarkjs proof,
    the fixture again."""
    curve = request.param
    src = FIXTURES / DIRS[curve]
    if not (src / "proof.json").is_file():
        pytest.skip(f"circom fixtures not found at {src} (../shared is optional)")
    if not SNARKJS.exists() or not shutil.which("node"):
        pytest.fail("snarkjs (node_modules/.bin/snarkjs) and node are needed for the interoperability test")
    d = tmp_path_factory.mktemp(f"agg-{curve}")
    subprocess.run([str(SNARKJS), "groth16", "prove", str(src / "poseidon_chain.zkey"), str(src / "witness.wtns"),
                    str(d / "p1.json"), str(d / "pub1.json")], check=True, capture_output=True, cwd=d)
    proofs = [src / "proof.json", d / "p1.json", src / "proof.json"]
    publics = [src / "public.json", d / "pub1.json", src / "public.json"]
    return curve, d, src / "vk.json", proofs, publics


def test_snarkjs_proofs_round_trip(snarkjs_set, capsys):
    curve, d, vk, proofs, publics = snarkjs_set
    assert json.loads(proofs[1].read_text()) != json.loads(proofs[0].read_text())  # a distinct proof
    srs = d / "agg.srs"
    rc, out, _ = run(capsys, "aggregate-srs", "--curve", curve, "--max-proofs", 4, "--out", srs)
    assert rc == 0 and "tests and private deployments" in out
    agg = d / "agg.bin"
    argv = ["aggregate", "--srs", srs, "--vk", vk, "--out", agg]
    for p, q in zip(proofs, publics):
        argv += ["--proof", p, "--public", q]
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    pubs = [x for q in publics for x in ("--public", q)]
    rc, out, _ = run(capsys, "verify-aggregate", "--srs", srs, "--vk", vk, *pubs, "--aggregate", agg)
    assert (rc, out.strip()) == (0, "OK")

    # fewer public-input files than proofs aggregated: INVALID, exit 1
    rc, out, _ = run(capsys, "verify-aggregate", "--srs", srs, "--vk", vk, *pubs[:4], "--aggregate", agg)
    assert rc == 1 and out.startswith("INVALID: ")
    # a flipped byte: INVALID (malformed or failing), exit 1, one line
    data = bytearray(agg.read_bytes())
    for pos in (10, len(data) // 2, len(data) - 3):
        bad = d / "bad.bin"
        flipped = bytearray(data)
        flipped[pos] ^= 0x04
        bad.write_bytes(bytes(flipped))
        rc, out, err = run(capsys, "verify-aggregate", "--srs", srs, "--vk", vk, *pubs, "--aggregate", bad)
        assert rc == 1 and out.startswith("INVALID: ") and out.count("\n") == 1, (pos, out, err)
    # another domain separator: INVALID
    rc, out, _ = run(capsys, "verify-aggregate", "--srs", srs, "--vk", vk, *pubs, "--aggregate", agg,
                     "--domain", "other")
    assert rc == 1
    # input errors: exit 2 with one line on stderr
    rc, out, err = run(capsys, "verify-aggregate", "--srs", d / "missing.srs", "--vk", vk, *pubs, "--aggregate", agg)
    assert rc == 2 and err.startswith("cuzk: error: ") and err.count("\n") == 1
    rc, out, err = run(capsys, "verify-aggregate", "--srs", srs, "--vk", vk, *pubs, "--aggregate", d / "nope.bin")
    assert rc == 2 and err.startswith("cuzk: error: ")
    rc, out, err = run(capsys, "aggregate", "--srs", srs, "--vk", vk, "--proof", proofs[0], "--public", publics[0],
                       "--public", publics[1], "--out", d / "x.bin")
    assert rc == 2 and "--public" in err
    other = "bn254" if curve == "bls12_381" else "bls12_381"
    rc, out, err = run(capsys, "aggregate", "--srs", srs, "--vk", FIXTURES / DIRS[other] / "vk.json", "--proof",
                       proofs[0], "--public", publics[0], "--out", d / "x.bin")
    assert rc == 2 and err.startswith("cuzk: error: ")


def test_bellperson_bytes_and_vk(tmp_path, capsys):
    """cuzk-made BLS12-381 proofs as 192-byte bellperson proofs with a bellperson .vk."""
    from cuzk.formats import bellperson
    from cuzk.formats.snarkjs_json import write_public

    from .helpers import keyed

    pk, _, proofs, pubs = keyed("bls12_381")
    bellperson.write_vk(tmp_path / "k.vk", pk.vk)
    (tmp_path / "all.proofs").write_bytes(b"".join(bellperson.proof_to_bytes(p) for p in proofs[:3]))
    for i in range(3):
        write_public(tmp_path / f"pub{i}.json", pubs[i])
    srs = tmp_path / "agg.srs"
    assert run(capsys, "aggregate-srs", "--curve", "bls12_381", "--max-proofs", 3, "--out", srs)[0] == 0
    pubs_argv = [x for i in range(3) for x in ("--public", tmp_path / f"pub{i}.json")]
    rc, _, err = run(capsys, "aggregate", "--srs", srs, "--vk", tmp_path / "k.vk", "--proof", tmp_path / "all.proofs",
                     *pubs_argv, "--out", tmp_path / "agg.bin")
    assert rc == 0, err
    rc, out, _ = run(capsys, "verify-aggregate", "--srs", srs, "--vk", tmp_path / "k.vk", *pubs_argv,
                     "--aggregate", tmp_path / "agg.bin")
    assert (rc, out.strip()) == (0, "OK")
    swapped = [pubs_argv[2], pubs_argv[3], pubs_argv[0], pubs_argv[1], pubs_argv[4], pubs_argv[5]]
    rc, out, _ = run(capsys, "verify-aggregate", "--srs", srs, "--vk", tmp_path / "k.vk", *swapped,
                     "--aggregate", tmp_path / "agg.bin")
    assert rc == 1 and out.startswith("INVALID")


def test_srs_help_says_not_a_ceremony(capsys):
    with pytest.raises(SystemExit):
        main(["aggregate-srs", "--help"])
    assert "NOT a trusted-setup ceremony" in capsys.readouterr().out.replace("\n", " ")
