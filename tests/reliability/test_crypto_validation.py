"""Cryptographic validation on both curves: points off the curve, outside the
prime-order subgroup, with non-canonical coordinates (>= p), the point at
infinity where it is not allowed, and public inputs >= r are refused by the
decoders (bellperson bytes, snarkjs JSON, the daemon's vk message) and by
the verifier.

The bad points are built with py_ecc, an independent implementation: a
random x with x^3 + b square gives a curve point that is (with overwhelming
probability, and checked) outside the subgroup; for G2 the same on the twist.
BN254's G1 has cofactor 1, so there every curve point is in the subgroup and
that case does not exist (checked below too).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
from py_ecc import bls12_381 as ecc_bls
from py_ecc import bn128 as ecc_bn
from py_ecc.bls.point_compression import compress_G1, compress_G2

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cuzk.curve import get_curve  # noqa: E402
from cuzk.errors import FormatError, ValidationError  # noqa: E402
from cuzk.formats import bellperson  # noqa: E402
from cuzk.formats import snarkjs_json as sj  # noqa: E402
from cuzk.groth16.keys import Proof  # noqa: E402
from cuzk.groth16.verifier import PreparedVerifyingKey, verify, verify_batch  # noqa: E402
from cuzk.server import convert  # noqa: E402
from fuzz.seeds import groth16  # noqa: E402

ECC = {"bn254": ecc_bn, "bls12_381": ecc_bls}
CURVES = ["bn254", "bls12_381"]


# ---- bad points from py_ecc -------------------------------------------------------------------------


def _sqrt_fq(ecc, a):
    p = ecc.field_modulus
    y = ecc.FQ(a) ** ((p + 1) // 4)  # p = 3 mod 4 on both curves
    return y if y * y == ecc.FQ(a) else None


def _sqrt_fq2(ecc, a):
    """Square root in Fq[u]/(u^2 + 1), p = 3 mod 4 (Adj and Rodriguez-Henriquez, algorithm 9)."""
    p = ecc.field_modulus
    one = ecc.FQ2([1, 0])
    a1 = a ** ((p - 3) // 4)
    alpha = a1 * a1 * a
    if alpha ** p * alpha == -one:
        return None
    x0 = a1 * a
    x = ecc.FQ2([0, 1]) * x0 if alpha == -one else (one + alpha) ** ((p - 1) // 2) * x0
    return x if x * x == a else None


def off_subgroup_point(curve: str, group: str, seed: int = 1):
    """A point on the curve (G1) or the twist (G2) that is not in the prime-order subgroup."""
    ecc, rng = ECC[curve], random.Random(seed)
    while True:
        if group == "g1":
            x = ecc.FQ(rng.randrange(ecc.field_modulus))
            y = _sqrt_fq(ecc, x**3 + ecc.b)
        else:
            x = ecc.FQ2([rng.randrange(ecc.field_modulus), rng.randrange(ecc.field_modulus)])
            y = _sqrt_fq2(ecc, x**3 + ecc.b2)
        if y is None:
            continue
        pt = (x, y)
        assert ecc.is_on_curve(pt, ecc.b if group == "g1" else ecc.b2)
        if ecc.multiply(pt, ecc.curve_order) is not None:  # None is py_ecc's point at infinity
            return pt


def valid_point(curve: str, group: str, k: int = 7):
    ecc = ECC[curve]
    return ecc.multiply(ecc.G1 if group == "g1" else ecc.G2, k)


def off_curve_point(curve: str, group: str):
    x, y = valid_point(curve, group)
    return x, y + (1 if group == "g1" else ECC[curve].FQ2([1, 0]))


def coords(pt) -> list[int]:
    """(x, y) -> [x, y] (G1) or [x.c0, x.c1, y.c0, y.c1] (G2) as ints."""
    out = []
    for c in pt:
        out.extend(int(v) for v in getattr(c, "coeffs", (c,)))
    return out


def to_json(group: str, ints: list[int]) -> list:
    s = [str(v) for v in ints]
    return [s[0], s[1], "1"] if group == "g1" else [[s[0], s[1]], [s[2], s[3]], ["1", "0"]]


def to_limbs(curve: str, group: str, ints: list[int]) -> np.ndarray:
    """The project's affine layout (Montgomery limbs) of coordinates, valid or not."""
    c = get_curve(curve)
    shape = (2,) + (c.g1.coord if group == "g1" else c.g2.coord)
    return c.fq.from_ints(ints).reshape(shape)


