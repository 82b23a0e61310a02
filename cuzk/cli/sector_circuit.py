"""`cuzk circuit info|check --kind porep|snap`: Filecoin's sector proofs' partition circuits, the
StackedDRG PoRep (C2) and SnapDeals (EmptySectorUpdate), through their kinds' provable objects.

info --sector-size S: one partition's counts from its gadgets' sizes (no building), the sector's
partitions and challenges, the parameter file, and the figures rust-fil-proofs publishes beside them
where known.
check --vanilla FILE: for porep a C1 output (Curio's envelope, bare, or a gen-vanilla request), for
snap a SNAP_DEALS_UPDATE request (`cuzk bench gen-vanilla --kind snap`'s JSON), decoded and checked
as the daemon checks it at submit, then every partition's witness (or --partition's) against the
compiled circuit.
"""

from __future__ import annotations

import importlib
import sys
import time

from cuzk.errors import CuzkError

from . import circuit_report

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).


def kind_of(name: str):
    """The provable object of a sector proof's --kind (porep, snap)."""
    return importlib.import_module(f"cuzk.circuits.filecoin.{name}.provable")


def config_of(name: str, sector_size: str | None):
    kind = kind_of(name)
    return circuit_report.sector_config(sector_size, kind.config_for, kind.ALLOWED_SIZES)


def info(args) -> int:
    kind = kind_of(args.kind)
    t0 = time.perf_counter()
    cfg = config_of(args.kind, args.sector_size or "32GiB")
    title, lines = kind.describe(cfg)
    return circuit_report.counts(title, kind.counts(cfg), lines, kind.parameter_stem(cfg),
                                 kind.PUBLISHED.get(cfg.sector_size), t0)


def check(args) -> int:
    return check_porep(args) if args.kind == "porep" else check_snap(args)


def _input_file(path: str) -> dict:
    """A --vanilla file: a JSON request (gen-vanilla's) or a raw C1 output (Curio's envelope or bare)."""
    from cuzk.formats.filecoin import request_json

    data = circuit_report.read_file(path, "--vanilla")
    if request_json.looks_like_request(data):
        fields = request_json.from_json(data, f"--vanilla {path}")
        if "vanilla_proof" not in fields:
            raise CuzkError(f"--vanilla {path}: the request carries no vanilla_proof (a PoSt request?)")
        return fields
    return {"vanilla_proof": data}


def check_porep(args) -> int:
    """`cuzk circuit check --kind porep`: decode a C1 output, verify it as the daemon does at submit
    (every path, challenge, parent and label; the replica id of --miner-id's sector), then check
    each partition's witness against the compiled circuit, naming the first failing constraint."""
    from cuzk.circuits.filecoin.porep import provable as porep_kind
    from cuzk.circuits.filecoin.porep.unsatisfied import first_unsatisfied
    from cuzk.circuits.filecoin.porep.stamped import challenge_of_row
    from cuzk.circuits.filecoin.porep.c1_read import decode_c1
    from cuzk.circuits.filecoin.porep.c1_verify import check_c1
    from cuzk.circuits.filecoin.porep.request import check_sector

    fields = _input_file(args.vanilla)
    out = sys.stdout.write
    t0 = time.perf_counter()
    c1 = decode_c1(fields["vanilla_proof"], registered_proof=fields.get("registered_proof") or None)
    check_c1(c1)
    cfg = c1.config
    out(f"{c1.proof_name}: {cfg.partitions} partition(s) x {cfg.challenges} challenge(s), decoded and every "
        f"path, challenge, parent and label checked ({time.perf_counter() - t0:.1f} s)\n")
    miner = args.miner_id if args.miner_id is not None else fields.get("miner_id")
    sector = args.sector_number if args.sector_number is not None else (fields.get("sector_number")
                                                                          or c1.sector_number)
    if miner is not None and sector is not None:
        check_sector(c1, int(miner), int(sector))
        out(f"replica_id: sector {sector} of miner f0{miner}'s\n")
    parts = range(cfg.partitions) if args.partition is None else [args.partition]
    if args.partition is not None and not 0 <= args.partition < cfg.partitions:
        raise CuzkError(f"--partition: {c1.proof_name} has partitions 0-{cfg.partitions - 1}")

    def explain(p, row, cc):
        c = challenge_of_row(cfg, row) if row < cc.num_constraints else None
        where = first_unsatisfied(cfg, porep_kind.inputs(c1.partitions[p]), None,
                                  challenges=[c]) if c is not None else None
        return f"challenge {c}: {where}" if where else None

    def witness(p):
        return porep_kind.witness(cfg, c1.partitions[p])[0]

    return circuit_report.check_partitions(porep_kind, cfg, parts, witness, t0, explain)


def _snap_request(path: str) -> dict:
    from cuzk.formats.filecoin import request_json

    fields = request_json.from_json(circuit_report.read_file(path, "--vanilla"), f"--vanilla {path}")
    if not fields.get("vanilla_proofs") or "comm_r_new" not in fields:
        raise CuzkError(f"--vanilla {path}: expected a SNAP_DEALS_UPDATE request (vanilla_proofs and the "
                        "comm_r_old / comm_r_new / comm_d_new commitments)")
    return fields


def check_snap(args) -> int:
    """`cuzk circuit check --kind snap`: decode a request's partition proofs, check them as the daemon
    does at submit (every path, the commitments, the challenges, the encoding, the apex leaves), then
    each partition's witness against the compiled circuit."""
    from cuzk.circuits.filecoin.snap import provable as snap_kind
    from cuzk.circuits.filecoin.snap.config import snap_config
    from cuzk.circuits.filecoin.snap.request import decode_update

    f = _snap_request(args.vanilla)
    out = sys.stdout.write
    t0 = time.perf_counter()
    cfg = snap_config(f.get("registered_proof", 0))
    update = decode_update(cfg, f["vanilla_proofs"], f.get("comm_r_old"), f.get("comm_r_new"), f.get("comm_d_new"))
    out(f"{cfg.name}: {cfg.partitions} partition(s) x {cfg.challenges} challenge(s), decoded and every path, "
        f"commitment, challenge and encoding checked ({time.perf_counter() - t0:.1f} s)\n")
    if args.partition is not None and not 0 <= args.partition < cfg.partitions:
        raise CuzkError(f"--partition: {cfg.name} has partitions 0-{cfg.partitions - 1}")
    parts = range(cfg.partitions) if args.partition is None else [args.partition]

    def witness(p):
        x = snap_kind.inputs(cfg, update.partitions[p], p, update.h, *update.commitments)
        return snap_kind.witness(cfg, x)[0]

    return circuit_report.check_partitions(snap_kind, cfg, parts, witness, t0)
