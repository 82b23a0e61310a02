"""`cuzk circuit info|check --kind porep`: Filecoin's StackedDRG PoRep (C2) partition circuit.

info --sector-size S: one partition's counts from its gadgets' sizes (no building), the
sector's partitions and challenges, the parameter file, and the published figures
rust-fil-proofs reports beside them where known.
check --vanilla FILE: a C1 output (Curio's envelope, bare, or a gen-vanilla request) decoded
and checked as the daemon checks it at submit, then every partition's witness (or --partition's)
against the compiled circuit.
"""

from __future__ import annotations

import sys
import time

from cuzk.errors import CuzkError

from . import circuit_report

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

# circuitinfo's figures for v28 (constraints, public inputs with ONE): rust-fil-proofs PR #1325
PUBLISHED = {32 << 30: (130_278_541, 328, "rust-fil-proofs PR #1325 (circuitinfo, v28)")}


def config_of(sector_size: str | None):
    from cuzk.circuits.filecoin.porep.config import porep_config_for

    return circuit_report.sector_config(sector_size, porep_config_for)


def info(args) -> int:
    from cuzk.circuits.filecoin.porep.stamped import counts

    t0 = time.perf_counter()
    cfg = config_of(args.sector_size or "32GiB")
    title = (f"{cfg.name} partition (rust-fil-proofs v28 StackedDRG, {cfg.layers} layers, "
             f"{cfg.challenges} challenge(s) per partition, {cfg.partitions} partition(s) per sector)")
    trees = (f"trees: D binary sha254, depth {cfg.tree_d_depth}; C and R-last Poseidon, arities "
             f"{'-'.join(str(a) for a in cfg.arities)}")
    return circuit_report.counts(title, counts(cfg), [trees], cfg.parameter_stem(), PUBLISHED.get(cfg.sector_size), t0)


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


def check(args) -> int:
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
