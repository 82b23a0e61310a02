"""`cuzk circuit info|check --kind window-post|winning-post`: Filecoin's PoSt circuits.

info --sector-size S: the circuit's counts from its gadgets' sizes (no building),
with the published figures rust-fil-proofs reports beside them where known.

check --vanilla V [--public PUB]: V holds vanilla proofs as Curio sends them
(one bincode FallbackPoStSectorProof, or a JSON request that `cuzk bench
gen-vanilla` writes); PUB is the public data as lotus/Curio keep it (a
WindowPoStVerifyInfo JSON: Randomness, Proofs[0].PoStProof, ChallengedSectors
with SectorNumber and SealedCID). The challenges are derived from the
randomness and sector numbers and comm_r taken from the sealed CIDs, then each
distinct sector's constraints are checked. Exit 0: satisfied; 1: not (the
first unsatisfied constraint's namespace); 2: the input does not decode.
"""

from __future__ import annotations

import base64
import json
import sys
import time

from cuzk.errors import CuzkError, FormatError
from cuzk.progress import Status

from . import circuit_report

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

KINDS = {"window-post": "window", "winning-post": "winning"}
# circuitinfo's figures for v28 (constraints, public inputs with ONE): rust-fil-proofs PR #1325
# (32 GiB) and filecoin-proofs/src/constants.rs (64 GiB WindowPoSt, the comment by WINDOW_POST_SECTOR_COUNT)
PUBLISHED = {("winning", 32 << 30): (370_590, 133, "rust-fil-proofs PR #1325 (circuitinfo, v28)"),
             ("window", 32 << 30): (125_279_217, 25_840, "rust-fil-proofs PR #1325 (circuitinfo, v28)"),
             ("window", 64 << 30): (129_887_900, None, "rust-fil-proofs filecoin-proofs/src/constants.rs")}


def config_of(kind: str, sector_size: str | None):
    from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for

    if sector_size not in SECTOR_SIZES:
        raise CuzkError(f"--sector-size: expected one of {', '.join(SECTOR_SIZES)}, got {sector_size!r}")
    return post_config_for(KINDS[kind], SECTOR_SIZES[sector_size])


def info(args) -> int:
    from cuzk.circuits.filecoin.post import provable as post_kind
    from cuzk.circuits.filecoin.post.circuit import counts

    t0 = time.perf_counter()
    cfg = config_of(args.kind, args.sector_size or "32GiB")
    title = (f"{post_kind.circuit_id(cfg)} (rust-fil-proofs v28 FallbackPoSt, "
             f"{cfg.sectors_per_partition} sector slot(s) x {cfg.challenges_per_sector} challenge(s))")
    tree = (f"tree: arities {'-'.join(str(a) for a in (cfg.base_arity, cfg.sub_arity, cfg.top_arity))}, "
            f"{cfg.path_length} path levels")
    return circuit_report.counts(title, counts(cfg), [tree], post_kind.parameter_stem(cfg),
                                 PUBLISHED.get((cfg.kind, cfg.sector_size)), t0)


def _public_file(path: str) -> dict:
    """lotus/Curio's WindowPoStVerifyInfo JSON -> randomness, registered proof, sectors, prover."""
    from cuzk.codec.cid import commitment_from_cid

    try:
        obj = json.loads(circuit_report.read_file(path, "--public"))
        rnd = base64.b64decode(obj["Randomness"], validate=True)
        proof = int(obj["Proofs"][0]["PoStProof"])
        sectors = obj["ChallengedSectors"]
        ids = [int(s["SectorNumber"]) for s in sectors]
        comm = [commitment_from_cid(s["SealedCID"]["/"], what=f"--public: sector {s['SectorNumber']}: SealedCID")
                for s in sectors]
    except FormatError:
        raise
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise FormatError(f"--public {path}: not a WindowPoStVerifyInfo JSON ({type(exc).__name__}: {exc})") from None
    return {"randomness": rnd, "registered_proof": proof, "ids": ids, "comm_r": comm}


def check(args) -> int:
    from cuzk.circuits.filecoin.post.challenges import public_inputs
    from cuzk.circuits.filecoin.post.unsatisfied import distinct_slots, first_unsatisfied
    from cuzk.circuits.filecoin.post.partition import partition_slots
    from cuzk.circuits.filecoin.common.registered_proofs import post_config
    from cuzk.formats.filecoin.request_json import from_json
    from cuzk.circuits.filecoin.post.vanilla_bincode import decode_sector_proofs

    kind = KINDS[args.kind]
    data = circuit_report.read_file(args.vanilla, "--vanilla")
    pub = _public_file(args.public) if args.public else None
    if data[:1] == b"{":
        req = from_json(data, f"--vanilla {args.vanilla}")
        vanilla = req["vanilla_proofs"]
        rp, rnd = req.get("registered_proof"), req.get("randomness", b"")
        partition = req.get("partition_index", 0)
        if rp is None:
            cfg = config_of(args.kind, _size_name(req.get("sector_size", 0)))
        else:
            cfg = post_config(rp)
    else:
        if pub is None:
            raise CuzkError("--vanilla holds bincode sector proofs: give --public (their randomness, "
                            "registered proof and sealed CIDs)")
        vanilla, cfg, rnd, partition = [data], post_config(pub["registered_proof"]), b"", 0
    if pub is not None:
        cfg, rnd = post_config(pub["registered_proof"]), pub["randomness"]
    if args.partition is not None:
        partition = args.partition
    if cfg.kind != kind:
        raise CuzkError(f"--kind {args.kind}, but the proofs are {cfg.name} ({cfg.kind} PoSt)")
    t0 = time.perf_counter()
    proofs = decode_sector_proofs(vanilla, cfg)
    slots = partition_slots(cfg, proofs, partition)
    if pub is not None:
        comm = dict(zip(pub["ids"], pub["comm_r"]))
        missing = [p.sector_id for p in proofs if p.sector_id not in comm]
        if missing:
            raise FormatError(f"--public: sector {missing[0]} of the vanilla proofs is not among ChallengedSectors")
        sectors = ([p.sector_id for p in proofs], [comm[p.sector_id] for p in proofs])
    else:
        sectors = ([p.sector_id for p in proofs], [bytes(p.comm_r) for p in proofs])
    public = public_inputs(cfg, rnd, sectors, partition)
    out = sys.stdout.write
    todo = distinct_slots(cfg, slots)
    out(f"{cfg.name}: {len(proofs)} sector proof(s), {len(todo)} distinct slot(s) of "
        f"{cfg.sectors_per_partition} to check, {cfg.challenges_per_sector} challenge(s) each\n")
    status = Status("checked", len(todo), unit="slot(s)")
    bad = first_unsatisfied(cfg, slots, public, progress=lambda done, _total: status.update(done))
    status.close()
    if bad is not None:
        out(f"unsatisfied: {bad}\n")
        return 1
    out(f"satisfied: every constraint of {len(todo)} slot(s) ({time.perf_counter() - t0:.1f} s)\n")
    return 0


def _size_name(size: int) -> str:
    from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES

    return SIZE_NAMES.get(int(size), "2KiB")

