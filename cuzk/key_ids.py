"""Circuit ids that name a proving key by its path (`cuzk prove --daemon`).

A daemon serves the circuits its config lists; `cuzk prove --daemon ADDR` names
its circuit by the files instead, and the daemon registers it on first use and
keeps its key decoded for the next request:

    zkey:/abs/path/circuit.zkey                      the key alone (proved unchecked)
    zkey:/abs/path/circuit.zkey|r1cs:/abs/c.r1cs     with the circuit each witness is checked against

Paths are absolute, as the daemon's working directory is its own. The grammar
lives here, at the top of the package, because both ends use it: the client,
which must import nothing heavy (no numba), and the engine.
"""

from __future__ import annotations

PREFIX = "zkey:"
R1CS = "|r1cs:"


def make(zkey: str, r1cs: str | None = None) -> str:
    return PREFIX + zkey + (R1CS + r1cs if r1cs else "")


def parse(circuit_id: str) -> tuple[str, str | None] | None:
    """(zkey path, r1cs path or None) of an id made by `make`; None for any other id."""
    if not circuit_id.startswith(PREFIX):
        return None
    zkey, _, r1cs = circuit_id[len(PREFIX):].partition(R1CS)
    return zkey, (r1cs or None)
