"""Pairing products with one final exponentiation each, spread over cores.

`shared_products` is the same for products whose pairs share G2 points (in
a GIPA round B_L meets w1_R, w2_R and A_R): the twist point's doubling and
addition steps run once per G2 point per chunk and only the line's
evaluation at each P (two Fq2-by-Fq products) and its multiplication into
that product's f are paid per pair; each chunk keeps one f per product.

`products(curve, g1, g2, starts)` gives, for each group k of pairs
starts[k]..starts[k+1]-1, prod_i e(g1_i, g2_i). Every group is cut into
chunks; the chunks' Miller loops run in parallel (each a multi-Miller loop
with one shared f, cuzk.curve.pairing's kernel), the chunk values of a group
are multiplied, and each group gets a single final exponentiation. Pairs
with a point at infinity contribute 1 and are dropped first.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from cuzk.curve import get_curve
from cuzk.curve.pairing import final_exp_program, final_exponentiation, pairing_kernels
from cuzk.field import fields_of
from cuzk.field.codegen import build_module
from cuzk.field.tower_formulas import f12_mul, line_product
from cuzk.field.tower_source import emit_function

from .gt import group_products

CHUNK = 64  # pairs per Miller-loop task: enough to share f, small enough to balance

SOURCE = '''
L = {L}

@njit(parallel=True, cache=True)
def miller_chunks(g1, g2, starts, prog, out):
    """out[k] = the shared Miller loop of pairs starts[k]..starts[k+1]-1."""
    fin = np.zeros((0, 2, 3, 2, L), dtype=np.uint64)
    for k in prange(len(starts) - 1):
        pairing_kernel(1, g1, g2, starts[k:k + 2], fin, prog, out[k:k + 1])
'''


SHARED_SOURCE = '''

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _scaled(l, a, b):
    """The line l = (c0, c1, c2) with P's factors: {SCALE}."""
    return {SCALED}

@njit(parallel=True, cache=True)
def miller_shared(g1, g2, q_ptr, p_idx, prod, chunks, nprod, out):
    """out[c, k] = prod over pairs of product k whose G2 point lies in chunk c
    (G2 points chunks[c]..chunks[c+1]-1; pairs of point q: q_ptr[q]..q_ptr[q+1]-1,
    G1 point g1[p_idx[j]], product prod[j]) of the Miller functions."""
    g1v = g1.reshape(g1.shape[0] * 2, L)
    for c in prange(len(chunks) - 1):
        q0 = chunks[c]
        m = chunks[c + 1] - q0
        T = np.empty((max(m, 1), 3, 2, L), dtype=np.uint64)
        f = np.empty((nprod, 2, 3, 2, L), dtype=np.uint64)
        used = np.zeros(nprod, dtype=np.bool_)
        for k in range(nprod):
            fq12_store(f, k, FQ12_ONE)
        for i in range(m):
            qx, qy = g2_load(g2, q0 + i)
            fq6_store(T, i, (qx, qy, FQ2_ONE))
            for j in range(q_ptr[q0 + i], q_ptr[q0 + i + 1]):
                used[prod[j]] = True
        pend = np.zeros(nprod, dtype=np.bool_)
        pl = np.empty((nprod, 3, 2, L), dtype=np.uint64)
        started = False
        for d in LOOP:
            if started:
                for k in range(nprod):
                    if used[k]:
                        fq12_store(f, k, fq12_sqr(fq12_load(f, k)))
            started = True
            for i in range(m):
                q = q0 + i
                t, l = _dbl_raw(fq6_load(T, i))
                for j in range(q_ptr[q], q_ptr[q + 1]):
                    x = fq_load(g1v, 2 * p_idx[j])
                    ny = fq_neg(fq_load(g1v, 2 * p_idx[j] + 1))
                    _absorb(f, pl, pend, prod[j], _scaled(l, fq_add(fq_dbl(x), x), ny))
                if d != 0:
                    qx, qy = g2_load(g2, q)
                    if d < 0:
                        qy = fq2_neg(qy)
                    t, l = _add_raw(t, qx, qy)
                    for j in range(q_ptr[q], q_ptr[q + 1]):
                        x = fq_load(g1v, 2 * p_idx[j])
                        ny = fq_neg(fq_load(g1v, 2 * p_idx[j] + 1))
                        _absorb(f, pl, pend, prod[j], _scaled(l, x, ny))
                fq6_store(T, i, t)
            _flush(f, pl, pend)
{TAIL}
        for k in range(nprod):
            v = fq12_load(f, k)
            if CONJ_AT_END:
                v = fq12_conj(v)
            fq12_store(out, c * nprod + k, v)

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _absorb(f, pl, pend, k, s):
    """A line s for product k: kept until a second one comes, then both are
    multiplied together and into f[k] (fq12_mul_by_line_pair)."""
    if pend[k]:
        p = fq6_load(pl, k)
        fq12_store(f, k, fq12_mul_by_line_pair(fq12_load(f, k), p[0], p[1], p[2], s[0], s[1], s[2]))
        pend[k] = False
    else:
        fq6_store(pl, k, s)
        pend[k] = True

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _flush(f, pl, pend):
    """The lines still kept, multiplied into their f (before the next squaring)."""
    for k in range(len(pend)):
        if pend[k]:
            p = fq6_load(pl, k)
            fq12_store(f, k, {LINE}(fq12_load(f, k), p[0], p[1], p[2]))
            pend[k] = False
