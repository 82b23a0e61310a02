"""The CUDA backend: kernels compiled at run time through CuPy (NVRTC).

Importing this module requires CuPy; `cuzk.backend.get_backend("cuda")`
reports a clear error instead when CuPy or a device is missing. Host arrays
in the project layout copy to the device unchanged (uint64 Montgomery limbs
read as uint32 limbs); device (CuPy) arrays are accepted as well and stay
on the device, which is how benchmarks time kernels without transfers.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from ..base import Backend, as_curve
from . import msm as _msm
from . import ntt as _ntt
from .module import fn


def to_device(a) -> cp.ndarray:
    return a if isinstance(a, cp.ndarray) else cp.asarray(np.ascontiguousarray(a))


class CudaBackend(Backend):
    name = "cuda"

    def __init__(self, device: int = 0):
        self.device_id = device
        self.device = cp.cuda.Device(device)
        self.resident = _msm.ResidentBases()

    def synchronize(self):
        self.device.synchronize()

    def describe(self) -> str:
        props = cp.cuda.runtime.getDeviceProperties(self.device_id)
        return f"cuda:{self.device_id} ({props['name'].decode()}, {props['multiProcessorCount']} SMs)"

    def ntt(self, curve, values, *, inverse=False, coset=None):
        with self.device:
            on_device = isinstance(values, cp.ndarray)
            out = _ntt.ntt(as_curve(curve).name, to_device(values), inverse=inverse, coset=coset)
            return out if on_device else cp.asnumpy(out)

    def fr_mul(self, curve, a, b):
        """Elementwise Fr product on the device (the kernel benchmark's per-element figure)."""
        name = as_curve(curve).name
        with self.device:
            a, b = to_device(a), to_device(b)
            out = cp.empty_like(a)
            n = a.shape[0]
            fn(name, "fr_vmul")(((n + 255) // 256,), (256,), (a, b, out, np.uint64(n)))
            return out

    def quotient(self, curve, a, b, c, n, shift, scale, to_coefficients, count):
        """Groth16 H on the device: 3 batched iNTTs, coset NTTs, (a*b - c)*s, optional iNTT."""
        name = as_curve(curve).name
        with self.device:
            abc = cp.zeros((3, n, 4), dtype=cp.uint64)
            for i, v in enumerate((a, b, c)):
                abc[i, : v.shape[0]] = to_device(v)
            ev = _ntt.ntt(name, _ntt.ntt(name, abc, inverse=True), coset=shift)
            t = cp.empty((n, 4), dtype=cp.uint64)
            threads = 256
            grid = ((n + threads - 1) // threads,)
            s = _ntt.const(name, scale) if scale is not None else np.uint64(0)
            fn(name, "fr_ab_minus_c")(grid, (threads,), (ev[0], ev[1], ev[2], t, s, np.uint64(n)))
            if to_coefficients:
                t = _ntt.ntt(name, t, inverse=True, coset=shift)
            out = cp.empty((count, 4), dtype=cp.uint64)
            fn(name, "fr_from_mont")(grid, (threads,), (cp.ascontiguousarray(t[:count]), out, np.uint64(count)))
            return out

    def msm(self, curve, group, bases, scalars):
        with self.device:
            return _msm.msm(as_curve(curve), group, self.resident.get(bases), to_device(scalars))

    def batch_add(self, curve, group, bases, mask):
        with self.device:
            idx = cp.flatnonzero(to_device(mask)).astype(cp.uint32)
            return _msm.batch_add(as_curve(curve), group, self.resident.get(bases), idx)

    def spmv(self, curve, indptr, cols, coeff_idx, coeff_table, w):
        from . import spmv as _spmv

        with self.device:
            out = _spmv.spmv(as_curve(curve).name, to_device(indptr), to_device(cols), to_device(coeff_idx),
                             to_device(coeff_table), to_device(w))
            return out if isinstance(w, cp.ndarray) else cp.asnumpy(out)
