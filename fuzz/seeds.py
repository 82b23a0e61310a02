"""Valid inputs for every parser, made by the project's own writers (and read
from the circom/snarkjs fixtures where they exist), to seed the fuzzers.

Everything is built in memory; `targets.write_corpus` puts one parser's seeds in a
folder for libFuzzer. Seeds are memoized per process: building the Groth16
keys they come from takes about a second.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

FIXTURES = Path(os.environ.get("CUZK_CIRCOM_FIXTURES",
                               Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "circom"))
FIXTURE_DIRS = sorted(d for d in FIXTURES.glob("*/*") if d.is_dir()) if FIXTURES.is_dir() else []


@functools.lru_cache(maxsize=None)
def groth16(curve: str):
    """(proving key, proof, public inputs) of the cube circuit on `curve`, made by cuzk."""
    from cuzk.backend import get_backend
    from cuzk.circuits.textbook_cubic import cube_circuit
    from cuzk.groth16 import prover, setup
    from cuzk.r1cs import RecordingCS, WitnessCS
    from cuzk.r1cs.evaluation import evaluate

    rec = RecordingCS(curve)
    cube_circuit(rec, 0)
    cc = rec.compile()
    cpu = get_backend("cpu")
    pk = setup.generate(cc, backend=cpu, progress=False)
    ws = WitnessCS(curve)
    cube_circuit(ws, 3)
    w = ws.witness()
    proof = prover.prove(pk, w, evaluate(cc, w), backend=cpu)
    return pk, proof, [3**3 + 3 + 5]


# ---- bellperson ------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def bellperson_params() -> list[bytes]:
    import tempfile

    from cuzk.formats import bellperson

    pk, _, _ = groth16("bls12_381")
    with tempfile.TemporaryDirectory() as tmp:
        bellperson.write_params(f"{tmp}/c.params", pk)
        return [Path(f"{tmp}/c.params").read_bytes()]


@functools.lru_cache(maxsize=None)
def bellperson_vk() -> list[bytes]:
    from cuzk.formats import bellperson

    return [bellperson.vk_bytes(groth16("bls12_381")[0].vk)]


@functools.lru_cache(maxsize=None)
def filecoin_vk() -> list[bytes]:
    """The key in both layouts `cuzk filecoin verify --vk` reads: bellperson's .vk, compressed points."""
    from cuzk.formats import bellperson
    from cuzk.formats.filecoin.verifying_key import compressed_bytes

    vk = groth16("bls12_381")[0].vk
    return [bellperson.vk_bytes(vk), compressed_bytes(vk)]


@functools.lru_cache(maxsize=None)
def bellperson_proof() -> list[bytes]:
    from cuzk.formats import bellperson

    one = bellperson.proof_to_bytes(groth16("bls12_381")[1])
    return [one, one * 2]


# ---- snarkjs ---------------------------------------------------------------------------


def _fixture_files(name: str) -> list[bytes]:
    return [(d / name).read_bytes() for d in FIXTURE_DIRS if (d / name).is_file()]


def _json(obj) -> bytes:
    import json

    return json.dumps(obj, indent=1).encode()


@functools.lru_cache(maxsize=None)
def snarkjs_proof() -> list[bytes]:
    from cuzk.formats import snarkjs_json as sj

    return [_json(sj.proof_to_json(groth16(c)[1])) for c in ("bn254", "bls12_381")] + _fixture_files("proof.json")


@functools.lru_cache(maxsize=None)
def snarkjs_vk() -> list[bytes]:
    from cuzk.formats import snarkjs_json as sj

    return [_json(sj.vk_to_json(groth16(c)[0].vk)) for c in ("bn254", "bls12_381")] + _fixture_files("vk.json")


@functools.lru_cache(maxsize=None)
def snarkjs_public() -> list[bytes]:
    from cuzk.formats import snarkjs_json as sj

    return [_json(sj.public_to_json(groth16(c)[2])) for c in ("bn254",)] + _fixture_files("public.json")


def _section(stype: int, body: bytes) -> bytes:
    return stype.to_bytes(4, "little") + len(body).to_bytes(8, "little") + body


