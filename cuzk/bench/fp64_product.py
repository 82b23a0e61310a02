"""BLS12-381 Fq and Fr products per second on the GPU: the integer Montgomery product (field.cuh,
on the multiply pipe), the FP64-pipe one (field_f64.cuh: 8 limbs of 48 bits for Fq, 6 for Fr),
and both at once (even warps integer, odd warps FP64). Every thread chains `iters` products
x <- x y; the FP64 product divides by R' = 2^(48 limbs) (Fr: 2^288, not the integer product's
2^256), so the modes' results are compared after undoing that, modulo p, and a sample is checked
against Python's integers. A study for issue 16: the MSM's accumulation (Fq) and the NTT (Fr)
are bound by the multiply pipe, and the FP64 pipe is idle.

    python -m cuzk.bench.fp64_product [--iters N] [--blocks-per-sm N] [--field fq|fr|both]
"""

from __future__ import annotations

import functools
import sys

import cupy as cp
import numpy as np

from cuzk.backend.cuda.module import compiled, expand, header
from cuzk.bench.report import event_median_ms
from cuzk.field.fields import CURVE_FIELDS

MODES = {"integer": 0, "fp64": 1, "mixed": 2}
# field -> (u32 words, 48-bit limbs, field.cuh params, field_f64.cuh params, index in CURVE_FIELDS)
FIELDS = {"fq": (12, 8, "fq_params", "fq64_params", 1), "fr": (8, 6, "fr_params", "fr64_params", 0)}

CHAIN = r"""
// mode 0: the integer product, 1: the FP64 one, 2: even warps integer, odd warps FP64
extern "C" __global__ void %F%_chain(const u32* xs, const u32* ys, u32* out, int iters, int mode, u64 n) {
    constexpr int W = %W%, L = %L%;
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    if (mode == 1 || (mode == 2 && ((threadIdx.x >> 5) & 1))) {
        f64x<L> x = f64_from_words<L, W>(xs + W * t);
        const f64x<L> y = f64_from_words<L, W>(ys + W * t);
        for (int k = 0; k < iters; k++) x = mul_f64<%Q%>(x, y);
        f64_to_words<L, W>(x, out + W * t);
    } else {
        Fp<%P%> x = Fp<%P%>::load(xs + W * t);
        const Fp<%P%> y = Fp<%P%>::load(ys + W * t);
        for (int k = 0; k < iters; k++) x = fp_mul(x, y);
        x.store(out + W * t);
    }
}
"""


def source() -> str:
    seen: set[str] = set()
    chains = "".join(CHAIN.replace("%F%", f).replace("%W%", str(w)).replace("%L%", str(lb)).replace("%P%", pp)
                     .replace("%Q%", q) for f, (w, lb, pp, q, _) in FIELDS.items())
    return header("bls12_381") + expand("field.cuh", seen) + expand("field_f64.cuh", seen) + chains


@functools.cache
def module():
    return compiled(source(), "the FP64 product study's kernels", "20-40 s")


def modulus(field: str) -> int:
    return CURVE_FIELDS["bls12_381"][FIELDS[field][4]].p


def radix(field: str, mode: str) -> int:
    """What one product divides by: R (32-bit words) for the integer product, R' (48-bit limbs) for FP64."""
    words, limbs = FIELDS[field][:2]
    return 1 << (32 * words if mode == "integer" else 48 * limbs)


def random_elements(n: int, rng: np.random.Generator, field: str = "fq") -> cp.ndarray:
    """n values below p as little-endian 32-bit words (the top word below p's)."""
    w = FIELDS[field][0]
    p = modulus(field)
    words = rng.integers(0, 1 << 32, size=(n, w), dtype=np.uint64).astype(np.uint32)
    words[:, w - 1] %= np.uint32(p >> (32 * (w - 1)))
    return cp.asarray(words)


def chain(xs: cp.ndarray, ys: cp.ndarray, iters: int, mode: str, threads: int = 256, field: str = "fq") -> cp.ndarray:
    """Per thread, x (y / radix)^iters: every thread of the mode's kind (mixed: odd warps FP64)."""
    n = len(xs)
    out = cp.empty_like(xs)
    module().get_function(f"{field}_chain")(((n + threads - 1) // threads,), (threads,),
                                            (xs, ys, out, np.int32(iters), np.int32(MODES[mode]), np.uint64(n)))
    return out


def as_ints(words: np.ndarray) -> list[int]:
    return [int.from_bytes(row.astype("<u4").tobytes(), "little") for row in words]


def expected(x: int, y: int, iters: int, field: str = "fq", mode: str = "fp64") -> int:
    """x (y / radix)^iters mod p, from Python's integers."""
    p = modulus(field)
    return x * pow(y * pow(radix(field, mode), -1, p) % p, iters, p) % p


def _mode_of_thread(mode: str, i: int, threads: int = 256) -> str:
    return "fp64" if mode == "fp64" or (mode == "mixed" and (i % threads) >> 5 & 1) else "integer"


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if {"-h", "--help"} & set(args):
        print(__doc__)
        return 0
    opts = {"--iters": "256", "--blocks-per-sm": "8", "--field": "both"}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = args[i + 1]
            del args[i:i + 2]
    fields = list(FIELDS) if opts["--field"] == "both" else [opts["--field"]]
    if not set(fields) <= set(FIELDS):
        print(f"--field: fq, fr or both, not {opts['--field']!r}")
        return 2
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    n = sms * int(opts["--blocks-per-sm"]) * 256
    iters = int(opts["--iters"])
    rng = np.random.default_rng(2026)
    module()
    failed = 0
    for field in fields:
        p = modulus(field)
        xs, ys = random_elements(n, rng, field), random_elements(n, rng, field)
        xi, yi = as_ints(cp.asnumpy(xs[:64])), as_ints(cp.asnumpy(ys[:64]))
        base = None
        bad = 0
        for mode in MODES:
            ms = event_median_ms(lambda: chain(xs, ys, iters, mode, field=field), repeat=5)
            got = as_ints(cp.asnumpy(chain(xs, ys, iters, mode, field=field)[:64]))
            bad += sum(1 for i in range(64) if got[i] >= 2 * p
                       or got[i] % p != expected(xi[i], yi[i], iters, field, _mode_of_thread(mode, i)))
            rate = n * iters / ms / 1e6
            base = base or rate
            print(f"{field} {mode:8s} {n} threads x {iters} products: {ms:8.3f} ms, {rate:7.2f} G products/s, "
                  f"{rate / base:.2f}x the integer product", flush=True)
        print(f"{field}: {bad} of {64 * len(MODES)} sampled results differ from Python's integers", flush=True)
        failed += bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
