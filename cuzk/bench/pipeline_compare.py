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

import json
import statistics
import tempfile
import time
from pathlib import Path

from cuzk.backend import cuda_unavailable_reason
from cuzk.circuits.filecoin.kinds import counts
from cuzk.engine.config import ConfigError, EngineConfig, GpusConfig
from cuzk.engine.resources.memory import system_memory_bytes
from cuzk.server.local_daemon import LocalDaemon
from cuzk.user_dirs import cache_dir

from . import filecoin_params
from .circuit_inputs import inputs, resolve, spec_lookup
from .daemon_jobs import PHASES, print_records, run_jobs, summarize, verify_records, write_json
from .errors import BenchError
from .report import print_table
from .run_trace import fetch_trace, write_trace
from .trace_file import parse_trace
from .trace_summary import device_busy, pool_busy

MODES = ("sequential", "pipelined", "pipelined+batched")
GPU_MODES = ("1 gpu", "all gpus")  # --compare-gpus: pipelined+batched on GPU 0, then on every GPU


def daemon_config(param_dir: Path, spec, mode: str, batch: int, synth_threads: int,
                  prover_threads: int, wait_ms: int = 250, filecoin_dir: Path | None = None,
                  kernel_threads: int = 1, gpu_workers: int = 2, device_memory: str = "auto") -> str:
    """`filecoin_dir`: where the test parameters of Filecoin's circuits are (filecoin_params.ensure);
    `gpu_workers` and `device_memory`: the [gpus] settings of the same names (per card)."""
    pipelined = mode != "sequential"
    size = batch if mode in ("pipelined+batched",) + GPU_MODES else 1
    gpus = {"1 gpu": 'backend = "cuda"\ndevices = [0]', "all gpus": 'backend = "cuda"\ndevices = []'}
    return f"""shutdown_timeout = "10m"
[gpus]
{gpus.get(mode, 'backend = "auto"')}
gpu_threads = {prover_threads}
gpu_workers_per_device = {gpu_workers}
memory_limit = "{device_memory}"
[synthesis]
threads = {synth_threads}
kernel_threads = {kernel_threads}
pipelined = {'true' if pipelined else 'false'}
[scheduler]
max_batch_size = {size}
max_batch_wait_ms = {wait_ms}
[srs]
param_cache = "{param_dir}"
[circuits]
synthetic = {'true' if spec.family == 'synthetic' else 'false'}
filecoin_params = "{filecoin_dir or ''}"
"""


def gpu_count() -> int:
    if cuda_unavailable_reason() is not None:
        return 0
    import cupy  # CuPy only on a machine that has a GPU

    return int(cupy.cuda.runtime.getDeviceCount())


def params_bytes_estimate(spec) -> int:
    """An upper bound of a Filecoin circuit's decoded parameters, from its counts (no build; 0 for
    the others): G1 affine 96 B for H (domain), L (aux), A and B (every variable), G2 192 B for B."""
    if not filecoin_params.is_filecoin(spec):
        return 0

    n = counts(filecoin_params.config_of(spec))
    domain = 1 << (n.constraints + n.inputs - 1).bit_length()
    nvars = n.aux + n.inputs
    return 96 * (domain + n.aux + 2 * nvars) + 192 * nvars


def side_by_side_limit() -> tuple[int, str]:
    """What the daemons' parameters must fit together: half the host memory, and the GPU's."""
    limit, what = (system_memory_bytes() or 16 << 30) // 2, "half the host memory"
    if gpu_count():
        import cupy

        vram = int(cupy.cuda.runtime.getDeviceProperties(0)["totalGlobalMem"])
        if vram < limit:
            limit, what = vram, "the GPU's memory"
    return limit, what


