"""Host arrays made page-locked in place, so chunks of them stream to the device by DMA.

Under a device-memory budget the bases that do not fit stay in host memory and cross the bus
once per proof, a chunk at a time (streamed_msm.py), as do the SpMV's matrices. Copies from
pageable memory are staged by the driver (about 7 GB/s measured, and synchronous); from
page-locked memory they run at about 51 GB/s and asynchronously, beside the kernels. A 2^27
key's 47.5 GB of bases cannot be copied into pinned memory beside themselves on a 128 GiB
host, so they are registered where they are (cudaHostRegister); arrays that are already
page-locked (the engine's hot SRS tier, CuPy's pinned pool) are used as they are.
"""

from __future__ import annotations

import logging
import threading

import cupy as cp
import numpy as np

log = logging.getLogger(__name__)
HOST_ALREADY_REGISTERED = 712  # cudaErrorHostMemoryAlreadyRegistered


class PinnedHost:
    def __init__(self, limit: int = 32):
        self.limit = limit
        self._store: dict[tuple, tuple[np.ndarray, bool]] = {}  # key -> (array, registered by us)
        self._lock = threading.Lock()

    @staticmethod
    def _key(a: np.ndarray) -> tuple:
        return (a.ctypes.data, a.shape, a.dtype.str, a[:1].tobytes(), a[-1:].tobytes())

    def get(self, a: np.ndarray) -> np.ndarray:
        """`a` itself, page-locked where the driver allows it (registered on first use and kept so
        until evicted)."""
        a = np.ascontiguousarray(a)
        if a.nbytes == 0:
            return a
        key = self._key(a)
        with self._lock:
            hit = self._store.get(key)
            if hit is not None:
                return hit[0]
            try:
                cp.cuda.runtime.hostRegister(a.ctypes.data, a.nbytes, 0)
                ours = True
            except cp.cuda.runtime.CUDARuntimeError as exc:
                # page-locked already (pinned pool, hot SRS tier); or memory the driver will not lock
                # (a read-only mapping of a compiled circuit's file): copied from where it is, slower
                ours = False
                if exc.status != HOST_ALREADY_REGISTERED:
                    log.info("cannot page-lock %d bytes of host memory (%s): its uploads are staged", a.nbytes, exc)
            if len(self._store) >= self.limit:
                self._release(self._store.pop(next(iter(self._store))))
            self._store[key] = (a, ours)
            return a

    @staticmethod
    def _release(entry) -> None:
        a, ours = entry
        if ours:
            cp.cuda.runtime.hostUnregister(a.ctypes.data)

    def clear(self) -> None:
        with self._lock:
            for entry in self._store.values():
                self._release(entry)
            self._store.clear()
