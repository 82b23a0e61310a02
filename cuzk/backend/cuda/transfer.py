"""Host-to-device uploads of per-proof vectors, pageable or through pinned memory.

Pageable: `cp.asarray`, the driver stages the copy (about 7 GB/s measured on
the H200 machine). Pinned: the vector is copied into a page-locked buffer
taken from a pool keyed by size (allocated once, reused for every proof,
never pinned per proof), then DMA'd at about 51 GB/s; the copy into the
buffer costs a host memcpy, so which mode wins end to end is measured by
`cuzk bench prove --transfer` (BENCHMARKS.md) and the faster one is the
default. Arrays that already live in a pool buffer (`host_array`) skip the
memcpy: a producer that writes there pays only the DMA.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

MODES = ("pageable", "pinned")


class PinnedPool:
    """Page-locked host buffers, reused by size."""

    def __init__(self):
        self._free: dict[int, list] = {}
        self._owned: dict[int, tuple[int, object]] = {}  # address -> (nbytes, pinned memory)

    def take(self, nbytes: int) -> np.ndarray:
        free = self._free.get(nbytes)
        mem = free.pop() if free else cp.cuda.alloc_pinned_memory(max(1, nbytes))
        buf = np.frombuffer(mem, dtype=np.uint8, count=nbytes)
        self._owned[buf.ctypes.data] = (nbytes, mem)
        return buf

    def give(self, buf: np.ndarray) -> None:
        nbytes, mem = self._owned.pop(buf.ctypes.data)
        self._free.setdefault(nbytes, []).append(mem)

    def owns(self, a: np.ndarray) -> bool:
        hit = self._owned.get(a.ctypes.data)
        return hit is not None and hit[0] >= a.nbytes

    @property
    def pinned_bytes(self) -> int:
        return sum(n for n, _ in self._owned.values()) + sum(k * len(v) for k, v in self._free.items())


class Uploader:
    def __init__(self, mode: str = "pageable"):
        if mode not in MODES:
            raise ValueError(f"transfer mode must be one of {MODES}, not {mode!r}")
        self.mode = mode
        self.pool = PinnedPool()

    def host_array(self, shape, dtype=np.uint64) -> np.ndarray:
        """A pinned host array from the pool (return it with `release`)."""
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        return self.pool.take(nbytes).view(dtype).reshape(shape)

    def release(self, a: np.ndarray) -> None:
        self.pool.give(a.reshape(-1).view(np.uint8))

    def upload(self, a) -> cp.ndarray:
        if isinstance(a, cp.ndarray):
            return a
        a = np.ascontiguousarray(a)
        if self.mode == "pageable" or a.nbytes < (1 << 20):
            return cp.asarray(a)
        out = cp.empty(a.shape, dtype=a.dtype)
        if self.pool.owns(a):
            out.set(a)
            return out
        staging = self.host_array(a.shape, a.dtype)
        try:
            np.copyto(staging, a)
            out.set(staging)
        finally:
            self.release(staging)
        return out
