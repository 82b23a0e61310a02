"""Which MSM window tables a device keeps: their shape and size, a byte budget, first come, kept.

A window table holds multiples 2^(c s j) P_i of every base P_i (up to 12 times
the bases' memory at c = 20), built once per base array and reused by every
later MSM over it. Tables are never evicted to make room for another: two
base sets that do not both fit would otherwise rebuild each other's table on
every proof, seconds each. A table goes only when its bases go (`drop`).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

TABLE_MIN_N = 1 << 12  # smaller MSMs run without a table
TABLE_CHUNK = 1 << 22  # bases per build launch: its XYZZ scratch is 768 MiB for G1 (a scratch of n: 25.8 GB at 2^27)


def table_windows(c: int) -> int:
    """Windows of a table of width c: canonical scalars are < 2^255, and c * nwin >= 256 leaves room
    for the last signed digit's carry."""
    return -(-256 // c)


def table_window(n: int) -> int:
    """Window bits for a table over n bases (measured on the H200: lab/JOURNAL.md).

    Only widths whose top window is well filled: scalars < 2^255 leave
    255 - c (nwin - 1) bits there, 7 for c = 8 and 15 for 16 and 20, but 0 to
    8 for the widths between, and then a few buckets get most of the points
    (c = 17 at 2^22: 18 s instead of 57 ms, when a thread summed a bucket).
    c = 22 (12 windows, 13 top bits) at 2^24: 105.6 ms against 20's 101.3
    (4 % fewer additions; the 2^21 buckets' sort and reduction cost more)."""
    if n < 1 << 16:
        return 8
    return 16 if n < 1 << 23 else 20


def table_rows(c: int, sets: int) -> int:
    """Rows of a table of width c with `sets` bucket sets: window w = sets j + s uses row j."""
    return -(-table_windows(c) // sets)


def table_bytes(n: int, c: int, sets: int, point_bytes: int) -> tuple[int, int]:
    """Device bytes of a table over n bases (its rows past the bases, which are not copied), and of
    the build's XYZZ scratch meanwhile (twice a point's bytes per base of a launch)."""
    return (table_rows(c, sets) - 1) * n * point_bytes, 2 * min(n, TABLE_CHUNK) * point_bytes


def table_sets(n: int, c: int, point_bytes: int, room: int, plain_buckets: int) -> int | None:
    """The fewest bucket sets of a width-c table over n bases whose rows and build scratch fit in
    `room` bytes, or None. The table must leave the MSM no more buckets than the plain one has
    (`plain_buckets`), and at least one row past the bases; its point indices (row j: j n + i)
    must stay below 2^31 (the sorted entries' sign bit)."""
    nwin = table_windows(c)
    for sets in range(1, nwin):
        if sets << (c - 1) > plain_buckets or table_rows(c, sets) * n > 1 << 31:
            continue
        nbytes, scratch = table_bytes(n, c, sets, point_bytes)
        if nbytes + scratch <= room:
            return sets
    return None


def table_room(budget_room: int, free: int, pool_free: int, sort: int, reserve: int, proofs: int) -> int | None:
    """Bytes a new table may take now, or None: not yet.

    An MSM on its own (`proofs` = 0 since the memory pool was last emptied) adds only its sort:
    the device's free memory and the pool's cached blocks, less the sort and the reserve. Within
    proofs the pool's blocks are their working memory, handed from phase to phase and from one
    proof to the next (CuPy keeps every block, so the pool is their high-water mark): a table may
    take only memory the pool never needed, less the reserve. That is known once a proof has run
    to its end, so during the first proof (`proofs` = 1) there is no table; a batch's first proof
    also sees the next witness's upload, so the mark covers the batch. Taken from the pool's
    cached blocks at 2^27, a table sized at MSM H (~41 GiB free) left the rest of a batch, whose
    pool reached 130.7 GiB of the 139 without one, too little."""
    if proofs == 1:
        return None
    avail = free + pool_free - sort if proofs == 0 else free
    return min(budget_room, avail - reserve)


class TableCache:
    def __init__(self, budget: int):
        self.budget = int(budget)
        self.used = 0
        self._tables: dict[Any, tuple[int, Any, Any]] = {}  # key -> (bytes, table, holder)
        self._lock = threading.Lock()

    def get(self, key, nbytes: int, build: Callable[[], Any], holder: Any = None, scratch: int = 0):
        """The table for `key`; built by `build()` when `nbytes` plus the build's
        transient `scratch` fit in what is left of the budget, else None (the
        caller runs without one). `holder` is kept alive with the table: the
        bases whose address the key names, so that address cannot be reused by
        other points while the table lives. A build that returns None (the device
        had less memory than it seemed) keeps nothing, and the budget shrinks so
        that a later request asks for at most half as much."""
        with self._lock:
            hit = self._tables.get(key)
            if hit is not None:
                return hit[1]
            if nbytes + scratch > self.budget - self.used:
                return None
            table = build()
            if table is None:
                self.budget = self.used + (int(nbytes) + int(scratch)) // 2
                return None
            self._tables[key] = (int(nbytes), table, holder)
            self.used += int(nbytes)
            return table

    def find(self, key):
        """The table kept for `key`, or None."""
        with self._lock:
            hit = self._tables.get(key)
            return None if hit is None else hit[1]

    def kept(self) -> list:
        """The tables kept, oldest first."""
        with self._lock:
            return [t for _, t, _ in self._tables.values()]

    def room(self) -> int:
        """Bytes of the budget not yet held by a table."""
        with self._lock:
            return self.budget - self.used

    def drop(self, key) -> None:
        with self._lock:
            hit = self._tables.pop(key, None)
            if hit is not None:
                self.used -= hit[0]

    def clear(self) -> None:
        """Every table goes (after a device out-of-memory error), and where tables were held the
        budget shrinks to half of what they held: later MSMs rebuild what fits in that, so a table
        that left the proof too little memory is not rebuilt into the same error on every retry."""
        with self._lock:
            self._tables.clear()
            if self.used:
                self.budget = min(self.budget, self.used // 2)
            self.used = 0

    def __len__(self) -> int:
        return len(self._tables)
