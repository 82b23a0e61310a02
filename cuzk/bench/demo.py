"""`cuzk demo` (what `make run` does): one private daemon proving jobs of two kinds and priorities.

The smallest built-in workloads: window-post-like jobs (HIGH, their kind's
priority) and winning-post-like jobs (CRITICAL), all queued while the daemon
is paused, so the order in which they start shows the priorities; every
proof is verified; then SIGTERM, and the daemon must exit cleanly.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from cuzk.field import compile_notice
from cuzk.server.local_daemon import LocalDaemon
from cuzk.user_dirs import cache_dir

from .circuit_inputs import resolve, spec_lookup
from .daemon_jobs import print_records, print_summary, run_jobs, summarize, verify_records, write_json
from .run_trace import fetch_trace, write_trace


def run(preset: str, count: int, state_dir: str | None, json_path: str | None, trace_path: str | None = None) -> int:
    """`count` jobs of each kind at their kinds' priorities; 0 when all verified and the daemon exited cleanly."""
    param_dir = cache_dir() / "demo-params"
    window, window_spec = resolve("window-post-like", preset)
    winning, winning_spec = resolve("winning-post-like", preset)
    print(f"cuzk demo: {count} x {window} (HIGH) and {count} x {winning} (CRITICAL), submitted in that order")
    print("generating inputs ...", flush=True)
    jobs = [(window, window_spec.generate_vanilla(), 0) for _ in range(count)]
    jobs += [(winning, winning_spec.generate_vanilla(), 0) for _ in range(count)]
    cfg = f"""shutdown_timeout = "10m"
[gpus]
gpu_threads = 1
[srs]
param_cache = "{param_dir}"
preload = ["{window}", "{winning}"]
[circuits]
presets = ["{preset}"]
default_preset = "{preset}"
"""
    with tempfile.TemporaryDirectory(prefix="cuzk-demo-") as tmp:
        work = Path(state_dir) if state_dir else Path(tmp)
        d = LocalDaemon(work, cfg, progress=compile_notice.wanted())
        t0 = time.monotonic()
        print(f"starting daemon (state {work}, parameters {param_dir}) ...", flush=True)
        d.start()
        print(f"daemon ready at {d.address} after {time.monotonic() - t0:.1f} s")
        try:
            with d.client() as c:
                c.pause(True)  # queue everything first, so the priorities are visible
                started = time.monotonic()
                try:
                    recs, wall = run_jobs(c, jobs, "demo", spec_lookup, on_submitted=lambda: c.pause(False))
                finally:
                    c.pause(False)
                verify_records(c, recs)
                summary = summarize(recs, wall, c.status())
                trace = fetch_trace(c, started, "demo") if trace_path else ""
        except BaseException:
            d.kill()
            print(d.log_text())
            raise
        print("sending SIGTERM ...", flush=True)
        rc = d.terminate()
    write_trace(trace_path, trace)
    print_records(recs)
    print_summary(summary)
    print(f"daemon exited with status {rc}" + (" (clean shutdown)" if rc == 0 else ""))
    write_json(json_path, {"command": "demo", "summary": summary, "records": [r.as_json() for r in recs],
                           "daemon_exit": rc})
    ok = rc == 0 and summary["failed"] == 0 and summary["verified"] == len(recs)
    print("demo: OK" if ok else "demo: FAILED")
    return 0 if ok else 1
