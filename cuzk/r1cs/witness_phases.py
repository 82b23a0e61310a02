"""Where witness synthesis spends its time, by phase, when someone asks.

Witness code wraps its steps in `phase(name)`; outside a `collect()` block
that costs one context-variable lookup. Inside, each phase accumulates
wall seconds and process CPU seconds (all threads, so numba's parallel
kernels count fully). Phases may nest; a nested phase's time is also part
of its parent's, so reports subtract children (`PhaseTimes.exclusive`).
Used by `cuzk bench synth` to print the breakdown per partition.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from dataclasses import dataclass, field

_active: contextvars.ContextVar = contextvars.ContextVar("cuzk_witness_phases", default=None)


@dataclass
class PhaseTimes:
    wall: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    parent: dict[str, str | None] = field(default_factory=dict)
    _stack: list[str] = field(default_factory=list)

    def add(self, name: str, wall: float, cpu: float) -> None:
        self.wall[name] = self.wall.get(name, 0.0) + wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu
        self.calls[name] = self.calls.get(name, 0) + 1

    def exclusive(self) -> dict[str, tuple[float, float]]:
        """name -> (wall, cpu) without the time of phases nested in it."""
        out = {k: [self.wall[k], self.cpu[k]] for k in self.wall}
        for k, p in self.parent.items():
            if p is not None and p in out:
                out[p][0] -= self.wall[k]
                out[p][1] -= self.cpu[k]
        return {k: (max(w, 0.0), max(c, 0.0)) for k, (w, c) in out.items()}


@contextlib.contextmanager
def collect():
    """Collect phase times of the witness work done inside the block."""
    times = PhaseTimes()
    token = _active.set(times)
    try:
        yield times
    finally:
        _active.reset(token)


@contextlib.contextmanager
def phase(name: str):
    times = _active.get()
    if times is None:
        yield
        return
    times.parent.setdefault(name, times._stack[-1] if times._stack else None)
    times._stack.append(name)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        times.add(name, time.perf_counter() - t0, time.process_time() - c0)
        times._stack.pop()
