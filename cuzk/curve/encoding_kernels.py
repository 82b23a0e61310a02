"""numba kernels, run on every thread, for the uncompressed zcash encoding (the .params form).

The numpy path makes a dozen whole-array passes per chunk (byte reversal,
padding, masks, conversions) on one thread; these kernels make one pass per
point on every core: Montgomery <-> canonical limbs, big-endian bytes, flags
and the curve equation. Decoding does not raise: it writes one byte of
failure bits per point (`BAD_*`, and `IS_INFINITY`), which `encoding` turns into the same
errors, in the same order, as the numpy checks it replaces.

G2 coordinates are written c1 before c0, so the wire order of the Fq
elements of a point is (x, y) in G1 and (x.c1, x.c0, y.c1, y.c0) in G2.
"""

from __future__ import annotations

import functools

from cuzk.field import BLS12_381_FQ
from cuzk.field.codegen import INTERNAL, Source, build_module, limbs_literal, per_span_rows, spans, tuple_of

from .curves import curve_kernels

BAD_COMPRESSED = 1  # compression flag set
BAD_SORT = 2  # sort flag set
BAD_INF_SORT = 4  # infinity and sort flags together
BAD_INF_BITS = 8  # infinity flag with coordinate bits
BAD_CANONICAL = 16  # a coordinate >= p
BAD_CURVE = 32  # not on the curve (including all-zero without the infinity flag)
BAD_ANY = 63
IS_INFINITY = 64  # not a failure: lets .params readers reject infinity without another pass

LIMBS, NBYTES = BLS12_381_FQ.limbs, BLS12_381_FQ.nbytes
# index of each wire element in a point array [n, 2, *coord], per group
WIRE = {"g1": ("0", "1"), "g2": ("0, 1", "0, 0", "1, 1", "1, 0")}


def _byte_io(s: Source) -> None:
    """fq_be_load / fq_be_store: one Fq element <-> 48 big-endian bytes of row i from byte `at`, a word
    (8 bytes) at a time in a loop: the 48 byte operations written out took ~0.5 s to compile per
    signature, four signatures per run."""
    with s.function("be_word", ("raw", "i", "at"), INTERNAL):
        s("w = Z64")
        with s.block("for b in range(8)"):
            s("w = (w << np.uint64(8)) | np.uint64(raw[i, at + b])")
        s("return w")
    with s.function("be_put", ("out", "i", "at", "w"), INTERNAL):
        with s.block("for b in range(8)"):
            s("out[i, at + b] = np.uint8((w >> np.uint64(56 - 8 * b)) & np.uint64(255))")
    with s.function("fq_be_load", ("raw", "i", "at", "top"), INTERNAL, doc="`top` replaces the first byte."):
        for limb in range(LIMBS):
            s(f"l{limb} = be_word(raw, i, at + {NBYTES - 8 - 8 * limb})")
        top = LIMBS - 1
        s(f"l{top} = (l{top} & np.uint64({(1 << 56) - 1:#x})) | (top << np.uint64(56))")
        s("return " + tuple_of(f"l{limb}" for limb in range(LIMBS)))
    with s.function("fq_be_store", ("out", "i", "at", "c"), INTERNAL):
        for limb in range(LIMBS):
            s(f"be_put(out, i, at + {NBYTES - 8 - 8 * limb}, c[{limb}])")


def _group_kernels(s: Source, g: str) -> None:
    wire = WIRE[g]
    load = lambda w: tuple_of(f"pts[i, {wire[w]}, {k}]" for k in range(LIMBS))  # noqa: E731
    with spans(s, f"{g}_encode_uncompressed", ("pts", "out"), "pts.shape[0]",
               doc="Montgomery points uint64[n, 2, *coord] -> uint8[n, size]; all-zero is infinity."):
        s(*per_span_rows(("pts", "out")))
        with s.block("for i in range(pts.shape[0])"):
            s(*(f"m{w} = {load(w)}" for w in range(len(wire))))
            for w in range(len(wire)):
                s(f"fq_be_store(out, i, {NBYTES * w}, fq_from_mont(m{w}))")
            with s.block("if " + " and ".join(f"fq_is_zero(m{w})" for w in range(len(wire)))):
                s("out[i, 0] |= np.uint8(0x40)")

    with spans(s, f"{g}_decode_uncompressed", ("raw", "pts", "bad"), "raw.shape[0]",
               doc="uint8[n, size] -> Montgomery points (zero where infinite) and failure bits per point."):
        s(*per_span_rows(("raw", "pts", "bad")))
        with s.block("for i in range(raw.shape[0])"):
            s("f = raw[i, 0]", "inf = (f & np.uint8(0x40)) != 0", "sort = (f & np.uint8(0x20)) != 0",
              "b = np.uint8(0)")
            with s.block("if f & np.uint8(0x80)"):
                s(f"b |= np.uint8({BAD_COMPRESSED})")
            with s.block("if sort"):
                s(f"b |= np.uint8({BAD_SORT})")
            with s.block("if inf and sort"):
                s(f"b |= np.uint8({BAD_INF_SORT})")
            for w in range(len(wire)):
                top = "np.uint64(f & np.uint8(0x1F))" if w == 0 else f"np.uint64(raw[i, {NBYTES * w}])"
                s(f"c{w} = fq_be_load(raw, i, {NBYTES * w}, {top})")
            s("nonzero = not (" + " and ".join(f"fq_is_zero(c{w})" for w in range(len(wire))) + ")")
            with s.block("if inf and nonzero"):
                s(f"b |= np.uint8({BAD_INF_BITS})")
            with s.block("if not (" + " and ".join(f"fq_gt(FQ_MODULUS, c{w})" for w in range(len(wire))) + ")"):
                s(f"b |= np.uint8({BAD_CANONICAL})")
            with s.block("if inf"):
                s(f"b |= np.uint8({IS_INFINITY})")
                s(*(f"m{w} = FQ_ZERO" for w in range(len(wire))))
            with s.block("else"):
                s(*(f"m{w} = fq_to_mont(c{w})" for w in range(len(wire))))
            for w in range(len(wire)):
                with s.block(f"for k in range({LIMBS})"):
                    s(f"pts[i, {wire[w]}, k] = m{w}[k]")
            q = "(m0, m1)" if g == "g1" else "((m1, m0), (m3, m2))"
            with s.block(f"if not ({g}_is_on_curve({q}) and (inf or nonzero))"):
                s(f"b |= np.uint8({BAD_CURVE})")
            s("bad[i] = b")


@functools.cache
def kernels():
    """The generated module: g1_/g2_encode_uncompressed, g1_/g2_decode_uncompressed."""
    s = Source()
    s(f"from {curve_kernels('bls12_381').__name__} import *",
      f"FQ_MODULUS = {limbs_literal(BLS12_381_FQ.p, LIMBS)}", "")
    _byte_io(s)
    for g in ("g1", "g2"):
        _group_kernels(s, g)
    return build_module("bls12_381_encoding", s.text())
