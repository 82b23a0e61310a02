"""`cuzk bench single|batch|stress|status|preload`: drive a running daemon.

    cuzk bench single  --kind winning-post --preset 2KiB
    cuzk bench batch   --kind snap --preset 2KiB --count 8
    cuzk bench stress  --kind winning-post,window-post --duration 60 --concurrency 4
    cuzk bench status | preload --kind K

--addr unix:PATH or host:port (default: the default daemon socket, or $CUZK_ADDR):
daemon_connection; --kind and the inputs: circuit_inputs. Every proof is verified with the
daemon's verifying key unless --no-verify; timings per phase come from the
daemon; throughput counts completed proofs per minute of wall time.
`batch --compare` starts its own daemons (pipeline_compare).
"""

from __future__ import annotations

import time

from cuzk.engine.types import Priority
from cuzk.proto import proving_pb2 as pb
from cuzk.server.convert import public_inputs_from_proto

from .circuit_inputs import inputs, resolve, spec_lookup
from .daemon_connection import client_for
from .daemon_jobs import (Progress, Record, expected_public_inputs, fill, print_records, print_summary, run_jobs,
                          summarize, verify_records, write_json)
from .report import print_table
from .run_trace import fetch_trace, write_trace


def priority_value(name: str | None) -> int:
    """--priority low|normal|high|critical; none: 0, the kind's own."""
    return Priority[name.upper()] if name else Priority.UNSPECIFIED


def single(args) -> int:
    cid, spec = resolve(args.kind, args.preset)
    fields = inputs(args, spec, 1)[0]
    with client_for(args) as c:
        rec = Record(0, cid, submitted_at=time.monotonic())
        started = time.monotonic()
        r = c.prove(circuit_id=cid, priority=priority_value(args.priority), request_id=args.request_id, **fields)
        fill(rec, r)
        rec.public_inputs = (expected_public_inputs(spec, cid, fields) if spec is not None
                             else public_inputs_from_proto(r))
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


def batch(args) -> int:
    count = args.count or 4
    cid, spec = resolve(args.kind, args.preset)
    vs = inputs(args, spec, count)
    with client_for(args) as c:
        print(f"batch: {count} x {cid} at {c.address}")
        started = time.monotonic()
        recs, wall = run_jobs(c, [(cid, f, priority_value(args.priority)) for f in vs], "batch", spec_lookup)
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


def stress(args) -> int:
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
                fields = inputs(args, spec, 1)[0]
                rec = Record(n, cid, submitted_at=time.monotonic())
                rec.job_id = c.submit(circuit_id=cid, priority=priority_value(args.priority), **fields).job_id
                if spec is not None:
                    rec.public_inputs = expected_public_inputs(spec, cid, fields)
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


def status(args) -> int:
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


def preload(args) -> int:
    cid, _ = resolve(args.kind, args.preset)
    with client_for(args) as c:
        r = c.preload(cid)
    print(f"{cid} already loaded" if r.already_loaded else f"{cid} loaded in {r.load_time_ms} ms")
    return 0