def group_of(curve: str, group: str):
    return getattr(get_curve(curve), group)


# The bad cases per group: (name, coordinates); BN254 G1 has no non-subgroup points.
def bad_cases(curve: str, group: str):
    p = ECC[curve].field_modulus
    x = coords(valid_point(curve, group))
    cases = [("off the curve", coords(off_curve_point(curve, group)), ValidationError, "not on the curve"),
             ("non-canonical", [x[0] + p] + x[1:], FormatError, "not canonical")]
    if not (curve == "bn254" and group == "g1"):
        cases.append(("outside the subgroup", coords(off_subgroup_point(curve, group)), ValidationError, "subgroup"))
    return cases


GROUP_CASES = [(c, g) for c in CURVES for g in ("g1", "g2")]


def test_bn254_g1_has_no_points_outside_the_subgroup():
    pt = None
    rng = random.Random(5)
    while pt is None:
        x = ecc_bn.FQ(rng.randrange(ecc_bn.field_modulus))
        y = _sqrt_fq(ecc_bn, x**3 + ecc_bn.b)
        pt = (x, y) if y is not None else None
    assert ecc_bn.multiply(pt, ecc_bn.curve_order) is None


# ---- snarkjs JSON -------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=CURVES)
def keyed(request):
    pk, proof, public = groth16(request.param)
    return request.param, pk, proof, public


@pytest.mark.parametrize("curve,group", GROUP_CASES)
def test_json_proof_rejects_bad_points(curve, group):
    _, proof, _ = groth16(curve)
    good = sj.proof_to_json(proof)
    field = "pi_a" if group == "g1" else "pi_b"
    for name, ints, err, words in bad_cases(curve, group):
        obj = dict(good, **{field: to_json(group, ints)})
        with pytest.raises(err, match=words) as info:
            sj.proof_from_json(obj)
        assert field in str(info.value), name


@pytest.mark.parametrize("curve,group", GROUP_CASES)
def test_json_vk_rejects_bad_points(curve, group):
    vk = groth16(curve)[0].vk
    good = sj.vk_to_json(vk)
    field = "vk_alpha_1" if group == "g1" else "vk_gamma_2"
    for name, ints, err, words in bad_cases(curve, group):
        with pytest.raises(err, match=words) as info:
            sj.vk_from_json(dict(good, **{field: to_json(group, ints)}))
        assert field in str(info.value), name
    if group == "g1":  # an IC point too
        ints = bad_cases(curve, group)[0][1]
        with pytest.raises(ValidationError, match="IC"):
            sj.vk_from_json(dict(good, IC=[good["IC"][0], to_json(group, ints)]))


@pytest.mark.parametrize("curve", CURVES)
def test_json_rejects_infinity_in_proof_and_vk(curve):
    pk, proof, _ = groth16(curve)
    inf = {"g1": ["0", "1", "0"], "g2": [["0", "0"], ["1", "0"], ["0", "0"]]}
    good = sj.proof_to_json(proof)
    for field, group in (("pi_a", "g1"), ("pi_b", "g2"), ("pi_c", "g1")):
        with pytest.raises(ValidationError, match=f"{field}: the point at infinity is not allowed"):
            sj.proof_from_json(dict(good, **{field: inf[group]}))
    vk = sj.vk_to_json(pk.vk)
    for field, group in (("vk_alpha_1", "g1"), ("vk_beta_2", "g2"), ("vk_gamma_2", "g2"), ("vk_delta_2", "g2")):
        with pytest.raises(ValidationError, match=f"{field}: the point at infinity is not allowed"):
            sj.vk_from_json(dict(vk, **{field: inf[group]}))


