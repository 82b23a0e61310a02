"""Where a proof's device memory goes under a budget: every CuPy allocation traced to the cuzk line that made
it, the live set at the pool's peak (and at an out-of-memory) grouped by that line, beside memory_plan's model.

Written after the first H100 run of issue 44's budgets (2026-12-06): the plan's model said 2^20 fits
512 MiB and the 2^16 gpu test fits ~20 MB, and both ran out; this says which allocations the model misses.

  python3 lab/memtrace.py --log-rows 16 --budget 20MiB [--budget 512MiB ...]
  python3 lab/memtrace.py --kind porep --sector-size 32GiB --budget 24GiB

A device is needed (CuPy). Each budget runs one proof in this process, the allocator traced from the backend's
creation on; the unconstrained proof first (its result is what the budgeted ones must equal).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from cuzk.backend import memory_plan as mp  # noqa: E402
from cuzk.backend.cuda import CudaBackend  # noqa: E402
from cuzk.bench import prove as bp  # noqa: E402
from cuzk.engine.resources.memory import parse_size  # noqa: E402
from cuzk.groth16 import prover  # noqa: E402


class Tracer:
    """A CuPy allocator over the default pool that remembers each live block's size and making line."""

    def __init__(self):
        self.pool = cp.get_default_memory_pool()
        self.live: dict[int, tuple[int, str]] = {}
        self.total = self.peak = 0
        self.at_peak: dict[str, int] = {}
        self.count = 0

    def site(self) -> str:
        frames = [f for f in traceback.extract_stack()[:-2] if "/cuzk/" in f.filename]
        return " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in frames[::-1][:3]) or "?"

    def malloc(self, size: int):
        ptr = self.pool.malloc(size)  # raises at the pool's cap, as without the tracer
        key, self.count = self.count, self.count + 1
        self.live[key] = (size, self.site())
        self.total += size
        if self.total > self.peak:
            self.peak, self.at_peak = self.total, self.grouped()
        tracer = self

        class Owner:  # dropped with the array: the block goes back to the pool and leaves the live set
            def __del__(self):
                s, _ = tracer.live.pop(key, (0, ""))
                tracer.total -= s

        return cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(ptr.ptr, size, (ptr, Owner()), ptr.device_id), 0)

    def grouped(self) -> dict[str, int]:
        g: dict[str, int] = defaultdict(int)
        for size, where in self.live.values():
            g[where] += size
        return dict(g)


def components(got, want) -> str:
    """Which of A, B, C equal the unconstrained proof's (A: MSM A; B: MSM B in G2; C: H, L, B in G1 and A)."""
    same = {k: np.array_equal(getattr(got, k), getattr(want, k)) for k in "abc"}
    return "proof equal to the unconstrained one" if all(same.values()) else \
        "DIFFERENT: " + ", ".join(f"{k.upper()} {'equal' if v else 'differs'}" for k, v in same.items())


def show(title: str, groups: dict[str, int], total: int) -> None:
    print(f"  {title}: {total / 2**20:.2f} MiB live", flush=True)
    for where, size in sorted(groups.items(), key=lambda kv: -kv[1])[:14]:
        print(f"    {size / 2**20:10.2f} MiB  {where}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log-rows", type=int, default=16)
    ap.add_argument("--kind", choices=("porep", "snap"))
    ap.add_argument("--sector-size", default="32GiB")
    ap.add_argument("--budget", action="append", required=True, help="bytes, e.g. 512MiB (repeatable)")
    args = ap.parse_args(argv)
    if args.kind:
        cc, w, what = (bp.porep_partition if args.kind == "porep" else bp.snap_partition)(args.sector_size)
    else:
        cc, w, count = bp.stamped_sha256(args.log_rows)
        what = f"{count} SHA-256 compressions"
    pk = bp.random_key(cc)
    shape = mp.shape_of(pk, cc)
    print(f"{what}: domain 2^{shape.n.bit_length() - 1}, {shape.num_vars} variables, "
          f"matrices {[m >> 20 for m in shape.matrices]} MiB, indices {shape.indices >> 20} MiB", flush=True)
    t = time.perf_counter()
    want = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], CudaBackend(), rs=[(11, 22)])[0]
    print(f"unconstrained proof {time.perf_counter() - t:.1f} s (first: kernels load)", flush=True)
    card = CudaBackend()
    for k in range(2):  # the same backend twice: its second proof may take a window table
        again = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], card, rs=[(11, 22)])[0]
        print(f"unconstrained again ({k + 2}): {components(again, want)}", flush=True)
    del card
    gc.collect()
    cp.get_default_memory_pool().free_all_blocks()
    for text in args.budget:
        budget = parse_size(text, "--budget")
        backend = None
        print(f"budget {text}: {cp.get_default_memory_pool().used_bytes() / 2**20:.2f} MiB of the pool held before it "
              f"(module caches: NTT tables)", flush=True)
        tracer = Tracer()
        cp.cuda.set_allocator(tracer.malloc)
        try:
            backend = CudaBackend(memory_limit=budget)
            got = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], backend, rs=[(11, 22)])[0]
            print(f"budget {text}: {components(got, want)}")
        except MemoryError as exc:
            print(f"budget {text}: OUT OF MEMORY: {exc}")
            show("live at the failure", tracer.grouped(), tracer.total)
        plan = backend.plan if backend is not None else None
        if plan is not None:
            el, mr = plan.elementwise, plan.matrices_resident
            print(f"  plan: {plan.describe()}; elementwise {el}, matrices resident {mr}")
            print(f"  model: split H {mp.split_h_bytes(shape, el, mr) / 2**20:.2f} MiB, whole H "
                  f"{mp.whole_h_bytes(shape) / 2**20:.2f} MiB, MSM phase "
                  f"{mp.msm_bytes(shape, plan.chunk_bytes, bool(set(shape.bases) - plan.resident), True, plan.split_h) / 2**20:.2f} MiB, "
                  f"resident bases {sum(shape.bases[k][0] * shape.bases[k][1] for k in plan.resident) / 2**20:.2f} MiB")
        show("live at the peak", tracer.at_peak, tracer.peak)
        cp.cuda.set_allocator(cp.get_default_memory_pool().malloc)
        del backend
        gc.collect()
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
