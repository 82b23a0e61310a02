"""The bounded queue between synthesis and the prover workers.

Holds synthesized partitions (witnesses and a/b/c, with their memory
reservation) in scheduling order. `put` blocks while the queue holds
`capacity` partitions of the same or a higher priority, so synthesis runs at
most `capacity` partitions ahead of the provers, and an urgent partition is
never held back by a full queue of lower ones. A worker
takes the first item, except that among items of the same priority it
prefers one whose parameters its device already holds, and leaves an item to
another idle device that holds its parameters (so with several GPUs a job goes
to the GPU whose bases are resident when that GPU is free).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cuzk.forward import forward

from ..errors import ShuttingDown


@dataclass
class Member:
    job: object  # Job
    proof_job: object  # groth16.prover.ProofJob: the witness and its rows (or the circuit giving them)
    public_inputs: list
    reuse_witness: bool = False  # w came from the engine's WitnessBuffers


@dataclass
class SynthesizedUnit:
    unit: object  # scheduler.WorkUnit
    members: list[Member]
    lease: object  # srs.SrsLease
    reservation: object  # memory.Reservation
    slot: object = None  # in-flight slot (sequential mode), released with the unit
    buffers: object = None  # resources.WitnessBuffers that the members' witnesses go back to
    attempt: int = 0
    _released: bool = field(default=False, repr=False)

    key = forward("unit.key")
    circuit_id = forward("unit.circuit_id")

    def release(self) -> None:
        """Give back memory, parameter lease and pipeline slot (once)."""
        if self._released:
            return
        self._released = True
        if self.buffers is not None:
            for m in self.members:
                if m.reuse_witness:
                    self.buffers.give(m.proof_job.w)
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
        self._idle: dict = {}  # device -> workers waiting in take

    def put(self, item: SynthesizedUnit, *, front: bool = False) -> None:
        """Block while `capacity` items of the same or a higher priority wait (a retry, `front`, is never
        blocked): a queue full of sector partitions holds back the next partition, not a WinningPoSt,
        whose memory is reserved already and which the provers take first."""
        with self._cond:
            while not front and self._ahead_of(item) >= self.capacity and not self._closed:
                self._cond.wait()
            if self._closed and not front:
                raise ShuttingDown("the prover queue is closed")
            self._items.append(item)
            self._items.sort(key=lambda it: it.key)
            self._cond.notify_all()

    def _ahead_of(self, item: SynthesizedUnit) -> int:
        return sum(1 for it in self._items if it.key[0] <= item.key[0])

    def take(self, device) -> SynthesizedUnit | None:
        """The next item for `device`; None once closed and empty."""
        with self._cond:
            self._idle[device] = self._idle.get(device, 0) + 1
            try:
                while True:
                    choice = self._choose(device)
                    if choice is not None:
                        break
                    if self._closed and not self._items:
                        return None
                    self._cond.wait()
            finally:
                self._idle[device] -= 1
            self._items.remove(choice)
            self._cond.notify_all()
            return choice

    def _choose(self, device) -> SynthesizedUnit | None:
        """Among the items of the head's priority (never skipping ahead of a higher
        one): the first whose parameters `device` holds; else the first that no
        other idle device holds; else None (an idle holder will take it)."""
        if not self._items:
            return None
        top = self._items[0].key[0]
        same = [it for it in self._items if it.key[0] == top]
        for it in same:
            if device.holds(it.circuit_id):
                return it
        holders = [d for d, n in self._idle.items() if n > 0 and d is not device]
        for it in same:
            if not any(d.holds(it.circuit_id) for d in holders):
                return it
        return None

    def close(self) -> None:
        """No more puts; takers drain what is left, then get None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def __len__(self) -> int:
        return len(self._items)
