"""The error of the daemon benchmarks: a bad option or input, or no daemon (one line, exit 2)."""

from __future__ import annotations

from cuzk.errors import CuzkError


class BenchError(CuzkError):
    pass