@pytest.mark.parametrize("curve", CURVES)
def test_json_public_inputs_at_or_above_r_are_rejected(curve):
    c = get_curve(curve)
    r = c.fr.p
    assert sj.public_from_json([str(r - 1), "0"], curve=c) == [r - 1, 0]
    for bad in (r, r + 5, 2**256 - 1):
        with pytest.raises(ValidationError, match="element 1: public input is not below"):
            sj.public_from_json(["1", str(bad)], curve=c)


# ---- bellperson bytes (BLS12-381) ----------------------------------------------------------------------


def zcash_uncompressed(group: str, ints: list[int]) -> bytes:
    order = ints if group == "g1" else [ints[1], ints[0], ints[3], ints[2]]  # G2: c1 before c0
    return b"".join(v.to_bytes(48, "big") for v in order)


def zcash_compressed(group: str, pt) -> bytes:
    """x with the compression flag and the sort flag (y the larger root: c1, or c0 when c1 = 0)."""
    half = (ECC["bls12_381"].field_modulus - 1) // 2
    v = coords(pt)
    if group == "g1":
        flags = 0x80 | (0x20 if v[1] > half else 0)
        return (v[0] | flags << 376).to_bytes(48, "big")
    flags = 0x80 | (0x20 if (v[3] > half if v[3] else v[2] > half) else 0)
    return (v[1] | flags << 376).to_bytes(48, "big") + v[0].to_bytes(48, "big")


def test_compressed_encoding_matches_py_ecc():
    from py_ecc import optimized_bls12_381 as opt

    for k in (3, 11):
        g1, g2 = opt.normalize(opt.multiply(opt.G1, k)), opt.normalize(opt.multiply(opt.G2, k))
        assert zcash_compressed("g1", g1) == compress_G1(opt.multiply(opt.G1, k)).to_bytes(48, "big")
        z1, z2 = compress_G2(opt.multiply(opt.G2, k))
        assert zcash_compressed("g2", g2) == z1.to_bytes(48, "big") + z2.to_bytes(48, "big")


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_bellperson_vk_bytes_reject_bad_points(group):
    vk = groth16("bls12_381")[0].vk
    data = bellperson.vk_bytes(vk)
    off, size, field = (0, 96, "alpha_g1") if group == "g1" else (96 + 96 + 192, 192, "gamma_g2")
    assert bellperson.vk_from_bytes(data).ic.shape == vk.ic.shape
    for name, ints, err, words in bad_cases("bls12_381", group):
        if name == "non-canonical":  # x + p would spill into the flag bits: write x = p (the residue 0)
            enc = zcash_uncompressed(group, [ECC["bls12_381"].field_modulus] + ints[1:])
        else:
            enc = zcash_uncompressed(group, ints)
        with pytest.raises(err, match=words) as info:
            bellperson.vk_from_bytes(data[:off] + enc + data[off + size:])
        assert field in str(info.value), name
    with pytest.raises(ValidationError, match=f"vk.{field}.*point at infinity"):
        bellperson.vk_from_bytes(data[:off] + bytes([0x40]) + bytes(size - 1) + data[off + size:])


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_bellperson_proof_bytes_reject_bad_points(group):
    data = bellperson.proof_to_bytes(groth16("bls12_381")[1])
    assert len(bellperson.proofs_from_bytes(data)) == 1
    off, size, field = (0, 48, "proof.A") if group == "g1" else (48, 96, "proof.B")
    splice = lambda enc: data[:off] + enc + data[off + size:]  # noqa: E731
    with pytest.raises(ValidationError, match="subgroup") as info:
        bellperson.proofs_from_bytes(splice(zcash_compressed(group, off_subgroup_point("bls12_381", group))))
    assert field in str(info.value)
    x_nonsquare = _x_not_on_curve(group)
    with pytest.raises(ValidationError, match="not a square"):
        bellperson.proofs_from_bytes(splice(x_nonsquare))
    p = ECC["bls12_381"].field_modulus
    big = bytearray(zcash_compressed(group, valid_point("bls12_381", group)))
    big[0:48] = (p | (1 << 383)).to_bytes(48, "big")  # x (G1) or x.c1 (G2) = p, compression flag set
    with pytest.raises(FormatError, match="not canonical"):
        bellperson.proofs_from_bytes(splice(bytes(big)))
    with pytest.raises(ValidationError, match=f"{field}: element 0 is the point at infinity"):
        bellperson.proofs_from_bytes(splice(bytes([0xC0]) + bytes(size - 1)))


