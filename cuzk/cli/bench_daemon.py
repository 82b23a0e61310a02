"""`cuzk bench single|batch|stress|status|preload`: drive a running daemon; `gen-vanilla`: its inputs.

    cuzk bench single  --kind winning-post-like --preset tiny
    cuzk bench batch   --kind porep-c2-like --preset tiny --count 8 [--compare]
    cuzk bench stress  --kind winning-post-like,window-post-like --duration 60 --concurrency 4
    cuzk bench status | preload --kind K
    cuzk bench gen-vanilla --kind K --preset P --out FILE [--seed S] [--count N]

--addr unix:PATH or host:port (default: the default daemon socket, or $CUZK_ADDR).
--kind is a circuit id, or a built-in kind (porep-c2-like, winning-post-like,
window-post-like, snap-like, synthetic) or proof kind name (winning-post,
porep, ...) combined with --preset. Inputs are generated locally for built-in
circuits, or read with --vanilla FILE (a JSON array of base64 strings, as
cuzk-bench and `gen-vanilla --count N` write, or one raw input). Every proof
is verified with the daemon's verifying key unless --no-verify; timings per
phase come from the daemon; throughput counts completed proofs per minute of
wall time.
`batch --compare` starts its own daemons (see bench_compare).
"""

from __future__ import annotations

import argparse
import base64
import functools
import json
import os
import sys
import time

from cuzk.errors import CuzkError

from .bench_jobs import (Progress, Record, fill, print_records, print_summary, run_jobs, summarize,
                         verify_records, write_json)
from .bench_trace import fetch_trace, write_trace

PRIORITIES = ["low", "normal", "high", "critical"]


class BenchError(CuzkError):
    pass


def register_daemon_bench(bsub) -> None:
    """Add the daemon benchmarks to `cuzk bench`'s subparsers."""
    common = _common_parser()
    s = bsub.add_parser("single", parents=[common], help="prove one job on a running daemon",
                        description="Send one Prove request; print its status, phase timings and proof; verify it.")
    s.add_argument("--request-id", default="", help="request_id (idempotency key)")
    s.set_defaults(func=cmd_single)

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
    b.add_argument("--state-dir", help="--compare: where the daemons keep parameters (default ~/.cache/cuzk/bench)")
    b.add_argument("--rounds", type=int, default=3, help="--compare: rounds, modes alternating (default 3)")
    b.set_defaults(func=cmd_batch)

    st = bsub.add_parser("stress", parents=[common], help="keep N jobs of mixed kinds in flight for a while",
                         description="Keep --concurrency jobs in flight, cycling through the --kind values "
                         "(comma-separated), for --duration seconds or --count jobs; report per-kind latency.")
    st.add_argument("--duration", type=float, default=60.0, help="seconds to run (default 60; --count stops earlier)")
    st.add_argument("--concurrency", type=int, default=4, help="jobs in flight (default 4)")
    st.set_defaults(func=cmd_stress)

    bsub.add_parser("status", parents=[_addr_parser()], help="daemon status",
                    description="Print devices, parameter tiers, queues and totals.").set_defaults(func=cmd_status)
    p = bsub.add_parser("preload", parents=[_addr_parser(), _kind_parser()], help="load a circuit's parameters",
                        description="PreloadSRS: load the circuit's parameters into the hot tier.")
    p.set_defaults(func=cmd_preload)
    g = bsub.add_parser("gen-vanilla", parents=[_kind_parser()], help="write vanilla proofs for a built-in circuit",
                        description="Generate random sector data, its trees and labels, and write the vanilla "
                        "proof (private and public inputs) of a built-in circuit: with --count 1 the raw bytes "
                        "SubmitProof's vanilla_proof carries (formats: README, cuzk.circuits.vanilla); with "
                        "--count N a JSON array of N base64 strings (cuzk-bench's --vanilla format).")
    g.add_argument("--count", type=int, default=1, help="how many (default 1)")
    g.add_argument("-o", "--out", "--output", dest="out", required=True, help="output file")
    g.add_argument("--seed", type=int, help="generator seed (default: random); input i uses seed + i")
    g.set_defaults(func=cmd_gen_vanilla)


def _add_addr(p) -> None:
    p.add_argument("--addr", default=os.environ.get("CUZK_ADDR", ""),
                   help="daemon address: unix:PATH or host:port (default $CUZK_ADDR, else the default socket)")
    p.add_argument("--token", default=os.environ.get("CUZK_TOKEN", ""),
                   help="the daemon's bearer token (default $CUZK_TOKEN; required by TCP daemons)")
    p.add_argument("--tls-ca", metavar="PEM", default=os.environ.get("CUZK_TLS_CA", ""),
                   help="connect with TLS, trusting this CA / self-signed certificate (default $CUZK_TLS_CA)")


