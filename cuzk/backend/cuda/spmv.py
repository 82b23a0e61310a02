"""Device SpMV for the compiled-circuit evaluator (a = A.w, ...)."""

from __future__ import annotations

import cupy as cp
import numpy as np

from .module import fn

_IDX = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64"}
_CI = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32"}


def spmv(curve: str, indptr: cp.ndarray, cols: cp.ndarray, coeff_idx: cp.ndarray, table: cp.ndarray,
         w: cp.ndarray) -> cp.ndarray:
    rows = int(indptr.shape[0]) - 1
    if indptr.dtype not in _IDX:
        indptr = indptr.astype(cp.int64)
    if coeff_idx.dtype not in _CI:
        coeff_idx = coeff_idx.astype(cp.uint32)
    out = cp.empty((rows, 4), dtype=cp.uint64)
    if rows:
        name = f"spmv_{_IDX[indptr.dtype]}_{_CI[coeff_idx.dtype]}"
        threads = 128
        fn(curve, name)(((rows + threads - 1) // threads,), (threads,),
                        (indptr, cols.astype(cp.uint32, copy=False), coeff_idx, table, w, out, np.uint64(rows)))
    return out
