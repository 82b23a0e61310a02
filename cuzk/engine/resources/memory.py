"""The working-memory budget: bytes of witnesses, a/b/c vectors and hot parameters.

Synthesis takes a reservation before it builds a job's vectors and blocks
while the next job would exceed the budget; that is the pipeline's
backpressure. Waiters are served strictly in order of their key (priority,
then submission), so a large request is never starved by smaller ones that
arrive later, and a higher-priority job waits behind nothing of lower
priority.

Wake-ups cannot be lost: a waiter checks and sleeps under the same lock that
`release` takes to notify (Rust cuzk's budget checked, then registered for a
notification, and could miss a release in between). Waiters also re-check on
a short timer so that idle-time-based eviction and cancellation are noticed.
"""

from __future__ import annotations

import bisect
import itertools
import re
import threading
from typing import Callable

from ..errors import BudgetTooSmall, Cancelled

GiB = 1 << 30
POLL_S = 0.5

_UNITS = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "kib": 1 << 10,
    "m": 1000**2, "mb": 1000**2, "mib": 1 << 20,
    "g": 1000**3, "gb": 1000**3, "gib": 1 << 30,
    "t": 1000**4, "tb": 1000**4, "tib": 1 << 40,
}


def parse_size(text, what: str = "size") -> int:
    """'4GiB', '512 MiB', '1.5GB', 1024 -> bytes. Raises ValueError naming `what`."""
    if isinstance(text, bool):
        raise ValueError(f"{what}: expected a size such as '4GiB', got {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"{what}: must not be negative")
        return text
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"{what}: expected a size such as '4GiB', '512MiB' or a byte count, got {text!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def system_memory_bytes() -> int | None:
    """MemTotal from /proc/meminfo (None where unreadable)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class Reservation:
    """Bytes held from a budget; `release` gives back part or all of it (idempotent at zero)."""

    def __init__(self, budget: "MemoryBudget", size: int):
        self._budget = budget
        self._size = size
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return self._size

    def release(self, n: int | None = None) -> None:
        with self._lock:
            n = self._size if n is None else min(n, self._size)
            self._size -= n
        if n:
            self._budget._give_back(n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


class MemoryBudget:
    def __init__(self, total: int, evictor: Callable[[int], int] | None = None):
        if total <= 0:
            raise ValueError("the memory budget must be positive")
        self.total = int(total)
        self.evictor = evictor  # called without the lock held; returns bytes freed
        self._used = 0
        self._peak = 0
        self._cond = threading.Condition()
        self._waiters: list[tuple[tuple, int]] = []  # sorted (key, ticket)
        self._tickets = itertools.count()
        self._version = 0  # bumped by every release

    # ---- observation ---------------------------------------------------------
    @property
    def used(self) -> int:
        return self._used

    @property
    def peak(self) -> int:
        return self._peak

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    # ---- acquisition ---------------------------------------------------------
    def acquire(self, n: int, *, key: tuple = (), cancelled: Callable[[], bool] | None = None,
                what: str = "request") -> Reservation:
        """Block until `n` bytes fit, in key order among waiters; raise Cancelled if
        `cancelled()` turns true while waiting, BudgetTooSmall if n can never fit."""
        n = int(n)
        if n > self.total:
            raise BudgetTooSmall(
                f"{what} needs {format_size(n)} of working memory but the budget (memory.total_budget) "
                f"is {format_size(self.total)}")
        if n <= 0:
            return Reservation(self, 0)
        me = (tuple(key), next(self._tickets))
        with self._cond:
            self._insert(me)
            try:
                while True:
                    if cancelled is not None and cancelled():
                        raise Cancelled(f"{what}: cancelled while waiting for memory")
                    head = self._waiters[0] == me
                    if head and self._used + n <= self.total:
                        self._take(n)
                        return Reservation(self, n)
                    if head and self.evictor is not None:
                        # the evictor takes other locks: call it without ours
                        short = self._used + n - self.total
                        seen = self._version
                        self._cond.release()
                        try:
                            freed = self.evictor(short)
                        finally:
                            self._cond.acquire()
                        if freed or self._version != seen:
                            continue  # something changed while the lock was not held
                    self._cond.wait(POLL_S)
            finally:
                self._waiters.remove(me)
                self._cond.notify_all()  # the next waiter may now be head

    def try_acquire(self, n: int) -> Reservation | None:
        """Take n bytes now if they fit and nobody is waiting; never blocks or evicts."""
        n = int(n)
        with self._cond:
            if n <= 0:
                return Reservation(self, 0)
            if self._waiters or self._used + n > self.total:
                return None
            self._take(n)
            return Reservation(self, n)

    def poke(self) -> None:
        """Wake all waiters so they re-check (e.g. after a cancellation)."""
        with self._cond:
            self._cond.notify_all()

    # ---- internals -------------------------------------------------------------
    def _insert(self, item) -> None:
        bisect.insort(self._waiters, item)
        self._cond.notify_all()  # a new head may change who proceeds

    def _take(self, n: int) -> None:
        self._used += n
        self._peak = max(self._peak, self._used)

    def _give_back(self, n: int) -> None:
        with self._cond:
            self._used -= n
            self._version += 1
            if self._used < 0:  # a bug in the caller; never hide it
                self._used = 0
                raise AssertionError("memory budget released more than was reserved")
            self._cond.notify_all()
