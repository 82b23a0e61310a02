"""Templates: a recorded gadget instantiated N times by offsetting indices.

A Template is a recorded sub-circuit in variable-code form. Record it once
in a fresh `RecordingCS`, allocating the variables it shares with the outside
(its interface, e.g. input bits) with `alloc_input` and everything it creates
with `alloc`; then `cs.template()`. `ConstraintSystem.stamp(template, N,
inputs, aux_values)` appends N copies: template input i of instance k is
mapped through `inputs[k, i-1]` (input 0 = ONE stays ONE), and template aux
j of instance k becomes the parent's aux `base + k*num_aux + j`. All of it is
numpy over whole arrays; no per-constraint Python work.

Templates hold process-local coefficient codes (see `coefficients`); they
are an in-memory object, not a file format.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .coefficients import encode


@dataclass(frozen=True, eq=False)
class SparseRows:
    """One matrix in variable-code form: per-row term counts, then the terms."""

    lens: np.ndarray  # int64[rows]
    vars: np.ndarray  # int64[nnz] variable codes
    coeffs: np.ndarray  # int64[nnz] coefficient codes

    @property
    def nnz(self) -> int:
        return len(self.vars)


@dataclass(frozen=True, eq=False)
class Template:
    num_inputs: int  # including ONE
    num_aux: int
    num_constraints: int
    a: SparseRows
    b: SparseRows
    c: SparseRows

    @property
    def matrices(self) -> tuple[SparseRows, SparseRows, SparseRows]:
        return (self.a, self.b, self.c)

    @classmethod
    def from_compiled(cls, cc) -> "Template":
        """A compiled circuit (e.g. from a .pce or circom file) as a template;
        its public inputs become the template's interface."""
        table_codes = np.array([encode(v) for v in cc.coefficient_ints()], dtype=np.int64)
        mats = []
        for m in cc.matrices:
            indptr = np.asarray(m.indptr, dtype=np.int64)
            end = int(indptr[cc.num_constraints])
            cols = np.asarray(m.cols[:end], dtype=np.int64)
            codes = np.where(cols < cc.num_inputs, cols, ~(cols - cc.num_inputs))
            mats.append(SparseRows(np.diff(indptr[: cc.num_constraints + 1]), codes,
                                   table_codes[np.asarray(m.coeff_idx[:end], dtype=np.int64)]))
        return cls(cc.num_inputs, cc.num_aux, cc.num_constraints, *mats)


def instantiate(rows: SparseRows, count: int, inputs: np.ndarray, aux_base: int, t_aux: int) -> SparseRows:
    """`count` copies of `rows` with variables remapped (see module doc).

    inputs: int64 (count, t_inputs - 1) parent codes for template inputs 1...
    """
    v = rows.vars
    is_aux = v < 0
    full = np.empty((count, inputs.shape[1] + 1), dtype=np.int64)
    full[:, 0] = 0
    full[:, 1:] = inputs
    k = np.arange(count, dtype=np.int64)[:, None]
    aux_new = ~(aux_base + k * t_aux + ~np.where(is_aux, v, -1))
    in_new = full[:, np.where(is_aux, 0, v)]
    out = np.where(is_aux, aux_new, in_new).ravel()
    return SparseRows(np.tile(rows.lens, count), out, np.tile(rows.coeffs, count))