def _x_not_on_curve(group: str) -> bytes:
    """A compressed encoding whose x has no y on the curve (x^3 + b is not a square)."""
    ecc, rng = ecc_bls, random.Random(9)
    while True:
        if group == "g1":
            x = ecc.FQ(rng.randrange(ecc.field_modulus))
            if _sqrt_fq(ecc, x**3 + ecc.b) is None:
                return (int(x) | (1 << 383)).to_bytes(48, "big")
        else:
            c0, c1 = rng.randrange(ecc.field_modulus), rng.randrange(ecc.field_modulus)
            if _sqrt_fq2(ecc, ecc.FQ2([c0, c1]) ** 3 + ecc.b2) is None:
                return (c1 | (1 << 383)).to_bytes(48, "big") + c0.to_bytes(48, "big")


# ---- the daemon's verifying-key message -----------------------------------------------------------------


@pytest.mark.parametrize("curve,group", GROUP_CASES)
def test_grpc_vk_rejects_bad_points(curve, group):
    from types import SimpleNamespace

    vk = groth16(curve)[0].vk
    msg = convert.vk_to_proto(SimpleNamespace(circuit_id="c", num_partitions=1, proof_kind=0), vk)
    assert PreparedVerifyingKey(convert.vk_from_proto(msg)).vk.ic.shape == vk.ic.shape
    field = "alpha_g1" if group == "g1" else "beta_g2"
    for name, ints, err, _ in bad_cases(curve, group):
        if name == "non-canonical" and curve == "bls12_381":
            continue  # the zcash form is covered by the bellperson tests above
        pt = to_limbs(curve, group, [v % ECC[curve].field_modulus for v in ints])
        if name == "non-canonical":
            enc = bytearray(convert._point_bytes(group_of(curve, group), pt))
            enc[0:32] = (int.from_bytes(enc[0:32], "big") + ECC[curve].field_modulus).to_bytes(32, "big")
            enc = bytes(enc)
        elif curve == "bls12_381":
            enc = zcash_uncompressed(group, ints)
        else:
            enc = convert._point_bytes(group_of(curve, group), pt)
        bad = type(msg)()
        bad.CopyFrom(msg)
        setattr(bad, field, enc)
        with pytest.raises((FormatError, ValidationError)) as info:
            convert.vk_from_proto(bad)
        assert field in str(info.value), name


# ---- the verifier -------------------------------------------------------------------------------------------


def test_verifier_accepts_the_honest_proof(keyed):
    curve, pk, proof, public = keyed
    pvk = PreparedVerifyingKey(pk.vk)
    assert verify(pvk, proof, public)
    assert verify_batch(pvk, [proof, proof], [public, public])


def _bad_point_arrays(curve: str, group: str):
    """(name, limbs) for the bad cases, in the layout the verifier takes."""
    out = []
    for name, ints, _, _ in bad_cases(curve, group):
        if name == "non-canonical":
            c = get_curve(curve)
            good = to_limbs(curve, group, ints[:1] and [v % c.fq.p for v in ints])
            flat = good.reshape(-1, c.fq.limbs).copy()
            # x's Montgomery limbs plus p: the same residue, but not a canonical representative
            value = sum(int(flat[0, i]) << (64 * i) for i in range(c.fq.limbs)) + c.fq.p
            flat[0] = [(value >> (64 * i)) & (2**64 - 1) for i in range(c.fq.limbs)]
            out.append((name, flat.reshape(good.shape)))
        else:
            out.append((name, to_limbs(curve, group, ints)))
    return out


