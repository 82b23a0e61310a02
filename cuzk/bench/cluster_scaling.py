"""Scaling benchmark: the same batch of proofs through the cluster front on 1, 2, 3... nodes.

    python -m cuzk.bench.cluster_scaling --nodes 1 2 3 --count 24 --circuit window-post-2KiB

Each run starts a local Ray cluster of N simulated nodes on this machine
(cuzk.cluster.local: 127.0.0.1, one CPU each, the CPU backend with one
kernel thread per node), makes the parameters once (untimed; for Filecoin's
PoSt circuits TEST parameters, as `cuzk setup --kind` makes them), proves
one warm-up job per node (untimed: kernels load, parameters go hot), then
submits the batch at once and times it to the last proof. Simulated nodes
share this machine's cores, so the ratio to one node is bounded by the
cores there are, not by the front.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import sys
import tempfile
import time

from pathlib import Path

from cuzk.cluster import ClusterOptions
from cuzk.cluster.front import ClusterEngine
from cuzk.cluster.local import local_cluster
from cuzk.engine import EngineConfig, JobState, ProofRequest

from . import filecoin_params
from .circuit_inputs import has_generator, spec_lookup


def run(nodes: int, count: int, circuit: str, param_dir: str) -> dict:
    spec = spec_lookup(circuit)
    cfg = EngineConfig()
    cfg.srs.param_cache = param_dir
    if filecoin_params.is_filecoin(spec):
        cfg.circuits.filecoin_params = str(filecoin_params.ensure(Path(param_dir) / "filecoin", [spec]))
    else:
        cfg.circuits.synthetic = spec.family == "synthetic"
    cfg.gpus.backend = "cpu"
    cfg.gpus.gpu_threads = 1
    cfg.synthesis.threads = 1
    cfg.memory.total_budget = "2GiB"
    cfg.logging.level = "warning"
    batch = [spec.sample_request() for _ in range(count)]
    with tempfile.TemporaryDirectory(prefix="cuzk-scaling-") as state, \
            tempfile.TemporaryDirectory(prefix="cuzk-ray-") as ray_tmp, local_cluster(nodes, temp_dir=ray_tmp):
        cfg.daemon.state_dir = state
        front = ClusterEngine(cfg, options=ClusterOptions(log_to_driver=False)).start()
        try:
            names = front.wait_for_nodes(nodes, 600)
            front.preload(circuit)
            front.pause()
            warm = [front.submit(ProofRequest(circuit_id=circuit, **batch[0])).job_id for _ in names]
            front.pause(False)
            for j in warm:
                assert front.await_job(j, 600).state == JobState.COMPLETED
            front.pause()
            ids = [front.submit(ProofRequest(circuit_id=circuit, **fields)).job_id for fields in batch]
            t0 = time.perf_counter()
            front.pause(False)
            results = [front.await_job(j, 3600) for j in ids]
            wall = time.perf_counter() - t0
            failed = [r.error for r in results if r.state != JobState.COMPLETED]
            if failed:
                raise RuntimeError(f"{len(failed)} proof(s) failed: {failed[0]}")
            per_node = collections.Counter(front.node_of(j) for j in ids)
            prove_ms = sum(r.timings.prove_ms for r in results) / count
        finally:
            front.shutdown(drain=False, timeout=30)
    return {"nodes": nodes, "proofs": count, "wall_s": wall, "proofs_per_s": count / wall,
            "mean_prove_ms": prove_ms, "per_node": sorted(per_node.values(), reverse=True)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m cuzk.bench.cluster_scaling",
                                description="Prove the same batch through the cluster front on 1, 2, 3... "
                                "simulated nodes (a local Ray cluster, CPU backend) and print throughput and the "
                                "ratio to one node.")
    p.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 3], help="cluster sizes (default 1 2 3)")
    p.add_argument("--count", type=int, default=24, help="proofs in the batch (default 24)")
    p.add_argument("--circuit", default="window-post-2KiB", help="circuit id of a built-in circuit (default "
                   "window-post-2KiB; others: winning-post-2KiB, snap-2KiB, synthetic-small, ...)")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args(argv)
    if args.count < 1 or any(n < 1 for n in args.nodes):
        p.error("--count and --nodes must be at least 1")
    spec = spec_lookup(args.circuit)
    if spec is None or not has_generator(spec):
        p.error(f"--circuit {args.circuit!r}: expected the id of a built-in circuit with an input generator, "
                "such as window-post-2KiB or synthetic-small")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    rows = []
    with tempfile.TemporaryDirectory(prefix="cuzk-params-") as params:
        for n in args.nodes:
            rows.append(run(n, args.count, args.circuit, params))
            print(f"{n} node(s): {rows[-1]['proofs_per_s']:.2f} proofs/s", file=sys.stderr)
    base = rows[0]["proofs_per_s"] / rows[0]["nodes"] if rows[0]["nodes"] == 1 else None
    print(f"{args.count} x {args.circuit}; {os.cpu_count()} cores, {platform.processor() or platform.machine()}")
    print("| nodes | wall (s) | proofs/s | vs 1 node | proofs per node | mean prove (ms) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r['proofs_per_s'] / base:.2f}x" if base else "-"
        print(f"| {r['nodes']} | {r['wall_s']:.1f} | {r['proofs_per_s']:.2f} | {ratio} | "
              f"{'/'.join(map(str, r['per_node']))} | {r['mean_prove_ms']:.0f} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"circuit": args.circuit, "rows": rows, "cpu_count": os.cpu_count()}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
