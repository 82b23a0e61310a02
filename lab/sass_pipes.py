"""Static SASS of CUDA kernels by H200 pipe, for builds with other options side by side: a bound
on the cycles a warp needs (the busiest of the multiply, FP64 and ALU pipes, or issue: one
instruction a cycle per scheduler), written down before a variant is run on the device. Static
counts weigh every instruction once, so they fit a kernel whose time is one loop body (the MSM's
accumulation, an NTT pass), not one whose warps take different paths (a count of both paths:
weigh them by the share of warps instead); registers and spills come from ptxas. No GPU needed:
nvcc here, and cuobjdump (PyPI's nvidia-cuda-cuobjdump) on PATH or in CUOBJDUMP.

    python lab/sass_pipes.py [--curve bls12_381] KERNEL[,KERNEL...] [NAME=-DOPTION[,-DOPTION...] ...]

e.g. `python lab/sass_pipes.py g1_msm_accumulate,fr_ntt_dif_pass mine=-DMY_OPTION=1` (the
default build is always the first column).
"""

import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_resources import module_code  # noqa: E402


# cycles a warp instruction holds its pipe on one H200 scheduler (16 lanes: 2; IMAD.WIDE and
# IMAD.HI: 4, as the measured 15 T 32-bit multiply-adds/s and the MSM's 89.5 % pipe use say)
PIPE = [("fp64", re.compile(r"^D(FMA|ADD|MUL)"), 2), ("imad-wide", re.compile(r"^IMAD\.(WIDE|HI)"), 4),
        ("imad", re.compile(r"^IMAD"), 2), ("alu", re.compile(r"^(IADD3|LOP3|SEL|SHF|ISETP|LEA|PRMT|IABS|FLO)"), 2)]


def opcodes(cubin: Path, fn: str, cuobjdump: str) -> collections.Counter:
    sass = subprocess.run([cuobjdump, "-sass", "-fun", fn, str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    out = collections.Counter()
    for line in sass.splitlines():
        m = re.match(r"\s+/\*[0-9a-f]{4,6}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if m:
            out[m.group(1)] += 1
    return out


def pipe_cycles(ops) -> collections.Counter:
    """Cycles a warp holds each pipe for these opcode counts (PIPE's classes; others not counted)."""
    cycles = collections.Counter()
    for op, n in ops.items():
        for name, pat, c in PIPE:
            if pat.match(op):
                cycles[name] += n * c
                break
    return cycles


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
