"""Sparse matrix-vector product over Fr: out = M . w (the PCE evaluator).

M is CSR with coefficients given as indices into a small table of distinct
Montgomery values: coeff_idx 0 means +1 and 1 means -1 (add / subtract, no
multiply: most R1CS terms), anything else multiplies by coeff_table[idx].
One kernel template, generated per curve on top of that curve's field module
(so numba's on-disk cache works and no global arrays are captured).

    spmv(indptr, cols, coeff_idx, coeff_table, w, out, curve=...)   # curve: required keyword
    spmv_kernel(curve)(indptr, cols, coeff_idx, coeff_table, w, out)

indptr int32/int64 [rows+1], cols uint32 [nnz], coeff_idx uint8/16/32 [nnz],
coeff_table uint64[k, 4], w uint64[n_vars, 4], out uint64[rows, 4]
(all Montgomery). Rows are processed in parallel (one thread below
LIGHT_MIN_PARALLEL terms); nogil.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import field_kernels
from cuzk.field.codegen import build_module
from cuzk.field.threads import LIGHT_MIN_PARALLEL, threads_for

SPMV_TEMPLATE = '''
@njit(parallel=True, cache=True, nogil=True)
def spmv(indptr, cols, coeff_idx, coeff_table, w, out):
    for r in prange(out.shape[0]):
        acc = FR_ZERO
        for j in range(indptr[r], indptr[r + 1]):
            x = fr_load(w, cols[j])
            k = coeff_idx[j]
            if k == 0:
                acc = fr_add(acc, x)
            elif k == 1:
                acc = fr_sub(acc, x)
            else:
                acc = fr_add(acc, fr_mul(fr_load(coeff_table, k), x))
        fr_store(out, r, acc)
'''


@functools.cache
def spmv_kernel(curve: str):
    """The njit kernel for `curve`'s Fr: f(indptr, cols, coeff_idx, coeff_table, w, out)."""
    field = field_kernels(curve)
    module = build_module(f"{curve}_spmv", f"from {field.__name__} import *\n" + SPMV_TEMPLATE)
    return module.spmv


def spmv(indptr, cols, coeff_idx, coeff_table, w, out, *, curve: str) -> np.ndarray:
    """out = M . w over `curve`'s Fr (checks shapes, then runs the kernel)."""
    rows = len(indptr) - 1
    if out.shape != (rows, 4) or out.dtype != np.uint64:
        raise ValueError(f"out must be uint64[{rows}, 4], got {out.dtype}{out.shape}")
    if w.ndim != 2 or w.shape[1] != 4 or w.dtype != np.uint64:
        raise ValueError(f"w must be uint64[n, 4], got {w.dtype}{w.shape}")
    if len(cols) != len(coeff_idx) or (rows and int(indptr[-1]) != len(cols)):
        raise ValueError("indptr, cols and coeff_idx disagree")
    if coeff_table.shape[0] < 2:
        raise ValueError("coeff_table needs the reserved +1 and -1 entries")
    with threads_for(len(cols), LIGHT_MIN_PARALLEL):
        spmv_kernel(curve)(indptr, cols, coeff_idx, coeff_table, w, out)
    return out
