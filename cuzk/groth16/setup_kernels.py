"""Host kernels of Groth16 setup, on every thread, (groth16/setup.py).

Why: at 2^27 the numpy-level steps of setup were single-threaded or
materialised full-size arrays that were used once (a broadcast constant is
copied to n x 32 bytes before each `fr.mul`; the transpose sorted 300M
column indices with np.argsort). Here each step is one fused numba pass over
all cores that writes only its result:

* `lagrange`: L_j(tau) = scale * w^j / (tau - w^j), the powers, the batch
  inverse (Montgomery's trick per chunk) and both products in one pass;
* `scaled_powers`: out[i] = scale * base^i (the H scalars; the NTT module's kernel);
* `combine`: (beta u + alpha v + w) times 1/gamma (inputs) or 1/delta (aux);
* `canonical_rows`: src[idx[i]] out of Montgomery form (the fixed-base
  scalars, one chunk at a time, no full-size gathered copy);
* `add_rows`: the partial sums of a cut column added into its row;
* `transpose`: CSR -> CSC by a two-level counting sort (column buckets of
  2^BUCKET_SHIFT, then columns within a bucket), stable in rows as
  np.argsort(kind="stable") was; a column longer than `head` entries keeps
  its first `head` in place and the rest goes to an overflow region, so a
  product over it can be cut into rows of bounded length (`segments`).

Field results are canonical, so a different grouping of the same exact
products gives the same limbs as the numpy-level code it replaces.
"""

from __future__ import annotations

import dataclasses
import functools

import numba
import numpy as np

from cuzk.field import field_kernels
from cuzk.backend.cpu.ntt import ntt_kernels
from cuzk.field.codegen import build_module
from cuzk.field.threads import run_spans, threads_for

BUCKET_SHIFT = 14  # 16384 columns per bucket: local counts fit L2, local column ids fit uint16

TEMPLATE = '''
@njit(nogil=True, cache=True)
def lagrange_span(clo, chi, w, w_inv, tau, scale, out, nchunks):
    """out[j] = scale * w^j / (tau - w^j) for j in chunks clo..chi-1 of nchunks; tau must not be a power
    of w."""
    n = out.shape[0]
    wb = fr_load(w, 0)
    wi = fr_load(w_inv, 0)
    t = fr_load(tau, 0)
    s = fr_load(scale, 0)
    for c in range(clo, chi):
        lo = c * n // nchunks
        hi = (c + 1) * n // nchunks
        if lo < hi:
            e = np.empty(1, dtype=np.uint64)
            e[0] = np.uint64(lo)
            x = fr_pow(wb, e)
            acc = FR_ONE
            for j in range(lo, hi):
                fr_store(out, j, acc)  # product of the denominators before j
                acc = fr_mul(acc, fr_sub(t, x))
                x = fr_mul(x, wb)
            inv = fr_mul(fr_inv(acc), s)  # scale / product of the chunk's denominators
            for j in range(hi - 1, lo - 1, -1):
                x = fr_mul(x, wi)
                q = fr_mul(inv, fr_load(out, j))  # scale / (tau - w^j)
                inv = fr_mul(inv, fr_sub(t, x))
                fr_store(out, j, fr_mul(x, q))

@njit(nogil=True, cache=True)
def combine_span(lo, hi, u, v, w, beta, alpha, gamma_inv, delta_inv, ic, l):
    """k = beta u + alpha v + w; ic = k[:ni] / gamma, l = k[ni:] / delta. Returns the count of zero l."""
    ni = ic.shape[0]
    b = fr_load(beta, 0)
    a = fr_load(alpha, 0)
    g = fr_load(gamma_inv, 0)
    d = fr_load(delta_inv, 0)
    zeros = 0
    for i in range(lo, hi):
        k = fr_add(fr_add(fr_mul(fr_load(u, i), b), fr_mul(fr_load(v, i), a)), fr_load(w, i))
        if i < ni:
            fr_store(ic, i, fr_mul(k, g))
        else:
            x = fr_mul(k, d)
            fr_store(l, i - ni, x)
            if fr_is_zero(x):
                zeros += 1
    return zeros

@njit(nogil=True, cache=True)
def canonical_rows_span(a, b, src, idx, lo, out):
    """out[i] = canonical(src[idx[lo + i]]) for a <= i < b."""
    for i in range(a, b):
        fr_store(out, i, fr_from_mont(fr_load(src, idx[lo + i])))

@njit(cache=True, nogil=True)
def add_rows(out, idx, x):
    """out[idx[s]] += x[s] in order (idx may repeat)."""
    for s in range(x.shape[0]):
        fr_store(out, idx[s], fr_add(fr_load(out, idx[s]), fr_load(x, s)))
'''


