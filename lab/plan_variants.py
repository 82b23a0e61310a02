"""One partition under the memory plan cuzk makes and under hand-made variants of it, side by side.

On an 80 GB card the plan keeps every base resident and splits H (the whole H, ~38 GiB at 2^27, does
not fit beside 44 GiB of bases): the split H then parks A's and C's vectors in host memory and brings
them back, ~310 ms of a 2138 ms partition on an H100 (lab/JOURNAL.md, 2026-12-08). The variant
"whole-h" keeps H whole and streams the fewest bases that make room for it (H's first: MSM H's
kernels are long enough to hide its upload), at the price of MSM H without a window table. Which is
faster is a measurement; this script makes it. Every variant's proof must equal the default plan's
(same r, s), and the default's verifies where the key is real.

    python lab/plan_variants.py --kind porep --sector-size 32GiB --backend cuda [--device-memory 79GiB]
    python lab/plan_variants.py --log-rows 16 --backend cpu --device-memory 160MiB   (the check on a CPU)

Per variant: the plan, the median time of --repeat proofs (after one warm-up), GPU phases, bytes moved.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.backend import memory_plan as mp  # noqa: E402
from cuzk.bench import prove as bench_prove  # noqa: E402
from cuzk.engine.resources.memory import parse_size  # noqa: E402
from cuzk.groth16 import prover  # noqa: E402

RS = (12345, 67890)


def whole_h(s: mp.ProofShape, p: mp.MemoryPlan, buckets: bool = True) -> mp.MemoryPlan | None:
    """`p` with H whole: bases leave residency in reverse ORDER (H's first) until whole H fits beside
    the rest; None where it cannot fit even with every base streamed."""
    budget = p.budget - p.budget // mp.RESERVE
    resident = [name for name in mp.ORDER if name in p.resident]
    chunk = min(mp.STREAM_TARGET, max(c * pb for c, pb in s.bases.values()))
    while True:
        used = sum(s.bases[k][0] * s.bases[k][1] for k in resident)
        streaming = len(resident) < len(s.bases)
        need = used + max(mp.whole_h_bytes(s), mp.msm_bytes(s, chunk, streaming, buckets, False))
        if need <= budget:
            return dataclasses.replace(p, resident=frozenset(resident), chunk_bytes=chunk, split_h=False,
                                       elementwise=s.n, matrices_resident=True, prefetch=False, table_room=0,
                                       park_witness=False)
        if not resident:
            return None
        resident.pop()


VARIANTS = {"whole-h": whole_h}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", help="porep or snap: partition 0 of Filecoin's circuit (else stamped SHA-256)")
    ap.add_argument("--sector-size", default="32GiB")
    ap.add_argument("--log-rows", type=int, default=16, help="without --kind: stamped SHA-256 rows (2^k)")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--device-memory", help="the budget (default: the card's)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()

    t = time.perf_counter()
    if args.kind:
        cc, w, what = (bench_prove.porep_partition if args.kind == "porep" else bench_prove.snap_partition)(
            args.sector_size, 1)
    else:
        cc, w, what = bench_prove.stamped_sha256(args.log_rows)
    pk = bench_prove.random_key(cc)
    print(f"{what}: {cc.num_rows} rows, {cc.num_vars} variables; circuit, witness and key in "
          f"{time.perf_counter() - t:.1f} s", flush=True)
    limit = parse_size(args.device_memory) if args.device_memory else None
    reference = None
    for name in ["default"] + [v for v in args.variants.split(",") if v]:
        bench_prove._release_device(args.backend)
        backend = bench_prove._backend(args.backend, "pinned" if args.backend == "cuda" else "pageable", limit)
        base = backend.prepare(pk, cc)
        if base is None:
            print(f"{name}: no plan (a backend without a budget): give --device-memory")
            return 2
        plan = base if name == "default" else VARIANTS[name](mp.shape_of(pk, cc), base,
                                                              backend.plan_limits().get("buckets", True))
        if plan is None:
            print(f"{name}: does not fit {base.budget / 2**30:.2f} GiB")
            continue
        backend._plans[(id(pk), id(cc))] = (pk, plan)  # the plan every proof of this key now follows
        backend.prepare(pk, cc)
        wi = backend.host_array(w.shape, w.dtype) if args.backend == "cuda" else w
        wi[...] = w
        runs = []
        for _ in range(args.repeat + 1):
            t = time.perf_counter()
            proof = prover.prove_batch(pk, [prover.ProofJob(wi, circuit=cc)], backend, rs=[RS])[0]
            runs.append(((time.perf_counter() - t) * 1e3, proof))
        timed = runs[1:]
        same = ""
        if reference is None:
            reference = proof
        else:
            equal = all(np.array_equal(getattr(proof, k), getattr(reference, k)) for k in "abc")
            same = "; proof equal to the default's" if equal else "; PROOF DIFFERS FROM THE DEFAULT'S"
        gpu = {k[4:]: statistics.median(p.timings.get(k, 0.0) for _, p in timed)
               for k in proof.timings if k.startswith("gpu:") and k.count("/") <= 1}
        print(f"{name:8s} median {statistics.median(ms for ms, _ in timed):8.1f} ms; moved "
              f"{proof.h2d_bytes / 2**30:.2f} GiB{same}\n  plan: {plan.describe()}", flush=True)
        if gpu:
            print("  gpu: " + "  ".join(f"{k} {v:.1f}" for k, v in gpu.items()), flush=True)
        del backend
    return 0


if __name__ == "__main__":
    sys.exit(main())
