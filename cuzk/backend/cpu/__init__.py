"""The CPU backend: numba kernels (parallel, nogil, cached on disk)."""

from __future__ import annotations

import numba
import numpy as np

from ..base import Backend, as_curve
from . import miller, msm, ntt, spmv


class CpuBackend(Backend):
    name = "cpu"

    def __init__(self, memory_limit: int | None = None):
        """`memory_limit`: follow memory_plan's plan for a device of that many bytes (chunked MSMs,
        H one vector at a time), as the CUDA backend does under the same budget; None: no plan."""
        self.memory_limit = memory_limit

    def ntt(self, curve, values, *, inverse=False, coset=None):
        return ntt.ntt(as_curve(curve).name, values, inverse=inverse, coset=coset)

    def msm(self, curve, group, bases, scalars):
        name = as_curve(curve).name
        return self.msm_chunks(curve, group, bases, scalars, lambda b, s: msm.msm(name, group, b, s))

    def batch_add(self, curve, group, bases, mask):
        return msm.batch_add(as_curve(curve).name, group, bases, mask)

    def spmv(self, curve, indptr, cols, coeff_idx, coeff_table, w):
        out = np.empty((len(indptr) - 1, 4), dtype=np.uint64)
        spmv.spmv(indptr, cols, coeff_idx, coeff_table, w, out, curve=as_curve(curve).name)
        return out

    def miller_products(self, curve, g1, g2, q_ptr, p_idx, prod, nprod):
        return miller.shared_loops(as_curve(curve).name, g1, g2, q_ptr, p_idx, prod, nprod)

    def describe(self) -> str:
        return f"cpu ({numba.get_num_threads()} threads)"
