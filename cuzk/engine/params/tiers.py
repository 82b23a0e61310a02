"""The parameter (SRS) manager: which circuits' proving keys are resident, and where.

Tiers (proto SRSStatus.Tier):
  COLD  known, not opened (a file on disk, or parameters still to generate);
  WARM  opened: metadata read, base vectors readable on demand from disk;
  HOT   base vectors decoded in memory (page-locked when a GPU backend pins
        them), charged to the memory budget and to `pinned_budget`.

Jobs take a lease (ref count) for as long as any of their work is in
flight; parameters with a lease are never evicted. Idle parameters
(no lease for `min_idle_s`) are evicted least-recently-used first, when the
working-memory budget or the pinned budget needs room, and on request.
Loads of one circuit are serialized; loads of different circuits run in
parallel.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

from cuzk.groth16.keys import ProvingKey

from ..errors import BudgetTooSmall, Cancelled, ParamsInUse, UnknownCircuit
from ..resources.memory import MemoryBudget, Reservation, format_size
from ..types import Tier
from .sources import ParamSource

POLL_S = 0.5


@dataclass
class SrsInfo:
    """One circuit's parameters as GetStatus reports them."""

    circuit_id: str
    tier: Tier
    size_bytes: int
    ref_count: int
    source: str
    load_ms: float
    idle_s: float


class _Entry:
    def __init__(self, circuit_id: str, source: ParamSource):
        self.circuit_id = circuit_id
        self.source = source
        self.pk: ProvingKey | None = None
        self.tier = Tier.COLD
        self.refs = 0
        self.last_used = 0.0
        self.hot_bytes = 0
        self.reservation: Reservation | None = None
        self.load_ms = 0.0
        self.load_lock = threading.Lock()


class SrsLease:
    """A job's hold on a circuit's parameters (never evicted while held)."""

    def __init__(self, manager: "SrsManager", entry: _Entry):
        self._manager = manager
        self._entry = entry
        self._released = False

    @property
    def circuit_id(self) -> str:
        return self._entry.circuit_id

    def ensure_hot(self, *, key: tuple = (), cancelled: Callable[[], bool] | None = None) -> float:
        """Make the parameters HOT; returns the milliseconds spent loading (0 when resident)."""
        return self._manager._make_hot(self._entry, key, cancelled)

    @property
    def pk(self) -> ProvingKey:
        pk = self._entry.pk
        if pk is None:
            raise RuntimeError(f"parameters of {self.circuit_id} are not loaded")
        return pk

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._manager._unref(self._entry)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