@pytest.mark.parametrize("curve,group", GROUP_CASES)
def test_verifier_rejects_bad_proof_points(curve, group):
    pk, proof, public = groth16(curve)
    pvk = PreparedVerifyingKey(pk.vk)
    for name, pt in _bad_point_arrays(curve, group):
        bad = Proof(proof.curve, pt, proof.b, proof.c) if group == "g1" else Proof(proof.curve, proof.a, pt, proof.c)
        with pytest.raises(ValidationError, match="proof point (A|B) is not a valid"):
            verify(pvk, bad, public)
        with pytest.raises(ValidationError):
            verify_batch(pvk, [proof, bad], [public, public])


@pytest.mark.parametrize("curve", CURVES)
def test_verifier_rejects_infinity_in_the_proof(curve):
    pk, proof, public = groth16(curve)
    pvk = PreparedVerifyingKey(pk.vk)
    for name in ("a", "b", "c"):
        parts = {"a": proof.a, "b": proof.b, "c": proof.c}
        parts[name] = np.zeros_like(parts[name])
        with pytest.raises(ValidationError, match=f"proof point {name.upper()} is the point at infinity"):
            verify(pvk, Proof(proof.curve, **parts), public)


@pytest.mark.parametrize("curve,group", GROUP_CASES)
def test_verifier_rejects_bad_verifying_keys(curve, group):
    import dataclasses

    vk = groth16(curve)[0].vk
    field = "alpha_g1" if group == "g1" else "delta_g2"
    for name, pt in _bad_point_arrays(curve, group):
        with pytest.raises(ValidationError, match=f"{field} is not a valid"):
            PreparedVerifyingKey(dataclasses.replace(vk, **{field: pt}))
    with pytest.raises(ValidationError, match=f"{field} is the point at infinity"):
        PreparedVerifyingKey(dataclasses.replace(vk, **{field: np.zeros_like(getattr(vk, field))}))
    if group == "g1":
        for name, pt in _bad_point_arrays(curve, group):
            ic = vk.ic.copy()
            ic[-1] = pt
            with pytest.raises(ValidationError, match=r"ic\[1\] is not a valid G1 point"):
                PreparedVerifyingKey(dataclasses.replace(vk, ic=ic))


@pytest.mark.parametrize("curve", CURVES)
def test_verifier_rejects_public_inputs_at_or_above_r(curve):
    """x + r is the same field element as x: accepting it would make proofs malleable."""
    pk, proof, public = groth16(curve)
    pvk = PreparedVerifyingKey(pk.vk)
    r = get_curve(curve).fr.p
    assert verify(pvk, proof, public)
    for bad in ([public[0] + r], [r], [-1]):
        with pytest.raises(ValidationError, match="public input 0 is not a field element"):
            verify(pvk, proof, bad)


def test_bn254_proof_bytes_reach_the_verifier_checked():
    """BN254 proof bytes (formats/proof_bytes) check canonical coordinates; the verifier does the rest."""
    from cuzk.formats import proof_bytes

    pk, proof, public = groth16("bn254")
    pvk = PreparedVerifyingKey(pk.vk)
    data = proof_bytes.encode(proof)
    assert verify(pvk, proof_bytes.decode("bn254", data), public)
    off = coords(off_curve_point("bn254", "g1"))
    bad = b"".join(v.to_bytes(32, "big") for v in off) + data[64:]
    with pytest.raises(ValidationError, match="proof point A is not a valid G1"):
        verify(pvk, proof_bytes.decode("bn254", bad), public)
    twist = coords(off_subgroup_point("bn254", "g2"))
    bad = data[:64] + b"".join(twist[i].to_bytes(32, "big") for i in (1, 0, 3, 2)) + data[192:]
    with pytest.raises(ValidationError, match="proof point B is not a valid G2"):
        verify(pvk, proof_bytes.decode("bn254", bad), public)
    nc = (int.from_bytes(data[:32], "big") + ecc_bn.field_modulus).to_bytes(32, "big")
    with pytest.raises(FormatError, match="not canonical"):
        proof_bytes.decode("bn254", nc + data[32:])
