"""Per-proof evaluation of a compiled circuit: a = A.w, b = B.w, c = C.w.

w is the flat Montgomery witness [1, inputs..., aux...] (uint64[num_vars, 4]).
`evaluate` runs the CPU backend's SpMV (`Backend.evaluate`); the prover calls
its own backend's, which on a GPU keeps the matrices resident.
"""

from __future__ import annotations

import numpy as np

from cuzk.backend import get_backend

from .compiled import CompiledCircuit


def check_witness_shape(cc: CompiledCircuit, w: np.ndarray) -> np.ndarray:
    w = np.ascontiguousarray(w, dtype=np.uint64)
    if w.shape != (cc.num_vars, cc.fr.limbs):
        raise ValueError(f"witness must be uint64[{cc.num_vars}, {cc.fr.limbs}], got {w.shape}")
    return w


def evaluate(cc: CompiledCircuit, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, c), each Montgomery uint64[num_rows, 4] (input rows included)."""
    return get_backend("cpu").evaluate(cc, check_witness_shape(cc, w))


def unsatisfied_rows(cc: CompiledCircuit, w: np.ndarray) -> np.ndarray:
    """Indices of the rows where a*b != c (int64, ascending)."""
    a, b, c = evaluate(cc, w)
    ok = np.all(cc.fr.mul(a, b) == c, axis=1)
    return np.flatnonzero(~ok)


def check_satisfied(cc: CompiledCircuit, w: np.ndarray) -> int | None:
    """None if w satisfies every constraint, else the first failing row."""
    bad = unsatisfied_rows(cc, w)
    return int(bad[0]) if len(bad) else None


def value_fractions(fr, values: np.ndarray) -> tuple[float, float, float]:
    """Fractions of 0, 1 and other values in a Montgomery array."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    zero = np.all(values == 0, axis=1).sum()
    one = np.all(values == fr.ones(1)[0], axis=1).sum()
    return (zero / n, one / n, (n - zero - one) / n)
