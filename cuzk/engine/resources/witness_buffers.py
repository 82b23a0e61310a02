"""Witness arrays reused across partitions of one shape.

A 32g PoRep partition's witness is 4.2 GB; writing it into a fresh array costs
0.6-2.6 s of page faults on top of ~1.2 s of synthesis (lab/JOURNAL.md), so
synthesis writes into an array a proven partition gave back. A few free arrays
per shape are kept (they are working memory the budget already counted while
they were in use); the rest are dropped.

On a GPU engine the arrays are page-locked (the GPU's pinned pool, `alloc` and
`free`): synthesis writes the witness where the DMA reads it, so the prover's
prefetch skips its 4.2 GB host copy into a staging buffer (a 32g sector's
trace: a partition's staging took as long as the other worker's GPU section).
"""

from __future__ import annotations

import threading

import numpy as np

KEEP_PER_SHAPE = 2


class WitnessBuffers:
    def __init__(self, keep: int = KEEP_PER_SHAPE, alloc=None, free=None):
        """`alloc(shape)` makes an uninitialised uint64 array (default np.empty); `free(a)` takes
        back one dropped beyond `keep` (default: the garbage collector does)."""
        self.keep = keep
        self._alloc = alloc or (lambda shape: np.empty(shape, dtype=np.uint64))
        self._drop = free
        self.reused = 0  # takes served from a given-back array
        self._free: dict[tuple, list[np.ndarray]] = {}
        self._lock = threading.Lock()

    def take(self, shape: tuple[int, ...]) -> np.ndarray:
        """An uninitialised uint64 array of `shape`: a given-back one if there is one."""
        with self._lock:
            free = self._free.get(tuple(shape))
            if free:
                self.reused += 1
                return free.pop()
        return self._alloc(tuple(shape))

    def give(self, a: np.ndarray) -> None:
        """`a` is no longer read by anyone (its partition is proven, failed or dropped)."""
        with self._lock:
            free = self._free.setdefault(a.shape, [])
            if len(free) < self.keep:
                free.append(a)
                return
        if self._drop is not None:
            self._drop(a)

    def free_bytes(self) -> int:
        with self._lock:
            return sum(a.nbytes for arrays in self._free.values() for a in arrays)
