"""`cuzk bench ...`: the arguments of every benchmark; the benchmarks themselves are in cuzk.bench.

    kernels | synth | prove                      in-process (cuzk.bench.kernels, synth, prove)
    single | batch | stress | status | preload   against a running daemon (cuzk.bench.daemon_client)
    batch --compare | --compare-gpus             on private daemons (cuzk.bench.pipeline_compare)
    gen-vanilla                                  inputs of a built-in circuit (cuzk.bench.circuit_inputs): a JSON
                                                 request for Filecoin's kinds, vanilla proof bytes for synthetic
    report                                       PNGs and a summary of a --trace file (cuzk.bench.run_trace)

Each handler imports its cuzk.bench module when its command runs: those load
numba kernels, gRPC and matplotlib, which `cuzk --help` and the other
commands should not wait for.
"""

from __future__ import annotations

import argparse
import os

from cuzk.errors import CuzkError
from cuzk.user_dirs import cache_dir

from .circuit import CIRCUIT_KINDS  # every Filecoin circuit, sized by --sector-size
from .files import input_file, output_dir, output_file
from .usage import command_group

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

PRIORITIES = ["low", "normal", "high", "critical"]
MODULE_BENCHMARKS = ("snarkjs_compare", "cluster_scaling", "msm_vs_arkworks")


FILECOIN_SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")


def register(sub: argparse._SubParsersAction) -> None:
    bsub = command_group(sub, "bench", "bench_command", "BENCH", help="benchmarks (kernels, ...)",
                         description="Benchmarks that print a table and write JSON.",
                         epilog="Run as modules: " + ", ".join(f"python -m cuzk.bench.{m}" for m in MODULE_BENCHMARKS))
    _register_kernels(bsub)
    _register_daemon(bsub)
    _register_synth(bsub)
    _register_prove(bsub)
    _register_latency(bsub)
    _register_deadline(bsub)
    _register_report(bsub)
    from .aggregate import register_bench  # cuzk bench aggregate (cuzk.bench.aggregate)

    register_bench(bsub)


# ---- in-process benchmarks ---------------------------------------------------------------------


def _register_kernels(bsub) -> None:
    k = bsub.add_parser("kernels", help="Fr mul, NTT and MSM timings, arkworks side by side",
                        description="Time Fr multiplication, NTT and MSM (G1, G2) on a backend. For BLS12-381 MSMs "
                        "py-arkworks-bls12381 runs on the same inputs in the same process and the ratio is printed.")
    k.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"], help="compute backend (default cpu)")
    k.add_argument("--json", type=output_file, metavar="FILE", help="write the records as JSON")
    k.add_argument("--curve", action="append", choices=["bls12_381", "bn254"], help="curve(s) to run (default both)")
    k.add_argument("--repeat", type=int, default=5, help="timed repetitions per op (median reported)")
    k.set_defaults(func=_kernels)


def _kernels(args) -> int:
    from cuzk.bench import kernels

    kernels.run(args.backend, args.json, curves=tuple(args.curve or ("bls12_381", "bn254")), repeat=args.repeat)
    return 0


def _register_synth(bsub) -> None:
    s = bsub.add_parser("synth", help="synthesis (witness + SpMV) timings: stamped gadgets or a Filecoin partition",
                        description="Without --kind: stamped SHA-256 compressions and Poseidon hashes at 2^16 and "
                        "2^20 constraints. With --kind and --sector-size: one partition of Filecoin's circuit, from "
                        "a Curio-shaped request decoded and checked as at submit, its witness with its phases.")
    s.add_argument("--kind", choices=CIRCUIT_KINDS, metavar="KIND",
                   help="Filecoin's circuit: %(choices)s (with --sector-size)")
    s.add_argument("--sector-size", default="2KiB", choices=FILECOIN_SIZES, metavar="SIZE",
                   help="with --kind: %(choices)s (default 2KiB)")
    s.add_argument("--sectors", type=int, help="with --kind window-post: sectors in the request (default: a full "
                   "partition, 2349 at 32GiB)")
    s.add_argument("--sizes", default="16,20", help="without --kind: log2 sizes (default 16,20)")
    s.add_argument("--repeat", type=int, default=3, help="timed repetitions (median; default 3)")
    s.add_argument("--seed", type=int, default=1, help="vanilla-proof seed with --kind (default 1)")
    s.add_argument("--threads", type=int, default=0, help="kernel threads (default 0: all cores); on a shared "
                   "machine 1 avoids stalls of parallel regions whose workers are descheduled")
    s.add_argument("--json", type=output_file, metavar="FILE", help="write the records as JSON")
    s.set_defaults(func=_synth)


