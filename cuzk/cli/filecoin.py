"""`cuzk filecoin ...`: Filecoin's hash functions, computed as Filecoin's proofs do.

One command group; each subcommand is a `_add_<name>(actions)` function listed
in `SUBCOMMANDS`, so a new one (e.g. `sha254`) is one function and one entry.
Bad arguments raise CuzkError: one line on stderr, exit 2 (see cli.main).
"""

from __future__ import annotations

from cuzk.errors import CuzkError

from .usage import help_and_usage_error

POSEIDON_ARITIES = (2, 4, 8, 11, 16, 24, 36)  # neptune_constants.ARITIES, without importing numba here


def register(sub) -> None:
    p = sub.add_parser("filecoin", help="Filecoin's hash functions (Poseidon, ...)",
                       description="Compute Filecoin's hashes as rust-fil-proofs v28 does, e.g. to check "
                       "vanilla proofs or Merkle roots by hand.")
    actions = p.add_subparsers(dest="filecoin_command", metavar="HASH")
    p.set_defaults(func=help_and_usage_error(p))
    for add in SUBCOMMANDS:
        add(actions)


def _add_poseidon(actions) -> None:
    c = actions.add_parser(
        "poseidon", help="neptune Poseidon hash (BLS12-381 Fr, MerkleTree domain tag)",
        description="Print, in decimal, Filecoin's Poseidon hash (neptune v11, standard strength, "
        "HashType::MerkleTree) of N field elements. Values are decimal or 0x-hex integers below the "
        "BLS12-381 scalar field modulus r.")
    c.add_argument("--arity", type=int, required=True, choices=POSEIDON_ARITIES, metavar="N",
                   help=f"number of inputs, one of {', '.join(map(str, POSEIDON_ARITIES))}")
    c.add_argument("values", nargs="*", metavar="V", help="the N inputs")
    c.set_defaults(func=cmd_poseidon)


def _add_sha254(actions) -> None:
    c = actions.add_parser(
        "sha254", help="SHA-256 truncated to 254 bits (Sha256Domain), hex in and out",
        description="Print Filecoin's truncated SHA-256 of the bytes given in hex: the digest with the two "
        "most significant bits of its last byte cleared (filecoin-hashers' Sha256Domain: comm_d, tree-D "
        "nodes, PoRep labels), as 64 hex digits, then its value as a field element (little-endian) in decimal.")
    c.add_argument("data", metavar="HEX", help="the message, as hex digits (\"\" for the empty message)")
    c.set_defaults(func=cmd_sha254)


SUBCOMMANDS = [_add_poseidon, _add_sha254]


def field_element(text: str, modulus: int) -> int:
    """A decimal or 0x-hex integer in [0, modulus), else CuzkError naming it."""
    try:
        value = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        raise CuzkError(f"{text!r} is not a decimal or 0x-hex integer") from None
    if not 0 <= value < modulus:
        raise CuzkError(f"{text} is not a field element (must be 0 <= v < r)")
    return value


def cmd_poseidon(args) -> int:
    from cuzk.field.params import BLS12_381_FR

    if len(args.values) != args.arity:
        raise CuzkError(f"--arity {args.arity} needs {args.arity} values, got {len(args.values)}")
    values = [field_element(v, BLS12_381_FR.p) for v in args.values]
    from cuzk.gadgets.poseidon.neptune_native import hash_ints

    print(hash_ints(values))
    return 0


def cmd_sha254(args) -> int:
    text = args.data.strip()
    text = text[2:] if text.lower().startswith("0x") else text
    try:
        data = bytes.fromhex(text)
    except ValueError:
        raise CuzkError(f"{args.data!r} is not hex (an even number of 0-9a-f digits)") from None
    from cuzk.gadgets.sha256.filecoin import sha254

    digest = sha254(data)
    print(digest.hex())
    print(int.from_bytes(digest, "little"))
    return 0