class SrsManager:
    def __init__(self, budget: MemoryBudget, pinned_budget: int | None = None, min_idle_s: float = 300.0,
                 pin: Callable | None = None, on_drop: Callable | None = None):
        self.budget = budget
        self.pinned_budget = pinned_budget  # None: only the memory budget limits the hot tier
        self.min_idle_s = min_idle_s
        self.pin = pin  # backend hook: array -> page-locked array
        self.on_drop = on_drop  # called with a key whose decoded vectors are forgotten (HOT -> WARM or COLD)
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    # ---- registration and leases -------------------------------------------
    def register(self, circuit_id: str, source: ParamSource) -> None:
        with self._lock:
            if circuit_id not in self._entries:
                self._entries[circuit_id] = _Entry(circuit_id, source)

    def known(self, circuit_id: str) -> bool:
        return circuit_id in self._entries

    def known_bytes(self, circuit_id: str) -> int | None:
        """Decoded bytes of the circuit's parameters (what they take hot) where that is known without
        reading a file: its key is open (warm or hot) or in memory; else None. Submit adds them to
        a job's working memory to refuse a job that can never fit (issue 44)."""
        with self._lock:
            entry = self._entries.get(circuit_id)
        if entry is None:
            return None
        if entry.hot_bytes:
            return entry.hot_bytes
        pk = self.open_key(circuit_id)
        return None if pk is None else entry.source.decoded_bytes(pk)

    def open_key(self, circuit_id: str):
        """The circuit's proving key where it is in memory (hot, or open without its bases decoded), else
        None: submit plans its device memory from it without reading a file."""
        with self._lock:
            entry = self._entries.get(circuit_id)
        if entry is None:
            return None
        return entry.pk if entry.pk is not None else getattr(entry.source, "pk", None)

    def missing(self, circuit_id: str) -> str | None:
        """Why a circuit's parameters cannot be had (its file is gone and its key is not open), else None."""
        with self._lock:
            entry = self._entries.get(circuit_id)
        if entry is None or entry.pk is not None or getattr(entry.source, "pk", None) is not None:
            return None
        return entry.source.missing()

    def lease(self, circuit_id: str) -> SrsLease:
        with self._lock:
            entry = self._entries.get(circuit_id)
            if entry is None:
                raise UnknownCircuit(f"no parameters registered for circuit {circuit_id!r}")
            entry.refs += 1
            entry.last_used = time.monotonic()
        return SrsLease(self, entry)

    def _unref(self, entry: _Entry) -> None:
        with self._lock:
            entry.refs -= 1
            entry.last_used = time.monotonic()

    # ---- loading ---------------------------------------------------------------
    def preload(self, circuit_id: str) -> tuple[bool, float]:
        """(already_loaded, load_ms)."""
        with self.lease(circuit_id) as lease:
            hot = lease._entry.tier == Tier.HOT
            ms = lease.ensure_hot()
            return hot, ms

    def _make_hot(self, entry: _Entry, key: tuple, cancelled) -> float:
        with entry.load_lock:
            if entry.tier == Tier.HOT:
                return 0.0
            t0 = time.perf_counter()
            if entry.pk is None:
                entry.pk = entry.source.open()
                entry.tier = Tier.WARM
            size = entry.source.decoded_bytes(entry.pk)
            self._room_in_pinned_budget(entry, size, cancelled)
            reservation = self.budget.acquire(size, key=key, cancelled=cancelled,
                                              what=f"parameters of {entry.circuit_id}")
            try:
                pk = entry.pk
                for name in list(pk.vectors):
                    arr = pk.bases(name)
                    if self.pin is not None:
                        pk._cache[name] = pinned = self.pin(arr)
                        if not callable(pk.vectors[name]):  # a key made in memory: keep one copy, not two
                            pk.vectors[name] = pinned
                        del arr, pinned
            except BaseException:
                reservation.release()
                raise
            with self._lock:
                entry.reservation = reservation
                entry.hot_bytes = size
                entry.tier = Tier.HOT
                entry.load_ms = (time.perf_counter() - t0) * 1e3
            return entry.load_ms

    def _room_in_pinned_budget(self, entry: _Entry, size: int, cancelled) -> None:
        if self.pinned_budget is None:
            return
        if size > self.pinned_budget:
            raise BudgetTooSmall(f"parameters of {entry.circuit_id} need {format_size(size)} but "
                                 f"srs.pinned_budget is {format_size(self.pinned_budget)}")
        while True:
            if self.hot_bytes() + size <= self.pinned_budget:
                return
            if cancelled is not None and cancelled():
                raise Cancelled(f"cancelled while waiting for room for the parameters of {entry.circuit_id}")
            if not self._evict_lru(self.hot_bytes() + size - self.pinned_budget, exclude=entry):
                time.sleep(POLL_S)

    def verifying_key(self, circuit_id: str):
        """The circuit's verifying key (opens the parameters without decoding the bases)."""
        with self._lock:
            entry = self._entries.get(circuit_id)
        if entry is None:
            raise UnknownCircuit(f"no parameters registered for circuit {circuit_id!r}")
        with entry.load_lock:
            if entry.pk is None:
                entry.pk = entry.source.open()
                entry.tier = Tier.WARM
            return entry.pk.vk

    # ---- eviction ----------------------------------------------------------------
    def evict(self, circuit_id: str) -> tuple[bool, int]:
        """Drop a circuit's parameters to COLD now: (was_loaded, freed bytes)."""
        with self._lock:
            entry = self._entries.get(circuit_id)
            if entry is None:
                raise UnknownCircuit(f"no parameters registered for circuit {circuit_id!r}")
            if entry.refs:
                raise ParamsInUse(f"parameters of {circuit_id} are in use by {entry.refs} job(s)")
        if not entry.load_lock.acquire(timeout=30):
            raise ParamsInUse(f"parameters of {circuit_id} are being loaded")
        try:
            with self._lock:
                if entry.refs:
                    raise ParamsInUse(f"parameters of {circuit_id} are in use by {entry.refs} job(s)")
                was_loaded = entry.tier != Tier.COLD
                return was_loaded, self._drop_locked(entry)
        finally:
            entry.load_lock.release()

    def evict_idle(self, needed: int) -> int:
        """The memory budget's evictor: free >= needed bytes of idle parameters if possible."""
        return self._evict_lru(needed)

    def _evict_lru(self, needed: int, exclude: _Entry | None = None) -> int:
        now = time.monotonic()
        with self._lock:
            candidates = sorted(
                (e for e in self._entries.values()
                 if e is not exclude and e.tier == Tier.HOT and e.refs == 0 and now - e.last_used >= self.min_idle_s),
                key=lambda e: e.last_used)
        freed = 0
        for e in candidates:
            if freed >= needed:
                break
            if not e.load_lock.acquire(blocking=False):
                continue  # being loaded: not idle after all
            try:
                with self._lock:
                    if e.refs == 0 and e.tier == Tier.HOT:
                        freed += self._drop_locked(e, Tier.WARM)
            finally:
                e.load_lock.release()
        return freed

    def _drop_locked(self, entry: _Entry, to: Tier = Tier.COLD) -> int:
        """HOT -> WARM forgets the decoded vectors; -> COLD also closes the key."""
        freed = entry.hot_bytes
        if self.on_drop is not None and entry.pk is not None and entry.tier == Tier.HOT:
            self.on_drop(entry.pk)
        if to == Tier.WARM and entry.pk is not None and all(callable(v) for v in entry.pk.vectors.values()):
            entry.pk.drop_decoded()
            entry.tier = Tier.WARM
        else:
            entry.pk = None
            entry.tier = Tier.COLD
        entry.hot_bytes = 0
        if entry.reservation is not None:
            entry.reservation.release()
            entry.reservation = None
        return freed

    # ---- observation -------------------------------------------------------------
    def hot_bytes(self) -> int:
        with self._lock:
            return sum(e.hot_bytes for e in self._entries.values())

    def status(self) -> list[SrsInfo]:
        now = time.monotonic()
        with self._lock:
            return [SrsInfo(e.circuit_id, e.tier, e.hot_bytes, e.refs, e.source.description, e.load_ms,
                            now - e.last_used if e.last_used else 0.0)
                    for e in self._entries.values()]

    def tier(self, circuit_id: str) -> Tier:
        e = self._entries.get(circuit_id)
        return e.tier if e else Tier.COLD
