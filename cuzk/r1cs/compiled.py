"""The compiled circuit (PCE): a circuit's fixed topology, ready for SpMV.

Per proof only the witness changes, so the structure is recorded once into:

* A, B, C as CSR `CsrMatrix(indptr, cols, coeff_idx)` over the columns of
  w = [1, inputs..., aux...]; `indptr` int32 (int64 when nnz >= 2**31),
  `cols` uint32, `coeff_idx` uint8/uint16/uint32 (the narrowest that holds the
  table) indexing `coeff_table`;
* `coeff_table`: the distinct coefficients, Montgomery uint64[k, 4]; entry 0
  is always +1 and entry 1 always -1 (the SpMV's add/subtract fast path),
  the rest sorted by value;
* rows: the circuit's `num_constraints` constraints, then one row per input
  i (A = {input i: 1}, B = C = 0: bellperson's and snarkjs's rule that keeps
  the input part of the A query full); `num_rows` counts both;
* density bitmaps as LSB-first uint64 words (bellperson's layout): aux
  variables that occur in A, inputs in B, aux in B;
* `topology_hash`: sha256 over all of the above: the circuit's id.

Canonical form, so equal circuits give equal bytes and equal hashes: terms
within a row are sorted by column, repeated columns are summed, zero
coefficients are dropped (bellpepper's LinearCombination does the same).
`pce_file` saves and loads it (`cuzk.r1cs.save_compiled` / `load_compiled`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from dataclasses import dataclass

import numpy as np
from numba import njit

from cuzk.field import fields_of

from .coefficients import codes_to_field
from .variable import columns

CURVE_IDS = {"bls12_381": 1, "bn254": 2}


@dataclass(frozen=True, eq=False)
class CsrMatrix:
    indptr: np.ndarray  # int32/int64 [rows + 1]
    cols: np.ndarray  # uint32 [nnz]
    coeff_idx: np.ndarray  # uint8/uint16/uint32 [nnz]

    @property
    def num_rows(self) -> int:
        return len(self.indptr) - 1

    @property
    def nnz(self) -> int:
        return len(self.cols)

    @property
    def nbytes(self) -> int:
        return self.indptr.nbytes + self.cols.nbytes + self.coeff_idx.nbytes


@dataclass(frozen=True, eq=False)
class CompiledCircuit:
    curve: str
    num_inputs: int  # including ONE
    num_aux: int
    num_constraints: int  # the circuit's own rows (input rows not counted)
    a: CsrMatrix
    b: CsrMatrix
    c: CsrMatrix
    coeff_table: np.ndarray  # Montgomery uint64[k, 4]
    a_aux_density: np.ndarray  # uint64 words, bit j = aux j occurs in A
    b_input_density: np.ndarray  # bit i = input i occurs in B
    b_aux_density: np.ndarray  # bit j = aux j occurs in B
    topology_hash: bytes

    # ---- sizes -------------------------------------------------------------
    @property
    def num_rows(self) -> int:
        return self.num_constraints + self.num_inputs

    @property
    def num_vars(self) -> int:
        return self.num_inputs + self.num_aux

    @property
    def matrices(self) -> tuple[CsrMatrix, CsrMatrix, CsrMatrix]:
        return (self.a, self.b, self.c)

    @property
    def id(self) -> str:
        return self.topology_hash.hex()

    @property
    def nbytes(self) -> int:
        return (
            sum(m.nbytes for m in self.matrices)
            + self.coeff_table.nbytes
            + self.a_aux_density.nbytes
            + self.b_input_density.nbytes
            + self.b_aux_density.nbytes
        )

    def bytes_per_constraint(self) -> float:
        return self.nbytes / max(1, self.num_constraints)

    # ---- views ---------------------------------------------------------------
    @property
    def fr(self):
        return fields_of(self.curve)[0]

    def coefficient_ints(self) -> list[int]:
        return self.fr.to_ints(self.coeff_table)

    def density(self, name: str) -> np.ndarray:
        """bool array for 'a_aux' (num_aux), 'b_input' (num_inputs) or 'b_aux'."""
        words = getattr(self, f"{name}_density")
        n = self.num_inputs if name == "b_input" else self.num_aux
        return unpack_bits(words, n)

    def density_count(self, name: str) -> int:
        return int(self.density(name).sum())

    def with_structure_hash(self) -> "CompiledCircuit":
        return dataclasses.replace(self, topology_hash=topology_hash(self))


def nbytes_for(rows: int, nnz: tuple[int, int, int], num_inputs: int, num_aux: int, coefficients: int,
               limbs: int = 4) -> int:
    """`CompiledCircuit.nbytes` of a circuit of these sizes (the dtypes `build` picks),
    for estimates made before building it."""
    coeff = 1 if coefficients <= 1 << 8 else 2 if coefficients <= 1 << 16 else 4
    words = lambda n: 8 * ((n + 63) // 64)  # noqa: E731
    indptr = sum((4 if n < 1 << 31 else 8) * (rows + 1) for n in nnz)
    return indptr + (4 + coeff) * sum(nnz) + 8 * limbs * coefficients + 2 * words(num_aux) + words(num_inputs)


def pack_bits(bits: np.ndarray) -> np.ndarray:
    """bool[n] -> uint64 words, bit i at word i//64, position i%64 (LSB first)."""
    packed = np.packbits(np.asarray(bits, dtype=bool), bitorder="little")
    pad = (-len(packed)) % 8
    if pad:
        packed = np.concatenate([packed, np.zeros(pad, np.uint8)])
    return packed.view("<u8").astype(np.uint64)