def _synth(args) -> int:
    from cuzk.bench import synth

    synth.set_threads(args.threads)
    if args.sectors is not None and args.kind != "window-post":
        raise CuzkError("--sectors goes with --kind window-post")
    if args.kind:
        from cuzk.bench import filecoin_synth

        filecoin_synth.run(args.kind, args.sector_size, args.sectors, max(1, args.repeat), args.seed, args.json)
    else:
        try:
            sizes = tuple(int(x) for x in args.sizes.split(",") if x)
        except ValueError:
            raise CuzkError(f"--sizes: expected comma-separated integers, got {args.sizes!r}") from None
        synth.run_default(args.json, sizes=sizes, repeat=args.repeat)
    return 0


def _log_sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes takes log2 row counts like 20,22,24, not {text!r}") from None
    if not sizes or any(not 6 <= s <= 27 for s in sizes):
        raise argparse.ArgumentTypeError("--sizes: each log2 row count must be between 6 and 27")
    return sizes


def _batches(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or any(k < 1 for k in ks):
        raise argparse.ArgumentTypeError(f"takes whole numbers of at least 1 like 3 or 3,10, not {text!r}")
    return list(dict.fromkeys(ks))


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return n


def _register_prove(bsub) -> None:
    p = bsub.add_parser(
        "prove", help="Groth16 proofs of a stamped SHA-256 workload or a built-in circuit, per-phase timings",
        description="Prove a stamped SHA-256 circuit of about 2^k constraints (or, with --kind/--sector-size, one "
        "partition of Filecoin's circuit, as the daemon proves it) with setup-generated keys (proofs verified) up to "
        "--verify-up-to, random keys of the same shape above it (timed only). Prints the median wall time and every "
        "phase (CUDA-event timings on the GPU) after one warm-up proof.")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"], help="compute backend (default auto)")
    p.add_argument("--sizes", type=_log_sizes, default=[16], metavar="K,K,...", help="log2 constraint counts (default 16)")
    p.add_argument("--repeat", type=_positive, default=5,
                   help="timed proofs (batches with --batch) per case (median reported; default 5)")
    p.add_argument("--transfer", action="append", choices=["pageable", "pinned"],
                   help="host-to-device transfer mode(s) to compare (GPU only; default pageable)")
    p.add_argument("--batch", type=_batches, default=[1], metavar="K,K,...",
                   help="prove K jobs of the same size per prove_batch call and report ms per proof; on the GPU the "
                        "next job's witness uploads while the current proof runs (default 1: one proof at a time); "
                        "several sizes (3,10) share one circuit, witness and key")
    p.add_argument("--verify-up-to", type=int, default=20, metavar="K",
                   help="largest size proved with a real setup and verified (default 20)")
    p.add_argument("--kind", choices=CIRCUIT_KINDS, metavar="KIND",
                   help="prove one partition of Filecoin's circuit instead of SHA-256 (--sizes is then ignored): "
                        "%(choices)s (with --sector-size), from a Curio-shaped request over random sectors (porep: "
                        "partition 0 of a generated C1 output; snap: partition 0 of generated partition proofs)")
    p.add_argument("--sector-size", default="2KiB", choices=FILECOIN_SIZES, metavar="SIZE",
                   help="with --kind: %(choices)s (default 2KiB; 32GiB is a sector's partition, 2^27)")
    p.add_argument("--seed", type=int, default=1, help="vanilla-proof seed with --kind (default 1)")
    p.add_argument("--device-memory", type=_device_memory, metavar="SIZE,...",
                   help="device memory the prover may use, e.g. 16GiB (default: what the card has, also 'card'); "
                        "bases that do not fit stream from pinned host memory in chunks, H runs one vector at a time "
                        "(docs/operator-guide.md); several sizes (16GiB,24GiB,card) are one set of runs each over one "
                        "circuit, witness and key; with --backend cpu the CPU prover follows the same plan")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the records as JSON")
    p.set_defaults(func=_prove)


def _device_memory(text: str) -> list:
    """'16GiB,24GiB,card' -> [bytes, bytes, None] (card / auto: what the card has)."""
    from cuzk.engine.resources.memory import parse_size

    out = []
    for part in text.split(","):
        if part.strip().lower() in ("card", "auto"):
            out.append(None)
            continue
        try:
            n = parse_size(part, "--device-memory")
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"expected sizes such as '16GiB' or 'card', comma-separated, "
                                             f"got {text!r}") from None
        if n <= 0:
            raise argparse.ArgumentTypeError(f"expected a positive size such as '16GiB', got {part!r}")
        out.append(n)
    return out


