"""The `--trace FILE` option of the daemon benchmarks, and `cuzk bench report TRACE [--out DIR]`.

    cuzk bench batch --kind synthetic --count 8 --trace t.jsonl   # the daemon's trace of the run
    cuzk bench report t.jsonl --out report/                        # timeline, phases, throughput, memory PNGs

A trace is the daemon's GetTrace answer (JSON lines, cuzk/engine/observe/trace.py);
`--compare` writes one run per mode into the same file, and the report draws
their timelines side by side.
"""

from __future__ import annotations

import time
from pathlib import Path

from cuzk.errors import CuzkError

from .report_plots import summary_text, write_report
from .trace_file import label_run, read_trace


class TraceOutputError(CuzkError):
    pass


def report(trace_path: str, out_dir: str) -> int:
    """`cuzk bench report`: the PNGs and summary.txt of a trace file; the summary printed too."""
    runs = read_trace(trace_path)
    try:
        paths = write_report(runs, out_dir)
    except OSError as exc:
        raise TraceOutputError(f"{out_dir}: cannot write the report ({exc.strerror or exc})") from None
    print(summary_text(runs), end="")
    for p in paths:
        print(f"wrote {p}")
    return 0


def fetch_trace(client, started_monotonic: float, run: str = "") -> str:
    """The daemon's trace since `started_monotonic` (a local time.monotonic() taken before the run)."""
    text = client.trace(time.monotonic() - started_monotonic + 1.0)
    return label_run(text, run) if run else text


def write_trace(path: str | None, text: str) -> None:
    if not path:
        return
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise TraceOutputError(f"{path}: cannot write the trace ({exc.strerror or exc})") from None
    print(f"wrote trace {path} (report: cuzk bench report {path} --out DIR)")
