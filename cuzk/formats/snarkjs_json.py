"""snarkjs's JSON files: proof.json, public.json, verification_key.json.

    proof.json   {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bn128"}
    public.json  ["<decimal>", ...]   the public signals, outputs first (w[1..nPublic])
    vk.json      {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2",
                  "vk_delta_2", "vk_alphabeta_12", "IC": [G1, ...]}

Points use snarkjs's projective coordinate lists (json_coords.py:
decimal strings, z = 1 when written). Curve names are snarkjs's: "bn128"
for BN254 and "bls12381" for BLS12-381; readers also accept what snarkjs's
getCurveFromName accepts (case and punctuation ignored, bn254, altbn128).

`vk_alphabeta_12` (e(alpha, beta) in Fq12) is only a convenience for
Solidity verifiers; `snarkjs groth16 verify` does not read it, so the writer
leaves it out and the reader ignores it.

Structural problems raise FormatError naming the file and field; points off
the curve or outside the subgroup raise ValidationError (json_coords).
Proof points and vk alpha/beta/gamma/delta must not be the point at
infinity (ValidationError). Public signals are range-checked (< r) when the
caller names the curve; the verifier checks them again in any case.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from cuzk import safe_json
from cuzk.curve import Curve, get_curve
from cuzk.errors import FormatError, ValidationError
from cuzk.groth16.keys import Proof, VerifyingKey

from .json_coords import point_from_json, point_to_json, points_from_json, points_to_json

SNARKJS_CURVE_NAMES = {"bn254": "bn128", "bls12_381": "bls12381"}
_ALIASES = {"BN128": "bn254", "BN254": "bn254", "ALTBN128": "bn254", "BLS12381": "bls12_381"}
_MAX_DIGITS = 200


def curve_from_snarkjs_name(name, where: str) -> Curve:
    if not isinstance(name, str):
        raise FormatError(f"{where}: field 'curve': expected a string, got {type(name).__name__}")
    key = "".join(re.findall(r"[A-Za-z0-9]+", name)).upper()
    if key not in _ALIASES:
        raise FormatError(f"{where}: field 'curve': unsupported curve {name!r} (expected bn128 or bls12381)")
    return get_curve(_ALIASES[key])


def snarkjs_curve_name(curve: Curve) -> str:
    return SNARKJS_CURVE_NAMES[curve.name]


# ---- files ------------------------------------------------------------------


def read_json(path, what: str):
    """Parse a JSON file; unreadable or invalid JSON is a FormatError naming it."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{path}: {what}: no such file") from None
    except OSError as exc:
        raise FormatError(f"{path}: {what}: cannot read ({exc})") from None
    return parse_json(data, f"{path}: {what}")


def parse_json(data: bytes | str, where: str):
    """JSON text (UTF-8 bytes or str) -> Python objects; anything malformed is a FormatError
    (cuzk.safe_json: bad UTF-8, over-long integers, nesting deeper than 64 levels)."""
    return safe_json.loads(data, where)


def write_json(path, obj) -> None:
    """Write as snarkjs does (JSON.stringify(obj, null, 1))."""
    Path(path).write_text(json.dumps(obj, indent=1), encoding="utf-8")


def _object(obj, where: str, required) -> dict:
    if not isinstance(obj, dict):
        raise FormatError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in required if k not in obj]
    if missing:
        raise FormatError(f"{where}: missing field{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}")
    return obj


def _protocol(obj, where: str) -> None:
    if obj.get("protocol", "groth16") != "groth16":
        raise FormatError(f"{where}: field 'protocol': {obj['protocol']!r} is not supported (only groth16)")


# ---- proof.json ----------------------------------------------------------------


def proof_to_json(proof: Proof) -> dict:
    c = proof.curve
    return {
        "pi_a": point_to_json(c.g1, proof.a),
        "pi_b": point_to_json(c.g2, proof.b),
        "pi_c": point_to_json(c.g1, proof.c),
        "protocol": "groth16",
        "curve": snarkjs_curve_name(c),
    }


def _finite_point(group, obj, what: str) -> np.ndarray:
    """A validated point that must not be the point at infinity (proof points, vk alpha/beta/gamma/delta)."""
    pt = point_from_json(group, obj, what=what)
    if not pt.any():
        raise ValidationError(f"{group} {what}: the point at infinity is not allowed here")
    return pt


