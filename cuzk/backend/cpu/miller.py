"""Multi-Miller loops on the CPU (numba): many pairing products at once.

Two kernels over affine pairs with no point at infinity, both giving Miller-loop
values (before the final exponentiation):

* `chunk_loops`: pairs cut into chunks, each a multi-Miller loop with one shared
  f (cuzk.curve.pairing's kernel), in parallel; a group's chunk values are then
  multiplied together (`group_products`).
* `shared_loops`: pairs given per G2 point (in a SnarkPack GIPA round B_L meets
  w1_R, w2_R and A_R): the twist point's doubling and addition steps run once per
  G2 point and chunk, and only the line's evaluation at each P (two Fq2-by-Fq
  products) and its multiplication into that product's f are paid per pair. Two
  lines of one product are multiplied together before entering f (23 Fq2
  products instead of 26). This is `CpuBackend.miller_products`.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from cuzk.curve import get_curve
from cuzk.curve.pairing import final_exp_program, pairing_kernels, pairing_params, raw_steps
from cuzk.field import fields_of
from cuzk.field.codegen import build_module
from cuzk.field.threads import threads_for
from cuzk.field.tower import towers_of
from cuzk.field.tower_formulas import f12_mul, line_product
from cuzk.field.tower_source import emit_function

CHUNK = 64  # pairs (or G2 points) per task: enough to share f, small enough to balance

SOURCE = '''
L = {L}

@njit(nogil=True, cache=True)
def miller_chunks_span(s0, s1, mode, g1, g2, starts, fin, prog, out):
    for k in range(s0, s1):
        if mode == 2:
            pairing_kernel(2, g1, g2, starts[:1], fin[k:k + 1], prog, out[k:k + 1])
        else:
            pairing_kernel(1, g1, g2, starts[k:k + 2], fin, prog, out[k:k + 1])

def miller_chunks(mode, g1, g2, starts, fin, prog, out):
    """mode 1: out[k] = the shared Miller loop of pairs starts[k]..starts[k+1]-1;
    mode 2: out[k] = the final exponentiation of fin[k]. One kernel for both: each
    caller of pairing_kernel compiles its whole body again."""
    run_spans(miller_chunks_span, fin.shape[0] if mode == 2 else len(starts) - 1, mode, g1, g2, starts, fin, prog,
              out)

@njit(nogil=True, cache=True)
def fq12_group_products_span(s0, s1, vals, starts, out):
    for k in range(s0, s1):
        acc = FQ12_ONE
        for i in range(starts[k], starts[k + 1]):
            acc = fq12_mul(acc, fq12_load(vals, i))
        fq12_store(out, k, acc)

def fq12_group_products(vals, starts, out):
    """out[k] = prod vals[starts[k]:starts[k+1]] (any Fq12 values)."""
    run_spans(fq12_group_products_span, len(starts) - 1, vals, starts, out)
'''


SHARED_SOURCE = '''

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _scaled(l, a, b):
    """The line l = (c0, c1, c2) with P's factors: {SCALE}."""
    return {SCALED}

def miller_shared(g1, g2, q_ptr, p_idx, prod, chunks, nprod, out):
    """out[c, k] = prod over pairs of product k whose G2 point lies in chunk c
    (G2 points chunks[c]..chunks[c+1]-1; pairs of point q: q_ptr[q]..q_ptr[q+1]-1,
    G1 point g1[p_idx[j]], product prod[j]) of the Miller functions."""
    run_spans(miller_shared_span, len(chunks) - 1, g1, g2, q_ptr, p_idx, prod, chunks, nprod, out)

@njit(nogil=True, cache=True)
def miller_shared_span(s0, s1, g1, g2, q_ptr, p_idx, prod, chunks, nprod, out):
    g1v = g1.reshape(g1.shape[0] * 2, L)
    for c in range(s0, s1):
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


@functools.cache
def miller_kernels(curve: str):
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
    dbl, add = raw_steps(curve)
    steps = (emit_function("_dbl_raw", [("T", "g2")], dbl, "2T and the unscaled tangent line.", flat=True)
             + emit_function("_add_raw", [("T", "g2"), ("qx", "fq2"), ("qy", "fq2")], add,
                             "T + Q and the unscaled line through them.", flat=True))
    pair = emit_function(
        "fq12_mul_by_line_pair",
        [("a", "fq12")] + [(f"{v}{i}", "fq2") for v in "xy" for i in range(3)],
        lambda e, a, x0, x1, x2, y0, y1, y2: f12_mul(e, a, line_product(e, (x0, x1, x2), (y0, y1, y2), pk["twist"])),
        "a times the product of two lines (coefficients as the line product takes them).",
        flat=True,
    )
    src = (f"from {mod} import *\n" + (f"from {mod} import {private}\n" if private else "") + SOURCE.format(L=L)
           + steps + pair + shared)
    return build_module(f"{curve}_miller", src)


