"""`cuzk verify`: check a snarkjs-format Groth16 proof.

    cuzk verify --vk VK.json --public PUBLIC.json --proof PROOF.json

Exit 0 and `OK` for a valid proof; exit 1 and `INVALID: <why>` when the
proof does not verify (pairing check failed, proof point off the curve or
outside the subgroup, wrong number of public inputs, an input >= r, a curve
other than the key's); exit 2 with one line on stderr when a file is
missing or malformed, or the key itself is not valid.
"""

from __future__ import annotations

import argparse

from cuzk.errors import ValidationError

from .files import input_file

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify", help="verify a snarkjs-format Groth16 proof",
        description="Verify a Groth16 proof given as snarkjs verification_key.json, public.json and proof.json. "
        "Prints OK and exits 0 for a valid proof, prints INVALID and the reason and exits 1 otherwise; "
        "exits 2 for missing or malformed files.",
    )
    p.add_argument("--vk", required=True, type=input_file, metavar="VK.json",
                   help="verification key (snarkjs verification_key.json)")
    p.add_argument("--public", required=True, type=input_file, metavar="PUBLIC.json",
                   help="public signals (snarkjs public.json)")
    p.add_argument("--proof", required=True, type=input_file, metavar="PROOF.json", help="proof (snarkjs proof.json)")
    p.set_defaults(func=cmd_verify)


def _precompile(vk_obj) -> None:
    """On a fresh machine, the kernels a verification on the key's curve calls (the pairing's above all),
    compiled first on every core (first_run.py; kernel_lists/verify-*.txt) rather than one at a time on
    first call; a key that names no known curve is left to the reader, which says why."""
    from cuzk.errors import FormatError
    from cuzk.formats.snarkjs_json import curve_from_snarkjs_name

    from . import first_run

    try:
        curve = curve_from_snarkjs_name(vk_obj.get("curve") if isinstance(vk_obj, dict) else None, "")
    except FormatError:
        return
    first_run.before(f"verify-{curve.name}-cpu", "cuzk verify")


def _invalid(reason: str) -> int:
    print(f"INVALID: {reason}")
    return 1


def cmd_verify(args: argparse.Namespace) -> int:
    from cuzk.formats.snarkjs_json import proof_from_json, read_json, read_public, vk_from_json

    vk_obj = read_json(args.vk, "verification key")
    _precompile(vk_obj)
    vk = vk_from_json(vk_obj, str(args.vk))  # a bad key is a usage error (exit 2), not an invalid proof
    public = read_public(args.public)
    proof_obj = read_json(args.proof, "proof")
    try:
        proof = proof_from_json(proof_obj, str(args.proof))
    except ValidationError as exc:
        return _invalid(str(exc))

    from cuzk.groth16.verifier import PreparedVerifyingKey, verify

    pvk = PreparedVerifyingKey(vk)
    if proof.curve is not pvk.curve:
        return _invalid(f"the proof is over {proof.curve.name}, the verification key over {pvk.curve.name}")
    try:
        ok = verify(pvk, proof, public)
    except ValidationError as exc:
        return _invalid(str(exc))
    if not ok:
        return _invalid("the pairing check failed: the proof does not match this key and these public inputs")
    print("OK")
    return 0
