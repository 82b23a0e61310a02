"""Synthesis benchmark: recording/compiling, witness and SpMV (a, b, c) times.

Two plans:

* default (issue 3): stamped SHA-256 compressions and Poseidon (arity 8)
  hashes at about 2^16 and 2^20 constraints (here);
* with --kind: one partition of a Filecoin circuit (`filecoin_synth`, which
  shares this module's process figures).

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

from cuzk.field import fields_of
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


# ---- shared with filecoin_synth --------------------------------------------------------------------


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _phase_record(times) -> dict:
    return {k: {"wall_s": w, "cpu_s": c, "calls": times.calls[k]} for k, (w, c) in times.exclusive().items()}


# ---- output ------------------------------------------------------------------------------------


def _progress(rec: dict, out) -> None:
    print(f"  {rec['circuit']:<28} {rec['constraints']:>11,} constraints  witness {rec['witness_s']:.3f} s  "
          f"SpMV {rec['spmv_s']:.3f} s  {rec['core_rate_wall'] / 1e3:,.0f}K c/s/core (wall), "
          f"{rec['core_rate_cpu'] / 1e3:,.0f}K c/CPU-s", file=out, flush=True)


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
