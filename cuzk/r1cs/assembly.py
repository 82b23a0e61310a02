"""A recording's compiled circuit, assembled in its final narrow arrays.

A recording is a sequence of segments: runs of scalar `enforce` rows (code
form, in the recorder's buffers) and stamped blocks (template, count, inputs,
aux base). Expanding every stamp into int64 code-form rows and then
canonicalizing them (`compiled.compile_rows`) peaks at ~700 bytes per
constraint, which puts a 2^27-row partition out of reach of a 128 GiB host.
Here a numba kernel instantiates each block a chunk of instances at a time,
writing final columns (uint32) and provisional coefficient ids (uint32) into
arrays sized by the raw term count, and sorts, merges and drops zeros row by
row on the way. The peak is the finished arrays plus 4 bytes per term (the
provisional ids, narrowed at the end) plus one chunk: ~70 bytes per constraint
(see `peak_bytes_estimate`).

The result is the same canonical form as `compile_rows` (terms sorted by
column, repeated columns summed, zeros dropped; coefficient table +1, -1,
then the used values by size), so its bytes and topology hash are equal.
Repeated columns whose coefficients are small integers (|c| < 2^62) are
summed in the kernel; a chunk that repeats a column with a big coefficient
is redone with numpy and Python ints (rare).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cuzk.field import fields_of

from .coefficients import codes_to_field
from .compiled import CompiledCircuit, CsrMatrix, _canonical_rows, _Table, pack_bits, sort_row_terms
from .stamping import instantiate
from .variable import columns

CHUNK_TERMS = 1 << 22  # raw terms instantiated per kernel call
PENDING = np.uint32(0xFFFFFFFF)  # a merged term's id, assigned after the kernel returns
SMALL = 1 << 62
BIG_MERGE = -1  # kernel status: a repeated column with a coefficient that is not small


def peak_bytes_estimate(rows: int, nnz: int, num_aux: int) -> int:
    """Bytes `assemble` adds at its peak: row pointers (4 per row and matrix),
    columns and provisional ids (4 + 4 per term), the narrowed ids of the matrix
    being narrowed, densities (3 per aux), one chunk's merge buffers and
    the kernels. Measured over the recording of the (since removed) PoRep model: 16M
    constraints 1.13 GB (this gives 1.24 GB); 131M 8.5 GB (this gives 9.2 GB)."""
    return 12 * rows + 9 * nnz + 3 * num_aux + 8 * CHUNK_TERMS + (32 << 20)


# ---- kernels -------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _canon_row(cols, ids, lo, hi, small, is_small, zero_pid, pend_pos, pend_val, n_pend):
    """Sort cols[lo:hi] (with ids) by column, sum repeated columns, drop zeros, in place.
    -> (new end, pending count), or (BIG_MERGE, ...) for a repeat with a big coefficient."""
    sort_row_terms(cols, ids, lo, hi)
    w = lo
    i = lo
    while i < hi:
        c = cols[i]
        pid = ids[i]
        j = i + 1
        if j < hi and cols[j] == c:
            if not is_small[pid]:
                return BIG_MERGE, n_pend
            s = small[pid]
            while j < hi and cols[j] == c:
                q = ids[j]
                if not is_small[q]:
                    return BIG_MERGE, n_pend
                s += small[q]
                if s >= SMALL or s <= -SMALL:
                    return BIG_MERGE, n_pend
                j += 1
            if s != 0:  # |s| < 2^62 < r: zero mod r only when zero
                cols[w] = c
                ids[w] = PENDING
                pend_pos[n_pend] = w
                pend_val[n_pend] = s
                n_pend += 1
                w += 1
        elif pid != zero_pid:
            cols[w] = c
            ids[w] = pid
            w += 1
        i = j
    return w, n_pend


@njit(cache=True, nogil=True)
def _emit_stamp(t_lens, t_vars, t_pids, k0, k1, inputs, aux_base, t_aux, num_inputs,
                small, is_small, zero_pid, cols, ids, indptr, row, pos, pend_pos, pend_val):
    """Instances k0..k1 of one template matrix -> final rows from `row`, terms from `pos`.
    -> (row, pos, pending count); pos = BIG_MERGE when the chunk must be redone."""
    n_pend = 0
    for k in range(k0, k1):
        aux0 = num_inputs + aux_base + k * t_aux
        j = 0
        for r in range(len(t_lens)):
            lo = pos
            for _ in range(t_lens[r]):
                v = t_vars[j]
                if v < 0:
                    c = aux0 + ~v
                elif v == 0:
                    c = 0
                else:
                    pv = inputs[k, v - 1]
                    c = pv if pv >= 0 else num_inputs + ~pv
                cols[pos] = c
                ids[pos] = t_pids[j]
                pos += 1
                j += 1
            pos, n_pend = _canon_row(cols, ids, lo, pos, small, is_small, zero_pid, pend_pos, pend_val, n_pend)
            if pos == BIG_MERGE:
                return row, pos, n_pend
            row += 1
            indptr[row] = pos
    return row, pos, n_pend


@njit(cache=True, nogil=True)
def _emit_rows(lens, vars_, pids, num_inputs, small, is_small, zero_pid, cols, ids, indptr, row, pos,
               pend_pos, pend_val):
    """Scalar rows (parent variable codes) -> final rows from `row`; as `_emit_stamp`."""
    n_pend = 0
    j = 0
    for r in range(len(lens)):
        lo = pos
        for _ in range(lens[r]):
            v = vars_[j]
            cols[pos] = v if v >= 0 else num_inputs + ~v
            ids[pos] = pids[j]
            pos += 1
            j += 1
        pos, n_pend = _canon_row(cols, ids, lo, pos, small, is_small, zero_pid, pend_pos, pend_val, n_pend)
        if pos == BIG_MERGE:
            return row, pos, n_pend
        row += 1
        indptr[row] = pos
    return row, pos, n_pend


@njit(cache=True, nogil=True)
def _mark_used(ids, used):
    for i in range(len(ids)):
        used[ids[i]] = True


@njit(cache=True, nogil=True)
def _narrow(ids, final, out):
    for i in range(len(ids)):
        out[i] = final[ids[i]]


@njit(cache=True, nogil=True)
def _mark_columns(cols, num_inputs, inputs, aux):
    """inputs[c] / aux[c - num_inputs] = True for every column c (an empty array skips that kind)."""
    mark_in = len(inputs) > 0
    mark_aux = len(aux) > 0
    for i in range(len(cols)):
        c = np.int64(cols[i])
        if c >= num_inputs:
            if mark_aux:
                aux[c - num_inputs] = True
        elif mark_in:
            inputs[c] = True


# ---- assembly -------------------------------------------------------------------------------


class _Pids:
    """Provisional coefficient ids: a `_Table` of values mod r, plus the small
    signed value of each id (for merging in the kernel)."""

    def __init__(self, p: int):
        self.p = p
        self.table = _Table(p)
        self.one = self.table.intern(1)
        self.table.intern(p - 1)
        self.zero = self.table.intern(0)
        self._small = None

    def of_codes(self, codes: np.ndarray) -> np.ndarray:
        """Coefficient codes -> uint32 provisional ids."""
        inverse, values = codes_to_field(codes, self.p)
        remap = np.array([self.table.intern(v) for v in values], dtype=np.uint32)
        return remap[inverse] if len(codes) else np.zeros(0, np.uint32)

    def small(self) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.table.values)
        if self._small is None or len(self._small[0]) != n:
            p = self.p
            vals = [v if v < SMALL else (v - p if p - v < SMALL else 0) for v in self.table.values]
            ok = [v < SMALL or p - v < SMALL for v in self.table.values]
            self._small = (np.array(vals, dtype=np.int64), np.array(ok, dtype=np.bool_))
        return self._small

    def settle(self, ids: np.ndarray, pend_pos: np.ndarray, pend_val: np.ndarray, n: int) -> None:
        """Give the kernel's merged terms their ids."""
        if not n:
            return
        uniq, inv = np.unique(pend_val[:n], return_inverse=True)
        got = np.array([self.table.intern(int(v)) for v in uniq.tolist()], dtype=np.uint32)
        ids[pend_pos[:n]] = got[inv.reshape(-1)]


