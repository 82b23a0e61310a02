"""Window tables of a daemon's resident keys on the CPU: which base vectors get one, when, in what budget.

A table of 2^(c w) P_i for every window w of a base vector (msm.WindowTable) makes each later MSM
over that vector 0.84-0.87x the default (2^16 points, BN254, the 2-core VM: lab/JOURNAL.md) for
15-19 times the vector's bytes (a row per window), and its build costs c doublings per base and
row, about a dozen MSMs' time. So tables are kept only where a key is proven again and again, and
built where no proof waits for them:

- Only a daemon's CPU prover keeps them: the engine calls `keep(pk)` after each proof of a key
  (the first one schedules the build) and `forget(pk)` when the key leaves memory. A CpuBackend
  without a budget (every one-shot `cuzk prove`) has no ResidentTables at all.
- A key's first proof runs as before; its tables are built after it, in the prover's idle time:
  threads at idle priority (SCHED_IDLE on Linux: they run only on cores nothing else wants)
  that start a build task (TABLE_BUILD_CHUNK points, 5-25 ms at 2^16) only while no proof runs
  (`busy`). Measured through a 2^16 daemon (lab/cpu_tables_daemon.py): proofs back to back while
  the tables wait took 1266 ms against 1268 without tables (with 1024-point tasks, no gate:
  1316 against 1277); 300 ms apart, the tables were complete after ~40 proofs. A daemon that
  is never idle never builds them. An MSM uses a vector's table once the table is complete.
- Within `budget` bytes (the daemon's gpus.cpu_msm_tables), and within the engine's memory
  budget where one is given (`reserve`), vector by vector in order of gain per byte (B_g2 first:
  G2 additions cost three times G1's, its table only twice the bytes), each table whole or not
  at all. First come, kept: a table is never dropped to make room for another key's (two keys
  that do not both fit would otherwise rebuild each other's tables whenever the daemon switches).
  A vector whose table does not fit is proven as before.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from cuzk.curve import get_curve

from . import msm

log = logging.getLogger("cuzk.backend.cpu.tables")

TABLE_MIN_N = 1 << 10  # smaller vectors keep no table: their MSMs take a few ms (2^10 G1 points: 6.0 -> 4.2 ms)
VECTORS = ("b_g2", "h", "l", "a", "b_g1")  # a key's base vectors, G2 first (see the module docstring)
BUSY_POLL_S = 0.02  # how often a waiting build thread looks whether the prover is still busy


class _Cancelled(Exception):
    pass


@dataclass(eq=False)
class _Entry:
    """One base vector's table: queued, building, kept, or dropped (cancelled)."""

    bases: np.ndarray  # held while the entry lives (its id is the lookup key)
    curve: str
    group: str
    c: int
    bits: int
    nbytes: int
    state: str = "queued"
    table: msm.WindowTable | None = None
    reservation: object = None  # from `reserve`: released with the table
    owners: set = field(default_factory=set)  # ids of the keys that hold this vector


