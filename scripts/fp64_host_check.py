"""Check cuzk/backend/cuda/field_f64.cuh (Montgomery products on the FP64 pipe, a study) on the
CPU: compile it as host C++ with g++ and compare every product with Python's integers, a b / R'
mod p (and a^2 / R'), for random and edge-case operands below 2p and for long chains of products
(whose outputs, below 2p but not reduced, feed the next product): BLS12-381's Fq (8 limbs of 48
bits, R' = 2^384) and Fr (6 limbs, R' = 2^288). No GPU needed.

    python scripts/fp64_host_check.py [count]
"""

import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuda_resources import consts_module  # noqa: E402

from cuzk.field.fields import CURVE_FIELDS  # noqa: E402

CUDA = Path(__file__).resolve().parents[1] / "cuzk" / "backend" / "cuda"


HARNESS = r"""
#include <cstdio>
#include "field_f64.cuh"
%PARAMS%
constexpr int W = %WORDS%, N = %LIMBS%;
// stdin: lines "a b chain" (a, b: W hex words each, little-endian); stdout: the words of
// a (b / R')^chain, then of a^2 / R'
int main() {
    unsigned int a[W], b[W], r[W];
    int chain;
    while (true) {
        for (int i = 0; i < W; i++) if (scanf("%x", &a[i]) != 1) return 0;
        for (int i = 0; i < W; i++) if (scanf("%x", &b[i]) != 1) return 1;
        if (scanf("%d", &chain) != 1) return 1;
        f64x<N> x = f64_from_words<N, W>(a), y = f64_from_words<N, W>(b);
        for (int k = 0; k < chain; k++) x = mul_f64<params>(x, y);
        f64_to_words<N, W>(x, r);
        for (int i = 0; i < W; i++) printf("%x ", r[i]);
        f64_to_words<N, W>(sqr_f64<params>(f64_from_words<N, W>(a)), r);
        for (int i = 0; i < W; i++) printf("%x ", r[i]);
        printf("\n");
    }
}
"""


def words(x: int, n: int) -> str:
    return " ".join(f"{(x >> (32 * i)) & 0xffffffff:x}" for i in range(n))


def check(name: str, p: int, limbs: int, nwords: int, count: int) -> int:
    """Wrong results of `count` random products (and the edge cases, the chains) in one field."""
    R = 1 << (48 * limbs)
    rng = random.Random(2026)
    edges = [0, 1, 2, p - 1, p, p + 1, 2 * p - 1, R % p, (R * R) % p, (1 << (p.bit_length() - 1)) - 1,
             2 * p - (1 << (p.bit_length() - 181)), (1 << (32 * nwords - 1)) % (2 * p)]
    edges += [sum(((1 << 48) - 1) << (48 * i) for i in range(k)) for k in range(1, limbs)]
    edges = [e for e in edges if 0 <= e < 2 * p]
    cases = [(a, b, 1) for a in edges for b in edges]
    cases += [(rng.randrange(2 * p), rng.randrange(2 * p), 1) for _ in range(count)]
    cases += [(rng.randrange(2 * p), rng.randrange(2 * p), 1000) for _ in range(50)]
    cases += [(2 * p - 1, 2 * p - 1, 200), (p - 1, 2 * p - 1, 200)]
    params = consts_module()["f64_params_struct"]("params", p, "", limbs)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "harness.cpp"
        src.write_text(HARNESS.replace("%PARAMS%", params).replace("%WORDS%", str(nwords))
                       .replace("%LIMBS%", str(limbs)))
        exe = Path(tmp) / "harness"
        subprocess.run(["g++", "-std=c++17", "-O2", "-frounding-math", "-I", str(CUDA), str(src), "-o", str(exe)],
                       check=True)
        stdin = "".join(f"{words(a, nwords)} {words(b, nwords)} {n}\n" for a, b, n in cases)
        out = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")
    rinv = pow(R, -1, p)
    bad = 0
    for (a, b, n), line in zip(cases, out):
        w = [int(x, 16) for x in line.split()]
        got = sum(x << (32 * i) for i, x in enumerate(w[:nwords]))
        square = sum(x << (32 * i) for i, x in enumerate(w[nwords:]))
        want = a
        for _ in range(n):
            want = want * b * rinv % p
        if got % p != want or got >= 2 * p or square % p != a * a * rinv % p or square >= 2 * p:
            bad += 1
            if bad <= 5:
                print(f"{name} MISMATCH a={a:#x} b={b:#x} chain={n}: got {got:#x} and square {square:#x}, "
                      f"want {want:#x} and {a * a * rinv % p:#x} (mod p)")
    print(f"{name} ({limbs} limbs, R' = 2^{48 * limbs}): {len(cases)} cases "
          f"({sum(n for _, _, n in cases)} products, {len(cases)} squares): {bad} wrong")
    return bad


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    fr, fq, _ = CURVE_FIELDS["bls12_381"]
    bad = check("BLS12-381 Fq", fq.p, 8, 12, count) + check("BLS12-381 Fr", fr.p, 6, 8, count)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
