"""What `cuzk circuit info|check --kind` prints and reads the same way for every Filecoin circuit.

info: the circuit's counts from its gadgets' sizes, lines of its own, its parameter file, and the
figures rust-fil-proofs publishes beside them (equal or DIFFERENT); check: an input file read with
one clear line when it cannot be, and each partition's witness against the compiled circuit.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from cuzk.errors import CuzkError


def counts(title: str, n, lines, stem: str, published, t0: float) -> int:
    """Print `title`, the counts n (constraints, inputs with ONE, aux), `lines`, the parameter file and,
    where known, the published (constraints, public inputs or None, source); exit status 0."""
    out = sys.stdout.write
    out(f"circuit: {title}\n")
    out(f"constraints {n.constraints}\n")
    out(f"public inputs {n.inputs}\n")
    out(f"aux variables {n.aux}\n")
    for line in lines:
        out(f"{line}\n")
    out(f"parameters: {stem}.params\n")
    if published:
        c, i, src = published
        same = c == n.constraints and (i is None or i == n.inputs)
        out(f"published: constraints {c}" + (f", public inputs {i}" if i else "") +
            f" ({src}): {'equal' if same else 'DIFFERENT'}\n")
    out(f"counted in {time.perf_counter() - t0:.2f} s, not built\n")
    return 0


def sector_config(sector_size: str | None, config_for, allowed=None):
    """config_for(bytes) of a --sector-size name (among `allowed` byte sizes when given); CuzkError
    naming the choices otherwise."""
    from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES

    sizes = {k: v for k, v in SECTOR_SIZES.items() if allowed is None or v in allowed}
    if sector_size not in sizes:
        raise CuzkError(f"--sector-size: expected one of {', '.join(sizes)}, got {sector_size!r}")
    return config_for(sizes[sector_size])


def read_file(path: str, what: str) -> bytes:
    """The bytes of an input file; CuzkError naming the option and the reason otherwise."""
    try:
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise CuzkError(f"{what} {path}: is a directory") from None
    except OSError as exc:
        raise CuzkError(f"{what} {path}: {exc.strerror}") from None


def check_partitions(kind, cfg, parts, witness, t0: float, explain=None) -> int:
    """Each partition p of `parts`: witness(p) against `kind`'s compiled circuit for `cfg`, with a
    progress line; the first unsatisfied constraint named (explain(p, row, cc) may say where, else
    its row). Exit status 0 when every constraint holds, else 1."""
    # the CLI's start-up stays light: these load numpy, numba and the backends
    from cuzk.progress import Status
    from cuzk.r1cs.evaluation import unsatisfied_rows

    out = sys.stdout.write
    t1 = time.perf_counter()
    cc = kind.compiled(cfg)
    out(f"circuit: {kind.circuit_id(cfg)}, {cc.num_constraints:,} constraints "
        f"({time.perf_counter() - t1:.1f} s to build or load)\n")
    status = Status("partitions checked", len(parts))
    for n, p in enumerate(parts):
        w = witness(p)
        bad = unsatisfied_rows(cc, w)
        status.update(n + 1)
        if len(bad):
            status.close()
            row = int(bad[0])
            where = explain(p, row, cc) if explain else None
            out(f"unsatisfied: partition {p}, {where or f'constraint {row}'} ({len(bad)} constraint(s) fail)\n")
            return 1
        del w
    status.close()
    out(f"satisfied: every constraint of {len(parts)} partition(s) ({time.perf_counter() - t0:.1f} s)\n")
    return 0
