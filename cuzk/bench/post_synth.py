"""`cuzk bench synth --kind window-post|winning-post --sector-size S`: a Filecoin PoSt partition's synthesis.

A request shaped as Curio sends it (random sectors, `--sectors` of them, a full
partition by default: 2349 at 32 GiB) is decoded and checked as at submit, then
the partition's witness is computed as a prover does (into one reused buffer
after a first call), with the time per phase: the slots' Poseidon hashes, the
insertion picks and bits, copying aux into place, stamping, assembling w. The
constraint rate is over the process's cores (CPU seconds) and over the wall.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np


def run(kind: str, size: str, sectors: int | None = None, repeat: int = 1, seed: int = 1,
        json_path: str | None = None, out=None) -> dict:
    from cuzk.circuits.filecoin import post_kind
    from cuzk.circuits.filecoin.post_circuit import counts
    from cuzk.circuits.filecoin.registered_proofs import SECTOR_SIZES, post_config_for
    from cuzk.formats.filecoin.post_request import sample_request
    from cuzk.formats.filecoin.post_vanilla import load_partition
    from cuzk.r1cs.witness_phases import collect

    from .synth import _peak_rss, _phase_record, _threads

    out = out or sys.stdout
    cfg = post_config_for(kind, SECTOR_SIZES[size])
    n = counts(cfg)
    say = lambda s: print(s, file=out, flush=True)  # noqa: E731
    say(f"cuzk bench synth: {post_kind.circuit_id(cfg)}, {n.constraints:,} constraints, "
        f"{n.aux + n.inputs:,} variables, {_threads()} kernel threads, {os.cpu_count()} cores")
    t0 = time.perf_counter()
    fields = sample_request(cfg, seed, sectors=sectors or cfg.sectors_per_partition)
    gen_s = time.perf_counter() - t0
    real = len(fields["vanilla_proofs"])
    say(f"  request: {real} sector proof(s), {sum(map(len, fields['vanilla_proofs'])):,} bytes "
        f"(generated in {gen_s:.1f} s)")
    t0, c0 = time.perf_counter(), time.process_time()
    slots = load_partition(cfg, fields["vanilla_proofs"], fields["randomness"], 0)
    parse_s, parse_cpu = time.perf_counter() - t0, time.process_time() - c0
    say(f"  decode + check (as at submit): {parse_s:.2f} s wall, {parse_cpu:.2f} s CPU")
    t0, c0 = time.perf_counter(), time.process_time()
    w, _ = post_kind.witness(cfg, slots)
    first_s, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    buf = np.empty_like(w)
    buf.fill(0)
    del w
    say(f"  first witness (template recorded, kernels loaded): {first_s:.1f} s")
    runs = []
    for _ in range(max(1, repeat)):
        with collect() as times:
            t0, c0 = time.perf_counter(), time.process_time()
            post_kind.witness(cfg, slots, out=buf)
            runs.append((time.perf_counter() - t0, time.process_time() - c0, times))
    runs.sort(key=lambda r: r[0])
    wall, cpu, times = runs[len(runs) // 2]
    rec = {
        "circuit": post_kind.circuit_id(cfg), "constraints": n.constraints, "variables": n.aux + n.inputs,
        "sectors": real, "slots": cfg.sectors_per_partition, "threads": _threads(), "cores": os.cpu_count(),
        "request_gen_s": gen_s, "parse_s": parse_s, "parse_cpu_s": parse_cpu,
        "first_witness_s": first_s, "first_witness_cpu_s": first_cpu, "witness_s": wall, "witness_cpu_s": cpu,
        "rate_wall": n.constraints / wall, "rate_cpu": n.constraints / max(cpu, 1e-9),
        "peak_rss_bytes": _peak_rss(), "phases": _phase_record(times),
    }
    say(f"  witness: {wall:.2f} s wall, {cpu:.2f} s CPU: {rec['rate_wall'] / 1e6:.2f} M constraints/s "
        f"({rec['rate_cpu'] / 1e6:.2f} M per CPU second); peak RSS {rec['peak_rss_bytes'] / 2**30:.1f} GiB")
    say(f"  {'phase':<40} {'wall s':>8} {'CPU s':>8} {'calls':>6}")
    for name, ph in sorted(rec["phases"].items(), key=lambda kv: -kv[1]["wall_s"]):
        say(f"  {name:<40} {ph['wall_s']:>8.2f} {ph['cpu_s']:>8.2f} {ph['calls']:>6}")
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(rec, fh, indent=1)
    return rec
