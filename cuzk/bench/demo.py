"""`cuzk demo` (what `make run` does): one private daemon proving jobs of two kinds and priorities.

Filecoin's PoSt circuits at the smallest sector size (2 KiB): window-post jobs
(HIGH, their kind's priority) and winning-post jobs (CRITICAL), requests shaped
as Curio sends them, all queued while the daemon is paused, so the order in
which they start shows the priorities; every proof is verified; then SIGTERM,
and the daemon must exit cleanly. The circuits' parameters are TEST ones, made
here once (the code `cuzk setup --kind` runs) and kept in the demo's parameter
cache: proofs made with them do not verify on the network.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from cuzk.field import compile_notice
from cuzk.server.local_daemon import LocalDaemon
from cuzk.user_dirs import cache_dir

from . import filecoin_params
from .circuit_inputs import resolve, spec_lookup
from .daemon_jobs import print_records, print_summary, run_jobs, summarize, verify_records, write_json
from .run_trace import fetch_trace, write_trace

def run(sector_size: str, count: int, state_dir: str | None, json_path: str | None,
        trace_path: str | None = None) -> int:
    """`count` jobs of each kind at their kinds' priorities; 0 when all verified and the daemon exited cleanly."""
    param_dir = cache_dir() / "demo-params"
    window, window_spec = resolve("window-post", sector_size)
    winning, winning_spec = resolve("winning-post", sector_size)
    print(f"cuzk demo: {count} x {window} (HIGH) and {count} x {winning} (CRITICAL), submitted in that order")
    filecoin_dir = filecoin_params.ensure(param_dir / "filecoin", [window_spec, winning_spec])
    print(f"parameters: TEST parameters from a single-party setup made here (in {filecoin_dir}), not "
          "Filecoin's: these proofs do not verify on the network")
    print("generating inputs (PoSt requests as Curio sends them, over random sectors) ...", flush=True)
    jobs = [(window, window_spec.sample_request(), 0) for _ in range(count)]
    jobs += [(winning, winning_spec.sample_request(), 0) for _ in range(count)]
    cfg = f"""shutdown_timeout = "10m"
[srs]
param_cache = "{param_dir}"
[circuits]
presets = ["tiny"]
filecoin_params = "{filecoin_dir}"
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
                # before the jobs, so their timings are the proofs': the daemon checks every point of
                # parameter files it reads by their Filecoin names (they come from outside)
                for cid in (winning, window):
                    print(f"loading {cid}'s parameters (every point checked) ...", flush=True)
                    print(f"  loaded in {c.preload(cid).load_time_ms / 1e3:.1f} s", flush=True)
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