def _points_bytes(pts: np.ndarray) -> bytes:
    """Affine points in a zkey's layout: Montgomery limbs, little-endian (the project's own layout)."""
    return np.ascontiguousarray(pts, dtype="<u8").tobytes()


def tiny_zkey(curve_name: str) -> bytes:
    """A structurally complete Groth16 .zkey: signals [ONE, y, x], one constraint x * x = y.

    The points are multiples of the generators (valid subgroup points, not a
    real setup): enough for every check the reader makes.
    """
    from cuzk.curve import get_curve

    curve = get_curve(curve_name)
    fq, fr, g1, g2 = curve.fq, curve.fr, curve.g1, curve.g2
    n8q, n_vars, n_public, domain = 8 * fq.limbs, 3, 1, 4

    def mults(group, ks):
        gens = np.broadcast_to(group.generator, (len(ks),) + group.generator.shape)
        return group.scalar_mul(np.ascontiguousarray(gens), ks)

    head = (n8q.to_bytes(4, "little") + fq.p.to_bytes(n8q, "little") + (32).to_bytes(4, "little")
            + fr.p.to_bytes(32, "little") + b"".join(v.to_bytes(4, "little") for v in (n_vars, n_public, domain)))
    head += b"".join(_points_bytes(mults(g, [k])) for g, k in
                     ((g1, 2), (g1, 3), (g2, 5), (g2, 7), (g1, 11), (g2, 13)))
    r2 = pow(2, 2 * 64 * fr.limbs, fr.p)  # coefficients are stored as c * R^2 mod r (snarkjs writeFr2)
    records = [(0, 0, 2, 1), (1, 0, 2, 1), (0, 1, 0, 1), (0, 2, 1, 1)]  # A0 = {x}, B0 = {x}, then A = {ONE}, {y}
    coeffs = len(records).to_bytes(4, "little") + b"".join(
        m.to_bytes(4, "little") + c.to_bytes(4, "little") + s.to_bytes(4, "little") + (v * r2 % fr.p).to_bytes(32, "little")
        for m, c, s, v in records)
    b_mask = np.array([0, 0, 1], dtype=bool)  # only x has a B coefficient: the other bases are infinity
    b1 = mults(g1, [17, 19, 23])
    b1[~b_mask] = 0
    b2 = mults(g2, [29, 31, 37])
    b2[~b_mask] = 0
    body = [
        _section(1, (1).to_bytes(4, "little")), _section(2, head),
        _section(3, _points_bytes(mults(g1, [41, 43]))), _section(4, coeffs),
        _section(5, _points_bytes(mults(g1, [47, 53, 59]))), _section(6, _points_bytes(b1)),
        _section(7, _points_bytes(b2)), _section(8, _points_bytes(mults(g1, [61]))),
        _section(9, _points_bytes(mults(g1, [67, 71, 73, 79]))),
        _section(10, bytes(64) + (0).to_bytes(4, "little")),
    ]
    return b"zkey" + (1).to_bytes(4, "little") + len(body).to_bytes(4, "little") + b"".join(body)


@functools.lru_cache(maxsize=None)
def zkey() -> list[bytes]:
    return [tiny_zkey("bn254"), tiny_zkey("bls12_381")]


# ---- circom ----------------------------------------------------------------------------


def tiny_r1cs(prime: int) -> bytes:
    """out = x*x + 2x - 1 over wires [ONE, out, x, t], as circom writes it."""
    cons = [([(2, 1)], [(2, 1)], [(3, 1)]), ([], [], [(3, 1), (2, 2), (0, -1), (1, -1)])]
    header = (32).to_bytes(4, "little") + prime.to_bytes(32, "little")
    header += b"".join(x.to_bytes(4, "little") for x in (4, 1, 0, 1)) + (4).to_bytes(8, "little")
    header += len(cons).to_bytes(4, "little")
    body = b""
    for row in cons:
        for lc in row:
            body += len(lc).to_bytes(4, "little")
            body += b"".join(w.to_bytes(4, "little") + (c % prime).to_bytes(32, "little") for w, c in lc)
    labels = b"".join(i.to_bytes(8, "little") for i in range(4))
    return b"r1cs" + (1).to_bytes(4, "little") + (3).to_bytes(4, "little") + _section(1, header) + _section(
        2, body) + _section(3, labels)