@functools.cache
def setup_kernels(curve: str):
    """The generated module for `curve`'s Fr: lagrange_span, combine_span, canonical_rows_span, add_rows."""
    field = field_kernels(curve)
    return build_module(f"{curve}_setup", f"from {field.__name__} import *\n" + TEMPLATE)


def _nchunks(n: int) -> int:
    return max(1, min(n, 4 * numba.get_num_threads()))


def _one(x: int, fr) -> np.ndarray:
    return fr.from_ints([x]).reshape(1, 4)


def lagrange(fr, n: int, tau: int, count: int) -> np.ndarray:
    """The first `count` Lagrange basis values of the size-n domain at tau (Montgomery)."""
    p = fr.p
    w = fr.params.root_of_unity_of_order(n.bit_length() - 1)
    t_n = (pow(tau, n, p) - 1) % p
    if t_n == 0:
        raise ValueError("tau lies in the evaluation domain; draw again")
    out = np.empty((count, 4), dtype=np.uint64)
    with threads_for(count):
        nchunks = _nchunks(count)
        run_spans(setup_kernels(fr.curve).lagrange_span, nchunks, _one(w, fr), _one(pow(w, -1, p), fr),
                  _one(tau, fr), _one(t_n * pow(n, -1, p), fr), out, nchunks)
    return out


def scaled_powers(fr, base: int, scale: int, count: int) -> np.ndarray:
    """out[i] = scale * base^i for i < count (Montgomery)."""
    out = np.empty((count, 4), dtype=np.uint64)
    with threads_for(count):
        ntt_kernels(fr.curve).scaled_powers(_one(base, fr), _one(scale, fr), out, _nchunks(count))
    return out


def combine(fr, u, v, w, num_inputs: int, alpha: int, beta: int, gamma: int, delta: int):
    """(ic_s, l_s, zero_l): (beta u + alpha v + w) / gamma for the inputs, / delta for aux, and
    how many of the aux values are zero."""
    p = fr.p
    n = u.shape[0]
    ic = np.empty((num_inputs, 4), dtype=np.uint64)
    l_s = np.empty((n - num_inputs, 4), dtype=np.uint64)
    with threads_for(n):
        zeros = run_spans(setup_kernels(fr.curve).combine_span, n, u, v, w, _one(beta, fr), _one(alpha, fr),
                          _one(pow(gamma, -1, p), fr), _one(pow(delta, -1, p), fr), ic, l_s)
    return ic, l_s, int(sum(zeros))


