"""Static SASS of CUDA kernels by H200 pipe, for builds with other options side by side: a bound
on the cycles a warp needs (the busiest of the multiply, FP64 and ALU pipes, or issue: one
instruction a cycle per scheduler), written down before a variant is run on the device. Static
counts weigh every instruction once, so they fit a kernel whose time is one loop body (the MSM's
accumulation, an NTT pass), not one whose warps take different paths (-DCUZK_G1_MIXED, whose
count is both paths: weigh them by the share of warps instead); registers and spills come from
ptxas. No GPU needed: nvcc here, and
cuobjdump (PyPI's nvidia-cuda-cuobjdump) on PATH or in CUOBJDUMP.

    python scripts/sass_pipes.py [--curve bls12_381] KERNEL[,KERNEL...] [NAME=-DOPTION[,-DOPTION...] ...]

e.g. `python scripts/sass_pipes.py g1_msm_accumulate lane4=-DCUZK_G1_LANE=4 mixed=-DCUZK_G1_MIXED=2`
(the default build is always the first column).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_resources import module_code  # noqa: E402
from fp64_sass import opcodes, pipe_cycles  # noqa: E402


def compile_cubin(code: str, options: list[str], out: Path) -> dict[str, str]:
    """ptxas's register and spill line per kernel."""
    cu = out.with_suffix(".cu")
    cu.write_text(code)
    r = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-cubin", "-Xptxas", "-v", *options, str(cu), "-o",
                        str(out)], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(r.stderr[-3000:])
    info, fn = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'|Function properties for (\w+)", line)
        if m:
            fn = m.group(1) or m.group(2)
        elif fn and ("registers" in line or "spill" in line):
            info[fn] = (info.get(fn, "") + " " + line.split(":", 1)[-1].strip()).strip()
    return info


def pipes(cubin: Path, kernel: str, cuobjdump: str) -> dict[str, int]:
    ops = opcodes(cubin, kernel, cuobjdump)
    cycles = pipe_cycles(ops)
    local = sum(n for op, n in ops.items() if op.startswith(("LDL", "STL")))
    out = {"issue": sum(ops.values()), "multiply": cycles["imad"] + cycles["imad-wide"], "fp64": cycles["fp64"],
           "alu": cycles["alu"], "local": local}
    out["bound"] = max(out["issue"], out["multiply"], out["fp64"], out["alu"])
    return out


def main() -> int:
    args = sys.argv[1:]
    if not args or {"-h", "--help"} & set(args):
        print(__doc__)
        return 0
    curve = "bls12_381"
    if "--curve" in args:
        k = args.index("--curve")
        curve = args[k + 1]
        del args[k:k + 2]
    kernels = args[0].split(",")
    builds = [("default", [])] + [(a.split("=", 1)[0], a.split("=", 1)[1].split(",")) for a in args[1:]]
    cuobjdump = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not cuobjdump:
        print("cuobjdump not found: pip install nvidia-cuda-cuobjdump, then CUOBJDUMP=path/to/cuobjdump")
        return 1
    code = module_code(curve)
    with tempfile.TemporaryDirectory() as tmp:
        built = {}
        for name, options in builds:
            cubin = Path(tmp) / f"{name}.cubin"
            built[name] = (cubin, compile_cubin(code, options, cubin))
        for kernel in kernels:
            base = None
            print(f"{kernel} ({curve}): static SASS, cycles a warp by pipe (bound: the busiest, or issue)")
            for name, (cubin, info) in built.items():
                p = pipes(cubin, kernel, cuobjdump)
                base = base or p["bound"]
                print(f"  {name:10s} issue {p['issue']:6d}  multiply {p['multiply']:6d}  fp64 {p['fp64']:6d}  "
                      f"alu {p['alu']:6d}  local {p['local']:4d}  bound {p['bound']:6d} ({base / p['bound']:.2f}x)  "
                      f"[{info.get(kernel, '?')}]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
