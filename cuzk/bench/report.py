"""Timing and table/JSON output shared by the benchmarks."""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Callable


def event_median_ms(fn: Callable[[], object], repeat: int = 5, warmup: int = 1) -> float:
    """Median time of `fn` in ms between CUDA events recorded around it, after `warmup` calls."""
    import cupy as cp  # only on the GPU backend

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def median_ms(fn: Callable[[], object], repeat: int = 5, warmup: int = 1, sync: Callable[[], None] | None = None) -> float:
    """Median wall time of `fn` in ms after `warmup` untimed calls."""
    for _ in range(warmup):
        fn()
        if sync:
            sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "-"
    if ms >= 100:
        return f"{ms:,.0f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3f}"


def print_table(rows: list[dict], columns: list[tuple[str, str]], out=None) -> None:
    """rows of dicts; columns as (key, heading)."""
    out = out or sys.stdout
    cells = [[h for _, h in columns]]
    for r in rows:
        cells.append([r.get(k, "") if isinstance(r.get(k), str) else _cell(r.get(k)) for k, _ in columns])
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for j, row in enumerate(cells):
        print("  ".join(c.rjust(w) if j and i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))), file=out)
        if j == 0:
            print("  ".join("-" * w for w in widths), file=out)
    out.flush()


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return fmt_ms(v)
    return str(v)


def write_json(path: str | None, records: list[dict]) -> None:
    if path:
        with open(path, "w") as fh:
            json.dump(records, fh, indent=1)
