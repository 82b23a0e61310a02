"""Fixed-base scalar multiplication: [k_i]G for one base G and many k_i.

Used by Groth16 setup, where every parameter vector is a list of multiples
of the generator. A table of d * 2^(8w) * G (32 windows x 255 digits) turns
each product into at most 32 mixed additions instead of ~380 group ops.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.curve import get_curve
from cuzk.curve.curves import curve_kernels
from cuzk.field.codegen import build_module, fill

TEMPLATE = '''
@njit(cache=True)
def {g}_fb_build(base, out):
    """out[w*256 + d] = d * 2^(8w) * base (XYZZ), d = 0..255, w = 0..31."""
    b = {g}_from_affine({g}_load_affine(base, 0))
    for w in range(32):
        acc = {G}_XYZZ_ZERO
        {g}_store_xyzz(out, w * 256, acc)
        for d in range(1, 256):
            acc = {g}_xyzz_add(acc, b)
            {g}_store_xyzz(out, w * 256 + d, acc)
        for _ in range(8):
            b = {g}_xyzz_dbl(b)

@njit(nogil=True, cache=True)
def {g}_fb_mul_span(lo, hi, table, scalars, out):
    for i in range(lo, hi):
        acc = {G}_XYZZ_ZERO
        for limb in range(4):
            s = scalars[i, limb]
            for byte in range(8):
                d = (s >> np.uint64(8 * byte)) & np.uint64(255)
                if d:
                    acc = {g}_xyzz_add_affine(acc, {g}_load_affine(table, (limb * 8 + byte) * 256 + d))
        {g}_store_xyzz(out, i, acc)

def {g}_fb_mul(table, scalars, out):
    """out[i] = [scalars[i]] base; scalars canonical uint64[n, 4]."""
    run_spans({g}_fb_mul_span, scalars.shape[0], table, scalars, out)
'''


@functools.cache
def fixed_base_kernels(curve: str):
    src = f"from {curve_kernels(curve).__name__} import *\n" + fill(TEMPLATE, g="g1") + fill(TEMPLATE, g="g2")
    return build_module(f"{curve}_fixed_base", src)


class FixedBaseTable:
    """The window table of one base point, reusable across many calls."""

    chunk = 1 << 16  # scalars per call that keep setup's progress line moving

    def __init__(self, curve: str, group: str, base: np.ndarray):
        self.curve = curve
        self.group = group
        self.grp = getattr(get_curve(curve), group)
        k = fixed_base_kernels(curve)
        xyzz = np.empty((32 * 256, 4) + self.grp.coord, dtype=np.uint64)
        getattr(k, f"{group}_fb_build")(np.ascontiguousarray(base, dtype=np.uint64).reshape((1, 2) + self.grp.coord), xyzz)
        self.table = self.grp.to_affine(xyzz)

    def mul(self, scalars: np.ndarray) -> np.ndarray:
        """Affine [k_i] base for canonical scalars uint64[n, 4]."""
        scalars = np.ascontiguousarray(scalars, dtype=np.uint64).reshape(-1, 4)
        k = fixed_base_kernels(self.curve)
        out = np.empty((scalars.shape[0], 4) + self.grp.coord, dtype=np.uint64)
        getattr(k, f"{self.group}_fb_mul")(self.table, scalars, out)
        return self.grp.to_affine(out)


def fixed_base_mul(curve: str, group: str, base: np.ndarray, scalars: np.ndarray) -> np.ndarray:
    return FixedBaseTable(curve, group, base).mul(scalars)


__all__ = ["FixedBaseTable", "fixed_base_mul"]
