"""SASS of one BLS12-381 Fq product and square, and of one Fr product, the integer ones (field.cuh)
beside the FP64-pipe ones (field_f64.cuh; `f64w`: with the conversions from and to field.cuh's
words around each product, as the MSM and NTT variants use it): instructions by opcode, from the
difference between kernels of one and two chained products, and the cycles each pipe needs per
warp on an H200 (nvcc here, no GPU; cuobjdump from PyPI's nvidia-cuda-cuobjdump on PATH or in
CUOBJDUMP).

    python scripts/fp64_sass.py
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cuda_resources as cr  # noqa: E402


# kind -> (value type, load(pointer), product of x and y, store of x to pointer, u32 words a value)
FQ, FR = "Fp<fq_params>", "Fp<fr_params>"
CHAINS = {
    "int": (FQ, FQ + "::load({})", "fp_mul(x, y)", "x.store({})", 12),
    "f64": ("f64x<8>", "f64_from_words<8, 12>({})", "mul_f64<fq64_params>(x, y)", "f64_to_words<8, 12>(x, {})", 12),
    "f64w": (FQ, FQ + "::load({})", "fp_mul_f64<fq_params, fq64_params>(x, y)", "x.store({})", 12),
    "int_sqr": (FQ, FQ + "::load({})", "fp_sqr(x)", "x.store({})", 12),
    "f64_sqr": ("f64x<8>", "f64_from_words<8, 12>({})", "sqr_f64<fq64_params>(x)", "f64_to_words<8, 12>(x, {})", 12),
    "fr_int": (FR, FR + "::load({})", "fp_mul(x, y)", "x.store({})", 8),
    "fr_f64": ("f64x<6>", "f64_from_words<6, 8>({})", "mul_f64<fr64_params>(x, y)", "f64_to_words<6, 8>(x, {})", 8),
    "fr_f64w": (FR, FR + "::load({})", "fp_mul_f64<fr_params, fr64_params>(x, y)", "x.store({})", 8),
}


def kernels() -> str:
    """Per kind, kernels of one and two chained products (kind_1, kind_2): x, y from in, x to out."""
    out = []
    for kind, (typ, load, product, store, w) in CHAINS.items():
        x, y = load.format(f"in + {2 * w} * t"), load.format(f"in + {2 * w} * t + {w}")
        for k in (1, 2):
            out.append(f'extern "C" __global__ void {kind}_{k}(const u32* in, u32* out) {{\n'
                       f"    const int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       f"    {typ} x = {x}, y = {y};\n"
                       + f"    x = {product};\n" * k
                       + f"    {store.format(f'out + {w} * t')};\n}}\n")
    return "".join(out)


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


def main() -> int:
    cuobjdump = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not cuobjdump:
        print("cuobjdump not found: pip install nvidia-cuda-cuobjdump, then CUOBJDUMP=path/to/cuobjdump")
        return 1
    head = "typedef unsigned int u32;\ntypedef unsigned long long u64;\n" + cr._consts("bls12_381")
    seen: set = set()
    field = cr._expand("field.cuh", seen)
    f64 = cr._expand("field_f64.cuh", seen)
    with tempfile.TemporaryDirectory() as tmp:
        cu, cubin = Path(tmp) / "m.cu", Path(tmp) / "m.cubin"
        cu.write_text(head + field + f64 + kernels())
        subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-cubin", str(cu), "-o", str(cubin)], check=True)
        for kind in CHAINS:
            one, two = opcodes(cubin, f"{kind}_1", cuobjdump), opcodes(cubin, f"{kind}_2", cuobjdump)
            per = {k: two[k] - one[k] for k in set(one) | set(two) if two[k] != one[k]}
            pipes = pipe_cycles(per)
            busiest = max(pipes.values())
            print(f"{kind}: {sum(per.values())} instructions a product; pipe cycles a warp: "
                  + ", ".join(f"{k} {v}" for k, v in pipes.most_common()) + f"; issue {sum(per.values())}; "
                  f"bound {max(busiest, sum(per.values()))}")
            print("   ", dict(sorted(per.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