def _add_kind(p) -> None:
    from cuzk.circuits import PRESETS

    p.add_argument("--kind", default="winning-post-like",
                   help="circuit id, or kind / proof kind name with --preset (default winning-post-like); "
                   "stress takes a comma-separated list")
    p.add_argument("--preset", default="tiny", choices=list(PRESETS), help="preset (default tiny)")


def _addr_parser():
    p = argparse.ArgumentParser(add_help=False)
    _add_addr(p)
    return p


def _kind_parser():
    p = argparse.ArgumentParser(add_help=False)
    _add_kind(p)
    return p


def _common_parser():
    p = argparse.ArgumentParser(add_help=False)
    _add_addr(p)
    _add_kind(p)
    p.add_argument("--count", type=int, default=0, help="number of proofs (default 1; batch: 4)")
    p.add_argument("--priority", choices=PRIORITIES, help="job priority (default: the kind's)")
    p.add_argument("--vanilla", metavar="FILE", help="inputs: JSON array of base64 strings, or one raw input")
    p.add_argument("--no-verify", action="store_true", help="do not verify the proofs")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--trace", metavar="FILE", help="write the daemon's pipeline trace of the run (JSON lines; "
                   "plot it with `cuzk bench report FILE`; --compare: one run per mode)")
    return p


# ---- circuits and inputs ---------------------------------------------------------------------


@functools.cache
def local_registry():
    """Every built-in circuit at every preset, to generate inputs and know public inputs
    (nothing is compiled or loaded until used)."""
    from cuzk.circuits import PRESETS
    from cuzk.engine.config import EngineConfig
    from cuzk.engine.engine import build_registry

    cfg = EngineConfig()
    cfg.circuits.presets = list(PRESETS)
    cfg.circuits.synthetic = True
    return build_registry(cfg)


def resolve(kind: str, preset: str):
    """(circuit_id, local CircuitSpec, or None for a circuit only the daemon knows, e.g. circom)."""
    from cuzk.engine.errors import UnknownCircuit

    reg = local_registry()
    try:
        spec = reg.lookup(kind, preset)
    except UnknownCircuit as exc:
        if kind in reg.families():
            raise BenchError(str(exc)) from None
        return kind, None
    return spec.circuit_id, spec


def read_vanilla_file(path: str) -> list[bytes]:
    try:
        data = open(path, "rb").read()
    except OSError as exc:
        raise BenchError(f"{path}: {exc.strerror}") from None
    try:
        items = json.loads(data)
        if isinstance(items, list) and all(isinstance(x, str) for x in items):
            return [base64.b64decode(x) for x in items]
    except (ValueError, UnicodeDecodeError):
        pass
    return [data]


def inputs(args, spec, n: int) -> list[bytes]:
    if args.vanilla:
        items = read_vanilla_file(args.vanilla)
        return [items[i % len(items)] for i in range(n)]
    if spec is None or spec.generate_vanilla is None:
        raise BenchError(f"circuit {args.kind!r} has no built-in input generator: pass --vanilla FILE")
    return [spec.generate_vanilla() for _ in range(n)]


def address(args) -> str:
    if args.addr:
        return args.addr
    from cuzk.engine.config import EngineConfig

    return EngineConfig().listen_address()


def client_for(args):
    from cuzk.server.client import ProvingClient

    c = ProvingClient(address(args), token=getattr(args, "token", ""), tls_ca=getattr(args, "tls_ca", ""))
    try:
        c.wait_ready(10)
    except Exception:
        raise BenchError(f"no daemon answers at {c.address} (start one with `cuzk daemon`)") from None
    return c


def priority_value(name: str | None) -> int:
    return 0 if not name else PRIORITIES.index(name) + 1


def spec_lookup(cid: str):
    return {s.circuit_id: s for s in local_registry().specs()}.get(cid)


# ---- commands ----------------------------------------------------------------------------------


