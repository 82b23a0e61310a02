"""The CPU backend: numba kernels (parallel, nogil, cached on disk)."""

from __future__ import annotations

import numba
import numpy as np

from ..base import Backend, as_curve
from . import miller, msm, ntt, spmv
from .tables import ResidentTables


class CpuBackend(Backend):
    name = "cpu"

    def __init__(self, memory_limit: int | None = None, table_budget: int = 0, reserve=None):
        """`memory_limit`: follow memory_plan's plan for a device of that many bytes (chunked MSMs,
        H one vector at a time), as the CUDA backend does under the same budget; None: no plan.
        `table_budget`: bytes of MSM window tables for resident keys (tables.py; a daemon's
        gpus.cpu_msm_tables), taken from `reserve` (the engine's memory budget) too; 0: none."""
        self.memory_limit = memory_limit
        self.resident_tables = ResidentTables(table_budget, reserve) if table_budget > 0 else None

    def ntt(self, curve, values, *, inverse=False, coset=None):
        return ntt.ntt(as_curve(curve).name, values, inverse=inverse, coset=coset)

    def msm(self, curve, group, bases, scalars):
        name = as_curve(curve).name
        table = self.resident_tables.find(bases) if self.resident_tables is not None else None
        return self.msm_chunks(curve, group, bases, scalars,
                               lambda b, s: msm.msm(name, group, b, s, table if b is bases else None))

    def keep_resident(self, pk) -> None:
        if self.resident_tables is not None:
            self.resident_tables.keep(pk)

    def forget_resident(self, pk) -> None:
        if self.resident_tables is not None:
            self.resident_tables.forget(pk)

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