def canonical_rows(fr, src: np.ndarray, idx: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """canonical(src[idx[lo:hi]]) as uint64[hi - lo, 4]."""
    out = np.empty((hi - lo, 4), dtype=np.uint64)
    with threads_for(hi - lo):
        run_spans(setup_kernels(fr.curve).canonical_rows_span, hi - lo, src, idx, lo, out)
    return out


def add_rows(fr, out: np.ndarray, idx: np.ndarray, x: np.ndarray) -> None:
    """out[idx[s]] += x[s] for every s (repeated indices add up); a few rows, one thread."""
    setup_kernels(fr.curve).add_rows(out, np.ascontiguousarray(idx, dtype=np.int64), np.ascontiguousarray(x))


# ---- CSR -> CSC ----------------------------------------------------------------------------


@numba.njit(nogil=True, cache=True)
def _bucket_counts(c0, c1, indptr, cols, shift, nbuckets, num_cols, row_bounds, counts):
    """counts[c, b] (zeroed): entries of row chunk c in column bucket b (b == nbuckets: column >= num_cols)."""
    for c in range(c0, c1):
        for k in range(indptr[row_bounds[c]], indptr[row_bounds[c + 1]]):
            col = np.int64(cols[k])
            counts[c, (col >> shift) if col < num_cols else nbuckets] += 1


@numba.njit(nogil=True, cache=True)
def _bucket_scatter(c0, c1, indptr, cols, coeff, shift, row_bounds, starts, t_rows, t_cols, t_coeff):
    """Entries into their bucket, chunk after chunk, rows ascending within a chunk (stable)."""
    mask = (np.int64(1) << shift) - 1
    for c in range(c0, c1):
        pos = starts[c].copy()
        for r in range(row_bounds[c], row_bounds[c + 1]):
            for k in range(indptr[r], indptr[r + 1]):
                col = np.int64(cols[k])
                b = col >> shift
                q = pos[b]
                pos[b] = q + 1
                t_rows[q] = r
                t_cols[q] = col & mask
                t_coeff[q] = coeff[k]


@numba.njit(nogil=True, cache=True)
def _bucket_totals(b0, b1, bucket_start, shift, num_cols, head, t_cols, totals):
    """totals[b] = (head entries, overflow entries, long columns) of bucket b."""
    for b in range(b0, b1):
        c0 = b << shift
        width = min(num_cols, c0 + (np.int64(1) << shift)) - c0
        at = np.zeros(width, dtype=np.int64)
        for k in range(bucket_start[b], bucket_start[b + 1]):
            at[np.int64(t_cols[k])] += 1
        h = o = nl = 0
        for i in range(width):
            h += min(at[i], head)
            if at[i] > head:
                o += at[i] - head
                nl += 1
        totals[b, 0], totals[b, 1], totals[b, 2] = h, o, nl


@numba.njit(nogil=True, cache=True)
def _bucket_sort(b0, b1, bucket_start, shift, num_cols, head, head_start, over_start, long_start,
                 t_rows, t_cols, t_coeff, rows, coeff, indptr, long_cols, long_pos):
    """Counting sort by column inside each bucket (stable): a column's first `head` entries go to
    its head range (indptr), the rest to the overflow region, recorded in long_cols / long_pos."""
    for b in range(b0, b1):
        c0 = b << shift
        width = min(num_cols, c0 + (np.int64(1) << shift)) - c0
        lo, hi = bucket_start[b], bucket_start[b + 1]
        hpos = np.zeros(width, dtype=np.int64)
        opos = np.zeros(width, dtype=np.int64)
        for k in range(lo, hi):
            hpos[np.int64(t_cols[k])] += 1
        hp, op, lp = head_start[b], over_start[b], long_start[b]
        for i in range(width):
            x = hpos[i]
            hpos[i] = hp
            hp += min(x, head)
            indptr[c0 + i + 1] = hp
            if x > head:
                long_cols[lp] = c0 + i
                long_pos[lp] = op
                lp += 1
                opos[i] = op
                op += x - head
        for k in range(lo, hi):
            i = np.int64(t_cols[k])
            q = hpos[i]
            if q < indptr[c0 + i + 1]:
                hpos[i] = q + 1
            else:
                q = opos[i]
                opos[i] = q + 1
            rows[q] = t_rows[k]
            coeff[q] = t_coeff[k]


@dataclasses.dataclass(frozen=True)
class Transposed:
    """M^T as CSC, rows ascending within each column (the order np.argsort(kind="stable") gives).

    Column c's first `head` entries are rows[indptr[c]:indptr[c + 1]]; a longer column (`long_cols`,
    ascending) continues at rows[long_pos[i]:...] in the overflow region after every head, the
    long columns one after another up to nnz. No long column: a plain CSC."""

    indptr: np.ndarray  # int64[num_cols + 1]
    rows: np.ndarray  # uint32[nnz]
    coeff: np.ndarray  # mat.coeff_idx's dtype [nnz]
    long_cols: np.ndarray  # int64[k]
    long_pos: np.ndarray  # int64[k]

    def segments(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(indptr int64[num_cols + s + 1], col int64[s]): every column's head as one row, then the
        overflow cut into s rows of <= size entries, row num_cols + i belonging to column col[i]."""
        nnz = len(self.rows)
        ends = np.append(self.long_pos[1:], nnz)
        pieces = [np.arange(a, e, size, dtype=np.int64) for a, e in zip(self.long_pos, ends)]
        starts = np.concatenate(pieces) if pieces else np.zeros(0, np.int64)
        col = np.repeat(self.long_cols, [len(x) for x in pieces]).astype(np.int64)
        return np.concatenate([self.indptr[:-1], starts, np.array([nnz], np.int64)]), col


def transpose(mat, num_cols: int, head: int = 1 << 62) -> Transposed:
    """M^T of a CsrMatrix by a two-level counting sort; columns longer than `head` are split."""
    indptr_in = mat.indptr
    nnz, num_rows = int(indptr_in[-1]) if len(indptr_in) else 0, mat.num_rows
    shift = np.int64(BUCKET_SHIFT)
    nbuckets = max(1, -(-num_cols >> BUCKET_SHIFT))
    nch = max(1, min(num_rows, 2 * numba.get_num_threads())) if nnz >= 1 << 16 else 1
    row_bounds = np.searchsorted(indptr_in, np.linspace(0, nnz, nch + 1).astype(np.int64), side="left")
    row_bounds[0], row_bounds[-1] = 0, num_rows
    row_bounds = row_bounds.astype(np.int64)
    with threads_for(nnz):
        counts = np.zeros((nch, nbuckets + 1), dtype=np.int64)
        run_spans(_bucket_counts, nch, indptr_in, mat.cols, shift, nbuckets, np.int64(num_cols), row_bounds, counts)
        if counts[:, nbuckets].any():
            raise ValueError(f"a column index is >= num_cols ({num_cols})")
        counts = counts[:, :nbuckets]
        # start of (chunk c, bucket b): every entry of earlier buckets, then of earlier chunks in b
        flat = np.zeros(counts.size + 1, dtype=np.int64)
        np.cumsum(counts.T.ravel(), out=flat[1:])
        starts = np.ascontiguousarray(flat[:-1].reshape(nbuckets, nch).T)
        bucket_start = np.append(flat[:-1:nch], nnz).astype(np.int64)
        del counts, flat
        t_rows = np.empty(nnz, dtype=np.uint32)
        t_cols = np.empty(nnz, dtype=np.uint16)
        t_coeff = np.empty(nnz, dtype=mat.coeff_idx.dtype)
        run_spans(_bucket_scatter, nch, indptr_in, mat.cols, mat.coeff_idx, shift, row_bounds, starts, t_rows, t_cols,
                  t_coeff)
        totals = np.zeros((nbuckets, 3), dtype=np.int64)
        head = np.int64(max(1, head))
        run_spans(_bucket_totals, nbuckets, bucket_start, shift, np.int64(num_cols), head, t_cols, totals)
        excl = np.zeros((nbuckets + 1, 3), dtype=np.int64)
        np.cumsum(totals, axis=0, out=excl[1:])
        heads = int(excl[-1, 0])
        rows = np.empty(nnz, dtype=np.uint32)
        coeff = np.empty(nnz, dtype=mat.coeff_idx.dtype)
        indptr = np.empty(num_cols + 1, dtype=np.int64)
        indptr[0] = 0
        long_cols = np.empty(int(excl[-1, 2]), dtype=np.int64)
        long_pos = np.empty_like(long_cols)
        run_spans(_bucket_sort, nbuckets, bucket_start, shift, np.int64(num_cols), head, excl[:-1, 0].copy(),
                  heads + excl[:-1, 1], excl[:-1, 2].copy(), t_rows, t_cols, t_coeff, rows, coeff, indptr,
                  long_cols, long_pos)
    return Transposed(indptr, rows, coeff, long_cols, long_pos)
