"""Phase timers a backend hands to the prover.

The CPU backend's work is timed by the prover's wall clock already, so its
timer records nothing; the CUDA backend returns an event timer whose
intervals are measured on the device (cuda/events.py) and read once, after
the proof, so timing adds no synchronisation between phases.
"""

from __future__ import annotations

from contextlib import contextmanager


class NullTimer:
    @contextmanager
    def phase(self, label: str):
        yield

    def results(self) -> dict[str, float]:
        return {}
