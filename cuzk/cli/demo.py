"""`cuzk demo` (what `make run` does): one private daemon proving jobs of two kinds and priorities.

Filecoin's PoSt circuits at the smallest sector size (2 KiB): window-post jobs
(HIGH, their kind's priority) and winning-post jobs (CRITICAL), requests shaped
as Curio sends them, all queued while the daemon is paused, so the order in
which they start shows the priorities; every proof is verified; then SIGTERM,
and the daemon must exit cleanly. The circuits' parameters are TEST ones, made
here once (the code `cuzk setup --kind` runs) and kept in the demo's parameter
cache: proofs made with them do not verify on the network.

Every stage says what it does before it starts ("[k/6] ..."), so no wait is
silent. On a first run most of the time is numba compiling kernels, once: the
daemon's compile notices are echoed as "cuzk daemon: ..." lines. This process
checks the proofs itself, which needs the pairing kernels; it compiles them in
the background while the daemon proves (their compile notices muted, so the
daemon's is the one counter shown): verifying the proofs after the last one
arrives then takes well under a second, not the ~35 s a first run spent
compiling there. On a fresh machine the kernels of both processes are compiled first, on every
core, from a recorded list (cli/first_run.py, kernel_lists/demo.txt).
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

from cuzk import progress
from cuzk.bench import filecoin_params
from cuzk.bench.circuit_inputs import resolve, spec_lookup
from cuzk.bench.daemon_jobs import print_records, print_summary, run_jobs, summarize, verify_records, write_json
from cuzk.bench.run_trace import fetch_trace, write_trace
from cuzk.cli import first_run
from cuzk.server.local_daemon import LocalDaemon
from cuzk.user_dirs import cache_dir

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

STAGES = 6


def stage(k: int, text: str) -> None:
    print(f"[{k}/{STAGES}] {text}", flush=True)


class VerifierWarmup:
    """Compile the client's proof-checking kernels (point decompression, subgroup checks, pairings) on a
    background thread, by checking a well-formed proof that is not valid for each circuit's key: the real
    checks after the last proof then find them compiled. Its compile notices are muted; `wait` reports."""

    def __init__(self, client, circuit_ids):
        self.client, self.circuit_ids = client, list(circuit_ids)
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.thread = threading.Thread(target=self._run, name="verifier-warmup", daemon=True)

    def start(self) -> "VerifierWarmup":
        self.thread.start()
        return self

    def _run(self) -> None:
        from cuzk.field import compile_notice
        from cuzk.formats import proof_bytes
        from cuzk.groth16.keys import Proof
        from cuzk.server.proof_check import ProofChecker

        t0 = time.monotonic()
        try:
            with compile_notice.muted():
                checker = ProofChecker(self.client)
                for cid in self.circuit_ids:
                    vk = checker.prepared(cid).vk
                    fake = proof_bytes.encode(Proof(vk.curve, vk.alpha_g1, vk.beta_g2, vk.alpha_g1))
                    checker.check(cid, fake, [[0] * vk.num_public])  # False, after every kernel ran once
        except BaseException as exc:  # noqa: BLE001 - reported by wait(); the real checks then run cold
            self.error = exc
        self.seconds = time.monotonic() - t0

    def wait(self) -> None:
        if self.thread.is_alive():
            progress.notice("cuzk: waiting for the proof-checking kernels to finish compiling (once) ...")
        self.thread.join()


def run(sector_size: str, count: int, state_dir: str | None, json_path: str | None,
        trace_path: str | None = None) -> int:
    """`count` jobs of each kind at their kinds' priorities; 0 when all verified and the daemon exited cleanly."""
    param_dir = cache_dir() / "demo-params"
    # a first run: the CPU kernels this process and its daemon will call, compiled on every core now
    # (kernel_lists/demo.txt) instead of one at a time where each is first called
    first_run.before("demo", "cuzk demo")
    print(f"cuzk demo: {count} x window-post-{sector_size} (HIGH) and {count} x winning-post-{sector_size} "
          "(CRITICAL), submitted in that order", flush=True)
    stage(1, f"the circuits and their TEST parameters (made once, then read from {param_dir / 'filecoin'}) ...")
    with progress.ticking("  describing the circuits"):  # the registry counts every circuit's constraints
        window, window_spec = resolve("window-post", sector_size)
        winning, winning_spec = resolve("winning-post", sector_size)
    filecoin_dir = filecoin_params.ensure(param_dir / "filecoin", [window_spec, winning_spec])
    print(f"  parameters: TEST parameters from a single-party setup made here (in {filecoin_dir}), not "
          "Filecoin's: these proofs do not verify on the network")
    stage(2, "generating inputs (PoSt requests as Curio sends them, over random sectors) ...")
    with progress.ticking("  generating inputs"):
        jobs = [(window, window_spec.sample_request(), 0) for _ in range(count)]
        jobs += [(winning, winning_spec.sample_request(), 0) for _ in range(count)]
    cfg = f"""shutdown_timeout = "10m"
[srs]
param_cache = "{param_dir}"
[circuits]
filecoin_params = "{filecoin_dir}"
"""
    with tempfile.TemporaryDirectory(prefix="cuzk-demo-") as tmp:
        work = Path(state_dir) if state_dir else Path(tmp)
        d = LocalDaemon(work, cfg, progress=progress.enabled())
        t0 = time.monotonic()
        stage(3, f"starting the daemon (state {work}, parameters {param_dir}) ...")
        with progress.ticking("  starting the daemon"):
            d.start()
        print(f"  daemon ready at {d.address} after {time.monotonic() - t0:.1f} s", flush=True)
        try:
            with d.client() as c:
                warmup = VerifierWarmup(c, (winning, window)).start()
                # before the jobs, so their timings are the proofs': the daemon checks every point of
                # parameter files it reads by their Filecoin names (they come from outside), once per file;
                # these TEST parameters were stamped as checked when they were made here (check_stamps.py)
                stage(4, "loading both circuits' parameters into the daemon (points checked once per file; "
                         "these were made here) ...")
                for cid in (winning, window):
                    with progress.ticking(f"  loading {cid}'s parameters"):
                        loaded = c.preload(cid)
                    print(f"  {cid}: loaded in {loaded.load_time_ms / 1e3:.1f} s", flush=True)
                c.pause(True)  # queue everything first, so the priorities are visible
                stage(5, f"proving {len(jobs)} jobs (queued while the daemon is paused, then released) ...")
                started = time.monotonic()
                try:
                    recs, wall = run_jobs(c, jobs, "demo", spec_lookup, on_submitted=lambda: c.pause(False))
                finally:
                    c.pause(False)
                stage(6, f"checking the {len(recs)} proofs here, then stopping the daemon (SIGTERM: it drains "
                      "and exits) ...")
                t_check = time.monotonic()
                warmup.wait()
                verify_records(c, recs)
                print(f"  checked in {time.monotonic() - t_check:.1f} s", flush=True)
                summary = summarize(recs, wall, c.status())
                trace = fetch_trace(c, started, "demo") if trace_path else ""
        except BaseException:
            d.kill()
            print(d.log_text())
            raise
        t_stop = time.monotonic()
        with progress.ticking("  stopping the daemon"):
            rc = d.terminate()
        print(f"  daemon stopped in {time.monotonic() - t_stop:.1f} s", flush=True)
    write_trace(trace_path, trace)
    print_records(recs)
    print_summary(summary)
    print(f"daemon exited with status {rc}" + (" (clean shutdown)" if rc == 0 else ""))
    write_json(json_path, {"command": "demo", "summary": summary, "records": [r.as_json() for r in recs],
                           "daemon_exit": rc})
    ok = rc == 0 and summary["failed"] == 0 and summary["verified"] == len(recs)
    print("demo: OK" if ok else "demo: FAILED")
    return 0 if ok else 1