class _Matrix:
    """One matrix being written: row pointers, columns, provisional ids."""

    def __init__(self, rows: int, upper: int):
        self.indptr = np.empty(rows + 1, dtype=np.int32 if upper < 1 << 31 else np.int64)
        self.indptr[0] = 0
        self.cols = np.empty(upper, dtype=np.uint32)
        self.ids = np.empty(upper, dtype=np.uint32)
        self.row = 0
        self.pos = 0

    def put(self, lens, cols, ids) -> None:
        """Append canonical rows (lens int64[rows]; cols, ids per term)."""
        n, r = len(cols), len(lens)
        self.cols[self.pos : self.pos + n] = cols
        self.ids[self.pos : self.pos + n] = ids
        self.indptr[self.row + 1 : self.row + 1 + r] = self.pos + np.cumsum(lens)
        self.pos += n
        self.row += r

    def trim(self) -> None:
        for name in ("cols", "ids"):
            getattr(self, name).resize(self.pos, refcheck=False)  # no views exist: shrink in place


def assemble(curve: str, num_inputs: int, num_aux: int, num_constraints: int, scalar, stamps) -> CompiledCircuit:
    """The CompiledCircuit of a recording.

    scalar: three SparseRows in variable-code form, the rows recorded by `enforce`;
    stamps: [(scalar rows before it, template, count, inputs int64[count, t_in], aux base)]
    in recording order."""
    fr = fields_of(curve)[0]
    p = fr.p
    n_vars = num_inputs + num_aux
    if n_vars > 1 << 32:
        raise ValueError(f"{n_vars} variables do not fit uint32 column indices")
    rows = num_constraints + num_inputs
    pids = _Pids(p)
    tmpl_pids: dict[int, tuple] = {}
    for _, t, _, _, _ in stamps:
        if id(t) not in tmpl_pids:
            for m in t.matrices:
                if m.nnz and (int(m.vars.max()) >= t.num_inputs or int(m.vars.min()) < -t.num_aux):
                    raise ValueError("template refers to variables it does not have")
            tmpl_pids[id(t)] = tuple(pids.of_codes(m.coeffs) for m in t.matrices)
    longest = [int(r.lens.max()) for r in scalar if len(r.lens)]
    max_chunk = max([CHUNK_TERMS] + longest + [max(m.nnz for m in t.matrices) for _, t, _, _, _ in stamps])
    pend_pos = np.empty(max_chunk // 2 + 1, dtype=np.int64)
    pend_val = np.empty(max_chunk // 2 + 1, dtype=np.int64)
    mats = []
    for k in range(3):
        srows = scalar[k]
        soff = np.zeros(len(srows.lens) + 1, dtype=np.int64)
        np.cumsum(srows.lens, out=soff[1:])
        upper = srows.nnz + sum(count * t.matrices[k].nnz for _, t, count, _, _ in stamps)
        upper += num_inputs if k == 0 else 0
        out = _Matrix(rows, upper)
        done = 0  # scalar rows written
        for before, t, count, inputs, aux_base in stamps + [(len(srows.lens), None, 0, None, 0)]:
            while done < before:  # chunks of at most CHUNK_TERMS terms (or one longer row)
                r1 = int(np.searchsorted(soff, soff[done] + CHUNK_TERMS, side="right")) - 1
                r1 = min(before, max(done + 1, r1))
                _scalar_chunk(out, srows, soff, done, r1, num_inputs, num_aux, pids, pend_pos, pend_val, k)
                done = r1
            if t is None or not count:
                continue
            m = t.matrices[k]
            lens, tv, tp = m.lens, m.vars, tmpl_pids[id(t)][k]
            step = max(1, CHUNK_TERMS // max(1, m.nnz))
            for k0 in range(0, count, step):
                k1 = min(count, k0 + step)
                small, is_small = pids.small()
                row, pos, n = _emit_stamp(lens, tv, tp, k0, k1, inputs, aux_base, t.num_aux, num_inputs, small,
                                          is_small, pids.zero, out.cols, out.ids, out.indptr, out.row, out.pos,
                                          pend_pos, pend_val)
                if pos == BIG_MERGE:
                    sub = instantiate(m, k1 - k0, inputs[k0:k1], aux_base + k0 * t.num_aux, t.num_aux)
                    _slow(out, sub.lens, columns(sub.vars, num_inputs), np.tile(tp, k1 - k0), pids)
                    continue
                pids.settle(out.ids, pend_pos, pend_val, n)
                out.row, out.pos = row, pos
        if out.row != num_constraints:
            raise ValueError(f"matrix {'ABC'[k]}: {out.row} rows recorded, expected {num_constraints}")
        if k == 0:  # input rows: A = {input i: 1}
            out.put(np.ones(num_inputs, np.int64), np.arange(num_inputs), np.full(num_inputs, pids.one))
        else:
            out.indptr[out.row + 1 :] = out.pos
            out.row = rows
        out.trim()
        mats.append(out)
    return _finish(curve, fr, num_inputs, num_aux, num_constraints, mats, pids)


def _scalar_chunk(out, srows, soff, r0, r1, num_inputs, num_aux, pids, pend_pos, pend_val, k) -> None:
    lens = srows.lens[r0:r1]
    v = srows.vars[soff[r0] : soff[r1]]
    if len(v) and (int(v.max()) >= num_inputs or int(v.min()) < -num_aux):
        bad = columns(v[(v >= num_inputs) | (v < -num_aux)][:1], num_inputs)[0]
        raise ValueError(f"matrix {'ABC'[k]}: column {int(bad)} is not a variable (have {num_inputs + num_aux})")
    ids = pids.of_codes(srows.coeffs[soff[r0] : soff[r1]])
    small, is_small = pids.small()
    row, pos, n = _emit_rows(lens, v, ids, num_inputs, small, is_small, pids.zero, out.cols, out.ids, out.indptr,
                             out.row, out.pos, pend_pos, pend_val)
    if pos == BIG_MERGE:
        _slow(out, lens, columns(v, num_inputs), ids, pids)
        return
    pids.settle(out.ids, pend_pos, pend_val, n)
    out.row, out.pos = row, pos


def _slow(out: _Matrix, lens, cols, ids, pids: _Pids) -> None:
    """A chunk through `compiled._canonical_rows` (numpy and Python ints)."""
    indptr, cols, ids = _canonical_rows(np.asarray(lens, np.int64), np.array(cols, dtype=np.int64),
                                        np.array(ids, dtype=np.int64), pids.table, len(lens))
    out.put(np.diff(indptr), cols, ids)


def _finish(curve, fr, num_inputs, num_aux, num_constraints, mats, pids: _Pids) -> CompiledCircuit:
    """Final coefficient order and widths, densities, hash."""
    table = pids.table
    p = fr.p
    used = np.zeros(len(table.values), dtype=np.bool_)
    for m in mats:
        _mark_used(m.ids, used)
    used[[table.ids[1], table.ids[p - 1]]] = True
    final = table.final_order(used)
    k = int(used.sum())
    coeff_dtype = np.uint8 if k <= 1 << 8 else np.uint16 if k <= 1 << 16 else np.uint32
    csr = []
    for m in mats:
        narrow = np.empty(m.pos, dtype=coeff_dtype)
        _narrow(m.ids, final, narrow)
        m.ids = None
        indptr = m.indptr if m.pos >= 1 << 31 else m.indptr.astype(np.int32, copy=False)
        csr.append(CsrMatrix(indptr, m.cols, narrow))
    order = np.argsort(final[used])
    table_ints = [v for v, u in zip(table.values, used) if u]
    coeff_table = fr.from_ints([table_ints[i] for i in order])
    a, b, _ = csr
    none = np.zeros(0, np.bool_)
    a_aux, b_in, b_aux = np.zeros(num_aux, bool), np.zeros(num_inputs, bool), np.zeros(num_aux, bool)
    _mark_columns(a.cols, num_inputs, none, a_aux)
    _mark_columns(b.cols, num_inputs, b_in, b_aux)
    cc = CompiledCircuit(curve, int(num_inputs), int(num_aux), int(num_constraints), *csr, coeff_table,
                         pack_bits(a_aux), pack_bits(b_in), pack_bits(b_aux), b"")
    return cc.with_structure_hash()