def unpack_bits(words: np.ndarray, n: int) -> np.ndarray:
    raw = np.ascontiguousarray(words, dtype="<u8").view(np.uint8)
    return np.unpackbits(raw, bitorder="little", count=n).astype(bool)


def topology_hash(cc: CompiledCircuit) -> bytes:
    h = hashlib.sha256(b"cuzk-pce-topology-v1\0")
    h.update(struct.pack("<IQQQ", CURVE_IDS[cc.curve], cc.num_inputs, cc.num_aux, cc.num_constraints))
    arrays = [x for m in cc.matrices for x in (m.indptr, m.cols, m.coeff_idx)]
    arrays += [cc.coeff_table, cc.a_aux_density, cc.b_input_density, cc.b_aux_density]
    for arr in arrays:
        arr = np.ascontiguousarray(arr)
        h.update(struct.pack("<2sQ", arr.dtype.str[1:].encode()[:2], arr.size))
        h.update(memoryview(arr).cast("B"))
    return h.digest()


# ---------------------------------------------------------------------------
# building


def compile_rows(curve: str, num_inputs: int, num_aux: int, rows) -> CompiledCircuit:
    """Recorded (lens, variable codes, coefficient codes) x 3 -> CompiledCircuit.
    The reference path over expanded rows (~700 bytes per constraint at peak);
    RecordingCS.compile gives the same bytes through `assembly`."""
    p = fields_of(curve)[0].p
    all_codes = np.concatenate([r.coeffs for r in rows])
    ids, values = codes_to_field(all_codes, p)
    mats, start = [], 0
    for r in rows:
        n = r.nnz
        mats.append((r.lens, columns(r.vars, num_inputs), ids[start : start + n]))
        start += n
    return build(curve, num_inputs, num_aux, len(rows[0].lens), mats, values)


def build(curve: str, num_inputs: int, num_aux: int, num_constraints: int, mats, table_values) -> CompiledCircuit:
    """Canonical CompiledCircuit from COO-ish parts.

    mats: three (lens int64[num_constraints], cols int64[nnz], ids int64[nnz])
    with ids indexing `table_values` (ints; reduced here mod r).
    """
    fr = fields_of(curve)[0]
    p = fr.p
    n_vars = num_inputs + num_aux
    if n_vars > 1 << 32:
        raise ValueError(f"{n_vars} variables do not fit uint32 column indices")
    table = _Table(p)
    remap = np.array([table.intern(v) for v in table_values], dtype=np.int64)
    one = table.intern(1)
    table.intern(p - 1)
    num_rows = num_constraints + num_inputs
    out = []
    for k, (lens, cols, ids) in enumerate(mats):
        lens = np.asarray(lens, dtype=np.int64)
        cols = np.array(cols, dtype=np.int64)  # a private copy: sorted in place below
        ids = remap[np.asarray(ids, dtype=np.int64)] if len(ids) else np.zeros(0, np.int64)
        if len(lens) != num_constraints or int(lens.sum()) != len(cols) or len(ids) != len(cols):
            raise ValueError(f"matrix {'ABC'[k]}: row lengths and term arrays disagree")
        if len(cols) and (int(cols.min()) < 0 or int(cols.max()) >= n_vars):
            bad = int(cols[(cols < 0) | (cols >= n_vars)][0])
            raise ValueError(f"matrix {'ABC'[k]}: column {bad} is not a variable (have {n_vars})")
        if k == 0:  # input rows: A = {input i: 1}
            lens = np.concatenate([lens, np.ones(num_inputs, np.int64)])
            cols = np.concatenate([cols, np.arange(num_inputs, dtype=np.int64)])
            ids = np.concatenate([ids, np.full(num_inputs, one, np.int64)])
        else:
            lens = np.concatenate([lens, np.zeros(num_inputs, np.int64)])
        out.append(_canonical_rows(lens, cols, ids, table, num_rows))
    used = np.zeros(len(table.values), dtype=bool)
    for _, _, ids in out:
        used[ids] = True
    used[[table.ids[1], table.ids[p - 1]]] = True
    final = table.final_order(used)  # old id -> final index
    k = int(used.sum())
    coeff_dtype = np.uint8 if k <= 1 << 8 else np.uint16 if k <= 1 << 16 else np.uint32
    csr = []
    for indptr, cols, ids in out:
        nnz = len(cols)
        ip_dtype = np.int32 if nnz < 1 << 31 else np.int64
        csr.append(CsrMatrix(indptr.astype(ip_dtype), cols.astype(np.uint32), final[ids].astype(coeff_dtype)))
    order = np.argsort(final[used])
    table_ints = [v for v, u in zip(table.values, used) if u]
    table_ints = [table_ints[i] for i in order]
    coeff_table = fr.from_ints(table_ints)
    a, b, c = csr
    a_aux = np.zeros(num_aux, bool)
    a_aux[a.cols[a.cols >= num_inputs].astype(np.int64) - num_inputs] = True
    b_in = np.zeros(num_inputs, bool)
    b_in[b.cols[b.cols < num_inputs].astype(np.int64)] = True
    b_aux = np.zeros(num_aux, bool)
    b_aux[b.cols[b.cols >= num_inputs].astype(np.int64) - num_inputs] = True
    cc = CompiledCircuit(
        curve, int(num_inputs), int(num_aux), int(num_constraints), a, b, c, coeff_table,
        pack_bits(a_aux), pack_bits(b_in), pack_bits(b_aux), b"",
    )
    return cc.with_structure_hash()


