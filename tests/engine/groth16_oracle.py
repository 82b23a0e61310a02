"""The test oracle for proofs the engine returns: py-arkworks-bls12381 checks them, with no cuzk code
on the path.

    e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta)

Neither side of that equation comes from what the engine reports about a job: the verifying key is
read here from the bellperson .vk file the engine's parameter directory holds (or from snarkjs's
vk.json for circom fixtures), and the public inputs x are derived here from the request's vanilla
proof bytes by the circuit's own definition (vanilla_statements.py; Filecoin's PoSt requests:
post_requests.py).

Proof bytes: A (G1, 48) || B (G2, 96) || C (G1, 48), zcash compressed, one proof per partition.
"""

from __future__ import annotations

import functools
import json
import struct
from dataclasses import dataclass
from pathlib import Path

import py_arkworks_bls12381 as ark
from vanilla_statements import expected_public_inputs

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001  # BLS12-381 scalar field
PROOF_BYTES = 192


@dataclass(frozen=True)
class Vk:
    alpha: ark.G1Point
    beta: ark.G2Point
    gamma: ark.G2Point
    delta: ark.G2Point
    ic: tuple  # G1 points, one more than the public inputs


# ---- verifying keys ------------------------------------------------------------------------


def _g1(raw: bytes) -> ark.G1Point:
    """A zcash uncompressed G1 point: x || y, big-endian (flag bits zero for a finite point)."""
    assert len(raw) == 96
    return ark.G1Point.from_xy_bytes_be(raw)


def _g2(raw: bytes) -> ark.G2Point:
    """A zcash uncompressed G2 point: x.c1 || x.c0 || y.c1 || y.c0 (arkworks reads c0 first)."""
    assert len(raw) == 192
    x1, x0, y1, y0 = (raw[i : i + 48] for i in range(0, 192, 48))
    return ark.G2Point.from_xy_bytes_be(x0 + x1 + y0 + y1)


def vk_file(param_dir, circuit_id: str) -> Path:
    """The one .vk the engine generated for `circuit_id` in `param_dir` (<id>-<topology hash>.vk)."""
    found = sorted(Path(param_dir).glob(f"{circuit_id}-*.vk"))
    assert len(found) == 1, f"expected one verifying key of {circuit_id} in {param_dir}, found {found}"
    return found[0]


@functools.lru_cache(maxsize=None)
def _read_vk(path: str, _mtime_ns: int) -> Vk:
    data = Path(path).read_bytes()
    g1, g2 = 96, 192
    fixed = 3 * g1 + 3 * g2  # alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2
    (n_ic,) = struct.unpack_from(">I", data, fixed)
    assert len(data) == fixed + 4 + n_ic * g1, f"{path}: {len(data)} bytes for {n_ic} IC points"
    at = {"alpha_g1": 0, "beta_g2": 2 * g1, "gamma_g2": 2 * g1 + g2, "delta_g2": 3 * g1 + 2 * g2}
    ic = tuple(_g1(data[fixed + 4 + i * g1 : fixed + 4 + (i + 1) * g1]) for i in range(n_ic))
    return Vk(_g1(data[0:g1]), *(_g2(data[at[k] : at[k] + g2]) for k in ("beta_g2", "gamma_g2", "delta_g2")),
              ic)


def vk_file_points(path) -> dict:
    """The raw 96/192-byte point encodings of a .vk file, by field name (what GetVerifyingKey sends)."""
    data = Path(path).read_bytes()
    names = (("alpha_g1", 96), ("beta_g1", 96), ("beta_g2", 192), ("gamma_g2", 192), ("delta_g1", 96),
             ("delta_g2", 192))
    out, at = {}, 0
    for name, size in names:
        out[name], at = data[at : at + size], at + size
    (n_ic,) = struct.unpack_from(">I", data, at)
    out["ic"] = [data[at + 4 + 96 * i : at + 4 + 96 * (i + 1)] for i in range(n_ic)]
    return out


def read_vk(path) -> Vk:
    """A bellperson .vk file (no cuzk reader involved)."""
    path = Path(path)
    return _read_vk(str(path), path.stat().st_mtime_ns)


def snarkjs_vk(path) -> Vk:
    """snarkjs's verification key JSON (decimal projective coordinates, Z = 1)."""
    j = json.loads(Path(path).read_text())

    def be(v) -> bytes:
        return int(v).to_bytes(48, "big")

    def g1(p):
        assert p[2] == "1"
        return ark.G1Point.from_xy_bytes_be(be(p[0]) + be(p[1]))

    def g2(p):
        assert p[2] == ["1", "0"]
        return ark.G2Point.from_xy_bytes_be(be(p[0][0]) + be(p[0][1]) + be(p[1][0]) + be(p[1][1]))

    return Vk(g1(j["vk_alpha_1"]), g2(j["vk_beta_2"]), g2(j["vk_gamma_2"]), g2(j["vk_delta_2"]),
              tuple(g1(p) for p in j["IC"]))


# ---- verification ----------------------------------------------------------------------------


def verify_one(vk: Vk, proof: bytes, public_inputs: list[int]) -> bool:
    if len(proof) != PROOF_BYTES or len(public_inputs) + 1 != len(vk.ic):
        return False
    if not all(0 <= int(x) < R for x in public_inputs):
        return False
    try:
        a = ark.G1Point.from_compressed_bytes(proof[:48])
        b = ark.G2Point.from_compressed_bytes(proof[48:144])
        c = ark.G1Point.from_compressed_bytes(proof[144:])
    except Exception:  # not a point of the subgroup
        return False
    ic = vk.ic[0]
    for x, base in zip(public_inputs, vk.ic[1:]):
        ic = ic + base * ark.Scalar(int(x))
    return ark.GT.pairing_check([a, -vk.alpha, -ic, -c], [b, vk.beta, vk.gamma, vk.delta])


def verify_job(vk: Vk, proof: bytes, public_inputs: list[list[int]]) -> bool:
    """A job's proof: one 192-byte proof per partition, in order."""
    if len(proof) != PROOF_BYTES * len(public_inputs):
        return False
    return all(verify_one(vk, proof[PROOF_BYTES * i : PROOF_BYTES * (i + 1)], xs)
               for i, xs in enumerate(public_inputs))


def assert_proves(param_dir, circuit_id: str, vanilla: bytes, proof: bytes, reported=None) -> None:
    """`proof` proves the statement of `vanilla` under the key the engine generated for `circuit_id`;
    `reported` (the public inputs the engine returned, if given) is that statement."""
    expected = expected_public_inputs(vanilla)
    if reported is not None:
        assert [list(map(int, xs)) for xs in reported] == expected, "the engine reports other public inputs"
    vk = read_vk(vk_file(param_dir, circuit_id))
    assert len(vk.ic) == len(expected[0]) + 1, "the verifying key is for another number of public inputs"
    assert len(proof) == PROOF_BYTES * len(expected)
    assert verify_job(vk, proof, expected), f"{circuit_id}: the proof does not verify"
    wrong = [(expected[0][0] + 1) % R] + expected[0][1:]  # the oracle itself can say no
    assert not verify_one(vk, proof[:PROOF_BYTES], wrong)
