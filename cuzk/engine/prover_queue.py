"""The bounded queue between synthesis and the prover workers.

Holds synthesized partitions (witnesses and a/b/c, with their memory
reservation) in scheduling order. `put` blocks while the queue is full, so
synthesis runs at most `capacity` partitions ahead of the provers. A worker
takes the first item, except that among items of the same priority it
prefers one whose parameters its device already holds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .errors import ShuttingDown


@dataclass
class Member:
    job: object  # Job
    w: object
    abc: tuple
    public_inputs: list


@dataclass
class SynthesizedUnit:
    unit: object  # scheduler.WorkUnit
    members: list[Member]
    lease: object  # srs.SrsLease
    reservation: object  # memory.Reservation
    slot: object = None  # in-flight slot (sequential mode), released with the unit
    attempt: int = 0
    _released: bool = field(default=False, repr=False)

    @property
    def key(self) -> tuple:
        return self.unit.key

    @property
    def circuit_id(self) -> str:
        return self.unit.circuit_id

    def release(self) -> None:
        """Give back memory, parameter lease and pipeline slot (once)."""
        if self._released:
            return
        self._released = True
        self.members = []
        self.reservation.release()
        self.lease.release()
        if self.slot is not None:
            self.slot.release()


class ProverQueue:
    def __init__(self, capacity: int):
        self.capacity = max(1, capacity)
        self._items: list[SynthesizedUnit] = []
        self._cond = threading.Condition()
        self._closed = False

    def put(self, item: SynthesizedUnit, *, front: bool = False) -> None:
        """Block while full (a retry, `front`, is never blocked)."""
        with self._cond:
            while not front and len(self._items) >= self.capacity and not self._closed:
                self._cond.wait()
            if self._closed and not front:
                raise ShuttingDown("the prover queue is closed")
            self._items.append(item)
            self._items.sort(key=lambda it: it.key)
            self._cond.notify_all()

    def take(self, device) -> SynthesizedUnit | None:
        """The next item for `device`; None once closed and empty."""
        with self._cond:
            while not self._items:
                if self._closed:
                    return None
                self._cond.wait()
            head = self._items[0]
            choice = head
            if not device.holds(head.circuit_id):
                for it in self._items:
                    if it.key[0] != head.key[0]:
                        break  # never skip ahead of higher priority
                    if device.holds(it.circuit_id):
                        choice = it
                        break
            self._items.remove(choice)
            self._cond.notify_all()
            return choice

    def close(self) -> None:
        """No more puts; takers drain what is left, then get None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def __len__(self) -> int:
        return len(self._items)
