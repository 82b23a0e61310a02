"""MSM tuning on the device: stage times (sort, accumulate, reduce) of the
pippenger over window widths x block sizes, each result checked against the
first case's. Prints one line per case and writes JSON. To compare a kernel
change, add its compile options (-D...) to VARIANTS. `--tables 20,22:6` also
times the MSM through window tables of those widths (0: the default width),
each with a row for every window, or for every S-th one with `C:S` (S bucket
sets: 20:7 is 2 rows of 2^n points, the bases and 2^140 times them), with each
table's build time and size; a table that does not fit is reported as such.

    python lab/msm_variants.py [--quick] [--tables C[:S],...] [--variant NAME:-DX ...] [--c C,...]
        OUT.json [log_n ...]

`--variant` adds a module compiled with that NVRTC option beside the default;
`--c 16,20` sets the window widths of the plain rows.

It reaches into cuzk.backend.cuda.msm's stages (pippenger with its own
kernels and timer, _bases_view, _combine, _xyzz_to_host): a tuning tool
for that module, run on the device machine by lab/device/msm.sh and
lab/device/ab.sh. The cuzk it measures is the first on sys.path (PYTHONPATH,
then this checkout's): lab/device/ab.sh points it at the tree before a change.
"""

import json
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: an A/B's old tree wins
from cuzk.backend.cuda import msm as M  # noqa: E402
from cuzk.backend.cuda.events import EventTimer  # noqa: E402
from cuzk.backend.cuda.module import arch_option, source  # noqa: E402
from cuzk.backend.window_tables import table_window  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402

VARIANTS = {"default": ()}  # name -> extra NVRTC options
QUICK = {"default": ()}  # --quick: c = 16 and the accumulation's block size only


def module(curve, defines):
    t = time.time()
    mod = cp.RawModule(code=source(curve), options=("-std=c++17", arch_option()) + tuple(defines))
    mod.compile()
    print(f"compiled {defines or 'default'} in {time.time() - t:.1f} s", flush=True)
    return mod


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
        return
    quick = "--quick" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--quick"]
    table_cs = []
    if "--tables" in args:
        k = args.index("--tables")
        table_cs = [tuple(int(v) for v in x.split(":")) for x in args[k + 1].split(",")]
        del args[k:k + 2]
    widths = None
    if "--c" in args:
        k = args.index("--c")
        widths = [int(x) for x in args[k + 1].split(",")]
        del args[k:k + 2]
    while "--variant" in args:
        k = args.index("--variant")
        name, _, opt = args[k + 1].partition(":")
        VARIANTS[name] = QUICK[name] = (opt,)
        del args[k:k + 2]
    out_path = args[0]
    logs = [int(x) for x in args[1:]] or [22, 24]
    curve = get_curve("bls12_381")
    rng = np.random.default_rng(7)
    pool = curve.g1.random(1024, rng)
    mods = {name: module(curve.name, d) for name, d in (QUICK if quick else VARIANTS).items()}
    rows = []
    for log_n in logs:
        n = 1 << log_n
        bases = M._bases_view(curve, "g1", cp.asarray(np.ascontiguousarray(pool[rng.integers(0, 1024, n)])))
        sc = cp.asarray(curve.fr.from_mont(curve.fr.random(n, rng))).view(cp.uint32)
        ref = None
        for name, mod in mods.items():
            def kern(_curve, kname, mod=mod):
                return mod.get_function(kname)
            for c in widths or ((16,) if quick or log_n < 23 else (16, 20)):
                for threads in ((M.ACC_THREADS,) if quick else (64, 128, 256)):
                    times = []
                    for rep in range(4):
                        timer = EventTimer()
                        with timer.phase("total"):
                            pt = M.pippenger(curve, "g1", bases, sc, n, c=c, threads=threads, kern=kern, timer=timer)
                        r = timer.results()
                        times.append(r)
                    res = M._combine(curve, "g1", [M._xyzz_to_host(curve, "g1", pt, 1)])
                    ok = ref is None or bool(np.array_equal(res, ref))
                    ref = res if ref is None else ref
                    med = {k: float(np.median([t[k] for t in times[1:]])) for k in times[0]}
                    row = {"log_n": log_n, "variant": name, "c": c, "threads": threads, "same_result": ok, **med}
                    rows.append(row)
                    print(f"2^{log_n} {name:12s} c={c} threads={threads}: total {med['total']:.1f} ms  "
                          + "  ".join(f"{k.split('/')[-1]} {v:.1f}" for k, v in med.items() if k != "total")
                          + ("" if ok else "  RESULT DIFFERS"), flush=True)
        for spec in table_cs:
            tc, sets = (spec[0] or table_window(n)), (spec[1] if len(spec) > 1 else 1)
            try:
                table = M.build_table(curve, "g1", bases, tc, sets)
                times = []
                for rep in range(4):
                    timer = EventTimer()
                    with timer.phase("total"):
                        pt = M.pippenger(curve, "g1", bases, sc, n, kern=lambda _c, k: M.fn(curve.name, k),
                                         timer=timer, table=table)
                    times.append(timer.results())
            except cp.cuda.memory.OutOfMemoryError as exc:
                print(f"2^{log_n} table c={tc} sets={sets}: does not fit ({exc})", flush=True)
                rows.append({"log_n": log_n, "variant": "table", "c": tc, "sets": sets, "fits": False})
                table = pt = None
                cp.get_default_memory_pool().free_all_blocks()
                continue
            res = M._combine(curve, "g1", [M._xyzz_to_host(curve, "g1", pt, 1)])
            ok = ref is None or bool(np.array_equal(res, ref))
            med = {k: float(np.median([t[k] for t in times[1:]])) for k in times[0]}
            row = {"log_n": log_n, "variant": "table", "c": tc, "sets": sets, "nwin": table.nwin, "rows": table.nrows,
                   "table_gib": table.nbytes / 2**30, "build_ms": table.build_ms, "same_result": ok, **med}
            rows.append(row)
            print(f"2^{log_n} table c={tc} sets={sets} ({table.nwin} windows, {table.nrows} rows, "
                  f"{table.nbytes / 2**30:.1f} GiB past the bases, built in {table.build_ms:.0f} ms): "
                  f"total {med['total']:.1f} ms  "
                  + "  ".join(f"{k.split('/')[-1]} {v:.1f}" for k, v in med.items() if k != "total")
                  + ("" if ok else "  RESULT DIFFERS"), flush=True)
            del table, pt
            cp.get_default_memory_pool().free_all_blocks()
        del bases, sc
        cp.get_default_memory_pool().free_all_blocks()
    with open(out_path, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