def group_products(curve: str, vals: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Fq12[k]: the product of vals[starts[k]:starts[k+1]]."""
    curve = get_curve(curve).name
    fq12 = towers_of(curve)[1]
    vals = np.ascontiguousarray(vals, dtype=np.uint64)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    out = fq12.zeros(len(starts) - 1)
    with threads_for(len(vals) * 64):
        miller_kernels(curve).fq12_group_products(vals, starts, out)
    return out


def chunk_loops(curve: str, g1: np.ndarray, g2: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Fq12[k]: the Miller loop of pairs starts[k]..starts[k+1]-1 (none at infinity)."""
    curve = get_curve(curve).name
    L = fields_of(curve)[1].limbs
    ngroups = len(starts) - 1
    chunk = max(1, min(CHUNK, -(-int(starts[-1]) // numba.get_num_threads())))
    cstarts, owner = [], []
    for k in range(ngroups):
        lo, hi = int(starts[k]), int(starts[k + 1])
        cuts = list(range(lo, hi, chunk)) or [lo]
        for c in cuts:
            cstarts.append(c)
            owner.append(k)
    cstarts.append(int(starts[-1]))
    cstarts = np.array(cstarts, dtype=np.int64)
    vals = np.zeros((len(cstarts) - 1, 2, 3, 2, L), dtype=np.uint64)
    miller_kernels(curve).miller_chunks(1, g1, g2, cstarts, np.zeros((0, 2, 3, 2, L), dtype=np.uint64),
                                  final_exp_program(curve), vals)
    owner = np.array(owner, dtype=np.int64)
    gstarts = np.searchsorted(owner, np.arange(ngroups + 1)).astype(np.int64)
    return group_products(curve, vals, gstarts)


def final_exponentiations(curve: str, f: np.ndarray) -> np.ndarray:
    """f^((p^12 - 1)/r) for Fq12[k], the k values in parallel (cuzk.curve.pairing's
    final_exponentiation runs them one after another: a SnarkPack round has 10-11)."""
    curve = get_curve(curve).name
    L = fields_of(curve)[1].limbs
    f = np.ascontiguousarray(f, dtype=np.uint64).reshape(-1, 2, 3, 2, L)
    out = np.zeros_like(f)
    g1, g2 = np.zeros((0, 2, L), np.uint64), np.zeros((0, 2, 2, L), np.uint64)
    with threads_for(len(f), minimum=2):
        miller_kernels(curve).miller_chunks(2, g1, g2, np.zeros(1, np.int64), f, final_exp_program(curve), out)
    return out


def shared_loops(curve: str, g1: np.ndarray, g2: np.ndarray, q_ptr: np.ndarray, p_idx: np.ndarray,
                 prod: np.ndarray, nprod: int) -> np.ndarray:
    """Fq12[nprod]: per product, the Miller loop of its pairs; the pairs of G2 point g2[q]
    are j in q_ptr[q]..q_ptr[q+1]-1, meeting g1[p_idx[j]] in product prod[j]."""
    curve = get_curve(curve).name
    L = fields_of(curve)[1].limbs
    nq = len(g2)
    step = max(1, min(CHUNK, -(-nq // (4 * numba.get_num_threads()))))
    chunks = np.array(sorted(set(range(0, nq, step)) | {nq}), dtype=np.int64)
    out = np.zeros(((len(chunks) - 1) * nprod, 2, 3, 2, L), dtype=np.uint64)
    miller_kernels(curve).miller_shared(g1, g2, q_ptr, p_idx, prod, chunks, nprod, out)
    nch = len(chunks) - 1
    by_prod = np.ascontiguousarray(out.reshape((nch, nprod) + out.shape[1:]).swapaxes(0, 1))
    starts = np.arange(0, nch * nprod + 1, nch, dtype=np.int64)
    return group_products(curve, by_prod.reshape((-1,) + out.shape[1:]), starts)
