"""Reusable host staging buffers that return only after the copy reading them ends.

A buffer handed to an asynchronous host-to-device copy must not be reused
while the copy runs, or the next witness overwrites bytes still in flight.
`give_after(buf, event)` parks it until `event.done`; every `take` first
collects the parked buffers whose copies have finished. The allocator is a
parameter (page-locked CUDA memory on a GPU, plain host memory elsewhere), so
this bookkeeping runs, and is tested, without a device. Thread-safe: a
prover's staging thread and its workers share one pool.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

PARALLEL_MIN_BYTES = 64 << 20  # smaller copies stay on the calling thread
_copiers: ThreadPoolExecutor | None = None
_copiers_lock = threading.Lock()


def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for C-contiguous arrays of equal size, large ones in chunks on several
    threads (numpy releases the GIL while it copies). One thread moves ~10-13 GB/s, so staging a
    2^27 partition's 4.4 GB witness took ~0.4 s that nothing overlaps for a batch's first proof."""
    if dst.nbytes != src.nbytes or not (dst.flags.c_contiguous and src.flags.c_contiguous):
        raise ValueError(f"copy_into: needs C-contiguous arrays of equal size, got {dst.nbytes} and {src.nbytes} bytes")
    d, s = dst.reshape(-1).view(np.uint8), src.reshape(-1).view(np.uint8)
    workers = min(8, os.cpu_count() or 1)
    if s.size < PARALLEL_MIN_BYTES or workers == 1:
        np.copyto(d, s)
        return
    global _copiers
    with _copiers_lock:
        if _copiers is None:
            _copiers = ThreadPoolExecutor(workers, thread_name_prefix="cuzk-copy")
    step = -(-s.size // workers)
    step += -step % 4096  # page-aligned chunks
    chunks = [(k, min(s.size, k + step)) for k in range(0, s.size, step)]
    for f in [_copiers.submit(np.copyto, d[a:b], s[a:b]) for a, b in chunks]:
        f.result()


class StagingPool:
    """Host buffers reused by size; allocated once, never freed while the pool lives."""

    def __init__(self, alloc):
        self._alloc = alloc  # nbytes -> an object exposing the buffer protocol
        self._lock = threading.Lock()
        self._free: dict[int, list] = {}
        self._owned: dict[int, tuple[int, object]] = {}  # address -> (nbytes, memory)
        self._parked: list[tuple[np.ndarray, object]] = []  # (buffer, event of the copy reading it)

    def take(self, nbytes: int) -> np.ndarray:
        self.reclaim()
        with self._lock:
            free = self._free.get(nbytes)
            mem = free.pop() if free else None
        if mem is None:
            mem = self._alloc(max(1, nbytes))  # outside the lock: pinning hundreds of MiB takes a while
        buf = np.frombuffer(mem, dtype=np.uint8, count=nbytes)
        with self._lock:
            self._owned[buf.ctypes.data] = (nbytes, mem)
        return buf

    def give(self, buf: np.ndarray) -> None:
        """Return a buffer nothing reads any more."""
        with self._lock:
            hit = self._owned.pop(buf.ctypes.data, None)
            if hit is None:
                raise ValueError("staging pool: the array given back is not one of this pool's buffers")
            self._free.setdefault(hit[0], []).append(hit[1])

    def give_after(self, buf: np.ndarray, event) -> None:
        """Return `buf` once `event` (anything with `.done` and `.synchronize()`,
        e.g. a CUDA event recorded after the copy) has completed."""
        with self._lock:
            if buf.ctypes.data not in self._owned:
                raise ValueError("staging pool: the array given back is not one of this pool's buffers")
            self._parked.append((buf, event))

    def reclaim(self, wait: bool = False) -> int:
        """Return the parked buffers whose copies are done (with `wait`, wait for
        every parked copy first); how many came back."""
        if wait:
            with self._lock:
                events = [e for _, e in self._parked]
            for e in events:
                e.synchronize()
        with self._lock:
            done = [e.done for _, e in self._parked]  # read once: an event may finish meanwhile
            back = [b for (b, _), d in zip(self._parked, done) if d]
            self._parked = [p for p, d in zip(self._parked, done) if not d]
            for buf in back:
                nbytes, mem = self._owned.pop(buf.ctypes.data)
                self._free.setdefault(nbytes, []).append(mem)
        return len(back)

    def owns(self, a: np.ndarray) -> bool:
        with self._lock:
            hit = self._owned.get(a.ctypes.data)
        return hit is not None and hit[0] >= a.nbytes

    @property
    def outstanding(self) -> int:
        """Buffers taken and not yet back (parked ones included)."""
        with self._lock:
            return len(self._owned)

    @property
    def parked(self) -> int:
        with self._lock:
            return len(self._parked)

    @property
    def pinned_bytes(self) -> int:
        with self._lock:
            return sum(n for n, _ in self._owned.values()) + sum(k * len(v) for k, v in self._free.items())
