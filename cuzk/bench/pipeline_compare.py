"""`cuzk bench batch --compare` and `--compare-gpus`: the same proofs through daemons of different settings.

--compare proves the same N inputs three ways, each on a fresh daemon with
the same parameters (cached in --state-dir, default $XDG_CACHE_HOME/cuzk/bench, else ~/.cache/cuzk/bench);
all three daemons run side by side and the modes alternate over --rounds
rounds, so load on a shared machine drifts across all of them alike:

  sequential          synthesis.pipelined = false, max_batch_size = 1: a
                      partition is synthesized only after the previous one
                      is proven (no overlap, no batching);
  pipelined           synthesis runs ahead of the prover, max_batch_size = 1;
  pipelined+batched   as pipelined, max_batch_size = --batch-size.

Before timing, each daemon loads the parameters and proves one warm-up job
(not counted), so the modes differ only in scheduling. Throughput is
completed proofs per minute from the first submission to the last result;
the ratio reported is the median over rounds of (mode / sequential of the
same round).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from cuzk.backend import cuda_unavailable_reason
from cuzk.server.local_daemon import LocalDaemon
from cuzk.user_dirs import cache_dir

from .circuit_inputs import inputs, resolve, spec_lookup
from .daemon_jobs import PHASES, print_records, run_jobs, summarize, verify_records, write_json
from .errors import BenchError
from .report import print_table
from .run_trace import fetch_trace, write_trace

MODES = ("sequential", "pipelined", "pipelined+batched")
GPU_MODES = ("1 gpu", "all gpus")  # --compare-gpus: pipelined+batched on GPU 0, then on every GPU


def daemon_config(param_dir: Path, spec, mode: str, batch: int, synth_threads: int,
                  prover_threads: int, wait_ms: int = 250) -> str:
    pipelined = mode != "sequential"
    size = batch if mode in ("pipelined+batched",) + GPU_MODES else 1
    gpus = {"1 gpu": 'backend = "cuda"\ndevices = [0]', "all gpus": 'backend = "cuda"\ndevices = []'}
    return f"""shutdown_timeout = "10m"
