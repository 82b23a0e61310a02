"""split_h's primitives on host numpy arrays (the CPU backend under a memory plan).

Here "the device" and "the host" are one memory, so parking is a copy; what this exercises is
the split computation's arithmetic and its chunk boundaries, the same code the CUDA backend
runs with chunks crossing the bus.
"""

from __future__ import annotations

import numpy as np

from .ntt import ntt_kernels


class HostSplitOps:
    def __init__(self, backend, curve):
        self.backend, self.curve, self.fr = backend, curve, curve.fr

    def load(self, v, n: int) -> np.ndarray:
        v = np.asarray(v, dtype=np.uint64)
        if v.shape[0] > n:
            raise ValueError(f"{v.shape[0]} rows do not fit an NTT of size {n}")
        x = np.zeros((n, 4), dtype=np.uint64)
        x[: v.shape[0]] = v
        return x

    def ntt(self, x, inverse: bool) -> np.ndarray:
        return self.backend.ntt(self.curve, x, inverse=inverse)

    def park(self, x) -> np.ndarray:
        return np.array(x, copy=True)

    def mul_powers(self, x, lo, hi, base, k, canonical, sub=None) -> None:
        part = x[lo:hi]
        ntt_kernels(self.curve.name).scale_by_powers(part, self.fr.from_ints([base]), self.fr.from_ints([k]), 1)
        if canonical:
            part[...] = self.fr.from_mont(part)
        if sub is not None:
            part[...] = self.fr.sub(part, sub[lo:hi])

    def mul_parked(self, x, lo, hi, p) -> None:
        x[lo:hi] = self.fr.mul(x[lo:hi], p[lo:hi])

    def head(self, x, count: int) -> np.ndarray:
        return np.ascontiguousarray(x[:count])
