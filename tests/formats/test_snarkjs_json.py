"""proof.json / public.json / verification_key.json: round trips on both curves, malformed input refused."""

import copy
import json

import numpy as np
import pytest
from snarkjs_fixtures import CASE_IDS, CASES, SNARKJS_CURVES, fixture

from cuzk.curve import get_curve
from cuzk.errors import FormatError, ValidationError
from cuzk.formats import snarkjs_json as sj
from cuzk.formats.zkey import read_zkey
from cuzk.groth16.keys import Proof


@pytest.mark.parametrize("circuit,curve", CASES, ids=CASE_IDS)
def test_fixture_files_round_trip(tmp_path, circuit, curve):
    fx = fixture(circuit, curve)
    proof = sj.read_proof(fx.proof)
    assert proof.curve is get_curve(curve)
    sj.write_proof(tmp_path / "p.json", proof)
    again = json.loads((tmp_path / "p.json").read_text())
    assert again == json.loads(fx.proof.read_text())  # snarkjs writes z = 1 too: identical objects
    public = sj.read_public(fx.public)
    sj.write_public(tmp_path / "pub.json", public)
    assert json.loads((tmp_path / "pub.json").read_text()) == json.loads(fx.public.read_text())
    vk = sj.read_vk(fx.vk)
    sj.write_vk(tmp_path / "vk.json", vk)
    written = json.loads((tmp_path / "vk.json").read_text())
    original = json.loads(fx.vk.read_text())
    del original["vk_alphabeta_12"]  # not written (snarkjs verify does not read it)
    assert written == original


@pytest.mark.parametrize("curve", sorted(SNARKJS_CURVES))
def test_random_points_round_trip(curve):
    c = get_curve(curve)
    rng = np.random.default_rng(1)
    a, cc = c.g1.random(2, rng)
    b = c.g2.random(1, rng)[0]
    p = Proof(c, a, b, cc)
    q = sj.proof_from_json(json.loads(json.dumps(sj.proof_to_json(p))))
    assert all(np.array_equal(getattr(p, k), getattr(q, k)) for k in "abc")
    assert sj.proof_to_json(p)["curve"] == SNARKJS_CURVES[curve]


def test_vk_from_zkey_writes_the_exported_vk(tmp_path):
    fx = fixture("bits_mix", "bls12_381")
    z = read_zkey(fx.zkey)
    sj.write_vk(tmp_path / "vk.json", z.vk)
    original = json.loads(fx.vk.read_text())
    del original["vk_alphabeta_12"]
    assert json.loads((tmp_path / "vk.json").read_text()) == original


@pytest.fixture(scope="module")
def bn_objects():
    fx = fixture("bits_mix", "bn254")
    return tuple(json.loads(p.read_text()) for p in (fx.proof, fx.public, fx.vk))


def test_curve_names_snarkjs_accepts(bn_objects):
    proof, _, _ = bn_objects
    for name in ("bn128", "BN254", "alt_bn128"):
        assert sj.proof_from_json(dict(proof, curve=name)).curve is get_curve("bn254")
    with pytest.raises(FormatError, match="unsupported curve 'bls12377'"):
        sj.proof_from_json(dict(proof, curve="bls12377"))


def mutated(obj, path, value):
    out = copy.deepcopy(obj)
    target = out
    for k in path[:-1]:
        target = target[k]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


@pytest.mark.parametrize(
    "kind,path,value,exc,pattern",
    [
        ("proof", ("pi_a",), KeyError, FormatError, "missing field 'pi_a'"),
        ("proof", ("protocol",), "plonk", FormatError, "'protocol': 'plonk'"),
        ("proof", ("curve",), 254, FormatError, "'curve': expected a string"),
        ("proof", ("pi_a", 0), "12x", FormatError, "pi_a.*'12x' is not a decimal"),
        ("proof", ("pi_a", 0), "-5", FormatError, "pi_a.*not a decimal"),
        ("proof", ("pi_b", 0), ["1"], FormatError, r"pi_b: coordinate \[0\] \(x\): expected a pair"),
        ("proof", ("pi_c",), "0", FormatError, "pi_c.*expected a list"),
        ("proof", ("pi_a", 0), str(get_curve("bn254").fq.p), FormatError, "pi_a.*not canonical"),
        ("proof", ("pi_a", 1), "5", ValidationError, "pi_a.*not on the curve"),
        ("proof", ("pi_b", 1, 0), "5", ValidationError, "pi_b.*not on the curve"),
        ("vk", ("IC",), KeyError, FormatError, "missing field 'IC'"),
        ("vk", ("IC",), [], FormatError, "'IC': expected a non-empty list"),
        ("vk", ("nPublic",), 4, FormatError, "'nPublic': 4 does not match the 6 IC points"),
        ("vk", ("vk_delta_2", 0, 1), "x", FormatError, "vk_delta_2.*not a decimal"),
        ("vk", ("vk_alpha_1", 0), "1", ValidationError, "vk_alpha_1.*not on the curve"),
        ("vk", ("IC", 2, 1), "3", ValidationError, "IC: element 2.*not on the curve"),
    ],
)
def test_malformed_proof_and_vk(bn_objects, kind, path, value, exc, pattern):
    proof, _, vk = bn_objects
    obj, parse = (proof, sj.proof_from_json) if kind == "proof" else (vk, sj.vk_from_json)
    with pytest.raises(exc, match=pattern):
        parse(mutated(obj, path, value))


def test_malformed_public(bn_objects):
    _, public, _ = bn_objects
    assert sj.public_from_json(public + [7]) == [int(x) for x in public] + [7]
    for bad, pattern in (({"a": 1}, "expected a JSON list"), (["1", "0x10"], "element 1"), (["1", -1], "element 1"),
                         ([True], "element 0"), (["9" * 300], "element 0")):
        with pytest.raises(FormatError, match=pattern):
            sj.public_from_json(bad)
    # >= r is well-formed here; the verifier refuses it
    r = get_curve("bn254").fr.p
    assert sj.public_from_json([str(r)]) == [r]


def test_unreadable_files(tmp_path):
    (tmp_path / "bad.json").write_text('{"pi_a": [1, 2,')
    with pytest.raises(FormatError, match=r"bad.json: proof: invalid JSON"):
        sj.read_proof(tmp_path / "bad.json")
    with pytest.raises(FormatError, match="no such file"):
        sj.read_vk(tmp_path / "absent.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(FormatError, match="cannot read"):
        sj.read_public(tmp_path / "bin.json")