def cmd_single(args) -> int:
    cid, spec = resolve(args.kind, args.preset)
    v = inputs(args, spec, 1)[0]
    with client_for(args) as c:
        rec = Record(0, cid, submitted_at=time.monotonic())
        started = time.monotonic()
        r = c.prove(circuit_id=cid, vanilla_proof=v, priority=priority_value(args.priority), request_id=args.request_id)
        fill(rec, r)
        if spec is not None:
            from cuzk.engine.types import ProofRequest

            rec.public_inputs = spec.public_inputs(ProofRequest(circuit_id=cid, vanilla_proof=v))
        else:
            from cuzk.server.convert import public_inputs_from_proto

            rec.public_inputs = public_inputs_from_proto(r)
        if not args.no_verify:
            verify_records(c, [rec])
        trace = fetch_trace(c, started) if args.trace else ""
    write_trace(args.trace, trace)
    print("=== Proof Result ===")
    print(f"status: {rec.status}   job_id: {rec.job_id}   circuit: {cid}")
    if rec.status == "COMPLETED":
        t = rec.timings
        print(f"timings: total={t['total_ms']:.0f} ms (queue {t['queue_wait_ms']:.0f}, srs {t['srs_load_ms']:.0f}, "
              f"synth {t['synthesis_ms']:.0f}, prove {t['gpu_compute_ms']:.0f} ms)")
        print(f"wall time: {rec.wall_ms:.0f} ms")
        hexed = rec.proof.hex() if len(rec.proof) <= 256 else rec.proof[:128].hex() + "..."
        print(f"proof: {len(rec.proof)} bytes ({hexed})")
        print(f"verified: {'-' if rec.verified is None else ('yes' if rec.verified else 'NO')}")
    else:
        print(f"error: {rec.error}")
    write_json(args.json, {"command": "single", "record": rec.as_json()})
    return 0 if rec.status == "COMPLETED" and rec.verified is not False else 1


def cmd_batch(args) -> int:
    count = args.count or 4
    if args.compare or args.compare_gpus:
        from .bench_compare import run_compare

        return run_compare(args, count, gpus=args.compare_gpus)
    cid, spec = resolve(args.kind, args.preset)
    vs = inputs(args, spec, count)
    with client_for(args) as c:
        print(f"batch: {count} x {cid} at {c.address}")
        started = time.monotonic()
        recs, wall = run_jobs(c, [(cid, v, priority_value(args.priority)) for v in vs], "batch", spec_lookup)
        trace = fetch_trace(c, started) if args.trace else ""
        if not args.no_verify:
            verify_records(c, recs)
        summary = summarize(recs, wall, c.status())
    write_trace(args.trace, trace)
    print_records(recs)
    print_summary(summary)
    write_json(args.json, {"command": "batch", "circuit_id": cid, "summary": summary,
                           "records": [r.as_json() for r in recs]})
    return 0 if summary["failed"] == 0 and summary["unverified"] == 0 else 1


def cmd_stress(args) -> int:
    from cuzk.proto import proving_pb2 as pb

    kinds = [k.strip() for k in args.kind.split(",") if k.strip()]
    circuits = [resolve(k, args.preset) for k in kinds]
    limit = args.count or None
    with client_for(args) as c:
        print(f"stress: {', '.join(cid for cid, _ in circuits)}; {args.concurrency} in flight; "
              f"{args.duration:.0f} s" + (f" or {limit} jobs" if limit else ""))
        inflight: dict = {}
        recs: list[Record] = []
        progress = Progress(limit, "stress")
        t0 = time.monotonic()
        n = 0
        while True:
            now = time.monotonic()
            accepting = now - t0 < args.duration and (limit is None or n < limit)
            while accepting and len(inflight) < args.concurrency and (limit is None or n < limit):
                cid, spec = circuits[n % len(circuits)]
                v = inputs(args, spec, 1)[0]
                rec = Record(n, cid, submitted_at=time.monotonic())
                rec.job_id = c.submit(circuit_id=cid, vanilla_proof=v, priority=priority_value(args.priority)).job_id
                if spec is not None:
                    from cuzk.engine.types import ProofRequest

                    rec.public_inputs = spec.public_inputs(ProofRequest(circuit_id=cid, vanilla_proof=v))
                inflight[rec.job_id] = (rec, c.stub.AwaitProof.future(pb.AwaitProofRequest(job_id=rec.job_id)))
                recs.append(rec)
                n += 1
            for job_id, (rec, fut) in list(inflight.items()):
                if fut.done():
                    fill(rec, fut.result())
                    del inflight[job_id]
            failed = sum(1 for r in recs if r.status and r.status != "COMPLETED")
            progress.update(len(recs) - len(inflight), failed, len(inflight))
            if not accepting and not inflight:
                break
            time.sleep(0.05)
        progress.close()
        wall = time.monotonic() - t0
        trace = fetch_trace(c, t0) if args.trace else ""
        if not args.no_verify:
            verify_records(c, recs)
        summary = summarize(recs, wall, c.status())
    write_trace(args.trace, trace)
    by_kind = {}
    for cid, _ in circuits:
        rs = [r for r in recs if r.circuit_id == cid and r.status == "COMPLETED"]
        tot = sorted(r.timings["total_ms"] for r in rs)
        by_kind[cid] = {"completed": len(rs), "p50_total_ms": _pct(tot, 50), "p95_total_ms": _pct(tot, 95),
                        "max_total_ms": tot[-1] if tot else 0.0}
    from cuzk.bench.report import print_table

    print_table([{"circuit": k, **{kk: (str(vv) if isinstance(vv, int) else vv) for kk, vv in v.items()}}
                 for k, v in by_kind.items()],
                [("circuit", "circuit"), ("completed", "completed"), ("p50_total_ms", "p50 total ms"),
                 ("p95_total_ms", "p95 total ms"), ("max_total_ms", "max total ms")])
    print_summary(summary)
    write_json(args.json, {"command": "stress", "summary": summary, "by_circuit": by_kind,
                           "records": [r.as_json() for r in recs]})
    return 0 if summary["failed"] == 0 and summary["unverified"] == 0 else 1