def proof_from_json(obj, where: str = "proof.json") -> Proof:
    """A Proof with validated points (on the curve, in the subgroup, not infinity)."""
    obj = _object(obj, where, ("pi_a", "pi_b", "pi_c", "curve"))
    _protocol(obj, where)
    curve = curve_from_snarkjs_name(obj["curve"], where)
    a = _finite_point(curve.g1, obj["pi_a"], f"{where} pi_a")
    b = _finite_point(curve.g2, obj["pi_b"], f"{where} pi_b")
    c = _finite_point(curve.g1, obj["pi_c"], f"{where} pi_c")
    return Proof(curve, a, b, c)


def read_proof(path) -> Proof:
    return proof_from_json(read_json(path, "proof"), str(path))


def write_proof(path, proof: Proof) -> None:
    write_json(path, proof_to_json(proof))


# ---- public.json -----------------------------------------------------------------


def public_to_json(values) -> list[str]:
    return [str(int(v)) for v in values]


def public_from_json(obj, where: str = "public.json", curve: Curve | None = None) -> list[int]:
    """Decimal strings (or JSON integers) -> non-negative ints; with `curve`,
    each must also be below its scalar field prime r (ValidationError)."""
    if not isinstance(obj, list):
        raise FormatError(f"{where}: expected a JSON list of decimal strings, got {type(obj).__name__}")
    out = []
    for i, v in enumerate(obj):
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            out.append(v)
        elif isinstance(v, str) and v.isascii() and v.isdigit() and len(v) <= _MAX_DIGITS:
            out.append(int(v))
        else:
            shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:40] + "..."
            raise FormatError(f"{where}: element {i}: {shown} is not a non-negative decimal integer")
        if curve is not None and out[-1] >= curve.fr.p:
            raise ValidationError(f"{where}: element {i}: public input is not below the {curve.name} scalar field "
                                  "prime r")
    return out


def read_public(path, curve: Curve | None = None) -> list[int]:
    return public_from_json(read_json(path, "public signals"), str(path), curve)


def write_public(path, values) -> None:
    write_json(path, public_to_json(values))


# ---- verification_key.json ------------------------------------------------------------


def vk_to_json(vk: VerifyingKey) -> dict:
    c = vk.curve
    return {
        "protocol": "groth16",
        "curve": snarkjs_curve_name(c),
        "nPublic": vk.num_public,
        "vk_alpha_1": point_to_json(c.g1, vk.alpha_g1),
        "vk_beta_2": point_to_json(c.g2, vk.beta_g2),
        "vk_gamma_2": point_to_json(c.g2, vk.gamma_g2),
        "vk_delta_2": point_to_json(c.g2, vk.delta_g2),
        "IC": points_to_json(c.g1, vk.ic),
    }


def vk_from_json(obj, where: str = "verification_key.json") -> VerifyingKey:
    """A VerifyingKey (beta_g1/delta_g1 are not in the JSON: None)."""
    fields = ("curve", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC")
    obj = _object(obj, where, fields)
    _protocol(obj, where)
    curve = curve_from_snarkjs_name(obj["curve"], where)
    ic_obj = obj["IC"]
    if not isinstance(ic_obj, list) or not ic_obj:
        raise FormatError(f"{where}: field 'IC': expected a non-empty list of G1 points")
    if "nPublic" in obj:
        n = obj["nPublic"]
        if not isinstance(n, int) or isinstance(n, bool) or n != len(ic_obj) - 1:
            raise FormatError(f"{where}: field 'nPublic': {n!r} does not match the {len(ic_obj)} IC points (nPublic + 1)")
    return VerifyingKey(
        curve=curve,
        alpha_g1=_finite_point(curve.g1, obj["vk_alpha_1"], f"{where} vk_alpha_1"),
        beta_g1=None,
        beta_g2=_finite_point(curve.g2, obj["vk_beta_2"], f"{where} vk_beta_2"),
        gamma_g2=_finite_point(curve.g2, obj["vk_gamma_2"], f"{where} vk_gamma_2"),
        delta_g1=None,
        delta_g2=_finite_point(curve.g2, obj["vk_delta_2"], f"{where} vk_delta_2"),
        ic=points_from_json(curve.g1, ic_obj, what=f"{where} IC"),
    )


def read_vk(path) -> VerifyingKey:
    return vk_from_json(read_json(path, "verification key"), str(path))


def write_vk(path, vk: VerifyingKey) -> None:
    write_json(path, vk_to_json(vk))
