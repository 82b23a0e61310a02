"""Device SpMV for the compiled-circuit evaluator (a = A.w, ...).

Short rows take a thread each, rows longer than LONG_ROW a warp each
(spmv.cuh says why); `long_rows` lists the latter once per matrix."""

from __future__ import annotations

import cupy as cp
import numpy as np

from .module import fn

_IDX = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64"}
_CI = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32"}
LONG_ROW = 32  # terms: a warp's worth
THREADS = 128


def long_rows(indptr: cp.ndarray) -> cp.ndarray:
    """Indices (uint32) of the rows with more than LONG_ROW terms."""
    return cp.flatnonzero(cp.diff(indptr) > LONG_ROW).astype(cp.uint32)


def spmv(curve: str, indptr: cp.ndarray, cols: cp.ndarray, coeff_idx: cp.ndarray, table: cp.ndarray,
         w: cp.ndarray, long: cp.ndarray | None = None, out: cp.ndarray | None = None) -> cp.ndarray:
    """out = M.w for the CSR matrix M; `long` is long_rows(indptr) when the caller keeps it; `out`
    (contiguous uint64[rows, 4]) receives it where given (the head of a zero-padded NTT input)."""
    rows = int(indptr.shape[0]) - 1
    if indptr.dtype not in _IDX:
        indptr = indptr.astype(cp.int64)
    if coeff_idx.dtype not in _CI:
        coeff_idx = coeff_idx.astype(cp.uint32)
    if out is None:
        out = cp.empty((rows, 4), dtype=cp.uint64)
    elif out.shape != (rows, 4) or out.dtype != cp.uint64 or not out.flags.c_contiguous:
        raise ValueError(f"spmv: out must be contiguous uint64[{rows}, 4], got {out.dtype} {out.shape}")
    if rows:
        name = f"spmv_{_IDX[indptr.dtype]}_{_CI[coeff_idx.dtype]}"
        args = (indptr, cols.astype(cp.uint32, copy=False), coeff_idx, table, w, out)
        fn(curve, name)(((rows + THREADS - 1) // THREADS,), (THREADS,), args + (np.uint64(rows), np.uint32(LONG_ROW)))
        if long is None:
            long = long_rows(indptr)
        count = int(long.shape[0])
        if count:
            fn(curve, name + "_long")(((count * 32 + THREADS - 1) // THREADS,), (THREADS,),
                                      args + (long, np.uint64(count)))
    return out
