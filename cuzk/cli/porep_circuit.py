"""`cuzk circuit info --kind porep`: Filecoin's StackedDRG PoRep (C2) partition circuit.

info --sector-size S: one partition's counts from its gadgets' sizes (no building), the
sector's partitions and challenges, the parameter file, and the published figures
rust-fil-proofs reports beside them where known.
"""

from __future__ import annotations

import sys
import time

from cuzk.errors import CuzkError

# circuitinfo's figures for v28 (constraints, public inputs with ONE): rust-fil-proofs PR #1325
PUBLISHED = {32 << 30: (130_278_541, 328, "rust-fil-proofs PR #1325 (circuitinfo, v28)")}


def config_of(sector_size: str | None):
    from cuzk.circuits.filecoin.porep_config import porep_config_for
    from cuzk.circuits.filecoin.registered_proofs import SECTOR_SIZES

    if sector_size not in SECTOR_SIZES:
        raise CuzkError(f"--sector-size: expected one of {', '.join(SECTOR_SIZES)}, got {sector_size!r}")
    return porep_config_for(SECTOR_SIZES[sector_size])


def info(args) -> int:
    from cuzk.circuits.filecoin.porep_circuit import counts

    t0 = time.perf_counter()
    cfg = config_of(args.sector_size or "32GiB")
    n = counts(cfg)
    out = sys.stdout.write
    out(f"circuit: {cfg.name} partition (rust-fil-proofs v28 StackedDRG, {cfg.layers} layers, "
        f"{cfg.challenges} challenge(s) per partition, {cfg.partitions} partition(s) per sector)\n")
    out(f"constraints {n.constraints}\n")
    out(f"public inputs {n.inputs}\n")
    out(f"aux variables {n.aux}\n")
    out(f"trees: D binary sha254, depth {cfg.tree_d_depth}; C and R-last Poseidon, arities "
        f"{'-'.join(str(a) for a in cfg.arities)}\n")
    out(f"parameters: {cfg.parameter_stem()}.params\n")
    pub = PUBLISHED.get(cfg.sector_size)
    if pub:
        c, i, src = pub
        same = (c, i) == (n.constraints, n.inputs)
        out(f"published: constraints {c}, public inputs {i} ({src}): {'equal' if same else 'DIFFERENT'}\n")
    out(f"counted in {time.perf_counter() - t0:.2f} s, not built\n")
    return 0
