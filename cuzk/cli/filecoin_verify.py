"""`cuzk filecoin verify porep|window-post|winning-post|snap`: a Filecoin proof checked from public data.

What filecoin-proofs' verify_seal, verify_window_post, verify_winning_post and
verify_empty_sector_update_proof do: the public inputs of every partition derived from the public
data alone (circuits/filecoin/{porep,post,snap}_public.py, the same functions the engine's
catalog uses), then each partition's 192-byte Groth16 proof checked under the circuit's verifying
key (partition_proofs.py). `OK` and exit 0; `INVALID: partition K of N: why` and exit 1; bad
input is one line on stderr and exit 2 (cli/main.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from cuzk.errors import CuzkError

from .files import input_file

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

API_VERSIONS = ("1.0.0", "1.1.0", "1.2.0")

EPILOG = ("32-byte values are 64 hex digits (an optional 0x), in the byte order Filecoin stores them: comm_r "
          "and comm_d raw, as C1 output JSON and SnapDeals requests carry them; a commitment may also be given as "
          "the CID Lotus prints (bagboea4... for comm_r, baga6ea4... for comm_d). The proof is the partitions' "
          "192-byte Groth16 proofs back to back, as the chain carries it. Exit status: 0 valid (prints OK), "
          "1 invalid (prints INVALID and the failing partitions), 2 bad input.")


def add_verify(actions) -> None:
    """`cuzk filecoin verify KIND ...` (cli/filecoin.py lists it among its subcommands)."""
    from .usage import command_group

    kinds = command_group(
        actions, "verify", "verify_kind", "KIND",
        help="verify a Filecoin proof (PoRep, WindowPoSt, WinningPoSt, SnapDeals) from public data",
        description="Verify a Filecoin Groth16 proof from the public data alone, as filecoin-proofs' verify_seal, "
        "verify_window_post, verify_winning_post and verify_empty_sector_update_proof do: the public inputs of "
        "every partition are derived here, then each partition's proof is checked under the circuit's "
        "verifying key.", epilog=EPILOG)
    _add_porep(kinds)
    _add_post(kinds, "window")
    _add_post(kinds, "winning")
    _add_snap(kinds)


def _add_kind(kinds, name: str, help: str, description: str, proofs: str, sizes: str):
    """The parser of one kind with the arguments every kind takes (--registered-proof's help: `proofs`,
    --sector-size's: `sizes`)."""
    c = kinds.add_parser(name, help=help, description=description, epilog=EPILOG)
    c.add_argument("--proof", required=True, type=input_file, metavar="FILE",
                   help="the proof bytes: 192 per partition, back to back")
    c.add_argument("--vk", type=input_file, metavar="FILE",
                   help="the circuit's verifying key: bellperson's .vk (uncompressed points) or the same layout "
                   "with compressed points (told apart by size); default: the key by its Filecoin name in "
                   "$FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters")
    c.add_argument("--registered-proof", metavar="NAME|NUMBER", help=proofs)
    c.add_argument("--sector-size", metavar="S", help=sizes)
    return c


def _add_porep(kinds) -> None:
    c = _add_kind(
        kinds, "porep", help="a sealed sector's PoRep (seal commit) proof, as verify_seal checks it",
        description="Verify a sector's PoRep (C2) proof, as filecoin-proofs' verify_seal does: the replica id "
        "from prover id, sector number, ticket, comm_d and porep id; each partition's interactive challenges "
        "from the replica id and seed; their SDR graph parents; then each partition's Groth16 proof.",
        proofs="the RegisteredSealProof (0-9, e.g. 8 or StackedDrg32GiBV1_1): sector size, porep id and api "
        "version", sizes="instead of --registered-proof: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or a test size); the "
        "V1_1 proof of that size unless --porep-id or --api-version says otherwise")
    c.add_argument("--porep-id", metavar="HEX", help="with --sector-size: the 32-byte porep id the graph is built "
                   "from, for a porep id and api pair that is no registered proof's")
    c.add_argument("--api-version", choices=API_VERSIONS, help="with --sector-size: the graph's api version "
                   "(1.0.0 orders the DRG parents the legacy way); without --porep-id, 1.0.0 picks the V1 proof; "
                   "default 1.1.0")
    c.add_argument("--prover-id", required=True, metavar="HEX", help="the 32-byte prover id (or the miner's ID "
                   "address, f0N)")
    c.add_argument("--sector-number", required=True, metavar="N", help="the sector number")
    c.add_argument("--ticket", required=True, metavar="HEX", help="the 32-byte ticket (sealing randomness)")
    c.add_argument("--seed", required=True, metavar="HEX", help="the 32-byte seed (interactive randomness)")
    c.add_argument("--comm-r", required=True, metavar="HEX|CID", help="the sealed commitment")
    c.add_argument("--comm-d", required=True, metavar="HEX|CID", help="the data commitment")
    c.set_defaults(func=cmd_porep)


def _add_post(kinds, kind: str) -> None:
    name = "WindowPoSt" if kind == "window" else "WinningPoSt"
    api = "verify_window_post" if kind == "window" else "verify_winning_post"
    numbers = "5-14, e.g. 13 or StackedDrgWindow32GiBV1_1" if kind == "window" else "0-4, e.g. 3 or " \
        "StackedDrgWinning32GiBV1"
    sectors = ("--sector once per proven sector, in any order (sorted by number, as filecoin-proofs' BTreeMap "
               "orders them; sectors_per_partition of them per partition)" if kind == "window"
               else "--sector once: the one challenged sector")
    c = _add_kind(
        kinds, f"{kind}-post", help=f"a {name} proof, as {api} checks it",
        description=f"Verify a {name} proof, as filecoin-proofs' {api} does: each partition's leaf challenges "
        f"from the randomness and the sector numbers, with the sectors' comm_r; then each partition's Groth16 "
        f"proof. {sectors}.", proofs=f"the RegisteredPoStProof ({numbers})",
        sizes="instead of --registered-proof: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or a test size), at --api-version")
    default = "1.2.0 (V1_1)" if kind == "window" else "1.0.0"
    c.add_argument("--api-version", choices=API_VERSIONS, help=f"with --sector-size: the challenge derivation's "
                   f"api version (default {default})")
    c.add_argument("--randomness", required=True, metavar="HEX", help="the 32-byte challenge randomness (a field "
                   "element)")
    c.add_argument("--prover-id", required=True, metavar="HEX", help="the 32-byte prover id (or f0N); checked to be "
                   "a field element as filecoin-proofs checks it, but no public input depends on it")
    c.add_argument("--sector", required=True, action="append", metavar="N:COMM_R",
                   help="a proven sector: its number and comm_r (hex or CID)")
    c.set_defaults(func=cmd_post, post_kind=kind)


def _add_snap(kinds) -> None:
    c = _add_kind(
        kinds, "snap", help="a SnapDeals (sector update) proof, as verify_empty_sector_update_proof checks it",
        description="Verify a SnapDeals (EmptySectorUpdate) proof, as filecoin-proofs' "
        "verify_empty_sector_update_proof does: partition k's public inputs are k with the size's h, comm_r_old, "
        "comm_d_new and comm_r_new; then each partition's Groth16 proof.",
        proofs="the RegisteredUpdateProof (0-4, e.g. 3 or StackedDrg32GiBV1)",
        sizes="instead of --registered-proof: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or a test size)")
    c.add_argument("--comm-r-old", required=True, metavar="HEX|CID", help="the sector's sealed commitment before")
    c.add_argument("--comm-r-new", required=True, metavar="HEX|CID", help="the sealed commitment after the update")
    c.add_argument("--comm-d-new", required=True, metavar="HEX|CID", help="the new data's commitment")
    c.set_defaults(func=cmd_snap)


# ---------------------------------------------------------------- values


def hex32(text: str, option: str) -> bytes:
    """64 hex digits (an optional 0x) -> 32 bytes, else CuzkError naming the option."""
    t = text.strip()
    t = t[2:] if t.lower().startswith("0x") else t
    if not re.fullmatch(r"[0-9a-fA-F]*", t):
        raise CuzkError(f"{option}: {text!r} is not hex")
    if len(t) != 64:
        raise CuzkError(f"{option}: expected 32 bytes (64 hex digits), got {len(t)} digits")
    return bytes.fromhex(t)


def commitment(text: str, option: str, sealed: bool) -> bytes:
    """A commitment as hex or as its CID (bagboea4... sealed, baga6ea4... unsealed)."""
    from cuzk.codec.cid import SEALED, UNSEALED, commitment_from_cid

    t = text.strip()
    if t.startswith("b") and not re.fullmatch(r"(0x)?[0-9a-fA-F]{64}", t):
        return commitment_from_cid(t, SEALED if sealed else UNSEALED, what=option)
    return hex32(t, option)


def prover_id(text: str) -> bytes:
    """--prover-id: 32 bytes of hex, or a miner's ID address f0N / t0N (its LEB128 payload, zero padded)."""
    from cuzk.circuits.filecoin.common.prover_id import prover_id as from_miner

    m = re.fullmatch(r"[ft]0(\d+)", text.strip())
    return from_miner(int(m.group(1))) if m else hex32(text, "--prover-id")


def u64(text: str, option: str) -> int:
    t = text.strip()
    if not t.isdigit() or int(t) >= 1 << 64:
        raise CuzkError(f"{option}: {text!r} is not a sector number (0 .. 2^64-1)")
    return int(t)


def sector_size(text: str) -> int:
    from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES

    if text in SECTOR_SIZES:
        return SECTOR_SIZES[text]
    if text.isdigit():
        return int(text)
    raise CuzkError(f"--sector-size: expected one of {', '.join(SECTOR_SIZES)} or a byte count, got {text!r}")


def registered_number(text: str, names: dict[int, str], enum: str) -> int:
    """A registered proof given as its number or its name (case-insensitive)."""
    t = text.strip()
    if t.isdigit() and int(t) in names:
        return int(t)
    for n, name in names.items():
        if name.lower() == t.lower():
            return n
    known = ", ".join(f"{n} {name}" for n, name in sorted(names.items()))
    raise CuzkError(f"--registered-proof: {text!r} is not a {enum} this command knows ({known})")


def _size_matches(args, size: int, name: str) -> None:
    if args.sector_size is not None and sector_size(args.sector_size) != size:
        raise CuzkError(f"--sector-size {args.sector_size} does not match {name} ({size} bytes)")


def _one_of_proof_or_size(args) -> None:
    if args.registered_proof is None and args.sector_size is None:
        raise CuzkError("give --registered-proof or --sector-size")


def verifying_key(args, stem: str):
    """--vk, else <stem>.vk in the parameter directory."""
    from cuzk.formats.filecoin.verifying_key import read_any_vk

    if args.vk is not None:
        return read_any_vk(args.vk)
    from cuzk.engine.catalog.filecoin_post import default_params_dir  # where the engine reads them too

    path = default_params_dir() / f"{stem}.vk"
    if not path.is_file():
        raise CuzkError(f"no --vk given and {path} does not exist (the circuit's verifying key by its Filecoin "
                        "name; set FIL_PROOFS_PARAMETER_CACHE or give --vk)")
    return read_any_vk(path)


def _verdict(vk, proof_path, inputs) -> int:
    from cuzk.cli.partition_proofs import check_partitions

    verdict = check_partitions(vk, Path(proof_path).read_bytes(), inputs, what=f"--proof {proof_path}")
    if verdict.ok:
        print("OK")
        return 0
    print(f"INVALID: {verdict.describe()}")
    return 1


# ---------------------------------------------------------------- commands


def _porep_config(args):
    """(PorepConfig, SdrGraph) the options name."""
    from cuzk.circuits.filecoin.porep.config import porep_config, porep_config_for
    from cuzk.circuits.filecoin.common.registered_proofs import SEAL_PROOFS
    from cuzk.circuits.filecoin.porep.sdr import SdrGraph

    _one_of_proof_or_size(args)
    if args.registered_proof is not None:
        if args.porep_id is not None or args.api_version is not None:
            raise CuzkError("--porep-id and --api-version go with --sector-size (a registered proof implies both)")
        cfg = porep_config(registered_number(args.registered_proof, {n: s.name for n, s in SEAL_PROOFS.items()},
                                             "RegisteredSealProof"))
        _size_matches(args, cfg.sector_size, cfg.name)
        graph = SdrGraph.for_proof(cfg.registered_proof)
    else:
        size = sector_size(args.sector_size)
        cfg = porep_config_for(size)
        if args.porep_id is not None:
            graph = SdrGraph(size, hex32(args.porep_id, "--porep-id"), args.api_version or "1.1.0")
        elif cfg.registered_proof is None:
            raise CuzkError(f"--sector-size {args.sector_size} has no registered seal proof: give --porep-id")
        else:
            if args.api_version == "1.2.0":
                raise CuzkError("no interactive registered seal proof has api 1.2.0: give --porep-id (or "
                                "--registered-proof)")
            number = cfg.registered_proof - 5 if args.api_version == "1.0.0" else cfg.registered_proof
            cfg = porep_config(number)
            graph = SdrGraph.for_proof(number)
    if cfg.flavour != "interactive":
        raise CuzkError(f"{cfg.name}: only interactive PoRep (seal proofs V1 and V1_1, 0-9) is verified here; "
                        f"{cfg.flavour} PoRep draws its challenges otherwise")
    return cfg, graph


def cmd_porep(args) -> int:
    from cuzk.circuits.filecoin.porep.public import seal_public_inputs

    cfg, graph = _porep_config(args)
    inputs = seal_public_inputs(
        cfg, graph, prover_id=prover_id(args.prover_id), sector_number=u64(args.sector_number, "--sector-number"),
        ticket=hex32(args.ticket, "--ticket"), seed=hex32(args.seed, "--seed"),
        comm_d=commitment(args.comm_d, "--comm-d", sealed=False),
        comm_r=commitment(args.comm_r, "--comm-r", sealed=True))
    return _verdict(verifying_key(args, cfg.parameter_stem()), args.proof, inputs)


def _post_config(args):
    from cuzk.circuits.filecoin.common.registered_proofs import POST_PROOFS, post_config, post_config_for

    kind = args.post_kind
    _one_of_proof_or_size(args)
    if args.registered_proof is not None:
        if args.api_version is not None:
            raise CuzkError("--api-version goes with --sector-size (a registered proof implies it)")
        names = {n: c.name for n, c in POST_PROOFS.items() if c.kind == kind}
        cfg = post_config(registered_number(args.registered_proof, names, "RegisteredPoStProof"))
        _size_matches(args, cfg.sector_size, cfg.name)
        return cfg
    return post_config_for(kind, sector_size(args.sector_size), args.api_version)


def _sectors(texts: list[str]):
    ids, comms = [], []
    for text in texts:
        number, sep, comm = text.partition(":")
        if not sep:
            raise CuzkError(f"--sector: {text!r} is not N:COMM_R")
        ids.append(u64(number, "--sector"))
        comms.append(commitment(comm, f"--sector {number}", sealed=True))
    return ids, comms


def cmd_post(args) -> int:
    import numpy as np

    from cuzk.circuits.filecoin.post import provable as post_kind
    from cuzk.circuits.filecoin.post.challenges import as_randomness
    from cuzk.circuits.filecoin.post.public import window_post_public_inputs, winning_post_public_inputs
    from cuzk.circuits.filecoin.common.fr_bytes import non_canonical_rows

    cfg = _post_config(args)
    pid = prover_id(args.prover_id)
    if non_canonical_rows(np.frombuffer(pid, dtype=np.uint8)[None]).size:
        raise CuzkError("--prover-id: not a field element (filecoin-proofs refuses it: as_safe_commitment)")
    randomness = as_randomness(hex32(args.randomness, "--randomness"))
    derive = window_post_public_inputs if cfg.kind == "window" else winning_post_public_inputs
    inputs = derive(cfg, randomness, _sectors(args.sector))
    return _verdict(verifying_key(args, post_kind.parameter_stem(cfg)), args.proof, inputs)


def _snap_config(args):
    from cuzk.circuits.filecoin.snap.config import SNAP_PROOFS, snap_config, snap_config_for

    _one_of_proof_or_size(args)
    if args.registered_proof is not None:
        names = {n: c.name.removesuffix(" (update)") for n, c in SNAP_PROOFS.items()}
        cfg = snap_config(registered_number(args.registered_proof, names, "RegisteredUpdateProof"))
        _size_matches(args, cfg.sector_size, cfg.name)
        return cfg
    return snap_config_for(sector_size(args.sector_size))


def cmd_snap(args) -> int:
    from cuzk.circuits.filecoin.snap.public import update_public_inputs

    cfg = _snap_config(args)
    inputs = update_public_inputs(cfg, commitment(args.comm_r_old, "--comm-r-old", sealed=True),
                                  commitment(args.comm_r_new, "--comm-r-new", sealed=True),
                                  commitment(args.comm_d_new, "--comm-d-new", sealed=False))
    return _verdict(verifying_key(args, cfg.parameter_stem()), args.proof, inputs)
