"""The target group GT: multi-exponentiation, products, compressed bytes.

GT values are Fq12 arrays `uint64[..., 2, 3, 2, L]` (cuzk.field.tower).

Compression (torus T2, as blstrs compresses Gt to one Fq6): a unitary
a = a0 + a1 w (a * conj(a) = 1) other than +-1 is (b + w) / (b - w) with
b = (1 + a0) / a1 in Fq6, so six Fq elements describe it; decompression is
a0 = (b^2 + v) / (b^2 - v), a1 = 2b / (b^2 - v). b = 0 would be -1, which is
not in the cyclotomic subgroup, so b = 0 stands for the identity instead.

Decoded values are checked to lie in the cyclotomic subgroup G_Phi12
(a^(p^4 - p^2 + 1) = 1, i.e. frob4(a) * a == frob2(a): three cheap
operations), which makes cyclotomic squaring valid on them. A full GT
membership test (a^r = 1, or a^p = a^x) would cost a 64- to 255-bit
exponentiation per element; the verifier does not need it: its checks
compare GT-valued pairing products with products of powers of the decoded
values, so any component outside GT (of order prime to r) can only make a
check fail, never make a wrong GT component pass.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import fields_of
from cuzk.field.codegen import build_module
from cuzk.field.tower import towers_of
from cuzk.field.tower_source import tower_kernels

from .errors import AggregateFormatError

WINDOW = 5  # wNAF width: odd digits in [-15, 15]

GT_SOURCE = '''
L = {L}
HALF = {HALF}
FQ6_V = (FQ2_ZERO, FQ2_ONE, FQ2_ZERO)  # v, whose square root w spans Fq12 over Fq6

@njit(nogil=True, cache=True)
def gt_multiexp_span(s0, s1, bases, digits, parts, out):
    n = bases.shape[0]
    nw = digits.shape[1]
    for p in range(s0, s1):
        lo = n * p // parts
        hi = n * (p + 1) // parts
        m = hi - lo
        tab = np.empty((max(m, 1) * HALF, 2, 3, 2, L), dtype=np.uint64)
        for i in range(m):
            b = fq12_load(bases, lo + i)
            b2 = fq12_cyc_sqr(b)
            t = b
            fq12_store(tab, HALF * i, t)
            for k in range(1, HALF):
                t = fq12_mul(t, b2)
                fq12_store(tab, HALF * i + k, t)
        acc = FQ12_ONE
        started = False
        for w in range(nw):
            if started:
                acc = fq12_cyc_sqr(acc)
            for i in range(m):
                d = digits[lo + i, w]
                if d > 0:
                    acc = fq12_mul(acc, fq12_load(tab, HALF * i + (d >> 1)))
                    started = True
                elif d < 0:
                    acc = fq12_mul(acc, fq12_conj(fq12_load(tab, HALF * i + ((-d) >> 1))))
                    started = True
        fq12_store(out, p, acc)


def gt_multiexp(bases, digits, parts, out):
    """out[p] = prod over the p-th slice of bases of base^e, e in width-{W}
    NAF digits (odd, |d| < 2^{W1}, most significant first): Straus with a
    table of the odd powers base^1, base^3, ..., base^(2^{W1} - 1) per base;
    cyclotomic squarings, so bases must be in G_Phi12 (conj = inverse)."""
    run_spans(gt_multiexp_span, parts, bases, digits, parts, out)

@njit(cache=True)
def gt_wnaf(limbs, out):
    """out[i] = the width-{W} NAF of the integer in limbs[i] (uint64 little-endian
    limbs), most significant digit first, left-padded with zeros (out must be
    wide enough). A carry c keeps the remaining value equal to
    floor(e / 2^pos) + c, so no multi-limb arithmetic is needed."""
    nw = out.shape[1]
    nbits = limbs.shape[1] * 64
    for i in range(limbs.shape[0]):
        for k in range(nw):
            out[i, k] = 0
        pos = 0
        c = 0
        while pos < nbits or c:
            low = c
            for j in range({W}):
                q = pos + j
                if q < nbits:
                    low += int((limbs[i, q >> 6] >> np.uint64(q & 63)) & np.uint64(1)) << j
            if low & 1 == 0:
                c = (((low - c) & 1) + c) >> 1  # bit pos + c is 0 or 2
                pos += 1
                continue
            d = low & ((1 << {W}) - 1)
            if d >= (1 << {W1}):
                d -= 1 << {W}
            c = (low - d) >> {W}
            out[i, nw - 1 - pos] = d
            pos += {W}

@njit(nogil=True, cache=True)
def gt_decode_span(s0, s1, b, parts, out, ok):
    n = b.shape[0]
    for p in range(s0, s1):
        lo = n * p // parts
        hi = n * (p + 1) // parts
        m = hi - lo
        pre = np.empty((max(m, 1), 3, 2, L), dtype=np.uint64)
        acc = FQ6_ONE
        for i in range(m):
            x = fq6_load(b, lo + i)
            d = fq6_sub(fq6_sqr(x), FQ6_V)
            fq6_store(pre, i, acc)  # product of the denominators before i
            acc = fq6_mul(acc, d)
        inv = fq6_inv(acc)
        for i in range(m - 1, -1, -1):
            x = fq6_load(b, lo + i)
            x2 = fq6_sqr(x)
            d = fq6_sub(x2, FQ6_V)
            dinv = fq6_mul(inv, fq6_load(pre, i))
            inv = fq6_mul(inv, d)
            if fq6_eq(x, FQ6_ZERO):
                a = FQ12_ONE
            else:
                a = (fq6_mul(fq6_add(x2, FQ6_V), dinv), fq6_mul(fq6_add(x, x), dinv))
            fq12_store(out, lo + i, a)
            ok[lo + i] = fq12_eq(fq12_mul(fq12_frob(a, 4), a), fq12_frob(a, 2))


def gt_decode(b, parts, out, ok):
    """Torus decompression of each Fq6 b (b = 0: the identity) and the check
    frob4(a) a == frob2(a) (a in G_Phi12), fused: per part one Fq6 inversion
    (Montgomery's trick over the denominators b^2 - v, never zero: v is not a
    square in Fq6, since Fq12 = Fq6[w]/(w^2 - v) is a field), so each element
    costs ~5 Fq6 products instead of an Fq inversion and several kernel calls."""
    run_spans(gt_decode_span, parts, b, parts, out, ok)

'''


@functools.cache
def gt_kernels(curve: str):
    L = fields_of(curve)[1].limbs
    tk = tower_kernels(curve)
    src = f"from {tk.__name__} import *\n" + GT_SOURCE.format(L=L, HALF=1 << (WINDOW - 2), W=WINDOW, W1=WINDOW - 1)
    return build_module(f"{curve}_aggregate_gt", src)


def wnaf_digits(e: int, width: int) -> list[int]:
    """Width-WINDOW NAF of e >= 0, most significant first, left-padded to `width`:
    digits are 0 or odd with |d| < 2^(WINDOW-1), a non-zero one every WINDOW bits at most."""
    full, half = 1 << WINDOW, 1 << (WINDOW - 1)
    out = []
    while e:
        if e & 1:
            d = e & (full - 1)
            if d >= half:
                d -= full
            e -= d
        else:
            d = 0
        out.append(d)
        e >>= 1
    if len(out) > width:
        raise ValueError("exponent too large for the digit width")
    return [0] * (width - len(out)) + out[::-1]


def wnaf_array(curve: str, exponents: list[int], width: int) -> np.ndarray:
    """int8[len, width]: wnaf_digits of each exponent (0 <= e < 2^256), in one kernel call."""
    limbs = np.array([[(e >> (64 * k)) & (2**64 - 1) for k in range(4)] for e in exponents],
                     dtype=np.uint64).reshape(-1, 4)
    if any(e < 0 or e >> 256 for e in exponents) or (len(exponents) and max(exponents).bit_length() >= width):
        raise ValueError("exponent out of range for the digit width")
    out = np.empty((len(exponents), width), dtype=np.int8)
    gt_kernels(curve).gt_wnaf(limbs, out)
    return out


def multiexp(curve: str, bases: np.ndarray, exponents: list[int], parts: int | None = None) -> np.ndarray:
    """prod bases[i]^exponents[i] for bases in G_Phi12 and 0 <= e < r (O(log n) inputs)."""
    import numba

    fr = fields_of(curve)[0]
    fq12 = towers_of(curve)[1]
    bases = np.ascontiguousarray(bases, dtype=np.uint64).reshape((-1,) + fq12.shape)
    if len(exponents) != bases.shape[0]:
        raise ValueError("one exponent per base")
    width = fr.p.bit_length() + 1
    digits = wnaf_array(curve, [int(e) % fr.p for e in exponents], width)
    parts = parts or max(1, min(numba.get_num_threads(), bases.shape[0] // 8 or 1))
    out = fq12.zeros(parts)
    gt_kernels(curve).gt_multiexp(bases, digits, parts, out)
    acc = out[0:1]
    for k in range(1, parts):
        acc = fq12.mul(acc, out[k : k + 1])
    return acc[0]


def in_cyclotomic_subgroup(curve: str, a: np.ndarray) -> np.ndarray:
    """bool[...]: a^(p^4 - p^2 + 1) == 1 (and a != 0)."""
    fq12 = towers_of(curve)[1]
    lhs = fq12.mul(fq12.frobenius(a, 4), a)
    return fq12.equal(lhs, fq12.frobenius(a, 2)) & a.reshape(a.shape[: -4] + (-1,)).any(axis=-1)


# ---- bytes -------------------------------------------------------------------------


def element_size(curve: str) -> int:
    """Bytes of one compressed GT element: six Fq elements."""
    return 6 * fields_of(curve)[1].nbytes


def compress(curve: str, a: np.ndarray) -> np.ndarray:
    """Fq6 `b` per element (Montgomery); the identity maps to b = 0."""
    fq6, fq12 = towers_of(curve)
    a = np.ascontiguousarray(a, dtype=np.uint64).reshape((-1,) + fq12.shape)
    one = fq12.is_one(a)
    a0, a1 = np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1])
    if (~a1.reshape(len(a), -1).any(axis=1) & ~one).any():
        raise ValueError("cannot compress an element of Fq6 other than 1 (not in GT)")
    b = fq6.mul(fq6.add(a0, fq6.ones(len(a))), fq6.inv(a1))
    b[one] = 0
    return b


def decompress(curve: str, b: np.ndarray) -> np.ndarray:
    fq6, fq12 = towers_of(curve)
    b = np.ascontiguousarray(b, dtype=np.uint64).reshape((-1,) + fq6.shape)
    ident = ~b.reshape(len(b), -1).any(axis=1)
    b2 = fq6.sqr(b)
    v = fq6.zeros(len(b))
    v[:, 1] = fields_of(curve)[2].ones(len(b))  # v = 0 + 1 v + 0 v^2
    den = fq6.inv(fq6.sub(b2, v))
    out = fq12.zeros(len(b))
    out[:, 0] = fq6.mul(fq6.add(b2, v), den)
    out[:, 1] = fq6.mul(fq6.add(b, b), den)
    out[ident] = fq12.ones(1)[0]
    return out


def decompress_checked(curve: str, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(decompress(b), in_cyclotomic_subgroup of it) in one kernel call."""
    import numba

    fq12 = towers_of(curve)[1]
    b = np.ascontiguousarray(b, dtype=np.uint64).reshape((-1,) + towers_of(curve)[0].shape)
    out = fq12.zeros(len(b))
    ok = np.zeros(len(b), dtype=np.bool_)
    parts = max(1, min(numba.get_num_threads(), len(b) // 16))
    gt_kernels(curve).gt_decode(b, parts, out, ok)
    return out, ok


def encode(curve: str, a: np.ndarray) -> bytes:
    """Compressed bytes: the six Fq coefficients of b in layout order, big-endian each."""
    fq = fields_of(curve)[1]
    b = compress(curve, a)
    canon = fq.from_mont(b.reshape(-1, fq.limbs))
    le = np.ascontiguousarray(canon, dtype="<u8").view(np.uint8).reshape(-1, 8 * fq.limbs)
    return np.ascontiguousarray(le[:, : fq.nbytes][:, ::-1]).tobytes()


def decode(curve: str, data, what: str = "GT element") -> np.ndarray:
    """Compressed bytes of k elements -> Fq12 uint64[k, ...], checked to be in G_Phi12."""
    fq = fields_of(curve)[1]
    fq6 = towers_of(curve)[0]
    raw = np.frombuffer(bytes(data), dtype=np.uint8)
    size = element_size(curve)
    if raw.size % size:
        raise AggregateFormatError(f"{what}: {raw.size} bytes is not a multiple of {size}")
    rows = raw.reshape(-1, fq.nbytes)
    padded = np.zeros((rows.shape[0], 8 * fq.limbs), dtype=np.uint8)
    padded[:, : fq.nbytes] = rows[:, ::-1]
    canon = padded.view("<u8").astype(np.uint64)
    if not fq.is_canonical(canon).all():
        raise AggregateFormatError(f"{what}: coefficient is not canonical (>= the field modulus p)")
    b = np.ascontiguousarray(fq.to_mont(canon).reshape((-1,) + fq6.shape))
    a, ok = decompress_checked(curve, b)
    if not ok.all():
        raise AggregateFormatError(f"{what}: element {int(np.argmin(ok))} is not in the cyclotomic subgroup")
    return a
