"""`cuzk bench synth --kind window-post|winning-post|porep|snap --sector-size S`: one partition's
synthesis of a Filecoin circuit, as the daemon synthesizes it.

A request shaped as Curio sends it (random sectors: PoSt `--sectors` of them, a full partition by
default, 2349 at 32 GiB; PoRep a generated C1 output; SnapDeals generated partition proofs) is
decoded and checked as at submit, then partition 0's witness is computed as a prover does (into
one reused buffer after a first call), with the time per phase (the circuit's Poseidon and
SHA-256 kernels, stamping, assembling w). The constraint rate is over the process's cores (CPU
seconds) and over the wall, and a sector's partitions are projected onto a 16-core machine.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from cuzk.circuits.filecoin import kinds as provable
from cuzk.engine.types import ProofRequest
from cuzk.circuits.filecoin.post.request import sample_request
from cuzk.r1cs.witness_phases import collect

from .circuit_inputs import resolve
from .filecoin_params import config_of
from .synth import _peak_rss, _phase_record, _threads

SECTOR_CORES = 16  # the GPU machine's cores, for the per-sector projection


def _request(spec, cfg, kind: str, seed: int, sectors: int | None) -> dict:
    if kind in ("window-post", "winning-post"):
        return sample_request(cfg, seed, sectors=sectors or cfg.sectors_per_partition)
    return spec.sample_request(seed)


def run(kind: str, size: str, sectors: int | None = None, repeat: int = 1, seed: int = 1,
        json_path: str | None = None, out=None) -> dict:
    out = out or sys.stdout
    cid, spec = resolve(kind, size)
    cfg = config_of(spec)
    n = provable.counts(cfg)
    say = lambda s: print(s, file=out, flush=True)  # noqa: E731
    say(f"cuzk bench synth: {cid}, {n.constraints:,} constraints, {n.aux + n.inputs:,} variables, "
        f"{spec.num_partitions} partition(s) a sector; {_threads()} kernel threads, {os.cpu_count()} cores")
    t0 = time.perf_counter()
    fields = _request(spec, cfg, kind, seed, sectors)
    gen_s = time.perf_counter() - t0
    proofs = fields.get("vanilla_proofs") or [fields["vanilla_proof"]]
    say(f"  request: {len(proofs)} vanilla proof(s), {sum(map(len, proofs)):,} bytes (generated in {gen_s:.1f} s)")
    t0, c0 = time.perf_counter(), time.process_time()
    parsed = spec.check(ProofRequest(**fields))
    parse_s, parse_cpu = time.perf_counter() - t0, time.process_time() - c0
    say(f"  decode + check (as at submit): {parse_s:.2f} s wall, {parse_cpu:.2f} s CPU")
    t0, c0 = time.perf_counter(), time.process_time()
    w = spec.witness(parsed, 0).w
    first_s, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    buf = np.empty_like(w)
    buf.fill(0)
    del w
    say(f"  first witness (templates recorded, kernels loaded): {first_s:.1f} s")
    runs = []
    for _ in range(max(1, repeat)):
        with collect() as times:
            t0, c0 = time.perf_counter(), time.process_time()
            spec.witness(parsed, 0, out=buf)
            runs.append((time.perf_counter() - t0, time.process_time() - c0, times))
    runs.sort(key=lambda r: r[0])
    wall, cpu, times = runs[len(runs) // 2]
    rec = {
        "circuit": cid, "constraints": n.constraints, "variables": n.aux + n.inputs, "vanilla_proofs": len(proofs),
        "partitions": spec.num_partitions, "threads": _threads(), "cores": os.cpu_count(),
        "request_gen_s": gen_s, "parse_s": parse_s, "parse_cpu_s": parse_cpu,
        "first_witness_s": first_s, "first_witness_cpu_s": first_cpu, "witness_s": wall, "witness_cpu_s": cpu,
        "rate_wall": n.constraints / wall, "rate_cpu": n.constraints / max(cpu, 1e-9),
        "peak_rss_bytes": _peak_rss(), "phases": _phase_record(times),
    }
    if kind in ("window-post", "winning-post"):
        rec.update(sectors=len(proofs), slots=cfg.sectors_per_partition)
    say(f"  witness: {wall:.2f} s wall, {cpu:.2f} s CPU: {rec['rate_wall'] / 1e6:.2f} M constraints/s "
        f"({rec['rate_cpu'] / 1e6:.2f} M per CPU second); peak RSS {rec['peak_rss_bytes'] / 2**30:.1f} GiB")
    say(f"  {'phase':<40} {'wall s':>8} {'CPU s':>8} {'calls':>6}")
    for name, ph in sorted(rec["phases"].items(), key=lambda kv: -kv[1]["wall_s"]):
        say(f"  {name:<40} {ph['wall_s']:>8.2f} {ph['cpu_s']:>8.2f} {ph['calls']:>6}")
    sector_cpu = spec.num_partitions * cpu
    say(f"  per sector ({spec.num_partitions} partition(s)): {sector_cpu:.1f} CPU-s of witness synthesis; on "
        f"{SECTOR_CORES} cores, partitions in parallel: {sector_cpu / SECTOR_CORES:.2f} s if the per-core rate holds")
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(rec, fh, indent=1)
    return rec