def tiny_wtns(prime: int) -> bytes:
    values = [1, 14, 3, 9]
    header = (32).to_bytes(4, "little") + prime.to_bytes(32, "little") + len(values).to_bytes(4, "little")
    body = b"".join(v.to_bytes(32, "little") for v in values)
    return b"wtns" + (2).to_bytes(4, "little") + (2).to_bytes(4, "little") + _section(1, header) + _section(2, body)


def _primes() -> list[int]:
    from cuzk.curve import BLS12_381, BN254

    return [BN254.fr.p, BLS12_381.fr.p]


@functools.lru_cache(maxsize=None)
def r1cs() -> list[bytes]:
    return [tiny_r1cs(p) for p in _primes()]


@functools.lru_cache(maxsize=None)
def wtns() -> list[bytes]:
    return [tiny_wtns(p) for p in _primes()] + _fixture_files("witness.wtns")[:1]


def fixture_r1cs() -> list[bytes]:
    """The fixtures' .r1cs files (0.5-1.4 MB): extra seeds for long runs."""
    return [p.read_bytes() for d in FIXTURE_DIRS for p in d.glob("*.r1cs")][:1]


# ---- vanilla proofs, config, gRPC -------------------------------------------------------


@functools.lru_cache(maxsize=None)
def vanilla() -> list[bytes]:
    """synthetic-tiny's input."""
    from cuzk.engine.catalog import synthetic

    return [synthetic.generate_vanilla("tiny", 1)]


@functools.lru_cache(maxsize=None)
def config() -> list[bytes]:
    from cuzk.engine.config import DEFAULT_CONFIG

    small = ('[daemon]\nlisten = "127.0.0.1:9820"\nshutdown_timeout = "250ms"\n[memory]\ntotal_budget = "4GiB"\n'
             '[gpus]\nbackend = "cpu"\ndevices = [0, 1]\n[circuits]\nsynthetic = true\n'
             '[[circuits.circom]]\nid = "c"\nzkey = "/nonexistent.zkey"\nproof_kind = "winning-post"\n')
    return [DEFAULT_CONFIG.encode(), small.encode()]


@functools.lru_cache(maxsize=None)
def grpc_request() -> list[bytes]:
    from cuzk.proto import proving_pb2 as pb

    from cuzk.circuits.filecoin.porep.config import porep_config
    from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for
    from cuzk.circuits.filecoin.snap.config import snap_config
    from cuzk.circuits.filecoin.porep import request as porep_request
    from cuzk.circuits.filecoin.snap import request as snap_request
    from cuzk.circuits.filecoin.post.request import sample_request

    # as Curio sends them: WinningPoSt, SnapDeals (StackedDrg2KiBV1), PoRep (StackedDrg2KiBV1_1)
    winning = sample_request(post_config_for("winning", SECTOR_SIZES["2KiB"]), 1)
    snap = snap_request.sample_request(snap_config(0), 1)
    porep = porep_request.sample_request(porep_config(5), 1)
    msgs = [
        pb.SubmitProofRequest(request_id="job-1", priority=3, **winning),
        pb.SubmitProofRequest(circuit_id="synthetic-tiny", vanilla_proofs=vanilla()),
        pb.SubmitProofRequest(**{**snap, "proof_kind": 2}),
        pb.SubmitProofRequest(**{**porep, "proof_kind": 1}),
    ]
    return [m.SerializeToString() for m in msgs]


@functools.lru_cache(maxsize=None)
def grpc_vk() -> list[bytes]:
    from types import SimpleNamespace

    from cuzk.server import convert

    spec = SimpleNamespace(circuit_id="cube", num_partitions=1, proof_kind=0)
    return [convert.vk_to_proto(spec, groth16(c)[0].vk).SerializeToString() for c in ("bn254", "bls12_381")]
