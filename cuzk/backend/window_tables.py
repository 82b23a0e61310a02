"""Which MSM window tables a device keeps: a byte budget, first come, kept.

A window table holds 2^(c w) P_i for every base P_i and window w (13 times
the bases' memory at c = 20), built once per base array and reused by every
later MSM over it. Tables are never evicted to make room for another: two
base sets that do not both fit would otherwise rebuild each other's table on
every proof, seconds each. A table goes only when its bases go (`drop`).
"""

from __future__ import annotations

import threading
from typing import Any, Callable


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
        other points while the table lives."""
        with self._lock:
            hit = self._tables.get(key)
            if hit is not None:
                return hit[1]
            if nbytes + scratch > self.budget - self.used:
                return None
            table = build()
            self._tables[key] = (int(nbytes), table, holder)
            self.used += int(nbytes)
            return table

    def drop(self, key) -> None:
        with self._lock:
            hit = self._tables.pop(key, None)
            if hit is not None:
                self.used -= hit[0]

    def clear(self) -> None:
        """Every table goes (after a device out-of-memory error); later MSMs rebuild what fits."""
        with self._lock:
            self._tables.clear()
            self.used = 0

    def __len__(self) -> int:
        return len(self._tables)
