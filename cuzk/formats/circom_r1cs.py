"""circom's binary `.r1cs` file -> CompiledCircuit.

An iden3 section file (iden3_sections.py), magic "r1cs", version 1:
section 1 header = field size n8 u32, prime (n8 bytes), nWires u32,
nPubOut u32, nPubIn u32, nPrvIn u32, nLabels u64, nConstraints u32;
section 2 constraints = per constraint A, B, C, each a term count u32 then
(wire u32, coefficient n8 bytes, canonical) per term; section 3
wire-to-label map = nWires u64 (required: its size bounds nWires by the
file size before anything is allocated). Other sections (custom gates) are
ignored. The matching witness file is wtns.py.

circom's wire order is w = [1, public outputs, public inputs, private
inputs, internal], so wire id = column, with num_inputs = 1 + nPubOut +
nPubIn. The constraint section has variable-length records: one numba pass
finds the row lengths, a second copies wires and coefficient bytes into
arrays; everything after that is numpy (distinct coefficients by a column
lexsort, not np.unique(axis=0), which sorts rows as opaque bytes).

`read_r1cs_c` reads C alone, for `cuzk prove`'s witness check (the key
supplies A.w and B.w): the same two passes, A and B records skipped
unread, so their terms are not checked there. `write_r1cs` writes the
format (the benchmark circuits of cuzk.bench.circom_like).
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass

import numpy as np
from numba import njit

from cuzk.curve import CURVES
from cuzk.errors import FormatError
from cuzk.field import fields_of
from cuzk.r1cs.compiled import CompiledCircuit, CsrMatrix, build

from .iden3_sections import curve_of_prime, file_bytes, file_map, require, scan_sections, write_sections
from .wtns import CircomWitness

R1CS_MAGIC = b"r1cs"
R1CS_SECTION_NAMES = {1: "header", 2: "constraints", 3: "wire-to-label map"}


def _u32(data, pos):
    return int.from_bytes(data[pos : pos + 4], "little")


@dataclass(frozen=True, eq=False)
class CircomR1CS:
    path: str
    curve: str
    n_wires: int
    n_pub_out: int
    n_pub_in: int
    n_prv_in: int
    n_labels: int
    n_constraints: int
    wire_to_label: np.ndarray  # uint64[n_wires]
    circuit: CompiledCircuit

    @property
    def num_public(self) -> int:
        """Public signals (outputs + public inputs), ONE excluded."""
        return self.n_pub_out + self.n_pub_in


@njit(cache=True, nogil=True)
def _le_u32(buf, q):
    """The little-endian uint32 at byte q of a uint8 buffer."""
    return (np.uint32(buf[q]) | (np.uint32(buf[q + 1]) << np.uint32(8)) | (np.uint32(buf[q + 2]) << np.uint32(16))
            | (np.uint32(buf[q + 3]) << np.uint32(24)))


@njit(cache=True, nogil=True)
def _scan_constraints(buf, start, end, m, n8, lens, bases, wires, coeffs, fill):
    """Walk the constraint records. Returns the end position, or -1 - i when
    constraint i runs past the section; with fill, copies the terms."""
    pos = start
    stride = 4 + n8
    used = np.zeros(3, np.int64)
    for i in range(m):
        for k in range(3):
            if pos + 4 > end:
                return -1 - i
            n = np.int64(_le_u32(buf, pos))
            pos += 4
            if pos + n * stride > end:
                return -1 - i
            lens[k, i] = n
            if fill:
                base = bases[k] + used[k]
                for t in range(n):
                    q = pos + t * stride
                    wires[base + t] = _le_u32(buf, q)
                    for b in range(n8):
                        coeffs[base + t, b] = buf[q + 4 + b]
            used[k] += n
            pos += n * stride
    return pos


def read_r1cs(path) -> CircomR1CS:
    return r1cs_from_bytes(file_bytes(path), str(path))


def r1cs_shape(path) -> tuple[str, int] | None:
    """(curve name, log2 of the domain its rows take) of a .r1cs from its header alone (no kernels: `cuzk
    setup` asks before it compiles anything); None for a file that is not a readable .r1cs (reading it then
    says why). The rows are the constraints and one per public input and ONE, as CompiledCircuit counts them."""
    try:
        data = file_map(path)
        _, h = _header(data, str(path))
    except FormatError:
        return None
    rows = max(2, h["n_constraints"] + h["n_pub_out"] + h["n_pub_in"] + 1)
    return h["curve"], (rows - 1).bit_length()


def _header(data, where: str) -> tuple[dict[int, tuple[int, int]], dict]:
    """Sections and header fields of a .r1cs (`data`: bytes or mmap); FormatError names the section."""
    sections = scan_sections(data, R1CS_MAGIC, 1, where, R1CS_SECTION_NAMES)
    require(sections, R1CS_SECTION_NAMES, where, R1CS_SECTION_NAMES)
    hoff, hsize = sections[1]
    if hsize < 4:
        raise FormatError(f"{where}: header: truncated ({hsize} bytes)")
    n8 = _u32(data, hoff)
    if n8 != 32:
        raise FormatError(f"{where}: header: field size {n8} bytes, expected 32 (BN254 or BLS12-381 Fr)")
    if hsize != 4 + n8 + 4 * 4 + 8 + 4:
        raise FormatError(f"{where}: header: size {hsize}, expected {4 + n8 + 28}")
    prime = int.from_bytes(data[hoff + 4 : hoff + 4 + n8], "little")
    curve = curve_of_prime(prime, f"{where}: header").name
    p = hoff + 4 + n8
    n_wires, n_out, n_pub, n_prv = (_u32(data, p + 4 * k) for k in range(4))
    n_labels = int.from_bytes(data[p + 16 : p + 24], "little")
    m = _u32(data, p + 24)
    if 1 + n_out + n_pub + n_prv > n_wires:
        raise FormatError(
            f"{where}: header: 1 + {n_out} outputs + {n_pub} public + {n_prv} private inputs exceed {n_wires} wires"
        )
    loff, lsize = sections[3]
    if lsize != 8 * n_wires:  # checked first: it bounds nWires by the file size before anything is allocated
        raise FormatError(f"{where}: wire-to-label map: {lsize} bytes, expected 8 * {n_wires} wires")
    coff, csize = sections[2]
    if 12 * m > csize:  # each constraint holds at least three u32 term counts
        raise FormatError(f"{where}: header: nConstraints {m} cannot fit the {csize}-byte constraints section")
    fields = dict(curve=curve, n8=n8, n_wires=n_wires, n_pub_out=n_out, n_pub_in=n_pub, n_prv_in=n_prv,
                  n_labels=n_labels, n_constraints=m)
    return sections, fields


def _row_lengths(buf, sections, h, where: str) -> np.ndarray:
    """int64[3, m] term counts, the section walked once and its end checked."""
    coff, csize = sections[2]
    m, n8 = h["n_constraints"], h["n8"]
    lens = np.zeros((3, m), dtype=np.int64)
    zero3 = np.zeros(3, np.int64)
    end = _scan_constraints(buf, coff, coff + csize, m, n8, lens, zero3, np.zeros(0, np.uint32),
                            np.zeros((0, n8), np.uint8), False)
    if end < 0:
        raise FormatError(f"{where}: constraints: constraint {-1 - end} of {m} runs past the end of the section")
    if end != coff + csize:
        raise FormatError(f"{where}: constraints: {coff + csize - end} bytes left after {m} constraints")
    return lens


def _check_terms(wires: np.ndarray, limbs: np.ndarray, fr, n_wires: int, where: str) -> None:
    if len(wires) and int(wires.max()) >= n_wires:
        raise FormatError(f"{where}: constraints: wire id {int(wires.max())} >= nWires {n_wires}")
    ok = fr.is_canonical(limbs)
    if not ok.all():
        bad = fr.canonical_to_ints(limbs[~ok][:1])[0]
        raise FormatError(f"{where}: constraints: coefficient {bad:#x} is not below the prime")


def distinct_rows(limbs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, inverse) of uint64[n, L], like np.unique(axis=0) but by a column lexsort:
    np.unique sorts the rows as opaque bytes, 5x slower at a million terms. Order: by value."""
    if len(limbs) == 0:
        return limbs[:0], np.zeros(0, np.int64)
    order = np.lexsort(limbs.T)
    ordered = limbs[order]
    new = np.empty(len(limbs), dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    inverse = np.empty(len(limbs), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def r1cs_from_bytes(data, where: str = "r1cs") -> CircomR1CS:
    """A whole .r1cs file's bytes (or an mmap) -> the compiled circuit; FormatError names the section."""
    if not isinstance(data, (bytes, mmap.mmap)):
        data = bytes(data)  # one buffer type for the numba scan (a writable one would compile another)
    sections, h = _header(data, where)
    m, n8, n_wires, curve = h["n_constraints"], h["n8"], h["n_wires"], h["curve"]
    num_inputs = 1 + h["n_pub_out"] + h["n_pub_in"]
    buf = np.frombuffer(data, dtype=np.uint8)
    coff, csize = sections[2]
    lens = _row_lengths(buf, sections, h, where)
    totals = lens.sum(axis=1)
    bases = np.concatenate([[0], np.cumsum(totals)[:2]]).astype(np.int64)
    wires = np.empty(int(totals.sum()), dtype=np.uint32)
    coeff_bytes = np.empty((int(totals.sum()), n8), dtype=np.uint8)
    _scan_constraints(buf, coff, coff + csize, m, n8, lens, bases, wires, coeff_bytes, True)
    fr = fields_of(curve)[0]
    limbs = coeff_bytes.view("<u8")
    _check_terms(wires, limbs, fr, n_wires, where)
    uniq, inverse = distinct_rows(limbs)
    table = fr.canonical_to_ints(uniq)
    cols = wires.astype(np.int64)
    mats = [
        (lens[k], cols[bases[k] : bases[k] + totals[k]], inverse[bases[k] : bases[k] + totals[k]]) for k in range(3)
    ]
    circuit = build(curve, num_inputs, n_wires - num_inputs, m, mats, table)
    loff, _ = sections[3]
    labels = np.frombuffer(data, dtype="<u8", count=n_wires, offset=loff).astype(np.uint64)
    return CircomR1CS(where, curve, n_wires, h["n_pub_out"], h["n_pub_in"], h["n_prv_in"], h["n_labels"], m, labels,
                      circuit)


# ---- C alone: what checking a witness against a key's A.w, B.w needs ------------------------------


@dataclass(frozen=True, eq=False)
class CircomC:
    """A .r1cs file's sizes and its C matrix (CSR over w; coefficient table +1, -1, then one
    Montgomery value per other term), read without building A and B."""

    path: str
    curve: str
    n_wires: int
    n_public: int  # outputs + public inputs
    n_constraints: int
    c: CsrMatrix
    coeff_table: np.ndarray


@njit(cache=True, nogil=True)
def _copy_c_terms(buf, start, end, m, n8, indptr, wires, limbs):
    """Copy the C terms (wire, 4 LE limbs) of every constraint; A and B records are skipped."""
    pos = start
    stride = 4 + n8
    for i in range(m):
        for k in range(3):
            n = np.int64(_le_u32(buf, pos))
            pos += 4
            if k == 2:
                base = indptr[i]
                for t in range(n):
                    q = pos + t * stride
                    wires[base + t] = _le_u32(buf, q)
                    for j in range(4):
                        v = np.uint64(0)
                        for b in range(8):
                            v |= np.uint64(buf[q + 4 + 8 * j + b]) << np.uint64(8 * b)
                        limbs[base + t, j] = v
            pos += n * stride


def read_r1cs_c(path) -> CircomC:
    """The C matrix of a .r1cs (mmap; the section walked twice, numba); FormatError names the section.

    Sizes, record lengths and C's terms are checked as read_r1cs checks them; A and B terms are skipped.
    """
    where = str(path)
    data = file_map(path)
    sections, h = _header(data, where)
    m, n8, curve = h["n_constraints"], h["n8"], h["curve"]
    buf = np.frombuffer(data, dtype=np.uint8)
    lens = _row_lengths(buf, sections, h, where)
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lens[2], out=indptr[1:])
    nnz = int(indptr[-1])
    wires = np.empty(nnz, dtype=np.uint32)
    limbs = np.empty((nnz, 4), dtype=np.uint64)
    coff, csize = sections[2]
    _copy_c_terms(buf, coff, coff + csize, m, n8, indptr, wires, limbs)
    del buf
    fr = fields_of(curve)[0]
    _check_terms(wires, limbs, fr, h["n_wires"], where)
    one, minus_one = fr.canonical_from_ints([1, fr.p - 1])
    idx = np.arange(2, nnz + 2, dtype=np.int64)
    is_one, is_minus = (limbs == one).all(axis=1), (limbs == minus_one).all(axis=1)
    idx[is_one], idx[is_minus] = 0, 1
    other = ~(is_one | is_minus)
    table = np.empty((nnz + 2, 4), dtype=np.uint64)
    table[:2] = fr.to_mont(np.stack([one, minus_one]))
    if other.any():
        table[2:][other] = fr.to_mont(limbs[other])
    table[2:][~other] = 0
    ip_dtype = np.int32 if nnz < 1 << 31 else np.int64
    idx_dtype = np.uint32 if nnz + 2 <= 1 << 32 else np.uint64
    c = CsrMatrix(indptr.astype(ip_dtype), wires, idx.astype(idx_dtype))
    return CircomC(where, curve, h["n_wires"], h["n_pub_out"] + h["n_pub_in"], m, c, table)


def witness_for(r1cs: CircomR1CS, wtns: CircomWitness) -> np.ndarray:
    """The flat w for the circuit, checking that the two files belong together."""
    if wtns.curve != r1cs.curve:
        raise FormatError(f"{wtns.path}: witness is over {wtns.curve}, circuit {r1cs.path} over {r1cs.curve}")
    if len(wtns) != r1cs.n_wires:
        raise FormatError(f"{wtns.path}: witness has {len(wtns)} values, circuit has {r1cs.n_wires} wires")
    return wtns.values


# ---- writing ----------------------------------------------------------------------------------------


def constraint_records(a, b, c) -> np.ndarray:
    """uint8[r, record bytes]: r constraints that all have the same term counts, in the section-2 layout.

    a, b, c: (wires uint[r, k], canonical coefficients uint64[r, k, 4]) with k
    terms per row (k may be 0). Builds the records with numpy, no per-row loop.
    """
    parts = []
    rows = None
    for wires, coeffs in (a, b, c):
        wires = np.asarray(wires)
        r, k = wires.shape
        rows = r if rows is None else rows
        if r != rows or np.shape(coeffs) != (r, k, 4):
            raise ValueError("constraint_records: A, B, C need the same rows and (r, k, 4) coefficients")
        term = np.empty((r, k), dtype=[("wire", "<u4"), ("coeff", "<u8", (4,))])
        term["wire"], term["coeff"] = wires, coeffs
        count = np.full((r, 1), k, dtype="<u4")
        parts += [count.view(np.uint8).reshape(r, 4), _packed(term).reshape(r, 36 * k)]
    return np.ascontiguousarray(np.concatenate(parts, axis=1))


def _packed(term: np.ndarray) -> np.ndarray:
    """The (wire u32, 32-byte coefficient) pairs without numpy's alignment padding: uint8[..., 36 k]."""
    out = np.empty(term.shape + (36,), dtype=np.uint8)
    out[..., :4] = term["wire"][..., None].view(np.uint8)
    out[..., 4:] = np.ascontiguousarray(term["coeff"]).view(np.uint8).reshape(term.shape + (32,))
    return out


def write_r1cs(path, curve: str, n_wires: int, n_pub_out: int, n_pub_in: int, n_prv_in: int,
               blocks: list[np.ndarray], labels: np.ndarray | None = None) -> None:
    """Write a circom .r1cs: header, constraints (`blocks` of `constraint_records`, in order), wire-to-label map.

    labels defaults to wire i -> label i (nLabels = nWires).
    """
    prime = CURVES[curve].fr.p
    m = sum(len(blk) for blk in blocks)
    labels = np.arange(n_wires, dtype="<u8") if labels is None else np.asarray(labels, dtype="<u8")
    n_labels = int(labels.max()) + 1 if len(labels) else 0
    header = b"".join([(32).to_bytes(4, "little"), prime.to_bytes(32, "little")]
                      + [int(v).to_bytes(4, "little") for v in (n_wires, n_pub_out, n_pub_in, n_prv_in)]
                      + [n_labels.to_bytes(8, "little"), m.to_bytes(4, "little")])
    bodies = {1: [header], 2: [memoryview(np.ascontiguousarray(blk)).cast("B") for blk in blocks],
              3: [memoryview(np.ascontiguousarray(labels)).cast("B")]}
    write_sections(path, R1CS_MAGIC, 1, bodies)
