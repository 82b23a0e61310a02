"""Fixed-base multiplication on the device: [k_i] G for one generator G and many k_i.

Groth16 parameter generation is ~6 such vectors per circuit (2^27 scalars
each at PoRep partition size), out of reach of the CPU. The window table
(d 2^(8w) G for 32 byte windows; 8192 affine points) is built once on the
host by the CPU backend's FixedBaseTable and uploaded; each device thread
then adds one table point per nonzero scalar byte and the results return to
affine through Montgomery's batch inversion, grid-strided per thread.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from cuzk.backend.cpu.fixed_base import FixedBaseTable

from .module import fn

THREADS = 128


class DeviceFixedBase:
    """The table of one base point, resident on the current device."""

    chunk = 1 << 22  # scalars per call: bounded XYZZ scratch (0.8 GB for G1 BLS12-381, 1.6 GB for G2)

    def __init__(self, curve, group: str, base: np.ndarray, device: cp.cuda.Device):
        self.curve, self.group, self.device = curve, group, device
        host = FixedBaseTable(curve.name, group, base)
        self.grp = host.grp
        self.point_shape = (2,) + self.grp.coord
        self.words = int(np.prod(self.point_shape)) * 2  # u32 words per affine point
        with device:
            self.table = cp.asarray(np.ascontiguousarray(host.table)).reshape(-1).view(cp.uint32)

    def mul(self, scalars: np.ndarray) -> np.ndarray:
        """Affine [k_i] G (host uint64 array) for canonical scalars uint64[n, 4]."""
        scalars = np.ascontiguousarray(scalars, dtype=np.uint64).reshape(-1, 4)
        n = scalars.shape[0]
        if n == 0:
            return np.zeros((0,) + self.point_shape, dtype=np.uint64)
        with self.device:
            d_scalars = cp.asarray(scalars).reshape(-1).view(cp.uint32)
            out = cp.empty(n * self.words, dtype=cp.uint32)
            scratch = cp.empty(2 * n * self.words, dtype=cp.uint32)  # one XYZZ point per scalar
            sms = self.device.attributes["MultiProcessorCount"]
            blocks = max(1, min(8 * sms, (n + THREADS - 1) // THREADS))
            fn(self.curve.name, f"{self.group}_fixed_base")((blocks,), (THREADS,),
                                                            (self.table, d_scalars, np.uint64(n), out, scratch))
            del scratch
            return cp.asnumpy(out).view(np.uint64).reshape((n,) + self.point_shape)