[gpus]
{gpus.get(mode, 'backend = "auto"')}
gpu_threads = {prover_threads}
[synthesis]
threads = {synth_threads}
pipelined = {'true' if pipelined else 'false'}
[scheduler]
max_batch_size = {size}
max_batch_wait_ms = {wait_ms}
[srs]
param_cache = "{param_dir}"
[circuits]
presets = ["{spec.preset}"]
default_preset = "{spec.preset}"
synthetic = {'true' if spec.family == 'synthetic' else 'false'}
"""


def gpu_count() -> int:
    if cuda_unavailable_reason() is not None:
        return 0
    import cupy  # CuPy only on a machine that has a GPU

    return int(cupy.cuda.runtime.getDeviceCount())


def run_compare(args, count: int, gpus: bool = False) -> int:
    """The same N proofs under each mode; `gpus`: on one GPU and on all of them."""
    modes = GPU_MODES if gpus else MODES
    base = modes[0]
    if gpus and gpu_count() < 2:
        raise BenchError(f"--compare-gpus needs at least two GPUs; this machine has {gpu_count()}")

    cid, spec = resolve(args.kind, args.preset)
    if spec is None:
        raise BenchError("--compare needs a built-in circuit (its daemons serve the built-in circuits only)")
    batch = args.batch_size or min(count, 4)
    rounds = max(1, args.rounds)
    cache = Path(args.state_dir) if args.state_dir else cache_dir() / "bench"
    param_dir = cache / "params"
    print(f"compare: {count} x {cid}, {rounds} round(s); synthesis threads {args.synthesis_threads}, prover "
          f"kernel threads {args.prover_threads or 'all'}; batched mode: batches of {batch}")
    print("generating inputs ...", flush=True)
    vs = inputs(args, spec, count + 1)
    warm, vs = vs[0], vs[1:]
    runs = {m: [] for m in modes}
    exits = {}
    last_recs = ("", [])
    traces: dict[str, str] = {}  # --trace: each mode's last round
    with tempfile.TemporaryDirectory(prefix="cuzk-compare-") as tmp:
        daemons = {}
        try:
            for mode in modes:  # all up at once (idle daemons cost no CPU), so rounds can alternate
                cfg = daemon_config(param_dir, spec, mode, batch, args.synthesis_threads, args.prover_threads)
                print(f"[{mode}] starting daemon ...", flush=True)
                d = daemons[mode] = LocalDaemon(Path(tmp) / mode.replace("+", "_"), cfg).start()
                with d.client() as c:
                    c.preload(cid)
                    w = c.prove(circuit_id=cid, vanilla_proof=warm)
                    if w.status != 1:
                        raise BenchError(f"warm-up proof failed: {w.error_message}\n{d.log_text()}")
            for r in range(rounds):
                order = modes[r % len(modes):] + modes[:r % len(modes)]  # rotate, so no mode always runs first
                for mode in order:
                    with daemons[mode].client() as c:
                        started = time.monotonic()
                        recs, wall = run_jobs(c, [(cid, v, 0) for v in vs], f"round {r + 1} {mode}", spec_lookup)
                        if args.trace and r == rounds - 1:
                            traces[mode] = fetch_trace(c, started, mode)
                        if not args.no_verify:
                            verify_records(c, recs)
                        summary = summarize(recs, wall, c.status())
                    summary["round"] = r + 1
                    runs[mode].append({"summary": summary, "records": [x.as_json() for x in recs]})
                    print(f"  round {r + 1} {mode:<18} {summary['proofs_per_min']:8.2f} proofs/min "
                          f"({summary['completed']}/{summary['count']} completed, {summary['verified']} verified)")
                    last_recs = (mode, recs)
        finally:
            for mode, d in daemons.items():
                exits[mode] = d.terminate()
    write_trace(args.trace, "".join(traces.get(m, "") for m in modes))
    print(f"\nlast run ({last_recs[0]}):")
    print_records(last_recs[1])
    rows = []
    seq = [x["summary"]["proofs_per_min"] for x in runs[base]]
    table = {}
    for mode in modes:
        ppm = [x["summary"]["proofs_per_min"] for x in runs[mode]]
        paired = [p / s for p, s in zip(ppm, seq) if s > 0]
        last = runs[mode][-1]["summary"]
        table[mode] = {"proofs_per_min": ppm, "median_proofs_per_min": statistics.median(ppm),
                       f"ratio_vs_{base.replace(' ', '_')}_median": round(statistics.median(paired), 3),
                       f"ratio_vs_{base.replace(' ', '_')}_per_round": [round(x, 3) for x in paired],
                       "daemon_exit": exits.get(mode)}
        rows.append({"mode": mode, "ppm": f"{statistics.median(ppm):.2f}",
                     "all": " ".join(f"{x:.1f}" for x in ppm),
                     "ratio": f"{statistics.median(paired):.2f}x",
                     "ok": f"{sum(x['summary']['completed'] for x in runs[mode])}/{count * rounds}",
                     "verified": str(sum(x["summary"]["verified"] for x in runs[mode])),
                     **{n: last["avg_" + k] for k, n in PHASES},
                     "rss": f"{last.get('daemon_peak_rss_bytes', 0) / 2**20:.0f}"})
    print(f"\n=== {cid}: {count} proofs x {rounds} round(s), {len(modes)} ways (ratios: median of per-round "
          f"ratios) ===")
    print_table(rows, [("mode", "mode"), ("ok", "completed"), ("verified", "verified"), ("ppm", "median proofs/min"),
                       ("all", "per round"), ("ratio", f"vs {base}")]
                + [(n, f"{n} ms") for _, n in PHASES] + [("rss", "peak RSS MiB")])
    print("(phase columns: averages per job in the last round)")
    write_json(args.json, {"command": "batch --compare-gpus" if gpus else "batch --compare", "circuit_id": cid, "count": count, "rounds": rounds,
                           "batch_size": batch, "synthesis_threads": args.synthesis_threads,
                           "prover_threads": args.prover_threads, "table": table, "runs": runs})
    ok = all(x["summary"]["failed"] == 0 and x["summary"]["unverified"] == 0 for m in modes for x in runs[m])
    return 0 if ok and all(v == 0 for v in exits.values()) else 1