def idle_priority() -> None:
    """Lower the calling thread to idle priority: SCHED_IDLE where Linux allows it, else nice 19."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # pid 0: this thread (Linux)
        return
    except (AttributeError, OSError):
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass


class ResidentTables:
    def __init__(self, budget: int, reserve: Callable[[int], object] | None = None, workers: int | None = None,
                 busy: Callable[[], bool] | None = None):
        """`budget`: bytes of tables kept at most. `reserve(nbytes)`: takes the bytes from a wider
        budget (the engine's memory budget: MemoryBudget.try_acquire), returning a holding with
        `release()` or None when they are not free now. `workers`: build threads (default: numba's).
        `busy()`: whether a proof is running on this prover (the engine's device), during which no
        build task starts."""
        self.budget = int(budget)
        self.reserve = reserve
        self.busy = busy
        self.workers = workers or msm.threads()
        self.used = 0
        self._entries: dict[int, _Entry] = {}  # id(bases) -> entry
        self._keys: dict[int, tuple[weakref.ref, list[int]]] = {}  # id(pk) -> (pk, ids of its vectors)
        self._queue: deque[_Entry] = deque()
        self._cond = threading.Condition()
        self._builder: threading.Thread | None = None
        self._building: _Entry | None = None  # the builder's entry, until its bytes are settled

    # ---- what the prover asks ----------------------------------------------------------------
    def find(self, bases: np.ndarray) -> msm.WindowTable | None:
        """The complete table of `bases` (the very array a key holds), or None."""
        e = self._entries.get(id(bases))
        return e.table if e is not None and e.bases is bases and e.state == "kept" else None

    # ---- what the engine says ----------------------------------------------------------------
    def keep(self, pk) -> None:
        """`pk` stays resident: queue tables for its base vectors (once per key object)."""
        with self._cond:
            hit = self._keys.get(id(pk))
            if hit is not None and hit[0]() is pk:
                return
            curve = get_curve(pk.curve.name)
            bits = curve.fr.p.bit_length()
            ids = []
            for name in sorted(VECTORS, key=lambda v: (v != "b_g2", -pk.bases(v).shape[0])):
                bases = pk.bases(name)
                group = "g2" if name == "b_g2" else "g1"
                e = self._entries.get(id(bases))
                if e is None or e.bases is not bases:
                    e = self._plan(curve.name, group, bases, bits)
                    if e is None:
                        continue
                    self._entries[id(bases)] = e
                    self._queue.append(e)
                e.owners.add(id(pk))
                ids.append(id(bases))
            self._keys[id(pk)] = (weakref.ref(pk), ids)
            weakref.finalize(pk, self._forget_id, id(pk))
            if self._queue:
                self._start()
                self._cond.notify_all()

    def forget(self, pk) -> None:
        """`pk` leaves memory: its tables go (a build in progress stops), their bytes come back."""
        self._forget_id(id(pk))

    def status(self) -> dict:
        """Tables kept (count, bytes) and waiting or building (count), for metrics and the benchmark."""
        with self._cond:
            kept = [e for e in self._entries.values() if e.state == "kept"]
            return {"kept": len(kept), "kept_bytes": sum(e.nbytes for e in kept),
                    "pending": len(self._queue) + (self._building is not None)}

    def wait_built(self, timeout: float | None = None) -> bool:
        """Block until no table is queued or being built (tests, the benchmark); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and self._building is None, timeout)

    # ---- inside ----------------------------------------------------------------------------------
    def _plan(self, curve: str, group: str, bases: np.ndarray, bits: int) -> _Entry | None:
        """The entry of a table worth keeping for `bases`, or None: too short, no modelled gain, or
        larger than the whole budget."""
        n = bases.shape[0]
        if n < TABLE_MIN_N:
            return None
        pb = bases[0].nbytes
        c = msm.table_window(n, bits, pb)
        nbytes = msm.table_bytes(n, bits, c, pb)
        method, c0 = msm.choose_plan(n, bits, pb)
        parts = msm.table_parts(n, msm.threads())
        if nbytes > self.budget or msm.table_cost(n, bits, c, parts) >= msm.plan_cost(n, bits, c0, method):
            return None
        return _Entry(bases, curve, group, c, bits, nbytes)

    def _forget_id(self, key: int) -> None:
        with self._cond:
            hit = self._keys.pop(key, None)
            if hit is None:
                return
            for vid in hit[1]:
                e = self._entries.get(vid)
                if e is None:
                    continue
                e.owners.discard(key)
                if not e.owners:
                    del self._entries[vid]
                    self._drop(e)
            self._cond.notify_all()

    def _drop(self, e: _Entry) -> None:
        """(under the lock) an entry no key holds: its bytes come back; a build in progress stops."""
        if e.state == "kept":
            self.used -= e.nbytes
        if e.state in ("kept", "building") and e.reservation is not None:
            e.reservation.release()
        if e in self._queue:
            self._queue.remove(e)
        e.state, e.table, e.reservation = "cancelled", None, None

    def _start(self) -> None:
        if self._builder is None:
            self._builder = threading.Thread(target=self._build_loop, name="cuzk-msm-tables", daemon=True)
            self._builder.start()

    def _build_loop(self) -> None:
        idle_priority()
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue)
                e = self._queue.popleft()
                if self.used + e.nbytes > self.budget:
                    e.state = "skipped"
                    self._cond.notify_all()
                    continue
                held = self.reserve(e.nbytes) if self.reserve is not None else None
                if self.reserve is not None and held is None:
                    e.state = "skipped"
                    self._cond.notify_all()
                    continue
                e.state, e.reservation = "building", held
                self.used += e.nbytes  # counted while building: the rows are allocated now
                self._building = e
            try:
                table = msm.build_table(e.curve, e.group, e.bases, e.c, e.bits, run=self._runner(e))
                _warm(e, table)
            except _Cancelled:
                table = None
            except Exception:  # noqa: BLE001 -- a failed build leaves the vector without a table, never the daemon
                log.exception("building an MSM window table failed; the vector is proven without one")
                table = None
            with self._cond:
                if e.state == "building" and table is not None:
                    e.state, e.table = "kept", table
                    log.info("kept a %s %s window table of %d bases (c = %d, %.0f MiB)", e.curve, e.group,
                             e.bases.shape[0], e.c, e.nbytes / 2**20)
                else:
                    if e.state == "building":
                        e.state = "failed"
                        if e.reservation is not None:
                            e.reservation.release()
                        e.reservation = None
                    self.used -= e.nbytes
                self._building = None
                self._cond.notify_all()

    def _runner(self, e: _Entry):
        """build_table's `run`: its tasks on `workers` threads at idle priority, stopping when `e` is
        dropped. Daemon threads of their own, made per table: a daemon that exits does not wait for
        a build (a pool's threads would finish their table first)."""

        def run(ntasks: int, fn) -> None:
            counter = itertools.count()
            errors: list[BaseException] = []

            def worker():
                idle_priority()
                try:
                    while e.state == "building" and (i := next(counter)) < ntasks:
                        while self.busy is not None and self.busy() and e.state == "building":
                            time.sleep(BUSY_POLL_S)
                        fn(i)
                except BaseException as exc:  # noqa: BLE001 -- handed to the builder, which logs it
                    errors.append(exc)

            threads = [threading.Thread(target=worker, name="cuzk-msm-tables", daemon=True)
                       for _ in range(min(self.workers, ntasks))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if errors:
                raise errors[0]
            if e.state != "building":
                raise _Cancelled()

        return run


def _warm(e: _Entry, table: msm.WindowTable) -> None:
    """One tiny MSM over the new table, here at idle priority: numba loads (or compiles) the table MSM's
    kernels for these argument types now, not in the first proof that uses the table (~140 ms at 2^16:
    the first timed proof through the daemon took 1.34 s against 1.18-1.21 s for the next ones)."""
    curve = get_curve(e.curve)
    n = min(2, e.bases.shape[0])
    scalars = np.zeros((n, 4), dtype=np.uint64)
    scalars[:, 0] = 3
    msm.pippenger_table(curve, getattr(curve, e.group), e.bases, table, scalars, np.arange(n, dtype=np.int64))