def _prove(args) -> int:
    from cuzk.bench import prove

    prove.run(args.backend, sizes=args.sizes, repeat=args.repeat, transfers=args.transfer,
              verify_up_to=args.verify_up_to, json_path=args.json, batches=args.batch, kind=args.kind,
              preset=args.sector_size, seed=args.seed, device_memory=args.device_memory or [None])
    return 0


def _register_latency(bsub) -> None:
    p = bsub.add_parser(
        "latency", help="one proof with start-up, side by side with rapidsnark and snarkjs (BN254 circom)",
        description="For circom-shaped BN254 circuits of each size (written once with a matching witness, keys "
        "made once by `cuzk setup --zkey`), time rapidsnark, `snarkjs groth16 prove` and `cuzk prove --backend "
        "cpu` as separate processes, start-up and file reading included (wall clock, median of --repeat), and "
        "print each time with cuzk/rapidsnark. Every tool's last proof is checked with `snarkjs groth16 "
        "verify`. A missing rapidsnark or snarkjs is reported and left out.")
    p.add_argument("--sizes", default="10k,16,20", metavar="S,S,...",
                   help="10k (10,000 constraints), K or 2^K (a 2^K domain), or a constraint count (default 10k,16,20)")
    p.add_argument("--repeat", type=_positive, default=3, help="runs per tool and size (median; default 3)")
    p.add_argument("--dir", type=output_dir, metavar="DIR", help="where circuits, keys and proofs are kept (default "
                   f"{cache_dir() / 'bench' / 'latency'})")
    p.add_argument("--rapidsnark", metavar="PATH", help="rapidsnark's prover (default ../shared/anchors/rapidsnark/"
                   "prover beside the repository)")
    p.add_argument("--snarkjs", metavar="PATH", help="snarkjs (default node_modules/.bin/snarkjs in the repository)")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the figures as JSON")
    p.add_argument("--resident", nargs="?", const="auto", choices=("auto", "cpu", "cuda"), metavar="BACKEND",
                   help="also prove through a cuzk daemon that keeps the key resident (backend auto, cpu or cuda; "
                   "default auto): ms per proof after a warm-up, against rapidsnark's process")
    p.set_defaults(func=_latency)


def _latency(args) -> int:
    from pathlib import Path

    from cuzk.bench import latency

    latency.run(latency.parse_sizes(args.sizes), repeat=args.repeat, json_path=args.json, workdir=args.dir,
                rapidsnark=Path(args.rapidsnark) if args.rapidsnark else latency.DEFAULT_RAPIDSNARK,
                snarkjs=Path(args.snarkjs) if args.snarkjs else latency.DEFAULT_SNARKJS, resident=args.resident)
    return 0


# ---- against a daemon ----------------------------------------------------------------------------


def _addr_parser():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--addr", default=os.environ.get("CUZK_ADDR", ""),
                   help="daemon address: unix:PATH or host:port (default $CUZK_ADDR, else the default socket)")
    p.add_argument("--token", default=os.environ.get("CUZK_TOKEN", ""),
                   help="the daemon's bearer token (default $CUZK_TOKEN; required by TCP daemons)")
    p.add_argument("--tls-ca", metavar="PEM", default=os.environ.get("CUZK_TLS_CA", ""),
                   help="connect with TLS, trusting this CA / self-signed certificate (default $CUZK_TLS_CA)")
    return p


def _kind_parser():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--kind", default="winning-post",
                   help="circuit id (window-post-2KiB, snap-32GiB, synthetic-tiny, ...), or a family or proof kind "
                   "name with --preset: window-post, winning-post, porep, snap (Filecoin's circuits), synthetic, "
                   "POREP_SEAL_COMMIT, ... (default winning-post); stress takes a comma-separated list")
    p.add_argument("--preset", metavar="PRESET",
                   help="the size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB for Filecoin's circuits, tiny, small, medium, "
                   "large for synthetic (default: the family's smallest)")
    return p


def _common_parser():
    p = argparse.ArgumentParser(add_help=False, parents=[_addr_parser(), _kind_parser()])
    p.add_argument("--count", type=int, default=0, help="number of proofs (default 1; batch: 4)")
    p.add_argument("--priority", choices=PRIORITIES, help="job priority (default: the kind's)")
    p.add_argument("--vanilla", type=input_file, metavar="FILE", help="inputs: a JSON request as gen-vanilla writes it for the PoSt "
                   "kinds (or a JSON array of them); for the other circuits a JSON array of base64 strings, or "
                   "one raw input")
    p.add_argument("--no-verify", action="store_true", help="do not verify the proofs")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the results as JSON")
    p.add_argument("--trace", type=output_file, metavar="FILE", help="write the daemon's pipeline trace of the run (JSON lines; "
                   "plot it with `cuzk bench report FILE`; --compare: one run per mode)")
    return p