class _Table:
    """Distinct coefficient values (canonical ints), interned while building."""

    def __init__(self, p: int):
        self.p = p
        self.ids: dict[int, int] = {}
        self.values: list[int] = []

    def intern(self, v: int) -> int:
        v %= self.p
        k = self.ids.get(v)
        if k is None:
            k = self.ids[v] = len(self.values)
            self.values.append(v)
        return k

    def zero_id(self) -> int:
        return self.ids.get(0, -1)

    def final_order(self, used: np.ndarray | None = None) -> np.ndarray:
        """old id -> final index: +1, -1, then the other used values by size."""
        p = self.p
        if used is None:
            used = np.ones(len(self.values), dtype=bool)
        rest = sorted((v, i) for i, v in enumerate(self.values) if used[i] and v not in (1, p - 1))
        final = np.full(len(self.values), -1, dtype=np.int64)
        final[self.ids[1]] = 0
        final[self.ids[p - 1]] = 1
        for pos, (_, i) in enumerate(rest, start=2):
            final[i] = pos
        return final


@njit(cache=True, nogil=True, inline="always")
def sort_row_terms(cols, ids, lo, hi):
    """Insertion-sort the terms cols[lo:hi] (with their ids) by column, in place (rows are short)."""
    for j in range(lo + 1, hi):
        c, v = cols[j], ids[j]
        i = j - 1
        while i >= lo and cols[i] > c:
            cols[i + 1] = cols[i]
            ids[i + 1] = ids[i]
            i -= 1
        cols[i + 1] = c
        ids[i + 1] = v


@njit(cache=True, nogil=True)
def _sort_rows(indptr, cols, ids):
    """Sort each row's terms by column, in place; returns the number of repeated
    columns left adjacent."""
    dups = 0
    for r in range(len(indptr) - 1):
        lo, hi = indptr[r], indptr[r + 1]
        sort_row_terms(cols, ids, lo, hi)
        for j in range(lo + 1, hi):
            if cols[j] == cols[j - 1]:
                dups += 1
    return dups


def _canonical_rows(lens, cols, ids, table: _Table, num_rows: int):
    """Sort terms by (row, col), sum repeated columns, drop zeros -> (indptr, cols, ids).
    Sorts `cols` and `ids` in place."""
    indptr = np.zeros(num_rows + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    dups = _sort_rows(indptr, cols, ids)
    rows = np.repeat(np.arange(num_rows, dtype=np.int64), lens)
    if dups:
        key = (rows << 32) | cols
        dup = key[1:] == key[:-1]
        starts = np.flatnonzero(np.concatenate([[True], ~dup]))
        sizes = np.diff(np.concatenate([starts, [len(key)]]))
        values = table.values
        for g in np.flatnonzero(sizes > 1).tolist():
            s, n = int(starts[g]), int(sizes[g])
            ids[s] = table.intern(sum(values[i] for i in ids[s : s + n].tolist()))
        rows, cols, ids = rows[starts], cols[starts], ids[starts]
    zero = table.zero_id()
    if zero >= 0:
        keep = ids != zero
        if not keep.all():
            rows, cols, ids = rows[keep], cols[keep], ids[keep]
    if dups or zero >= 0:
        indptr[1:] = np.cumsum(np.bincount(rows, minlength=num_rows))
    return indptr, cols, ids
