"""`cuzk filecoin ...`: Filecoin's hash functions and SDR graph, computed as Filecoin's proofs do, and
`cuzk filecoin verify`, a Filecoin proof checked from public data (cli/filecoin_verify.py).

One command group; each subcommand is a `_add_<name>(actions)` function listed
in `SUBCOMMANDS`, so a new one (e.g. `sha254`) is one function and one entry.
Bad arguments raise CuzkError: one line on stderr, exit 2 (see cli.main).
"""

from __future__ import annotations

from cuzk.errors import CuzkError

from .usage import command_group

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

POSEIDON_ARITIES = (2, 4, 8, 11, 16, 24, 36)  # neptune_constants.ARITIES, without importing numba here


def register(sub) -> None:
    actions = command_group(
        sub, "filecoin", "filecoin_command", "COMMAND",
        help="Filecoin's hash functions and SDR graph (Poseidon, sha254, parents); verify a Filecoin proof from "
        "public data",
        description="Compute Filecoin's hashes and SDR graph as rust-fil-proofs v28 does, e.g. to check vanilla "
        "proofs or Merkle roots by hand; verify a PoRep, WindowPoSt, WinningPoSt or SnapDeals proof from the "
        "public data alone, as filecoin-proofs does.")
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


def _add_parents(actions) -> None:
    c = actions.add_parser(
        "parents", help="a node's 14 parents in Filecoin's StackedDRG graph (v28)",
        description="Print the parents of NODE in the SDR graph rust-fil-proofs v28 builds for the "
        "sector size and porep id: the 6 DRG parents (same layer; bucket sampling seeded by the porep id), "
        "then the 8 expander parents (previous layer; Feistel permutation), as the parent cache stores them.")
    c.add_argument("--sector-size", metavar="S", help="2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or another name "
                   "cuzk knows, or a byte count); implied by --registered-proof")
    c.add_argument("--porep-id", metavar="HEX", help="the 32-byte porep id, as 64 hex digits")
    c.add_argument("--registered-proof", metavar="N", help="a RegisteredSealProof number (0-19) instead of "
                   "--porep-id: its porep id, sector size and api version")
    c.add_argument("--api-version", choices=("1.0.0", "1.1.0", "1.2.0"), help="with --porep-id: the graph's "
                   "api version (1.0.0 orders the DRG parents the legacy way); default 1.1.0")
    c.add_argument("node", metavar="NODE", help="the node index, 0 <= NODE < sector size / 32")
    c.set_defaults(func=cmd_parents)


def _add_verify(actions) -> None:
    from .filecoin_verify import add_verify

    add_verify(actions)


SUBCOMMANDS = [_add_poseidon, _add_sha254, _add_parents, _add_verify]


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


def cmd_parents(args) -> int:
    from cuzk.circuits.filecoin.common.registered_proofs import seal_proof
    from cuzk.circuits.filecoin.porep.sdr import SdrGraph

    from .filecoin_verify import sector_size

    if (args.porep_id is None) == (args.registered_proof is None):
        raise CuzkError("parents: give exactly one of --porep-id and --registered-proof")
    if args.registered_proof is not None:
        if args.api_version is not None:
            raise CuzkError("parents: --api-version goes with --porep-id (a registered proof implies its own)")
        if not args.registered_proof.isdigit():
            raise CuzkError(f"--registered-proof: {args.registered_proof!r} is not a number 0-19")
        proof = seal_proof(int(args.registered_proof))
        if args.sector_size is not None and sector_size(args.sector_size) != proof.sector_size:
            raise CuzkError(f"--sector-size {args.sector_size} does not match {proof.name} "
                            f"({proof.sector_size} bytes)")
        graph = SdrGraph.for_proof(proof.registered_proof)
    else:
        if args.sector_size is None:
            raise CuzkError("parents: --porep-id needs --sector-size")
        text = args.porep_id.strip()
        text = text[2:] if text.lower().startswith("0x") else text
        try:
            pid = bytes.fromhex(text)
        except ValueError:
            raise CuzkError(f"--porep-id: {args.porep_id!r} is not hex") from None
        if len(pid) != 32:
            raise CuzkError(f"--porep-id: a porep id is 32 bytes (64 hex digits), got {len(pid)}")
        graph = SdrGraph(sector_size(args.sector_size), pid, args.api_version or "1.1.0")
    if not args.node.isdigit():
        raise CuzkError(f"NODE: {args.node!r} is not a node index")
    node = int(args.node)
    if node >= graph.nodes:
        raise CuzkError(f"NODE: {node} is outside the graph (0 .. {graph.nodes - 1})")
    p = graph.parents([node])[0]
    print("drg", *p[:6].tolist())
    print("exp", *p[6:].tolist())
    return 0
