"""`cuzk bench deadline`: the proofs with deadlines (WinningPoSt, WindowPoSt) while sectors are proved.

A provider's daemon proves PoRep sectors all day, and at moments it does not choose a WinningPoSt
(CRITICAL: late, the block reward is lost) or a WindowPoSt partition (HIGH: late, the sectors fault)
arrives. This benchmark starts one private daemon (TEST parameters of every kind made once in
--state-dir, as `batch --compare` makes them), proves a warm-up job of each kind, then:

  alone     --sectors background jobs, --in-flight at a time (the background's throughput alone);
  mixed     the same number again, with --inject jobs of each deadline kind submitted at random
            moments spread over the time the background took alone.

With --background none only the deadline kinds run, one job at a time (each kind alone, warm).
Every job's submit -> proof time is reported by kind and priority, with the background's jobs/min
alone and mixed, the GPU's busy fraction and the daemon's peak RSS (the process's own, as the kernel
reports it). Inputs and the public inputs each proof is verified against are made before the clock
starts; every proof is verified.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from cuzk.server.local_daemon import DaemonError, LocalDaemon
from cuzk.user_dirs import cache_dir

from . import filecoin_params
from .circuit_inputs import inputs, resolve
from .daemon_jobs import Record, expected_public_inputs, fill, verify_records, write_json
from .errors import BenchError
from .pipeline_compare import daemon_config, trace_figures
from .report import print_table
from .run_trace import fetch_trace, write_trace


@dataclass
class Kind:
    cid: str
    spec: object


def _kinds(args) -> tuple[Kind | None, list[Kind]]:
    background = None
    if args.background != "none":
        cid, spec = resolve(args.background, args.preset)
        if spec is None:
            raise BenchError(f"--background {args.background!r}: not a built-in circuit")
        background = Kind(cid, spec)
    deadline = []
    for name in [k.strip() for k in args.deadline.split(",") if k.strip()]:
        cid, spec = resolve(name, args.preset)
        if spec is None:
            raise BenchError(f"--deadline {name!r}: not a built-in circuit")
        deadline.append(Kind(cid, spec))
    if not deadline:
        raise BenchError("--deadline names no circuit")
    return background, deadline


class Runner:
    """Jobs submitted from their own threads (a WindowPoSt request is checked at submit, which blocks the
    caller for seconds: nothing else may wait on it), each record timed from just before its submit to
    the moment its AwaitProof answers."""

    def __init__(self, client):
        self.client = client
        self.records: list[Record] = []
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []

    def run_one(self, kind: Kind, fields: dict, public: list, phase: str) -> Record:
        with self.lock:
            rec = Record(len(self.records), kind.cid)
            self.records.append(rec)
        rec.phase, rec.public_inputs = phase, public
        rec.submitted_at = time.monotonic()
        try:
            rec.job_id = self.client.submit(circuit_id=kind.cid, priority=0, **fields).job_id
            fill(rec, self.client.await_proof(rec.job_id))
        except Exception as exc:  # a refused or broken job is a result to report, not a crash
            rec.status, rec.error = "REFUSED", str(getattr(exc, "details", lambda: exc)())
            rec.finished_at = time.monotonic()
            rec.wall_ms = (rec.finished_at - rec.submitted_at) * 1e3
        # as each job ends, so that a run cut off by its time limit still says what it measured
        gpu = (rec.timings or {}).get("gpu_compute_ms")
        print(f"  {phase}: {kind.cid} {rec.status.lower()} in {rec.wall_ms / 1e3:.2f} s"
              + (f" (GPU {gpu / 1e3:.2f} s)" if gpu else ""), flush=True)
        return rec

    def spawn(self, *args) -> None:
        t = threading.Thread(target=self.run_one, args=args, daemon=True)
        t.start()
        self.threads.append(t)

    def join(self) -> None:
        for t in self.threads:
            t.join()
        self.threads.clear()


def _background(runner: Runner, kind: Kind, items: list, in_flight: int, phase: str) -> float:
    """The background jobs, `in_flight` at a time; the wall seconds from the first submit to the last proof."""
    queue = list(items)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                fields, public = queue.pop(0)
            runner.run_one(kind, fields, public, phase)

    t0 = time.monotonic()
    workers = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, in_flight))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.monotonic() - t0


def _prepared(kind: Kind, args, n: int) -> list:
    """n inputs of a kind with the public inputs each proof will be checked against, made now."""
    items = inputs(args, kind.spec, n)
    return [(f, expected_public_inputs(kind.spec, kind.cid, f)) for f in items]


def run(args) -> int:
    background, deadline = _kinds(args)
    if args.sectors < 1 or args.inject < 1 or args.in_flight < 1:
        raise BenchError("--sectors, --inject and --in-flight must be at least 1")
    kinds = ([background] if background else []) + deadline
    state = Path(args.state_dir) if args.state_dir else cache_dir() / "bench"
    param_dir = state / "params"
    filecoin = [k.spec for k in kinds if filecoin_params.is_filecoin(k.spec)]
    filecoin_dir = filecoin_params.ensure(param_dir / "filecoin", filecoin) if filecoin else None
    rng = random.Random(args.seed)
    print(f"deadline: background {background.cid if background else 'none'}, deadline jobs "
          f"{', '.join(k.cid for k in deadline)}; generating inputs ...", flush=True)
    t0 = time.monotonic()
    warm = {k.cid: _prepared(k, args, 1)[0] for k in kinds}
    bg_alone = _prepared(background, args, args.sectors) if background else []
    bg_mixed = _prepared(background, args, args.sectors) if background else []
    injected = {k.cid: _prepared(k, args, args.inject) for k in deadline}
    print(f"  inputs made in {time.monotonic() - t0:.1f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="cuzk-deadline-") as tmp:
        try:
            # one pipelined daemon as `batch --compare` starts it (the synthetic circuits served where a kind is one)
            synthetic = next((k.spec for k in kinds if k.spec.family == "synthetic"), kinds[0].spec)
            daemon = LocalDaemon(Path(tmp) / "daemon", daemon_config(
                param_dir, synthetic, "pipelined", 1, args.synthesis_threads, 0, filecoin_dir=filecoin_dir,
                kernel_threads=args.kernel_threads)).start()
        except DaemonError as exc:
            raise BenchError(f"the benchmark's daemon did not start: {exc}") from None
        try:
            with daemon.client() as c:
                runner = Runner(c)
                t_load = time.monotonic()
                for k in kinds:
                    c.preload(k.cid)
                print(f"parameters loaded in {time.monotonic() - t_load:.1f} s; warm-up jobs ...", flush=True)
                for k in kinds:
                    rec = runner.run_one(k, *warm[k.cid], "warm-up")
                    if rec.status != "COMPLETED":
                        raise BenchError(f"warm-up {k.cid} failed: {rec.error}\n{daemon.log_text()}")
                    print(f"  {k.cid}: {rec.wall_ms / 1e3:.2f} s", flush=True)
                started = time.monotonic()
                walls = {}
                if background:
                    walls["alone"] = _background(runner, background, bg_alone, args.in_flight, "alone")
                    print(f"alone: {args.sectors} x {background.cid} in {walls['alone']:.1f} s", flush=True)
                    moments = sorted((rng.uniform(0.05, 0.9) * walls["alone"], k)
                                     for k in deadline for _ in range(args.inject))
                    picks = {k.cid: list(injected[k.cid]) for k in deadline}
                    t_mixed = time.monotonic()

                    def inject():
                        for at, k in moments:
                            time.sleep(max(0.0, t_mixed + at - time.monotonic()))
                            runner.spawn(k, *picks[k.cid].pop(0), "mixed")

                    injector = threading.Thread(target=inject, daemon=True)
                    injector.start()
                    walls["mixed"] = _background(runner, background, bg_mixed, args.in_flight, "mixed")
                    injector.join()
                    runner.join()
                    print(f"mixed: {args.sectors} x {background.cid} in {walls['mixed']:.1f} s, "
                          f"{len(moments)} deadline jobs injected", flush=True)
                else:
                    for k in deadline:
                        for item in injected[k.cid]:
                            runner.run_one(k, *item, "alone")
                trace = fetch_trace(c, started)
                timed = [r for r in runner.records if r.phase != "warm-up"]
                verify_records(c, timed)
                status = c.status()
        finally:
            exit_code = daemon.terminate()
    write_trace(args.trace, trace)
    return report(args, background, deadline, runner.records, walls, trace, status, exit_code)


def report(args, background, deadline, records, walls, trace, status, exit_code) -> int:
    timed = [r for r in records if r.phase != "warm-up"]
    rows, table = [], {}
    groups = [(background.cid, "alone"), (background.cid, "mixed")] if background else []
    groups += [(k.cid, "mixed" if background else "alone") for k in deadline]
    for cid, phase in groups:
        rs = [r for r in timed if r.circuit_id == cid and r.phase == phase]
        ok = [r for r in rs if r.status == "COMPLETED"]
        secs = sorted(r.wall_ms / 1e3 for r in ok)
        entry = {"jobs": len(rs), "completed": len(ok), "verified": sum(1 for r in rs if r.verified),
                 "priority": rs[0].priority if rs else "", "submit_to_proof_s": [round(x, 2) for x in secs],
                 "median_s": round(statistics.median(secs), 2) if secs else None,
                 "max_s": round(secs[-1], 2) if secs else None}
        if background and cid == background.cid and phase in walls:
            entry["jobs_per_min"] = round(len(ok) / walls[phase] * 60, 3) if walls[phase] > 0 else 0.0
        table[f"{cid} {phase}"] = entry
        rows.append({"circuit": cid, "phase": phase, "prio": entry["priority"] or "-",
                     "done": f"{len(ok)}/{len(rs)}", "ver": str(entry["verified"]),
                     "median": f"{entry['median_s']:.2f}" if secs else "-",
                     "max": f"{entry['max_s']:.2f}" if secs else "-",
                     "all": " ".join(f"{x:.1f}" for x in secs),
                     "jpm": f"{entry['jobs_per_min']:.2f}" if "jobs_per_min" in entry else "-"})
    mixed_ids = [r.job_id for r in timed if r.phase == ("mixed" if background else "alone")]
    figures = trace_figures(trace, mixed_ids)
    print(f"\n=== deadline jobs {'while ' + background.cid + ' runs' if background else 'alone'} "
          f"(submit -> proof, seconds; every proof verified against public inputs made here) ===")
    print_table(rows, [("circuit", "circuit"), ("phase", "phase"), ("prio", "priority"), ("done", "completed"),
                       ("ver", "verified"), ("median", "median s"), ("max", "max s"), ("jpm", "jobs/min"),
                       ("all", "each, sorted")])
    if background and len(walls) == 2 and walls["mixed"] > 0:
        loss = 1 - walls["alone"] / walls["mixed"]
        print(f"background throughput lost to the deadline work: {loss:.0%} "
              f"({args.sectors} jobs in {walls['alone']:.1f} s alone, {walls['mixed']:.1f} s mixed)")
    gpu = figures.get("gpu_busy")
    print(f"GPU busy {'-' if gpu is None else f'{gpu:.0%}'} ({'mixed' if background else 'alone'} phase); "
          f"daemon peak RSS {status.peak_rss_bytes / 2**30:.1f} GiB; daemon exit {exit_code}")
    for r in timed:
        if r.error:
            print(f"  {r.circuit_id} job {r.job_id or '(refused)'}: {r.error}")
    write_json(args.json, {"command": "deadline", "background": background.cid if background else None,
                           "deadline": [k.cid for k in deadline], "sectors": args.sectors, "inject": args.inject,
                           "in_flight": args.in_flight, "walls_s": walls, "table": table, **figures,
                           "daemon_peak_rss_bytes": status.peak_rss_bytes, "daemon_exit": exit_code,
                           "records": [r.as_json() for r in records]})
    ok = all(r.status == "COMPLETED" and r.verified for r in timed)
    return 0 if ok and exit_code == 0 else 1
