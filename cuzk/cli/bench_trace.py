"""`cuzk bench report TRACE [--out DIR]` and the `--trace FILE` option of the daemon benchmarks.

    cuzk bench batch --kind synthetic --count 8 --trace t.jsonl   # the daemon's trace of the run
    cuzk bench report t.jsonl --out report/                        # timeline, phases, throughput, memory PNGs

A trace is the daemon's GetTrace answer (JSON lines, cuzk/engine/trace.py);
`--compare` writes one run per mode into the same file, and the report draws
their timelines side by side.
"""

from __future__ import annotations

import time
from pathlib import Path

from cuzk.errors import CuzkError


class TraceOutputError(CuzkError):
    pass


def register_report(bsub) -> None:
    r = bsub.add_parser("report", help="PNG plots and a summary of a pipeline trace",
                        description="Read a trace written by --trace (cuzk bench single|batch|stress|demo) and "
                        "write timeline.png (one lane per synthesis and prover worker, jobs coloured, idle gaps "
                        "blank; --compare runs side by side), phases.png (time per stage per circuit), "
                        "throughput.png (proofs/min and worker busy fraction over time), memory.png (working "
                        "memory against the budget) and summary.txt (busy %, critical path, limiting stage).")
    r.add_argument("trace", metavar="TRACE", help="trace file (JSON lines)")
    r.add_argument("--out", default="cuzk-report", help="output directory (default ./cuzk-report)")
    r.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from cuzk.bench.report_plots import summary_text, write_report
    from cuzk.bench.trace_file import read_trace

    runs = read_trace(args.trace)
    try:
        paths = write_report(runs, args.out)
    except OSError as exc:
        raise TraceOutputError(f"{args.out}: cannot write the report ({exc.strerror or exc})") from None
    print(summary_text(runs), end="")
    for p in paths:
        print(f"wrote {p}")
    return 0


def fetch_trace(client, started_monotonic: float, run: str = "") -> str:
    """The daemon's trace since `started_monotonic` (a local time.monotonic() taken before the run)."""
    from cuzk.bench.trace_file import label_run

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
