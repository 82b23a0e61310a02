"""Phase timers: the wall-clock laps of the provers and the aggregation, and the ones a backend hands
to the prover.

The CPU backend's work is timed by the prover's wall clock already, so its
timer records nothing; the CUDA backend returns an event timer whose
intervals are measured on the device (cuda/events.py) and read once, after
the proof, so timing adds no synchronisation between phases.
"""

from __future__ import annotations

import time
from contextlib import contextmanager


class Laps:
    """Wall-clock phases: lap(name) adds the milliseconds since the previous lap (or the start) to
    t[name]; `t` may be the caller's dict to fill."""

    def __init__(self, t: dict | None = None):
        self.t = {} if t is None else t
        self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + (now - self.last) * 1e3
        self.last = now


class NullTimer:
    @contextmanager
    def phase(self, label: str):
        yield

    def results(self) -> dict[str, float]:
        return {}