def run_compare(args, count: int, gpus: bool = False) -> int:
    """The same N proofs under each mode; `gpus`: on one GPU and on all of them."""
    modes = GPU_MODES if gpus else select_modes(getattr(args, "modes", None))
    base = modes[0]
    if gpus and gpu_count() < 2:
        raise BenchError(f"--compare-gpus needs at least two GPUs; this machine has {gpu_count()}")

    if args.gpu_workers < 1:
        raise BenchError(f"--gpu-workers: expected at least 1, got {args.gpu_workers}")
    try:
        EngineConfig(gpus=GpusConfig(memory_limit=args.device_memory)).gpu_memory_limit_bytes()
    except ConfigError as e:
        raise BenchError(f"--device-memory: {e}") from None
    cid, spec = resolve(args.kind, args.preset)
    if spec is None:
        raise BenchError("--compare needs a built-in circuit (its daemons serve the built-in circuits only)")
    batch = args.batch_size or min(count, 4)
    rounds = max(1, args.rounds)
    cache = Path(args.state_dir) if args.state_dir else cache_dir() / "bench"
    param_dir = cache / "params"
    need = params_bytes_estimate(spec)
    limit, what = side_by_side_limit()
    serial = len(modes) > 1 and (need * len(modes) > limit or getattr(args, "one_at_a_time", False))
    print(f"compare: {count} x {cid}, {rounds} round(s); synthesis threads {args.synthesis_threads}, prover "
          f"kernel threads {args.prover_threads or 'all'}; batched mode: batches of {batch}; prover workers per GPU "
          f"{args.gpu_workers}, device memory {args.device_memory}")
    if serial and need * len(modes) > limit:
        print(f"daemons one at a time: {len(modes)} x ~{need / 2**30:.1f} GiB of parameters exceed {what} "
              f"({limit / 2**30:.0f} GiB); the first generates the parameters, the others read them")
    filecoin_dir = None
    if filecoin_params.is_filecoin(spec):
        filecoin_dir = filecoin_params.ensure(param_dir / "filecoin", [spec])
        print(f"{cid}: TEST parameters (a single-party setup, made once in {filecoin_dir}), not Filecoin's")
    print("generating inputs ...", flush=True)
    vs = inputs(args, spec, count + 1)
    warm, vs = vs[0], vs[1:]
    runs = {m: [] for m in modes}
    exits = {}
    last_recs = ("", [])
    traces: dict[str, str] = {}  # each mode's last round
    with tempfile.TemporaryDirectory(prefix="cuzk-compare-") as tmp:
        daemons = {}

        def start(mode):
            cfg = daemon_config(param_dir, spec, mode, batch, args.synthesis_threads, args.prover_threads,
                                filecoin_dir=filecoin_dir, gpu_workers=args.gpu_workers,
                                device_memory=args.device_memory)
            print(f"[{mode}] starting daemon, loading parameters (the first run of a circuit compiles it and "
                  "generates its parameters: minutes at 32g) ...", flush=True)
            t0 = time.monotonic()
            d = daemons[mode] = LocalDaemon(Path(tmp) / mode.replace("+", "_").replace(" ", "_"), cfg).start()
            with d.client() as c:
                c.preload(cid)
                t1 = time.monotonic()
                w = c.prove(circuit_id=cid, **warm)
                if w.status != 1:
                    raise BenchError(f"warm-up proof failed: {w.error_message}\n{d.log_text()}")
            print(f"[{mode}] ready: parameters in {t1 - t0:.1f} s, warm-up job {time.monotonic() - t1:.1f} s",
                  flush=True)

        def measure(mode, r):
            nonlocal last_recs
            with daemons[mode].client() as c:
                started = time.monotonic()
                recs, wall = run_jobs(c, [(cid, f, 0) for f in vs], f"round {r + 1} {mode}", spec_lookup)
                trace = fetch_trace(c, started, mode)
                if r == rounds - 1:
                    traces[mode] = trace
                if not args.no_verify:
                    verify_records(c, recs)
                summary = summarize(recs, wall, c.status())
            summary.update(trace_figures(trace, [x.job_id for x in recs]))
            summary["round"] = r + 1
            runs[mode].append({"summary": summary, "records": [x.as_json() for x in recs]})
            print(f"  round {r + 1} {mode:<18} {summary['proofs_per_min']:8.2f} proofs/min "
                  f"({summary['completed']}/{summary['count']} completed, {summary['verified']} verified)")
            last_recs = (mode, recs)
            if args.trace and r == rounds - 1:  # so far, likewise: a cut-off run keeps the modes it finished
                write_trace(args.trace, "".join(traces.get(m, "") for m in modes))
            if args.json:  # so far, in case the run is cut off (a device call's time limit): replaced at the end
                with open(args.json, "w") as fh:
                    json.dump({"partial": True, "circuit_id": cid, "runs": runs}, fh, indent=1)

        try:
            if serial:  # one daemon at a time: all rounds of a mode, then the next mode
                for mode in modes:
                    start(mode)
                    for r in range(rounds):
                        measure(mode, r)
                    exits[mode] = daemons.pop(mode).terminate()
            else:
                for mode in modes:  # all up at once (idle daemons cost no CPU), so rounds can alternate
                    start(mode)
                for r in range(rounds):
                    order = modes[r % len(modes):] + modes[:r % len(modes)]  # rotate, so no mode always runs first
                    for mode in order:
                        measure(mode, r)
        finally:
            for mode, d in daemons.items():
                exits[mode] = d.terminate()
    if args.trace:
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
                       "s_per_job": [round(60 / x, 2) if x else None for x in ppm],
                       **{k: last.get(k) for k in FIGURES}, "daemon_exit": exits.get(mode)}
        rows.append({"mode": mode, "ppm": f"{statistics.median(ppm):.2f}",
                     "spj": f"{60 / statistics.median(ppm):.1f}" if statistics.median(ppm) else "-",
                     "all": " ".join(f"{x:.1f}" for x in ppm),
                     "ratio": f"{statistics.median(paired):.2f}x",
                     "ok": f"{sum(x['summary']['completed'] for x in runs[mode])}/{count * rounds}",
                     "verified": str(sum(x["summary"]["verified"] for x in runs[mode])),
                     "retries": str(sum(x["summary"].get("retries", 0) for x in runs[mode])),
                     "gpu": _pct(last.get("gpu_busy")), "synth_busy": _pct(last.get("synthesis_busy")),
                     **{n: last["avg_" + k] for k, n in PHASES},
                     "rss": f"{last.get('daemon_peak_rss_bytes', 0) / 2**30:.1f}",
                     "round_rss": _gib(last.get("round_peak_rss_bytes")),
                     "budget": _gib(last.get("budget_peak_bytes")),
                     "vram": f"{last.get('device_peak_bytes', 0) / 2**30:.1f}"})
    job = f"{spec.num_partitions}-partition job" if spec.num_partitions > 1 else "job"
    print(f"\n=== {cid}: {count} jobs x {rounds} round(s), {len(modes)} ways (ratios: median of per-round "
          f"ratios; a job is one {job}) ===")
    print_table(rows, [("mode", "mode"), ("ok", "completed"), ("verified", "verified"), ("retries", "retries"),
                       ("ppm", "median jobs/min"),
                       ("spj", "s/job"), ("all", "per round"), ("ratio", f"vs {base}"), ("gpu", "GPU busy"),
                       ("synth_busy", "synth busy")]
                + [(n, f"{n} ms") for _, n in PHASES]
                + [("rss", "peak RSS GiB"), ("round_rss", "round RSS GiB"), ("budget", "round budget GiB"),
                   ("vram", "peak GPU GiB")])
    print("(phase columns: averages per job in the last round; GPU busy: device-timed prover phases over the run; "
          "synth busy: synthesis workers; peak RSS: the daemon's since it started, parameter load included; round "
          "RSS and round budget: the highest resident bytes and budget count the round's memory samples saw)")
    write_json(args.json, {"command": "batch --compare-gpus" if gpus else "batch --compare", "circuit_id": cid, "count": count, "rounds": rounds,
                           "batch_size": batch, "synthesis_threads": args.synthesis_threads,
                           "prover_threads": args.prover_threads, "one_at_a_time": serial,
                           "table": table, "runs": runs})
    ok = all(x["summary"]["failed"] == 0 and x["summary"]["unverified"] == 0 for m in modes for x in runs[m])
    return 0 if ok and all(v == 0 for v in exits.values()) else 1


