"""What `cuzk circuit info|check --kind` prints and reads the same way for every Filecoin circuit.

info: the circuit's counts from its gadgets' sizes, lines of its own, its parameter file, and the
figures rust-fil-proofs publishes beside them (equal or DIFFERENT); check: an input file read with
one clear line when it cannot be.
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


def read_file(path: str, what: str) -> bytes:
    """The bytes of an input file; CuzkError naming the option and the reason otherwise."""
    try:
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise CuzkError(f"{what} {path}: is a directory") from None
    except OSError as exc:
        raise CuzkError(f"{what} {path}: {exc.strerror}") from None