def _pct(sorted_vals, p) -> float:
    if not sorted_vals:
        return 0.0
    k = min(len(sorted_vals) - 1, max(0, int(round(p / 100 * (len(sorted_vals) - 1)))))
    return sorted_vals[k]


def cmd_status(args) -> int:
    from cuzk.proto import proving_pb2 as pb

    with client_for(args) as c:
        s = c.status()
    print(f"uptime {s.uptime_seconds} s; proofs completed {s.total_proofs_completed}, failed {s.total_proofs_failed}, "
          f"cancelled {s.total_proofs_cancelled}{'; PAUSED' if s.paused else ''}{'; DRAINING' if s.draining else ''}")
    print(f"memory {s.memory_used_bytes / 2**20:.1f} / {s.memory_limit_bytes / 2**20:.0f} MiB (peak "
          f"{s.memory_peak_bytes / 2**20:.1f}); hot parameters {s.pinned_memory_bytes / 2**20:.1f} MiB; "
          f"daemon RSS {s.rss_bytes / 2**20:.0f} MiB (peak {s.peak_rss_bytes / 2**20:.0f})")
    for g in s.gpus:
        busy = f"proving {g.current_proof_kind} ({g.current_job_id[:8]})" if g.current_job_id else "idle"
        vram = f" - {g.vram_total_bytes >> 20} MiB VRAM" if g.vram_total_bytes else ""
        print(f"  [{g.ordinal}] {g.name}{vram} - {g.busy_workers}/{g.workers} workers busy - {busy}")
    for x in s.loaded_srs:
        print(f"  srs {x.circuit_id:<24} {pb.SRSStatus.Tier.Name(x.tier):<5} {x.size_bytes / 2**20:8.1f} MiB "
              f"refs {x.ref_count}")
    for q in s.queues:
        print(f"  queue {q.proof_kind:<13} pending {q.pending} (batching {q.batching}), in progress {q.in_progress}")
    return 0


def cmd_preload(args) -> int:
    cid, _ = resolve(args.kind, args.preset)
    with client_for(args) as c:
        r = c.preload(cid)
    print(f"{cid} already loaded" if r.already_loaded else f"{cid} loaded in {r.load_time_ms} ms")
    return 0


def cmd_gen_vanilla(args) -> int:
    cid, spec = resolve(args.kind, args.preset)
    if spec is None or spec.generate_vanilla is None:
        raise BenchError(f"circuit {cid!r} has no built-in input generator")
    if args.count < 1:
        raise BenchError("--count must be at least 1")
    t0 = time.perf_counter()
    items = [spec.generate_vanilla(None if args.seed is None else args.seed + i) for i in range(args.count)]
    data = items[0] if args.count == 1 else json.dumps([base64.b64encode(x).decode() for x in items]).encode()
    try:
        with open(args.out, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise BenchError(f"{args.out}: {exc.strerror or exc}") from None
    what = "a raw vanilla proof" if args.count == 1 else f"{args.count} vanilla proofs (JSON, base64)"
    print(f"wrote {args.out}: {what} for {cid} ({spec.num_partitions} partition(s)), {len(data):,} bytes in "
          f"{time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return 0