FIGURES = ("gpu_busy", "synthesis_busy", "prover_busy", "daemon_peak_rss_bytes", "round_peak_rss_bytes",
           "budget_peak_bytes", "device_peak_bytes")


def select_modes(text: str | None) -> tuple[str, ...]:
    if not text:
        return MODES
    picked = tuple(m.strip() for m in text.split(",") if m.strip())
    bad = [m for m in picked if m not in MODES]
    if bad or not picked:
        raise BenchError(f"--modes: unknown mode(s) {', '.join(bad) or '(none)'}; choose from {', '.join(MODES)}")
    return picked


def trace_figures(trace: str, job_ids=None) -> dict:
    """Busy fractions of one round from the daemon's trace (cuzk.bench.trace_summary), over the
    round's window: from the first submission of `job_ids` to the last of them ending. The trace
    also holds the warm-up job, submitted a minute before at 32g: over the whole trace a GPU busy
    for the entire round read 42 %."""
    runs = parse_trace(trace) if trace else []
    if not runs:
        return {}
    run = runs[0]
    ids = set(job_ids or ())
    mine = [j for j in run.jobs if j.get("job") in ids]
    lo = min((j.get("submitted", j["t"]) for j in mine), default=None)
    hi = max((j["t"] for j in mine), default=None)
    dev = device_busy(run, lo, hi)
    # the memory samples of the round: the budget's count and the kernel's (rss) at their highest
    mems = [m for m in run.mems if lo is not None and lo <= m["t"] <= hi]
    return {"gpu_busy": max(dev.values()) if dev else None, "synthesis_busy": pool_busy(run, "synthesis", lo, hi),
            "prover_busy": pool_busy(run, "prover", lo, hi),
            "budget_peak_bytes": max((m["used"] for m in mems), default=None),
            "round_peak_rss_bytes": max((m["rss"] for m in mems if "rss" in m), default=None)}


def _pct(x) -> str:
    return "-" if x is None else f"{x:.0%}"


def _gib(x) -> str:
    return "-" if x is None else f"{x / 2**30:.1f}"
