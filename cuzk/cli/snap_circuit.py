"""`cuzk circuit info|check --kind snap`: Filecoin's SnapDeals (EmptySectorUpdate) partition circuit.

info --sector-size S: one partition's counts from its gadgets' sizes (no building), the update's
partitions, challenges and h, the parameter file, and the figures rust-fil-proofs' tests assert
beside them where known.
check --vanilla FILE: a SNAP_DEALS_UPDATE request (`cuzk bench gen-vanilla --kind snap`'s JSON)
decoded and checked as the daemon checks it at submit, then every partition's witness (or
--partition's) against the compiled circuit.
"""

from __future__ import annotations

import sys
import time

from cuzk.errors import CuzkError

from . import circuit_report

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

# storage-proofs-update tests/circuit.rs (v28): constraints per partition, public inputs with ONE
PUBLISHED = {2 << 10: (1_705_039, 5, "storage-proofs-update tests/circuit.rs, v28"),
             32 << 30: (81_049_499, 5, "storage-proofs-update test_empty_sector_update_constraints_32gib, v28")}


def config_of(sector_size: str | None):
    from cuzk.circuits.filecoin.snap.config import ALLOWED_SIZES, snap_config_for

    return circuit_report.sector_config(sector_size, snap_config_for, ALLOWED_SIZES)


def info(args) -> int:
    from cuzk.circuits.filecoin.snap.circuit import counts

    t0 = time.perf_counter()
    cfg = config_of(args.sector_size or "32GiB")
    title = (f"{cfg.name} partition (rust-fil-proofs v28 EmptySectorUpdate, {cfg.challenges} challenge(s) per "
             f"partition, {cfg.partitions} partition(s) per update, h = {cfg.h_default})")
    trees = (f"trees: D binary sha254, depth {cfg.challenge_bit_len}, {cfg.apex_leaves} apex leaves per partition; "
             f"R old and new Poseidon, arities {'-'.join(str(a) for a in cfg.arities)}")
    return circuit_report.counts(title, counts(cfg), [trees], cfg.parameter_stem(), PUBLISHED.get(cfg.sector_size), t0)


def _request(path: str) -> dict:
    from cuzk.formats.filecoin import request_json

    fields = request_json.from_json(circuit_report.read_file(path, "--vanilla"), f"--vanilla {path}")
    if not fields.get("vanilla_proofs") or "comm_r_new" not in fields:
        raise CuzkError(f"--vanilla {path}: expected a SNAP_DEALS_UPDATE request (vanilla_proofs and the "
                        "comm_r_old / comm_r_new / comm_d_new commitments)")
    return fields


def check(args) -> int:
    """`cuzk circuit check --kind snap`: decode a request's partition proofs, check them as the daemon
    does at submit (every path, the commitments, the challenges, the encoding, the apex leaves), then
    each partition's witness against the compiled circuit."""
    from cuzk.circuits.filecoin.snap import provable as snap_kind
    from cuzk.circuits.filecoin.snap.config import snap_config
    from cuzk.circuits.filecoin.snap.request import decode_update

    f = _request(args.vanilla)
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
