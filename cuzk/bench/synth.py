"""Synthesis benchmark: recording/compiling, witness and SpMV (a, b, c) times.

Two plans:

* default (issue 3): stamped SHA-256 compressions and Poseidon (arity 8)
  hashes at about 2^16 and 2^20 constraints;
* `kinds`: the workload circuits (`cuzk.circuits`) at a preset, per
  partition: the witness's wall and CPU seconds, core-seconds, constraints
  per core-second, peak RSS and where its time goes (`r1cs.witness_phases`),
  into new arrays and into a reused buffer; then (unless witness-only) the
  record/compile, host SpMV and satisfaction figures.

Synthesis = witness + SpMV, the per-proof CPU work. The machine may be
shared, so every phase reports wall time and process CPU time (all
threads); rates per core are given both ways: constraints / (wall x
threads) and constraints / CPU-second. Wall figures are medians of
`repeat` runs after one untimed warm-up.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable

import numba
import numpy as np

from cuzk.circuits import get_kind
from cuzk.field import fields_of
from cuzk.formats.vanilla import generate_vanilla, parse_vanilla
from cuzk.gadgets.poseidon.stamped import hash_template, hash_witness
from cuzk.gadgets.sha256.stamped import compression_template, compression_witness, interface_bits
from cuzk.r1cs import RecordingCS, WitnessCS, evaluate
from cuzk.r1cs.evaluation import value_fractions

from .report import print_table, write_json

CURVE = "bls12_381"
COLUMNS = [
    ("circuit", "circuit"), ("constraints", "constraints"), ("record_s", "record s"), ("compile_s", "compile s"),
    ("witness_s", "witness s"), ("spmv_s", "SpMV s"), ("synth_cpu_s", "synth CPU s"),
    ("witness_rate", "witness c/s"), ("spmv_rate", "SpMV c/s"), ("core_rate_wall", "synth c/s/core (wall)"),
    ("core_rate_cpu", "synth c/s/CPU-s"), ("bytes_per_constraint", "B/constraint"), ("fractions", "aux 0/1/other %"),
    ("satisfied", "sat"),
]


def _threads() -> int:
    return int(numba.get_num_threads())


def set_threads(n: int) -> None:
    """Kernel threads for this benchmark (0: numba's default, all cores)."""
    if n > 0:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def _timed(fn: Callable[[], object]):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _median_timed(fn, repeat: int):
    fn()  # warm-up: kernels compiled, templates recorded
    runs = [_timed(fn) for _ in range(max(1, repeat))]
    wall = statistics.median(r[1] for r in runs)
    cpu = statistics.median(r[2] for r in runs)
    return runs[-1][0], wall, cpu


def measure(name: str, record: Callable, witness: Callable, repeat: int = 3, extra: dict | None = None) -> dict:
    """record() -> RecordingCS (after synthesis); witness() -> w. Times both, compiles, runs SpMV."""
    cs, record_s, record_cpu = _timed(record)
    cc, compile_s, compile_cpu = _timed(cs.compile)
    del cs
    w, witness_s, witness_cpu = _median_timed(witness, repeat)
    abc, spmv_s, spmv_cpu = _median_timed(lambda: evaluate(cc, w), repeat)
    fr = cc.fr
    a, b, c = abc
    satisfied = bool(np.all(fr.mul(a, b) == c))
    zero, one, other = value_fractions(fr, w[cc.num_inputs :])
    n = cc.num_constraints
    threads = _threads()
    synth_s, synth_cpu = witness_s + spmv_s, witness_cpu + spmv_cpu
    rec = {
        "circuit": name, "curve": cc.curve, "constraints": n, "aux": cc.num_aux, "inputs": cc.num_inputs,
        "nnz": int(sum(m.nnz for m in cc.matrices)), "threads": threads,
        "record_s": record_s, "record_cpu_s": record_cpu, "compile_s": compile_s, "compile_cpu_s": compile_cpu,
        "witness_s": witness_s, "witness_cpu_s": witness_cpu, "spmv_s": spmv_s, "spmv_cpu_s": spmv_cpu,
        "synth_s": synth_s, "synth_cpu_s": synth_cpu,
        "record_rate": n / (record_s + compile_s), "witness_rate": n / witness_s, "spmv_rate": n / spmv_s,
        "core_rate_wall": n / (synth_s * threads), "core_rate_cpu": n / max(synth_cpu, 1e-9),
        "bytes_per_constraint": cc.bytes_per_constraint(),
        "zero_fraction": zero, "one_fraction": one, "other_fraction": other, "satisfied": satisfied,
    }
    rec.update(extra or {})
    return rec


# ---- default plan: stamped gadgets ---------------------------------------------------------------


def sha256_case(log2: int):
    g = compression_template(CURVE)
    n = max(1, ((1 << log2) - 1) // g.num_constraints)
    rng = np.random.default_rng(log2)
    state = rng.integers(0, 2**32, (n, 8), dtype=np.uint32)
    block = rng.integers(0, 2**32, (n, 16), dtype=np.uint32)
    bits = interface_bits(state, block)

    def record():
        cs = RecordingCS(CURVE)
        g.stamp(cs, cs.alloc_many(n * 768).reshape(n, 768))
        return cs

    def witness():
        cs = WitnessCS(CURVE)
        iface = cs.alloc_many(n * 768, bits.ravel()).reshape(n, 768)
        g.stamp(cs, iface, compression_witness(CURVE, state, block))
        return cs.witness()

    return f"sha256 compression x{n}", record, witness


def poseidon_case(log2: int, arity: int = 8):
    g = hash_template(CURVE, arity)
    n = max(1, ((1 << log2) - 1) // g.num_constraints)
    x = fields_of(CURVE)[0].random(n * arity, np.random.default_rng(log2)).reshape(n, arity, 4)

    def record():
        cs = RecordingCS(CURVE)
        g.stamp(cs, cs.alloc_many(n * arity).reshape(n, arity))
        return cs

    def witness():
        cs = WitnessCS(CURVE)
        iface = cs.alloc_many(n * arity, x.reshape(-1, 4)).reshape(n, arity)
        g.stamp(cs, iface, hash_witness(CURVE, x))
        return cs.witness()

    return f"poseidon{arity} hash x{n}", record, witness


def run_default(json_path: str | None = None, sizes=(16, 20), repeat: int = 3, out=None) -> list[dict]:
    out = out or sys.stdout
    print(f"cuzk bench synth: stamped SHA-256 / Poseidon, {_threads()} threads, median of {repeat}", file=out)
    records = []
    for log2 in sizes:
        for case in (sha256_case, poseidon_case):
            name, record, witness = case(log2)
            rec = measure(name, record, witness, repeat, {"target_log2": log2})
            records.append(rec)
            _progress(rec, out)
    _report(records, json_path, out)
    return records


# ---- workload kinds ---------------------------------------------------------------------------

WITNESS_COLUMNS = [
    ("circuit", "circuit"), ("partition", "part"), ("constraints", "constraints"), ("threads", "threads"),
    ("first_s", "first s"), ("witness_s", "wall s"), ("witness_cpu_s", "CPU s"), ("core_s", "core-s"),
    ("reuse_s", "wall s (buffer)"), ("reuse_cpu_s", "CPU s (buffer)"), ("rate_cpu", "c/CPU-s"),
    ("rate_core", "c/core-s"), ("peak_rss", "peak RSS"), ("bytes_per_constraint_w", "B/c"),
]
SECTOR_CORES = 16  # the GPU machine's cores, for the per-sector projection


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _witness_runs(fn, repeat: int):
    """Median (wall, CPU) of `repeat` runs of fn() under a phase collector, and the phases of the median run."""
    from cuzk.r1cs.witness_phases import collect

    runs = []
    for _ in range(max(1, repeat)):
        with collect() as times:
            _, wall, cpu = _timed(fn)
        runs.append((wall, cpu, times))
    runs.sort(key=lambda r: r[0])
    return runs[len(runs) // 2]


def measure_witness(kind, preset: str, parsed, p: int, repeat: int = 3) -> dict:
    """One partition's witness: first call (templates recorded, kernels loaded), then
    `repeat` timed calls into new arrays and `repeat` into one reused buffer (what a
    prover's staging buffer gives: no page faults), with the phase breakdown."""
    w, first_s, first_cpu = _timed(lambda: kind.witness(preset, parsed, p)[0])
    n_vars = len(w)
    del w
    fresh_wall, fresh_cpu, fresh_phases = _witness_runs(lambda: kind.witness(preset, parsed, p), repeat)
    buf = np.empty((n_vars, 4), dtype=np.uint64)
    buf.fill(0)  # touched once, like a staging buffer (np.zeros maps pages lazily)
    reuse_wall, reuse_cpu, phases = _witness_runs(lambda: kind.witness(preset, parsed, p, out=buf), repeat)
    del buf
    counts = kind.counts(preset)
    n = counts.constraints
    threads = _threads()
    best_cpu = min(fresh_cpu, reuse_cpu)
    return {
        "circuit": kind.circuit_id(preset), "kind": kind.name, "preset": preset, "partition": p,
        "constraints": n, "vars": n_vars, "threads": threads,
        "first_s": first_s, "first_cpu_s": first_cpu,
        "witness_s": fresh_wall, "witness_cpu_s": fresh_cpu, "core_s": fresh_wall * threads,
        "reuse_s": reuse_wall, "reuse_cpu_s": reuse_cpu, "reuse_core_s": reuse_wall * threads,
        "rate_cpu": n / max(best_cpu, 1e-9), "rate_core": n / max(min(fresh_wall, reuse_wall) * threads, 1e-9),
        "peak_rss_bytes": _peak_rss(), "bytes_per_constraint_w": 32 * n_vars / n,
        "phases": _phase_record(phases), "phases_new_array": _phase_record(fresh_phases),
        "partitions": kind.partitions,
    }


def _phase_record(times) -> dict:
    return {k: {"wall_s": w, "cpu_s": c, "calls": times.calls[k]} for k, (w, c) in times.exclusive().items()}


def run_kinds(kinds, preset: str, json_path: str | None = None, repeat: int = 3, seed: int = 1,
              out=None, witness_only: bool = False, partitions=(0,)) -> list[dict]:
    """Per kind and partition: the witness (wall, CPU, core-seconds, rate, peak RSS,
    phases), then unless witness_only the record/compile/SpMV/satisfaction figures."""
    out = out or sys.stdout
    print(f"cuzk bench synth: preset {preset}, {_threads()} kernel threads, median of {repeat}", file=out)
    records = []
    for name in kinds:
        kind = get_kind(name)
        counts, templates_s, _ = _timed(lambda: kind.counts(preset))  # records the templates (once per process)
        vanilla, gen_s, gen_cpu = _timed(lambda: generate_vanilla(kind, preset, seed))
        parsed = parse_vanilla(kind, preset, vanilla)
        print(f"  {kind.circuit_id(preset)}: {counts.constraints:,} constraints/partition, vanilla proof "
              f"{len(vanilla):,} bytes in {gen_s:.2f} s; templates recorded in {templates_s:.2f} s", file=out,
              flush=True)
        for p in partitions:
            rec = measure_witness(kind, preset, parsed, p, repeat)
            rec.update({"vanilla_bytes": len(vanilla), "vanilla_gen_s": gen_s, "vanilla_gen_cpu_s": gen_cpu,
                        "templates_s": templates_s, "domain_log2": counts.domain_log2})
            if not witness_only:
                rec.update(_circuit_figures(kind, preset, parsed, p, repeat, counts))
            records.append(rec)
            _witness_progress(rec, out)
    _witness_report(records, json_path, out, witness_only)
    return records


def _circuit_figures(kind, preset, parsed, p, repeat, counts) -> dict:
    """Record + compile + SpMV + satisfaction of partition p (the CPU path the engine skips on GPUs)."""
    def record():
        cs = RecordingCS(CURVE)
        kind.synthesize(cs, preset)
        return cs

    rec = measure(kind.circuit_id(preset), record, lambda: kind.witness(preset, parsed, p)[0], repeat)
    keep = ("record_s", "compile_s", "spmv_s", "spmv_cpu_s", "spmv_rate", "satisfied", "nnz", "aux", "inputs",
            "zero_fraction", "one_fraction", "other_fraction", "bytes_per_constraint")
    out = {k: rec[k] for k in keep}
    out["counts_match"] = rec["constraints"] == counts.constraints
    return out


# ---- output ------------------------------------------------------------------------------------


def _progress(rec: dict, out) -> None:
    print(f"  {rec['circuit']:<28} {rec['constraints']:>11,} constraints  witness {rec['witness_s']:.3f} s  "
          f"SpMV {rec['spmv_s']:.3f} s  {rec['core_rate_wall'] / 1e3:,.0f}K c/s/core (wall), "
          f"{rec['core_rate_cpu'] / 1e3:,.0f}K c/CPU-s", file=out, flush=True)


def _gb(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def _witness_progress(rec: dict, out) -> None:
    print(f"  partition {rec['partition']}: witness {rec['witness_s']:.3f} s wall ({rec['witness_cpu_s']:.3f} CPU-s), "
          f"into a reused buffer {rec['reuse_s']:.3f} s ({rec['reuse_cpu_s']:.3f} CPU-s); "
          f"{rec['rate_cpu'] / 1e6:.2f}M c/CPU-s; peak RSS {_gb(rec['peak_rss_bytes'])}", file=out, flush=True)


def _witness_report(records: list[dict], json_path: str | None, out, witness_only: bool) -> None:
    rows = []
    for r in records:
        row = dict(r)
        for k in ("first_s", "witness_s", "witness_cpu_s", "core_s", "reuse_s", "reuse_cpu_s"):
            row[k] = f"{r[k]:.3f}"
        for k in ("rate_cpu", "rate_core"):
            row[k] = f"{r[k] / 1e6:.2f}M"
        row["constraints"] = f"{r['constraints']:,}"
        row["peak_rss"] = _gb(r["peak_rss_bytes"])
        row["bytes_per_constraint_w"] = f"{r['bytes_per_constraint_w']:.1f}"
        rows.append(row)
    print(file=out)
    print_table(rows, WITNESS_COLUMNS, out=out)
    print("\nfirst: the process's first witness of this shape (templates recorded, kernels loaded); wall/CPU s: "
          "median, into a new array; (buffer): into one reused buffer (no page faults, what a staging buffer "
          "gives); core-s = threads x wall; c/CPU-s: constraints per second of process CPU time (best of the "
          "two); c/core-s: per thread-second of wall; peak RSS: the process's so far", file=out)
    for r in records:
        print(f"\nwhere the time goes, {r['circuit']} partition {r['partition']} (into the buffer; "
              f"exclusive of nested phases):", file=out)
        total = sum(v["cpu_s"] for v in r["phases"].values()) or 1e-9
        prow = [{"phase": k, "calls": f"{v['calls']:,}", "wall": f"{v['wall_s']:.3f}", "cpu": f"{v['cpu_s']:.3f}",
                 "share": f"{100 * v['cpu_s'] / total:.0f}%",
                 "new_wall": f"{r['phases_new_array'].get(k, {}).get('wall_s', 0):.3f}"}
                for k, v in sorted(r["phases"].items(), key=lambda kv: -kv[1]["cpu_s"])]
        print_table(prow, [("phase", "phase"), ("calls", "calls"), ("wall", "wall s"), ("cpu", "CPU s"),
                           ("share", "CPU share"), ("new_wall", "wall s (new array)")], out=out)
        sector_core_s = r["partitions"] * min(r["witness_cpu_s"], r["reuse_cpu_s"])
        print(f"per sector ({r['partitions']} partitions): {sector_core_s:.1f} CPU-s of witness synthesis; "
              f"on {SECTOR_CORES} cores, partitions in parallel: {sector_core_s / SECTOR_CORES:.2f} s if the "
              f"per-core rate holds", file=out)
        if not witness_only:
            print(f"circuit: record {r['record_s']:.2f} s, compile {r['compile_s']:.2f} s, host SpMV "
                  f"{r['spmv_s']:.3f} s ({r['spmv_rate'] / 1e6:.2f}M c/s), satisfied: "
                  f"{'yes' if r['satisfied'] else 'NO'}, analytic count "
                  f"{'matches' if r['counts_match'] else 'DIFFERS'}", file=out)
    write_json(json_path, records)


def _report(records: list[dict], json_path: str | None, out) -> None:
    rows = []
    for r in records:
        row = dict(r)
        for k in ("record_s", "compile_s", "witness_s", "spmv_s", "synth_cpu_s"):
            row[k] = f"{r[k]:.3f}"
        for k in ("witness_rate", "spmv_rate", "core_rate_wall", "core_rate_cpu"):
            row[k] = f"{r[k] / 1e3:,.0f}K"
        row["constraints"] = f"{r['constraints']:,}"
        row["bytes_per_constraint"] = f"{r['bytes_per_constraint']:.1f}"
        row["fractions"] = f"{100 * r['zero_fraction']:.1f}/{100 * r['one_fraction']:.1f}/{100 * r['other_fraction']:.1f}"
        row["satisfied"] = "yes" if r["satisfied"] else "NO"
        rows.append(row)
    print(file=out)
    print_table(rows, COLUMNS, out=out)
    print("\nrates: c/s = constraints per second of wall time; per core = / threads; c/CPU-s = per second of "
          "process CPU time (all threads), which is what a core delivers when the machine is shared", file=out)
    write_json(json_path, records)