'''

SHARED_BN_TAIL = '''\
        for i in range(m):
            q = q0 + i
            qx, qy = g2_load(g2, q)
            q1, q2 = _twist_frob(qx, qy)
            t, l1 = _add_raw(fq6_load(T, i), q1[0], q1[1])
            t, l2 = _add_raw(t, q2[0], q2[1])
            for j in range(q_ptr[q], q_ptr[q + 1]):
                x = fq_load(g1v, 2 * p_idx[j])
                ny = fq_neg(fq_load(g1v, 2 * p_idx[j] + 1))
                _absorb(f, pl, pend, prod[j], _scaled(l1, x, ny))
                _absorb(f, pl, pend, prod[j], _scaled(l2, x, ny))
        _flush(f, pl, pend)'''


def _raw_steps(pk) -> str:
    """Flat `_dbl_raw(T)` and `_add_raw(T, qx, qy)`: cuzk.curve.pairing's doubling and
    addition steps with the line left unscaled (the factors of P are applied per pair,
    by _scaled), so no products by one are paid per G2 point."""
    from cuzk.curve.pairing import add_step_code, dbl_step_code

    b3 = tuple(3 * v % pk["p"] for v in pk["b2"])
    xi = tuple(pk["xi"])
    small = next((k for k in range(1, 17) if tuple(k * v % pk["p"] for v in xi) == b3), None)

    def times(e, a, k):  # k a by doublings and additions
        acc = None
        for bit in bin(k)[2:]:
            acc = e.dbl(acc)
            if bit == "1":
                acc = e.add(acc, a)
        return acc

    def raw(e):
        mul_fq, mul_const = e.mul_fq, e.mul_const
        e.mul_fq = lambda a, s: a if s == "RAW" else mul_fq(a, s)
        # 3 b' = k xi with k small on BLS12-381 (k = 12): xi's addition chain and k doublings/additions
        e.mul_const = lambda a, c, name: (times(e, e.xi(a), small) if name == "TWIST_B3" and small
                                          else mul_const(a, c, name))
        return e

    return (emit_function("_dbl_raw", [("T", "g2")], lambda e, T: dbl_step_code(raw(e), T, "RAW", "RAW", b3, pk["twist"]),
                          "2T and the unscaled tangent line.", flat=True)
            + emit_function("_add_raw", [("T", "g2"), ("qx", "fq2"), ("qy", "fq2")],
                            lambda e, T, qx, qy: add_step_code(raw(e), T, qx, qy, "RAW", "RAW", pk["twist"]),
                            "T + Q and the unscaled line through them.", flat=True))


@functools.cache
def _kernels(curve: str):
    from cuzk.curve.pairing import pairing_params

    pk = pairing_params(curve)
    L = fields_of(curve)[1].limbs
    if pk["twist"] == "M":  # lines (c0, c1 * x-part, c2 * y-part), multiplied by_014
        scaled, doc, line = "(l[0], fq2_mul_fq(l[1], a), fq2_mul_fq(l[2], b))", "c1 * a, c2 * b", "fq12_mul_by_014"
    else:  # D-twist: (c0 * y-part, c1 * x-part, c2), multiplied by_034
        scaled, doc, line = "(fq2_mul_fq(l[0], b), fq2_mul_fq(l[1], a), l[2])", "c0 * b, c1 * a", "fq12_mul_by_034"
    tail = SHARED_BN_TAIL if pk["family"] == "bn" else ""
    shared = (SHARED_SOURCE.replace("{SCALED}", scaled).replace("{SCALE}", doc).replace("{LINE}", line)
              .replace("{TAIL}", tail))
    mod = pairing_kernels(curve).__name__
    private = "_twist_frob" if tail else ""  # `import *` skips _names
    steps = _raw_steps(pk)
    pair = emit_function(
        "fq12_mul_by_line_pair",
        [("a", "fq12")] + [(f"{v}{i}", "fq2") for v in "xy" for i in range(3)],
        lambda e, a, x0, x1, x2, y0, y1, y2: f12_mul(e, a, line_product(e, (x0, x1, x2), (y0, y1, y2), pk["twist"])),
        "a times the product of two lines (coefficients as the line product takes them).",
        flat=True,
    )
    src = (f"from {mod} import *\n" + (f"from {mod} import {private}\n" if private else "") + SOURCE.format(L=L)
           + steps + pair + shared)
    return build_module(f"{curve}_aggregate_pairings", src)


def miller_loops(curve: str, g1: np.ndarray, g2: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Miller-loop values (before final exponentiation) of each group."""
    curve = get_curve(curve).name
    L = fields_of(curve)[1].limbs
    g1 = np.ascontiguousarray(g1, dtype=np.uint64).reshape(-1, 2, L)
    g2 = np.ascontiguousarray(g2, dtype=np.uint64).reshape(-1, 2, 2, L)
    starts = np.asarray(starts, dtype=np.int64)
    if g1.shape[0] != g2.shape[0] or starts[-1] != g1.shape[0]:
        raise ValueError("pair arrays and group starts disagree")
    keep = g1.reshape(len(g1), -1).any(axis=1) & g2.reshape(len(g2), -1).any(axis=1)
    kept = np.concatenate([[0], np.cumsum(keep)])
    new_starts = kept[starts]
    g1, g2 = np.ascontiguousarray(g1[keep]), np.ascontiguousarray(g2[keep])
    ngroups = len(starts) - 1
    chunk = max(1, min(CHUNK, -(-int(keep.sum()) // numba.get_num_threads())))
    cstarts, owner = [], []
    for k in range(ngroups):
        lo, hi = int(new_starts[k]), int(new_starts[k + 1])
        cuts = list(range(lo, hi, chunk)) or [lo]
        for c in cuts:
            cstarts.append(c)
            owner.append(k)
    cstarts.append(int(new_starts[-1]))
    cstarts = np.array(cstarts, dtype=np.int64)
    vals = np.zeros((len(cstarts) - 1, 2, 3, 2, L), dtype=np.uint64)
    _kernels(curve).miller_chunks(g1, g2, cstarts, final_exp_program(curve), vals)
    owner = np.array(owner, dtype=np.int64)
    gstarts = np.searchsorted(owner, np.arange(ngroups + 1)).astype(np.int64)
    return group_products(curve, vals, gstarts)


def products(curve: str, g1: np.ndarray, g2: np.ndarray, starts) -> np.ndarray:
    """prod e(g1_i, g2_i) per group, as GT values uint64[k, 2, 3, 2, L]."""
    return final_exponentiation(curve, miller_loops(curve, g1, g2, starts))


class SharedPairs:
    """Products whose pairs are given per G2 point: `add(q, [(p, k), ...])` adds,
    for every i, the pairs (p[i], q[i]) to product k (arrays of equal length)."""

    def __init__(self, curve: str, nprod: int):
        self.curve, self.nprod = get_curve(curve).name, nprod
        self._q, self._p, self._k = [], [], []

    def add(self, q: np.ndarray, attached) -> None:
        self._q.append(q)
        self._p.append(np.stack([p for p, _ in attached], axis=1))  # [m, t, 2, L]
        self._k.append([k for _, k in attached])

    def miller_loops(self) -> np.ndarray:
        curve = self.curve
        L = fields_of(curve)[1].limbs
        qs, ps, ks = [], [], []
        for q, p, k in zip(self._q, self._p, self._k):
            m, t = p.shape[:2]
            qs.append(q)
            ps.append(p.reshape(m * t, 2, L))
            ks.append(np.tile(np.array(k, dtype=np.int64), m))
        q = np.ascontiguousarray(np.concatenate(qs), dtype=np.uint64)
        g1 = np.ascontiguousarray(np.concatenate(ps), dtype=np.uint64)
        prod = np.concatenate(ks)
        per_q = np.concatenate([np.full(len(qq), p.shape[1], dtype=np.int64) for qq, p in zip(self._q, self._p)])
        owner = np.repeat(np.arange(len(q)), per_q)
        keep = g1.reshape(len(g1), -1).any(axis=1) & q.reshape(len(q), -1).any(axis=1)[owner]
        counts = np.bincount(owner[keep], minlength=len(q))
        q_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        p_idx = np.flatnonzero(keep).astype(np.int64)
        prod = np.ascontiguousarray(prod[keep])
        nq = len(q)
        step = max(1, min(CHUNK, -(-nq // (4 * numba.get_num_threads()))))
        chunks = np.array(sorted(set(range(0, nq, step)) | {nq}), dtype=np.int64)
        out = np.zeros(((len(chunks) - 1) * self.nprod, 2, 3, 2, L), dtype=np.uint64)
        _kernels(curve).miller_shared(g1, q, q_ptr, p_idx, prod, chunks, self.nprod, out)
        nch = len(chunks) - 1
        by_prod = np.ascontiguousarray(out.reshape((nch, self.nprod) + out.shape[1:]).swapaxes(0, 1))
        starts = np.arange(0, nch * self.nprod + 1, nch, dtype=np.int64)
        return group_products(curve, by_prod.reshape((-1,) + out.shape[1:]), starts)

    def products(self) -> np.ndarray:
        return final_exponentiation(self.curve, self.miller_loops())
