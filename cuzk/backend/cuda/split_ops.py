"""split_h's primitives on the device: one domain-sized vector there at a time, the rest parked in
page-locked host memory and brought back a chunk at a time.

A transform runs in place (ntt.transform's `in_place`: the vector and one scratch vector);
pointwise steps use the existing kernels on chunk-sized slices: a chunk of powers k * base^j
(fr_mul_const over a cached power table of the chunk's length; k in Montgomery form, or as a
plain integer so that the product also leaves the Montgomery form), then fr_vmul, or
fr_ab_minus_c where a parked vector is subtracted. Rows that the SpMV evaluates on the device
(`DeferredRows`) are computed straight into the head of the zero-padded vector.

Without `keep_twiddles` (a plan that parks the witness) the transforms' twiddles are these ops'
own instead of ntt.py's kept table: dropped before each vector loads, so that the SpMV's witness,
matrix and vector have their room, rebuilt by the next transform (one 2^(log n - 1) table: a
kernel over n/2 elements, three a proof), and gone with the ops after H, so the MSMs do not hold
them either (memory_plan.split_h_bytes and msm_bytes count them so).
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from . import ntt as _ntt
from .module import fn

THREADS = 256


class DeferredRows:
    """A row vector (a, b or c) of a compiled circuit, evaluated by the SpMV only when the split H
    computation loads it, so that a, b and c are never on the device together. `w` is the device
    witness, or under the plan's park_witness the page-locked host one, uploaded for this SpMV
    and dropped after it."""

    def __init__(self, backend, circuit, index: int, w):
        self.backend, self.circuit, self.index, self.w = backend, circuit, index, w
        self.shape = (int(circuit.num_rows), 4)

    def into(self, out: cp.ndarray) -> None:
        w = self.w
        if not isinstance(w, cp.ndarray):
            with self.backend._phase("h2d_witness"):
                self.backend._moved(w)
                w = cp.asarray(w)
        self.backend.spmv_into(self.circuit, self.index, w, out)


def pinned_empty(shape, dtype=np.uint64) -> np.ndarray:
    """A page-locked host array; its memory returns to CuPy's pinned pool when dropped."""
    count = int(np.prod(shape))
    mem = cp.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


class DeviceSplitOps:
    def __init__(self, backend, curve, elementwise: int, keep_twiddles: bool = True):
        self.backend, self.curve, self.name = backend, curve, curve.name
        self.elementwise = elementwise
        self._powers: dict[int, cp.ndarray] = {}  # chunk tables of powers, dropped with these ops (after H)
        self.keep_twiddles = keep_twiddles
        self._tw: cp.ndarray | None = None  # without keep_twiddles: the transforms' twiddles, between loads

    def _phase(self, label):
        return self.backend._phase(label)

    def load(self, v, n: int) -> cp.ndarray:
        self._tw = None  # before the vector is allocated (see the module docstring)
        with self._phase("h2d_abc"):
            rows = int(v.shape[0])
            if rows > n:
                raise ValueError(f"{rows} rows do not fit an NTT of size {n}")
            x = cp.zeros((n, 4), dtype=cp.uint64)
            if isinstance(v, DeferredRows):
                v.into(x[:rows])
            elif rows:
                self.backend._moved(v)
                x[:rows] = v if isinstance(v, cp.ndarray) else cp.asarray(np.ascontiguousarray(v))
            return x

    def ntt(self, x: cp.ndarray, inverse: bool) -> cp.ndarray:
        n = int(x.shape[0])
        scale = _ntt.const(self.name, pow(n, -1, self.curve.fr.p)) if inverse else None
        if not self.keep_twiddles and (self._tw is None or int(self._tw.shape[0]) != max(1, n // 2)):
            with self._phase("twiddles_h"):
                self._tw = _ntt.twiddles(self.name, n)
        with self._phase("intt_abc" if inverse else "coset_ntt_abc"):
            return _ntt.transform(self.name, x, inverse=inverse, scale=scale, in_place=True, tw=self._tw)

    def park(self, x: cp.ndarray) -> np.ndarray:
        with self._phase("park_h"):
            host = pinned_empty(x.shape)
            x.get(out=host)  # waits for the copy: the device vector is dropped next
            return host

    def _table(self, base: int, k: int, m: int, canonical: bool) -> cp.ndarray:
        fr = self.curve.fr
        base %= fr.p
        powers = self._powers.get(base)
        if powers is None:
            powers = self._powers[base] = _ntt._build_powers(self.name, base, self.elementwise)
        kk = _ntt.raw(self.name, k) if canonical else cp.asarray(fr.from_ints([k % fr.p]))
        out = cp.empty((m, 4), dtype=cp.uint64)
        fn(self.name, "fr_mul_const")(((m + THREADS - 1) // THREADS,), (THREADS,), (powers[:m], kk, out, np.uint64(m)))
        return out

    def mul_powers(self, x, lo, hi, base, k, canonical, sub=None) -> None:
        m = hi - lo
        grid = ((m + THREADS - 1) // THREADS,)
        with self._phase("pointwise_h"):
            table = self._table(base, k, m, canonical)
            part = x[lo:hi]
            if sub is None:
                fn(self.name, "fr_vmul")(grid, (THREADS,), (part, table, part, np.uint64(m)))
            else:
                self.backend._moved(sub[lo:hi])
                s = cp.asarray(sub[lo:hi])
                fn(self.name, "fr_ab_minus_c")(grid, (THREADS,), (part, table, s, part, np.uint64(0), np.uint64(m)))

    def mul_parked(self, x, lo, hi, p) -> None:
        m = hi - lo
        with self._phase("pointwise_h"):
            part = x[lo:hi]
            self.backend._moved(p[lo:hi])
            fn(self.name, "fr_vmul")(((m + THREADS - 1) // THREADS,), (THREADS,),
                                     (part, cp.asarray(p[lo:hi]), part, np.uint64(m)))

    def head(self, x: cp.ndarray, count: int) -> cp.ndarray:
        return x[:count]