def _register_daemon(bsub) -> None:
    common = _common_parser()
    s = bsub.add_parser("single", parents=[common], help="prove one job on a running daemon",
                        description="Send one Prove request; print its status, phase timings and proof; verify it.")
    s.add_argument("--request-id", default="", help="request_id (idempotency key)")
    s.set_defaults(func=_single)

    b = bsub.add_parser("batch", parents=[common], help="N proofs at once; throughput (--compare: 3 pipeline modes)",
                        description="Submit --count proofs at once, await them all, report per-proof timings and "
                        "throughput. With --compare, start three private daemons (sequential, pipelined, "
                        "pipelined + batched) and run the same proofs through each, printing throughput ratios.")
    b.add_argument("--compare", action="store_true", help="run sequential / pipelined / pipelined+batched daemons")
    b.add_argument("--compare-gpus", action="store_true",
                   help="run the same proofs on a daemon using GPU 0 and on one using every GPU; print the ratio")
    b.add_argument("--batch-size", type=int, default=0, help="--compare: max_batch_size of the batched mode "
                   "(default min(count, 4))")
    b.add_argument("--synthesis-threads", type=int, default=1, help="--compare: synthesis workers (default 1)")
    b.add_argument("--prover-threads", type=int, default=1, help="--compare: kernel threads of the CPU prover "
                   "(default 1; 0 = all cores)")
    b.add_argument("--gpu-workers", type=int, default=2, help="--compare: prover workers per GPU, the daemon's "
                   "[gpus] gpu_workers_per_device (default 2)")
    b.add_argument("--device-memory", default="auto", help="--compare: the device-memory budget of each GPU, "
                   "the daemon's [gpus] memory_limit, e.g. 24GiB (default auto: the whole card)")
    b.add_argument("--state-dir", help="--compare: where the daemons keep parameters (default "
                   f"{cache_dir() / 'bench'}, from $XDG_CACHE_HOME)")
    b.add_argument("--rounds", type=int, default=3, help="--compare: rounds, modes alternating (default 3)")
    b.add_argument("--one-at-a-time", action="store_true", help="--compare: run the daemons one after another "
                   "(automatic when their parameters would not fit in memory side by side, e.g. 32g)")
    b.add_argument("--modes", help="--compare: the modes to run, comma-separated (default all: sequential,"
                   "pipelined,pipelined+batched); the first is the ratios' reference")
    b.set_defaults(func=_batch)

    st = bsub.add_parser("stress", parents=[common], help="keep N jobs of mixed kinds in flight for a while",
                         description="Keep --concurrency jobs in flight, cycling through the --kind values "
                         "(comma-separated), for --duration seconds or --count jobs; report per-kind latency.")
    st.add_argument("--duration", type=float, default=60.0, help="seconds to run (default 60; --count stops earlier)")
    st.add_argument("--concurrency", type=int, default=4, help="jobs in flight (default 4)")
    st.set_defaults(func=_stress)

    bsub.add_parser("status", parents=[_addr_parser()], help="daemon status",
                    description="Print devices, parameter tiers, queues and totals.").set_defaults(func=_status)
    p = bsub.add_parser("preload", parents=[_addr_parser(), _kind_parser()], help="load a circuit's parameters",
                        description="PreloadSRS: load the circuit's parameters into the hot tier.")
    p.set_defaults(func=_preload)
    g = bsub.add_parser("gen-vanilla", parents=[_kind_parser()], help="write vanilla proofs for a built-in circuit",
                        description="Generate random sector data, its trees and labels, and write a valid input "
                        "of a built-in circuit. For Filecoin's circuits a JSON request as Curio sends one, bytes as "
                        "base64 (cuzk.formats.filecoin.request_json): window-post / winning-post vanilla_proofs (one "
                        "bincode sector proof each), registered_proof, randomness, miner_id, partition_index; porep "
                        "vanilla_proof (Curio's C1 envelope), registered_proof, sector_number, miner_id; snap "
                        "vanilla_proofs (one bincode PartitionProof each), registered_proof, comm_r_old, comm_r_new, "
                        "comm_d_new; with --count N a JSON array of N requests. For synthetic the vanilla proof: "
                        "with --count 1 the raw bytes SubmitProof's vanilla_proof carries; with --count N a JSON "
                        "array of N base64 strings (cuzk-bench's --vanilla format). `--vanilla FILE` reads either "
                        "back.")
    g.add_argument("--count", type=int, default=1, help="how many (default 1)")
    g.add_argument("-o", "--out", "--output", dest="out", required=True, type=output_file, help="output file")
    g.add_argument("--seed", type=int, help="generator seed (default: random); input i uses seed + i")
    g.set_defaults(func=_gen_vanilla)


