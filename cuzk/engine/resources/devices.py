"""Proving devices: one per GPU, or the CPU when there is none.

Each device gets its prover workers (two per GPU by default, one for the
CPU) and a lock that serializes the device work of its workers, so that one
worker's host-side preparation overlaps another's kernels. `recent` keeps
the circuits proven last on the device: the prover queue prefers work whose
parameters a device already holds.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import deque
from dataclasses import dataclass, field

from cuzk.backend import get_backend

RECENT = 4


@dataclass(eq=False)
class Device:
    ordinal: int
    name: str
    kind: str  # "cpu" | "cuda"
    backend: object
    workers: int
    kernel_threads: int = 0  # CPU prover: numba threads (0 = all)
    vram_total: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    recent: deque = field(default_factory=lambda: deque(maxlen=RECENT))
    current: dict = field(default_factory=dict)  # worker id -> (job ids, circuit id)
    vram_peak: int = 0  # the most device memory seen in use after a proof (its pool keeps the blocks)

    def sample_memory(self) -> None:
        self.vram_peak = max(self.vram_peak, int(self.backend.device_memory_in_use()))

    def holds(self, circuit_id: str) -> bool:
        return circuit_id in self.recent

    def used(self, circuit_id: str) -> None:
        if circuit_id in self.recent:
            self.recent.remove(circuit_id)
        self.recent.append(circuit_id)

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.ordinal}"


class SharedBackend:
    """A GPU's backend for work beside its provers (the daemon's aggregations): each call
    holds the device's lock, so it runs between the prover workers' device sections
    instead of beside them (their memory and timings stay their own)."""

    def __init__(self, device: Device):
        self.device = device

    def __getattr__(self, name):
        attr = getattr(self.device.backend, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def locked(*args, **kwargs):
            with self.device.lock:
                return attr(*args, **kwargs)

        return locked


def discover(backend_name: str = "auto", ordinals=(), workers_per_gpu: int = 2, cpu_threads: int = 0,
             table_fraction: float = 0.6, memory_limit: int | None = None, cpu_tables: int = 0,
             reserve=None) -> list[Device]:
    """The proving devices. `memory_limit`: device bytes each GPU's prover may use (None: all).
    `cpu_tables`: bytes of MSM window tables the CPU prover may keep for resident keys, also taken
    from `reserve` (the engine's memory budget's try_acquire)."""
    backend = get_backend(backend_name)
    if backend.name == "cpu":
        from cuzk.backend.cpu import CpuBackend

        # under gpus.memory_limit the CPU prover follows the device plan too (how a GPU-less box tests it)
        backend = CpuBackend(memory_limit=memory_limit, table_budget=cpu_tables, reserve=reserve)
        threads = cpu_threads or os.cpu_count() or 1
        device = Device(0, f"cpu ({threads} threads)", "cpu", backend, workers=1, kernel_threads=cpu_threads)
        if backend.resident_tables is not None:  # tables are built while no proof runs here
            backend.resident_tables.busy = lambda: bool(device.current)
        return [device]
    import cupy  # only with a GPU: CuPy is an optional dependency

    from cuzk.backend.cuda import CudaBackend  # imports CuPy

    count = cupy.cuda.runtime.getDeviceCount()
    chosen = list(ordinals) or list(range(count))
    devices = []
    for o in chosen:
        if not 0 <= int(o) < count:
            raise ValueError(f"gpus.devices: there is no GPU {o} (found {count})")
        props = cupy.cuda.runtime.getDeviceProperties(int(o))
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        # one backend per GPU: it keeps that device's resident bases
        devices.append(Device(int(o), name, "cuda", CudaBackend(int(o), table_fraction=table_fraction,
                                                                         memory_limit=memory_limit), workers=workers_per_gpu,
                              vram_total=int(props.get("totalGlobalMem", 0))))
    return devices
