"""CI smoke budget of the parser fuzzing (RELIABILITY.md has the long runs).

Per parser: its seeds (made by the project's own writers) parse to the right
value, and hypothesis-driven mutations of them -- bit flips, truncation,
insertions, header integers set to boundary values -- either parse or raise
the project's own error type (fuzz/targets.py: any other exception is a
defect). Deterministic (derandomized), no example database on disk.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from byte_mutations import mutate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fuzz import seeds as S  # noqa: E402
from fuzz.targets import TARGETS, run_one, write_corpus  # noqa: E402

SMOKE = settings(max_examples=120, derandomize=True, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))
BOUNDARY = [0, 1, 2, 3, 7, 8, 31, 32, 48, 64, 255, 256, 0xFFFF, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63, 2**64 - 1]


@st.composite
def mutated(draw, name: str) -> bytes:
    def own(draw, data, op, pos) -> bool:
        n = len(data)
        if op == "set" and n:
            data[pos] = draw(st.sampled_from([0, 1, 0x20, 0x40, 0x7F, 0x80, 0xC0, 0xE0, 0xFF]))
        elif op in ("int32", "int64"):
            width = 4 if op == "int32" else 8
            value = draw(st.sampled_from(BOUNDARY + [n, n // 2, n - pos])) % (1 << (8 * width))
            data[pos:pos + width] = value.to_bytes(width, "little" if draw(st.booleans()) else "big")
        else:
            return False
        return True

    return mutate(draw, TARGETS[name].seeds(), 4,
                  ["flip", "set", "int32", "int64", "truncate", "insert", "delete", "dup"], own,
                  insert_max=16, cut_max=64, dup_max=128)


def _smoke(name: str):
    @SMOKE
    @given(data=mutated(name))
    def run(data):
        run_one(name, data)  # raises when the parser lets anything but our error escape

    run()


def test_fuzz_bellperson_params():
    import dataclasses  # noqa: F401

    from fuzz.targets import bellperson_params

    pk = S.groth16("bls12_381")[0]
    decoded = bellperson_params(S.bellperson_params()[0])
    for got, name in zip(decoded, ("h", "l", "a", "b_g1", "b_g2")):
        assert np.array_equal(got, pk.bases(name))
    _smoke("bellperson_params")


def test_fuzz_bellperson_vk():
    from cuzk.formats import bellperson

    vk = S.groth16("bls12_381")[0].vk
    got = bellperson.vk_from_bytes(S.bellperson_vk()[0])
    for field in ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2", "ic"):
        assert np.array_equal(getattr(got, field), getattr(vk, field))
    _smoke("bellperson_vk")


def test_fuzz_filecoin_vk():
    from cuzk.formats.filecoin.verifying_key import vk_from_any

    vk = S.groth16("bls12_381")[0].vk
    for seed in S.filecoin_vk():  # bellperson's layout, then compressed points
        got = vk_from_any(seed)
        for field in ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2", "ic"):
            assert np.array_equal(getattr(got, field), getattr(vk, field))
    _smoke("filecoin_vk")


def test_fuzz_bellperson_proof():
    from cuzk.formats import bellperson

    proof = S.groth16("bls12_381")[1]
    two = bellperson.proofs_from_bytes(S.bellperson_proof()[1])
    assert len(two) == 2 and all(np.array_equal(p.b, proof.b) and np.array_equal(p.c, proof.c) for p in two)
    _smoke("bellperson_proof")


def test_fuzz_zkey():
    from fuzz.targets import zkey

    for data, curve in zip(S.zkey(), ("bn254", "bls12_381")):
        vk, bases, contributions = zkey(data)
        assert vk.curve.name == curve and vk.ic.shape[0] == 2 and contributions.names == ()
        assert [b.shape[0] for b in bases] == [3, 1, 1, 1, 4]  # a (ONE, y, x), b_g1/b_g2 (x), l (x), h
    _smoke("zkey")


@pytest.mark.parametrize("name", ["snarkjs_proof", "snarkjs_vk", "snarkjs_public"])
def test_fuzz_snarkjs_json(name):
    from cuzk.formats import snarkjs_json as sj

    if name == "snarkjs_proof":
        proof = S.groth16("bn254")[1]
        got = sj.proof_from_json(sj.parse_json(S.snarkjs_proof()[0], "proof"))
        assert all(np.array_equal(getattr(got, f), getattr(proof, f)) for f in "abc")
    elif name == "snarkjs_vk":
        vk = S.groth16("bn254")[0].vk
        assert np.array_equal(sj.vk_from_json(sj.parse_json(S.snarkjs_vk()[0], "vk")).ic, vk.ic)
    else:
        assert sj.public_from_json(sj.parse_json(S.snarkjs_public()[0], "public")) == [35]
    _smoke(name)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**300, 2**300) | st.floats() | st.text(max_size=8)
                    | st.sampled_from(["0", "1", "21888242871839275222246405745257275088696311157297823662689037894645226208583"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)


@SMOKE
@given(which=st.sampled_from(["snarkjs_proof", "snarkjs_vk"]), key=st.text(max_size=12), value=JSON,
       pick=st.integers(0, 50))
def test_fuzz_snarkjs_json_structure(which, key, value, pick):
    """Structured mutation: one field (existing or new) of a valid file replaced by arbitrary JSON."""
    import json

    obj = json.loads(TARGETS[which].seeds()[0])
    keys = sorted(obj)
    obj[keys[pick % len(keys)] if pick < 40 else key] = value
    run_one(which, json.dumps(obj).encode())


def test_fuzz_r1cs():
    from cuzk.formats.circom_r1cs import r1cs_from_bytes

    c = r1cs_from_bytes(S.r1cs()[0])
    assert (c.curve, c.n_wires, c.num_public, c.n_constraints) == ("bn254", 4, 1, 2)
    _smoke("r1cs")


def test_fuzz_wtns():
    from cuzk.formats.wtns import wtns_from_bytes

    w = wtns_from_bytes(S.wtns()[1])
    assert w.curve == "bls12_381" and w.values.shape == (4, 4)
    _smoke("wtns")


def test_fuzz_vanilla():
    from cuzk.engine.catalog import synthetic

    from cuzk.engine.types import ProofRequest

    spec = synthetic.make_spec("tiny", "/nonexistent")
    (v,) = S.vanilla()
    req = ProofRequest(circuit_id="synthetic-tiny", vanilla_proof=v)
    assert TARGETS["vanilla"].fn(v) == [xs[0] for xs in spec.public_inputs(req)]
    _smoke("vanilla")


def test_fuzz_config():
    from cuzk.engine import config

    assert config.loads(S.config()[0].decode()) == config.EngineConfig()
    _smoke("config")


TOML_VALUES = st.sampled_from(["1", "-1", "0", "9223372036854775807", "1e400", "inf", "nan", "true", '"x"', '""',
                               '"5m"', '"1' + "0" * 400 + 'h"', '"1' + "0" * 400 + 'GiB"', "[1, 2]", '["a"]',
                               '[{id = 1}]', "{a = 1}", "[" * 60 + "]" * 60, '"auto"', '"-3s"'])


@SMOKE
@given(section=st.integers(0, 20), key=st.integers(0, 20), value=TOML_VALUES)
def test_fuzz_config_values(section, key, value):
    """Structured mutation: each known key set to hostile TOML values."""
    import dataclasses

    from cuzk.engine import config

    sections = sorted(config.SECTIONS)
    name = sections[section % len(sections)]
    fields = [f.name for f in dataclasses.fields(config.SECTIONS[name])]
    text = f"[{name}]\n{fields[key % len(fields)]} = {value}\n"
    run_one("config", text.encode())


def test_fuzz_grpc_request():
    from cuzk.proto import proving_pb2 as pb
    from cuzk.server import convert

    req = convert.request_from_proto(pb.SubmitProofRequest.FromString(S.grpc_request()[0]))
    assert req.request_id == "job-1" and int(req.proof_kind) == 4 and len(req.randomness) == 32
    assert len(req.vanilla_proofs) == 1 and req.registered_proof == 0  # Curio's WinningPoSt 2 KiB request
    assert all(run_one("grpc_request", seed) for seed in S.grpc_request())  # every seed routes and parses
    _smoke("grpc_request")


@SMOKE
@given(field=st.sampled_from(["request_id", "circuit_id", "proof_kind", "priority", "randomness", "comm_r_old",
                              "sector_size", "registered_proof", "partition_index"]),
       text=st.text(max_size=300), number=st.integers(-2**31, 2**31 - 1), blob=st.binary(max_size=40))
def test_fuzz_grpc_request_fields(field, text, number, blob):
    """Structured mutation: each request field set to arbitrary values of its proto type."""
    from cuzk.proto import proving_pb2 as pb

    msg = pb.SubmitProofRequest.FromString(S.grpc_request()[0])
    if field in ("request_id", "circuit_id"):
        setattr(msg, field, text)
    elif field in ("randomness", "comm_r_old"):
        setattr(msg, field, blob)
    elif field in ("proof_kind", "priority"):
        setattr(msg, field, number)
    else:
        setattr(msg, field, abs(number))
    run_one("grpc_request", msg.SerializeToString())


def test_fuzz_grpc_vk():
    from cuzk.proto import proving_pb2 as pb
    from cuzk.server import convert

    vk = S.groth16("bn254")[0].vk
    got = convert.vk_from_proto(pb.GetVerifyingKeyResponse.FromString(S.grpc_vk()[0]))
    assert np.array_equal(got.ic, vk.ic) and np.array_equal(got.delta_g2, vk.delta_g2)
    _smoke("grpc_vk")


@pytest.mark.parametrize("name", ["bellperson_proof", "snarkjs_vk"])
def test_atheris_harness_runs(tmp_path, name):
    """The coverage-guided harnesses themselves: a fixed number of runs from the seeds, no crash."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    corpus = write_corpus(name, tmp_path / "corpus")
    out = subprocess.run([sys.executable, str(root / "fuzz" / f"fuzz_{name}.py"), "-runs=400", "-seed=1",
                          f"-artifact_prefix={tmp_path}/", str(corpus)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    assert "Done 400 runs" in out.stderr
    assert not list(tmp_path.glob("crash-*"))


def test_atheris_harness_started_by_a_large_process(tmp_path):
    """Linux carries a process's peak RSS across exec, so a harness started by a test runner that
    has grown past libFuzzer's default 2048 MB limit was reported out of memory before its first
    input. The harness's memory guard is its address-space cap; it must run here."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    corpus = write_corpus("bellperson_proof", tmp_path / "corpus")
    starter = ("import subprocess, sys, numpy as np\n"
               "big = np.ones(2300 * (1 << 20) // 8)  # 2.3 GB resident in the starting process\n"
               "sys.exit(subprocess.run(sys.argv[1:]).returncode)\n")
    out = subprocess.run([sys.executable, "-c", starter, sys.executable, str(root / "fuzz" / "fuzz_bellperson_proof.py"),
                          "-runs=100", "-seed=1", f"-artifact_prefix={tmp_path}/", str(corpus)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Done 100 runs" in out.stderr and "out-of-memory" not in out.stderr
