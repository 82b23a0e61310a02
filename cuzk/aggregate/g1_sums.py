"""A few short G1 multi-scalar sums in one kernel call (the verifier's G1 side).

The verifier needs a dozen sums of 1 to ~30 terms each (the G1 side of the
merged pairing pairs, the MIPP check). Per-term scalar multiplications pay
~256 doublings per term, and a Pippenger MSM per sum pays its set-up many
times over; Straus per sum shares one doubling chain among a sum's terms,
with width-5 NAF digits (odd multiples P, 3P, ..., 15P). Scalars are taken
as signed integers and reduced to |k| <= r/2 with the sign put on the point,
so the verifier's 128-bit weights (often negated) cost 128 doublings, not 255.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.curve import Curve, curve_kernels
from cuzk.field import fields_of
from cuzk.field.codegen import build_module

from .gt import WINDOW, wnaf_array

SOURCE = '''
HALF = {HALF}

@njit(nogil=True, cache=True)
def g1_straus_span(s0, s1, pts, neg, digits, starts, out):
    nw = digits.shape[1]
    for k in range(s0, s1):
        lo = starts[k]
        m = starts[k + 1] - lo
        tab = np.empty((max(m, 1) * HALF, 4, L), dtype=np.uint64)
        first = nw
        for i in range(m):
            q = g1_load_affine(pts, lo + i)
            if neg[lo + i]:
                q = g1_affine_neg(q)
            p = g1_from_affine(q)
            p2 = g1_xyzz_dbl(p)
            g1_store_xyzz(tab, HALF * i, p)
            for j in range(1, HALF):
                p = g1_xyzz_add(p, p2)
                g1_store_xyzz(tab, HALF * i + j, p)
            for w in range(nw):
                if digits[lo + i, w] != 0:
                    first = min(first, w)
                    break
        acc = G1_XYZZ_ZERO
        for w in range(first, nw):
            acc = g1_xyzz_dbl(acc)
            for i in range(m):
                d = digits[lo + i, w]
                if d > 0:
                    acc = g1_xyzz_add(acc, g1_load_xyzz(tab, HALF * i + (d >> 1)))
                elif d < 0:
                    acc = g1_xyzz_add(acc, g1_xyzz_neg(g1_load_xyzz(tab, HALF * i + ((-d) >> 1))))
        g1_store_xyzz(out, k, acc)


def g1_straus(pts, neg, digits, starts, out):
    """out[k] (XYZZ) = sum over i in starts[k]..starts[k+1]-1 of +-[e_i] pts[i]
    (minus where neg[i]), e_i in NAF digits (most significant first)."""
    run_spans(g1_straus_span, len(starts) - 1, pts, neg, digits, starts, out)
'''


@functools.cache
def g1_sums_kernels(curve: str):
    L = fields_of(curve)[1].limbs
    src = f"from {curve_kernels(curve).__name__} import *\nL = {L}\n" + SOURCE.format(HALF=1 << (WINDOW - 2))
    return build_module(f"{curve}_aggregate_g1_sums", src)


def sums(curve: Curve, groups) -> np.ndarray:
    """Affine G1 uint64[len(groups), 2, L]: sum of k P over each list of
    (affine point, int scalar k, any sign) in groups."""
    r = curve.fr.p
    pts = np.stack([pt for parts in groups for pt, _ in parts]).astype(np.uint64)
    ks = [int(k) % r for parts in groups for _, k in parts]
    neg = np.array([k > r // 2 for k in ks], dtype=np.bool_)
    mags = [r - k if n else k for k, n in zip(ks, neg)]
    digits = wnaf_array(curve.name, mags, (r // 2).bit_length() + 1)
    starts = np.cumsum([0] + [len(parts) for parts in groups]).astype(np.int64)
    out = np.empty((len(groups), 4) + pts.shape[2:], dtype=np.uint64)
    g1_sums_kernels(curve.name).g1_straus(np.ascontiguousarray(pts), neg, digits, starts, out)
    return curve.g1.to_affine(out)
