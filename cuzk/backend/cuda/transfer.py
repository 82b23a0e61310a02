"""Host-to-device uploads of per-proof vectors, pageable or through pinned memory.

Pageable: `cp.asarray`, the driver stages the copy (about 7 GB/s measured on
the H200 machine). Pinned: the vector is copied into a page-locked buffer
taken from a pool keyed by size (allocated once, reused for every proof,
never pinned per proof), then DMA'd at about 51 GB/s; the copy into the
buffer costs a host memcpy (on several threads: staging.copy_into), so
which mode wins end to end is measured by
`cuzk bench prove --transfer` (lab/JOURNAL.md) and the faster one is the
default. Arrays that already live in a pool buffer (`host_array`) skip the
memcpy: a producer that writes there pays only the DMA.

`prefetch` starts an upload on a dedicated non-blocking stream and returns at
once, so a batch's next witness crosses the bus while the current proof's
kernels run (prove_batch); the consumer's stream waits on the copy's event.
"""

from __future__ import annotations

import threading

import cupy as cp
import numpy as np

from ..staging import StagingPool, copy_into

MODES = ("pageable", "pinned")


class PinnedPool(StagingPool):
    """Page-locked host buffers, reused by size (see staging.py)."""

    def __init__(self):
        super().__init__(cp.cuda.alloc_pinned_memory)


class Prefetched:
    """A witness whose upload `Uploader.prefetch` started: the device array and the
    event its copy recorded; a consumer's stream waits on `ready` before using it."""

    __slots__ = ("array", "ready")

    def __init__(self, array: cp.ndarray, ready: cp.cuda.Event):
        self.array, self.ready = array, ready


class Uploader:
    def __init__(self, mode: str = "pageable"):
        if mode not in MODES:
            raise ValueError(f"transfer mode must be one of {MODES}, not {mode!r}")
        self.mode = mode
        self.pool = PinnedPool()
        self._copy_stream = None
        self._stream_lock = threading.Lock()

    def copy_stream(self) -> cp.cuda.Stream:
        """The dedicated non-blocking stream prefetches copy on (created on the current device)."""
        with self._stream_lock:
            if self._copy_stream is None:
                self._copy_stream = cp.cuda.Stream(non_blocking=True)
            return self._copy_stream

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
            copy_into(staging, a)
            out.set(staging)
        except BaseException:
            cp.cuda.get_current_stream().synchronize()
            self.release(staging)
            raise
        # CuPy 14's set() copies asynchronously on the current stream: the buffer waits for the copy
        copied = cp.cuda.Event(block=True, disable_timing=True)
        copied.record()
        self.pool.give_after(staging.reshape(-1).view(np.uint8), copied)
        return out

    def prefetch(self, a) -> Prefetched:
        """Start `a`'s upload on the copy stream and return without waiting for it.

        Always through pinned memory (a pageable source would make the copy
        synchronous): `a` is copied into a pool buffer unless it already is one,
        and that buffer goes back to the pool only once the copy's event is
        done. The device array is allocated on the copy stream: once dropped,
        CuPy's stream-ordered pool reuses its memory only for later copies on
        that stream (the prover drops a witness after its results reached the host)."""
        if isinstance(a, cp.ndarray):
            ready = cp.cuda.Event(block=True, disable_timing=True)
            ready.record()
            return Prefetched(a, ready)
        a = np.ascontiguousarray(a)
        stream = self.copy_stream()
        ready = cp.cuda.Event(block=True, disable_timing=True)
        with stream:
            out = cp.empty(a.shape, dtype=a.dtype)
        staged = not self.pool.owns(a)
        src = self.host_array(a.shape, a.dtype) if staged else a
        try:
            if staged:
                copy_into(src, a)
            out.set(src, stream=stream)
            stream.record(ready)
        except BaseException:
            if staged:
                stream.synchronize()  # a copy that was issued may still read the buffer
                self.release(src)
            raise
        if staged:
            self.pool.give_after(src.reshape(-1).view(np.uint8), ready)
        return Prefetched(out, ready)
