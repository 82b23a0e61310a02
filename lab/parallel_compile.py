"""Study (session 28): what numba's parallel=True costs in compile time, on the encoding kernels.

Half of the demo's cold compile (57 of 110 s one at a time, 43 of its 68 kernels) is kernels
generated with `parallel=True` (cuzk.field.codegen.PARALLEL). The MSM kernels are serial `nogil`
kernels over a range, driven by a thread pool, because that compiles faster (msm_source's
docstring). This compiles the four .params encoding kernels as generated, then as serial nogil
kernels over (lo, hi), each in an empty cache, and times each kernel's first call (its compile);
both decode what they encoded.

    python lab/parallel_compile.py parallel|serial      (run each in its own empty CUZK_CACHE_DIR)
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.curve import encoding_kernels as E  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402
from cuzk.field import codegen  # noqa: E402

SERIAL = "@njit(nogil=True, cache=True)"


def serial_kernels(s: codegen.Source, g: str, generate=E._group_kernels) -> None:
    sub = codegen.Source()
    generate(sub, g)
    text = sub.text().replace(codegen.PARALLEL, SERIAL)
    for arr in ("pts", "raw"):
        text = text.replace(f"for i in prange({arr}.shape[0])", "for i in range(lo, hi)")
    text = text.replace("(pts, out):", "(pts, out, lo, hi):").replace("(raw, pts, bad):", "(raw, pts, bad, lo, hi):")
    s(*text.split("\n"))


def main() -> None:
    variant = sys.argv[1] if len(sys.argv) > 1 else "parallel"
    if variant == "serial":
        E._group_kernels = serial_kernels
    k = E.kernels()
    curve = get_curve("bls12_381")
    extra = (0, 64) if variant == "serial" else ()
    for g, G, size in (("g1", curve.g1, 96), ("g2", curve.g2, 192)):
        pts = G.random(64)
        wire = np.zeros((64, size), dtype=np.uint8)
        t0 = time.perf_counter()
        getattr(k, f"{g}_encode_uncompressed")(pts, wire, *extra)
        t1 = time.perf_counter()
        back, bad = np.zeros_like(pts), np.zeros(64, np.uint8)
        getattr(k, f"{g}_decode_uncompressed")(wire, back, bad, *extra)
        t2 = time.perf_counter()
        assert np.array_equal(back, pts) and not bad.any()
        print(f"{variant} {g}: encode compiled and ran in {t1 - t0:.2f} s, decode {t2 - t1:.2f} s", flush=True)


if __name__ == "__main__":
    main()
