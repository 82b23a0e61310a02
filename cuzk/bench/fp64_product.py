"""BLS12-381 Fq products per second on the GPU: the integer Montgomery product (field.cuh, on
the multiply pipe), the FP64-pipe one (field_f64.cuh), and both at once (even warps integer,
odd warps FP64). Every thread chains `iters` products x <- x y; the three runs' results must
agree modulo p, and a sample is checked against Python's integers. A study for issue 16: the
MSM's accumulation is bound by the multiply pipe, and the FP64 pipe is idle.

    python -m cuzk.bench.fp64_product [--iters N] [--blocks-per-sm N]
"""

from __future__ import annotations

import functools
import sys

import cupy as cp
import numpy as np

from cuzk.backend.cuda.consts import curve_header
from cuzk.backend.cuda.module import compiled, expand
from cuzk.bench.report import event_median_ms
from cuzk.field.fields import CURVE_FIELDS

MODES = {"integer": 0, "fp64": 1, "mixed": 2}
R = 1 << 384

KERNEL = r"""
typedef Fp<fq_params> fq_t;
// mode 0: the integer product, 1: the FP64 one, 2: even warps integer, odd warps FP64
extern "C" __global__ void fq_chain(const u32* xs, const u32* ys, u32* out, int iters, int mode, u64 n) {
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    if (mode == 1 || (mode == 2 && ((threadIdx.x >> 5) & 1))) {
        f64x8 x = f64x8_from_words(xs + 12 * t);
        const f64x8 y = f64x8_from_words(ys + 12 * t);
        for (int k = 0; k < iters; k++) x = fq_mul_f64<fq64_params>(x, y);
        f64x8_to_words(x, out + 12 * t);
    } else {
        fq_t x = fq_t::load(xs + 12 * t);
        const fq_t y = fq_t::load(ys + 12 * t);
        for (int k = 0; k < iters; k++) x = fp_mul(x, y);
        x.store(out + 12 * t);
    }
}
"""


def source() -> str:
    seen: set[str] = set()
    return ("typedef unsigned int u32;\ntypedef unsigned long long u64;\n" + curve_header("bls12_381")
            + expand("field.cuh", seen) + expand("field_f64.cuh", seen) + KERNEL)


@functools.cache
def kernel():
    return compiled(source(), "the FP64 product study's kernels", "20-40 s").get_function("fq_chain")


def random_elements(n: int, rng: np.random.Generator) -> cp.ndarray:
    """n values below p as 12 little-endian 32-bit words (the top word below p's)."""
    p = CURVE_FIELDS["bls12_381"][1].p
    words = rng.integers(0, 1 << 32, size=(n, 12), dtype=np.uint64).astype(np.uint32)
    words[:, 11] %= np.uint32(p >> 352)
    return cp.asarray(words)


def chain(xs: cp.ndarray, ys: cp.ndarray, iters: int, mode: str, threads: int = 256) -> cp.ndarray:
    n = len(xs)
    out = cp.empty_like(xs)
    kernel()(((n + threads - 1) // threads,), (threads,),
             (xs, ys, out, np.int32(iters), np.int32(MODES[mode]), np.uint64(n)))
    return out


def as_ints(words: np.ndarray) -> list[int]:
    return [int.from_bytes(row.astype("<u4").tobytes(), "little") for row in words]


def expected(x: int, y: int, iters: int) -> int:
    """x (y / R)^iters mod p, from Python's integers."""
    p = CURVE_FIELDS["bls12_381"][1].p
    return x * pow(y * pow(R, -1, p) % p, iters, p) % p


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if {"-h", "--help"} & set(args):
        print(__doc__)
        return 0
    opts = {"--iters": 256, "--blocks-per-sm": 8}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = int(args[i + 1])
            del args[i:i + 2]
    p = CURVE_FIELDS["bls12_381"][1].p
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    n = sms * opts["--blocks-per-sm"] * 256
    iters = opts["--iters"]
    rng = np.random.default_rng(2026)
    xs, ys = random_elements(n, rng), random_elements(n, rng)
    kernel()
    results, base = {}, None
    for mode in MODES:
        ms = event_median_ms(lambda: chain(xs, ys, iters, mode), repeat=5)
        results[mode] = cp.asnumpy(chain(xs, ys, iters, mode))
        rate = n * iters / ms / 1e6
        base = base or rate
        print(f"{mode:8s} {n} threads x {iters} products: {ms:8.3f} ms, {rate:7.2f} G products/s, "
              f"{rate / base:.2f}x the integer product", flush=True)
    ints = {mode: as_ints(w) for mode, w in results.items()}
    bad = sum(1 for i in range(n) if len({ints[m][i] % p for m in MODES}) != 1 or max(ints[m][i] for m in MODES) >= 2 * p)
    xi, yi = as_ints(cp.asnumpy(xs[:64])), as_ints(cp.asnumpy(ys[:64]))
    bad_oracle = sum(1 for i in range(64) if ints["fp64"][i] % p != expected(xi[i], yi[i], iters))
    print(f"results: {bad} of {n} threads disagree between the modes; {bad_oracle} of 64 differ from Python's integers")
    return 1 if bad or bad_oracle else 0


if __name__ == "__main__":
    sys.exit(main())
