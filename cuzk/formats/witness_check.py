"""A circom witness against its circuit: the rows a prover evaluated from the key, against C.w.

A snarkjs .zkey holds A and B only; the prover takes c = a * b row by row, which
is C.w only for a witness that satisfies the circuit, so any other witness gives a
proof no verifier accepts. The check reads C from the circuit's .r1cs
(`read_r1cs_c`) and compares a * b == C.w on the circuit's rows (the rows snarkjs
appends for the public signals have B = C = 0 and always hold): one SpMV and a
compare beside the prover's own work, the verdict `cuzk circuit info --wtns` gives.
One-shot `cuzk prove` runs it, and so does a daemon serving a key named with its
.r1cs (cuzk.key_ids).
"""

from __future__ import annotations

import numpy as np

from cuzk.backend import get_backend
from cuzk.errors import FormatError


def check_matches(zkey, circ, n_values: int, witness_where: str, witness_curve: str, circuit_where: str) -> None:
    """FormatError unless the circuit (CircomC) is the key's and the witness has its wires."""
    if circ.curve != zkey.curve.name:
        raise FormatError(f"{witness_where}: witness is over {witness_curve}, circuit {circuit_where} over {circ.curve}")
    if circ.n_wires != n_values:
        raise FormatError(f"{witness_where}: witness has {n_values} values, circuit has {circ.n_wires} wires")
    rows = circ.n_constraints + zkey.num_inputs
    if rows != zkey.matrices.num_rows or circ.n_public != zkey.n_public:
        raise FormatError(f"{circuit_where}: {circ.n_constraints} constraints over {circ.curve}, but the key "
                          f"{zkey.path} is for {zkey.matrices.num_rows - zkey.num_inputs} over {zkey.curve.name}: "
                          "not the key's circuit")


def first_unsatisfied(zkey, circ, w: np.ndarray, ab: np.ndarray) -> int | None:
    """The first constraint (circom's numbering) where a * b != C.w; None when all hold. `ab`: the
    prover's a * b in cuzk's row order (ZKey.row_evaluations' third value)."""
    c = circ.c
    cw = get_backend("cpu").spmv(circ.curve, c.indptr, c.cols, c.coeff_idx, circ.coeff_table, w)
    ab = zkey.matrices.in_snarkjs_order(ab)[: circ.n_constraints]
    bad = np.flatnonzero(~np.all(ab == cw, axis=1))
    return int(bad[0]) if len(bad) else None