def _single(args) -> int:
    from cuzk.bench import daemon_client

    return daemon_client.single(args)


def _batch(args) -> int:
    if args.compare or args.compare_gpus:
        from cuzk.bench import pipeline_compare

        return pipeline_compare.run_compare(args, args.count or 4, gpus=args.compare_gpus)
    from cuzk.bench import daemon_client

    return daemon_client.batch(args)


def _stress(args) -> int:
    from cuzk.bench import daemon_client

    return daemon_client.stress(args)


def _status(args) -> int:
    from cuzk.bench import daemon_client

    return daemon_client.status(args)


def _preload(args) -> int:
    from cuzk.bench import daemon_client

    return daemon_client.preload(args)


def _gen_vanilla(args) -> int:
    from cuzk.bench import circuit_inputs

    return circuit_inputs.gen_vanilla(args)


def _register_deadline(bsub) -> None:
    d = bsub.add_parser(
        "deadline", help="WinningPoSt and WindowPoSt while sectors are proved: submit -> proof per job",
        description="Start a private daemon, prove --sectors background jobs (PoRep) alone, then the same number "
        "again while --inject jobs of each deadline kind (WinningPoSt, WindowPoSt) arrive at random moments; "
        "report every job's submit -> proof time by kind and priority, the background's jobs/min with and "
        "without the deadline work, GPU busy and the daemon's peak RSS. Every proof is verified. "
        "--background none: the deadline kinds alone, one job at a time.")
    d.add_argument("--background", default="porep", help="the background kind (default porep; none: the deadline "
                   "kinds alone)")
    d.add_argument("--deadline", default="winning-post,window-post",
                   help="the deadline kinds, comma-separated (default winning-post,window-post)")
    d.add_argument("--preset", default="2KiB", help="the sector size of every kind (default 2KiB; 32GiB on a GPU)")
    d.add_argument("--sectors", type=int, default=3, help="background jobs in each phase (default 3)")
    d.add_argument("--in-flight", type=int, default=2, help="background jobs submitted at a time (default 2)")
    d.add_argument("--inject", type=int, default=3, help="jobs of each deadline kind (default 3)")
    d.add_argument("--seed", type=int, default=1, help="seed of the injection moments (default 1)")
    d.add_argument("--state-dir", help=f"where the parameters are kept (default {cache_dir() / 'bench'})")
    d.add_argument("--synthesis-threads", type=int, default=2, help="the daemon's synthesis workers (default 2)")
    d.add_argument("--kernel-threads", type=int, default=1, help="kernel threads of each synthesis worker "
                   "(default 1, the daemon's synthesis.kernel_threads; 0: all cores; the worker kept for "
                   "deadline jobs uses every core whatever this says)")
    d.add_argument("--json", type=output_file, metavar="FILE", help="write the results as JSON")
    d.add_argument("--trace", type=output_file, metavar="FILE", help="write the daemon's pipeline trace")
    d.set_defaults(func=_deadline, vanilla=None)


def _deadline(args) -> int:
    from cuzk.bench import deadline

    return deadline.run(args)


# ---- traces --------------------------------------------------------------------------------------


def _register_report(bsub) -> None:
    r = bsub.add_parser("report", help="PNG plots and a summary of a pipeline trace",
                        description="Read a trace written by --trace (cuzk bench single|batch|stress|demo) and "
                        "write timeline.png (one lane per synthesis and prover worker, jobs coloured, idle gaps "
                        "blank; --compare runs side by side), phases.png (time per stage per circuit), "
                        "throughput.png (proofs/min and worker busy fraction over time), memory.png (working "
                        "memory against the budget) and summary.txt (busy %, critical path, limiting stage).")
    r.add_argument("trace", type=input_file, metavar="TRACE", help="trace file (JSON lines)")
    r.add_argument("--out", default="cuzk-report", type=output_dir, help="output directory (default ./cuzk-report)")
    r.set_defaults(func=_report)


def _report(args) -> int:
    from cuzk.bench import run_trace

    return run_trace.report(args.trace, args.out)
