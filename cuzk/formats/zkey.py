"""snarkjs Groth16 proving keys (`.zkey`), read lazily over an mmap (zkey_write.py writes them).

An iden3 section file (magic "zkey", version 1; see iden3_sections.py):

    1  header          u32 protocol (1 = Groth16)
    2  groth16 header  n8q u32, q, n8r u32, r, nVars u32, nPublic u32,
                       domainSize u32, alpha1, beta1, beta2, gamma2, delta1, delta2
    3  IC              nPublic + 1 G1 points
    4  coefficients    u32 count, then records (matrix u32 (0 = A, 1 = B),
                       constraint u32, signal u32, value n8r bytes) for A and B,
                       including one row A = {signal s: 1} per public signal s
                       (ONE included) after the circuit's constraints
    5  A, 6  B1        nVars G1 points      7  B2  nVars G2 points
    8  C               G1 points for the private signals (nVars - nPublic - 1)
    9  H               domainSize G1 points (snarkjs's odd-coset convention)
    10 contributions   the MPC transcript (cs hash, contributions)

Points are affine, x then y (G2 coordinates c0 then c1), each coordinate in
Montgomery form as n8q little-endian bytes, infinity all zero: exactly the
project's limb layout for both curves (ffjavascript uses 4 limbs for the
BN254 base field and 6 for BLS12-381's, so R = 2^(64 * limbs) as here).

Coefficient values are stored as the canonical integer c * R^2 mod r
(zkey_new.js, `writeFr2`), because snarkjs multiplies them in Montgomery
arithmetic with the canonical witness to get Montgomery a and b. Our
Montgomery form of c is c * R = from_mont(stored).

The rows and the H bases are re-indexed at load from snarkjs's domain order
into the one cuzk's NTT uses (they differ for BLS12-381; snarkjs_domain.py),
so the shared prover and qap.py need no snarkjs-specific ordering.

Opening checks the section table and every section size against the
header, then reads the header, IC and vk; the coefficient matrices and the
point sections are decoded (copied out of the mmap, coordinates checked
canonical and on the curve) on first use. The coefficient records become
CSR in two numba passes straight off the mmap (a 2^20-row key: 0.3 s, was
3.5 s with per-field numpy copies and a sort); only values other than +-1
are converted out of snarkjs's c R^2 form.
"""

from __future__ import annotations

import functools
import mmap
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cuzk.curve import Group
from cuzk.curve.subgroup import describe_indices, validate_points
from cuzk.errors import FormatError, ValidationError
from cuzk.groth16.keys import H_SNARKJS, ProvingKey, VerifyingKey
from cuzk.r1cs.compiled import CsrMatrix

from .iden3_sections import curve_of_prime, require, scan_sections, section_label
from .snarkjs_domain import h_positions, row_positions
from .zkey_coefficients import _coeff_fill, _coeff_scan, _first_not_below, _gather_rows

ZKEY_MAGIC = b"zkey"
ZKEY_VERSION = 1
GROTH16_PROTOCOL = 1
# One section-4 record: matrix (0 = A, 1 = B), constraint, signal, value c R^2 mod r.
COEFF_RECORD = np.dtype([("matrix", "<u4"), ("constraint", "<u4"), ("signal", "<u4"), ("value", "<u8", (4,))])
SECTION_NAMES = {
    1: "header", 2: "groth16 header", 3: "IC", 4: "coefficients", 5: "A", 6: "B1", 7: "B2",
    8: "C", 9: "H", 10: "contributions",
}
PROTOCOL_NAMES = {1: "groth16", 2: "plonk", 10: "fflonk"}


@dataclass(frozen=True, eq=False)
class ZkeyMatrices:
    """A and B of section 4 as CSR over w, rows in cuzk's domain order.

    snarkjs's rows (the circuit's constraints, then one per public signal)
    sit at `positions`; where the two domain orders agree (BN254) that is
    0..num_rows-1, otherwise the CSR spans the whole domain.

    `coeff_table` holds +1, -1, then one Montgomery value per term (no
    deduplication: building it stays O(nnz) numpy); coeff_idx 0/1 mark the
    +-1 terms the SpMV adds without a multiplication.
    """

    a: CsrMatrix
    b: CsrMatrix
    coeff_table: np.ndarray
    a_vars: np.ndarray  # signals with an A term (their A bases may be non-zero)
    b_vars: np.ndarray  # signals with a B term
    positions: np.ndarray  # int64: snarkjs row r is row positions[r] here (snarkjs_domain.py)

    @property
    def num_rows(self) -> int:
        """snarkjs's rows: the circuit's constraints, then one per public signal."""
        return len(self.positions)

    def in_snarkjs_order(self, values: np.ndarray) -> np.ndarray:
        """Row evaluations (a, b or c) put back into snarkjs's row order."""
        return values[self.positions]


@dataclass(frozen=True)
class ZkeyContributions:
    cs_hash: bytes  # 64-byte blake2b of the circuit and initial key
    names: tuple[str, ...]  # one per contribution ("" when unnamed)
    delta_after: np.ndarray  # G1 uint64[k, 2, L]: delta after each contribution


class ZKey:
    """An opened .zkey: header and verifying key read, the rest on demand.

    `check_points=False` trusts the key's points, as snarkjs's and rapidsnark's provers do:
    coordinates are still checked below the base field prime, but not that the points lie on the
    curve (and, for the header's and IC's, in the prime-order subgroup). A one-shot `cuzk prove`
    opens its key so: the checks are no part of proving, and their kernels (G2's subgroup check
    above all) cost a first run on a fresh machine 10 s of compiling and every run their loading
    time. A daemon, which keeps the key, checks it once when it opens it."""

    def __init__(self, path, check_points: bool = True):
        self.path = str(path)
        self.check_points = check_points
        where = self.path
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < 12:
                raise FormatError(f"{where}: file header: truncated ({size} bytes, need 12)")
            self._mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        mm = self._mm
        self.sections = scan_sections(mm, ZKEY_MAGIC, ZKEY_VERSION, where, SECTION_NAMES)
        require(self.sections, (1, 2), where, SECTION_NAMES)
        off, size = self.sections[1]
        if size != 4:
            raise FormatError(f"{where}: {self._label(1)}: {size} bytes, expected 4")
        protocol = self._u32(off)
        if protocol != GROTH16_PROTOCOL:
            name = PROTOCOL_NAMES.get(protocol, f"unknown protocol {protocol}")
            raise FormatError(f"{where}: {self._label(1)}: the key is for {name}, only Groth16 keys are supported")
        self._read_groth16_header()
        require(self.sections, range(3, 10), where, SECTION_NAMES)
        self._check_section_sizes()
        ic = self._points(3, self.curve.g1, self.n_public + 1, check_subgroup=check_points)
        self.vk = VerifyingKey(
            curve=self.curve, alpha_g1=self._alpha1, beta_g1=self._beta1, beta_g2=self._beta2,
            gamma_g2=self._gamma2, delta_g1=self._delta1, delta_g2=self._delta2, ic=ic,
        )

    # ---- sizes ---------------------------------------------------------------
    @property
    def num_inputs(self) -> int:
        """Public signals including ONE (the `w` prefix IC pairs with)."""
        return self.n_public + 1

    @property
    def num_private(self) -> int:
        return self.n_vars - self.num_inputs

    @property
    def num_coefficients(self) -> int:
        return self._u32(self.sections[4][0])

    # ---- low-level -----------------------------------------------------------
    def _label(self, stype: int) -> str:
        return section_label(stype, SECTION_NAMES)

    def _u32(self, pos: int) -> int:
        return int.from_bytes(self._mm[pos : pos + 4], "little")

    def _read_groth16_header(self) -> None:
        where, label = self.path, self._label(2)
        off, size = self.sections[2]
        end = off + size

        def take(n: int) -> int:
            nonlocal off
            if off + n > end:
                raise FormatError(f"{where}: {label}: truncated ({size} bytes)")
            off += n
            return off - n

        n8q = self._u32(take(4))
        if n8q not in (32, 48):
            raise FormatError(f"{where}: {label}: base field size n8q = {n8q}, expected 32 (BN254) or 48 (BLS12-381)")
        q = int.from_bytes(self._mm[take(n8q) : off], "little")
        self.curve = curve_of_prime(q, f"{where}: {label}", field="fq")
        fq, fr = self.curve.fq, self.curve.fr
        if n8q != 8 * fq.limbs:
            raise FormatError(f"{where}: {label}: n8q = {n8q}, expected {8 * fq.limbs} for {self.curve.name}")
        n8r = self._u32(take(4))
        if n8r != 32:
            raise FormatError(f"{where}: {label}: scalar field size n8r = {n8r}, expected 32")
        r = int.from_bytes(self._mm[take(n8r) : off], "little")
        if r != fr.p:
            raise FormatError(f"{where}: {label}: scalar field prime {r:#x} does not belong to {self.curve.name}")
        self.n_vars = self._u32(take(4))
        self.n_public = self._u32(take(4))
        self.domain_size = self._u32(take(4))
        n = self.domain_size
        if n == 0 or n & (n - 1) or n.bit_length() - 1 > fr.params.two_adicity:
            raise FormatError(f"{where}: {label}: domainSize {n} is not a power of two the field supports")
        if self.n_public + 1 > self.n_vars:
            raise FormatError(f"{where}: {label}: nPublic {self.n_public} + 1 exceeds nVars {self.n_vars}")
        g1, g2 = self.curve.g1, self.curve.g2
        s1, s2 = 2 * n8q, 4 * n8q
        self._alpha1 = self._header_point(take(s1), g1, "alpha1")
        self._beta1 = self._header_point(take(s1), g1, "beta1")
        self._beta2 = self._header_point(take(s2), g2, "beta2")
        self._gamma2 = self._header_point(take(s2), g2, "gamma2")
        self._delta1 = self._header_point(take(s1), g1, "delta1")
        self._delta2 = self._header_point(take(s2), g2, "delta2")
        if off != end:
            raise FormatError(f"{where}: {label}: {end - off} unexpected bytes after delta2")

    def _header_point(self, pos: int, group: Group, name: str) -> np.ndarray:
        pt = self._decode(pos, group, 1, f"{self._label(2)} {name}", check_subgroup=self.check_points)[0]
        if not pt.any():
            raise ValidationError(f"{self.path}: {self._label(2)}: {name} is the point at infinity")
        return pt

    def _check_section_sizes(self) -> None:
        fq_bytes = 8 * self.curve.fq.limbs
        g1, g2 = 2 * fq_bytes, 4 * fq_bytes
        expected = {
            3: (self.n_public + 1) * g1, 5: self.n_vars * g1, 6: self.n_vars * g1, 7: self.n_vars * g2,
            8: self.num_private * g1, 9: self.domain_size * g1,
        }
        for stype, want in expected.items():
            size = self.sections[stype][1]
            if size != want:
                raise FormatError(f"{self.path}: {self._label(stype)}: {size} bytes, expected {want} "
                                  f"(nVars {self.n_vars}, nPublic {self.n_public}, domainSize {self.domain_size})")
        off, size = self.sections[4]
        record = COEFF_RECORD.itemsize
        if size < 4:
            raise FormatError(f"{self.path}: {self._label(4)}: truncated ({size} bytes)")
        count = self._u32(off)
        if size != 4 + count * record:
            raise FormatError(f"{self.path}: {self._label(4)}: {size} bytes, expected 4 + {count} records * {record}")

    def _decode(self, pos: int, group: Group, count: int, what: str, check_subgroup: bool = False) -> np.ndarray:
        """Copy `count` affine points out of the file at `pos`, checking them."""
        limbs = group.field.limbs
        shape = (count, 2) + group.coord
        width = int(np.prod(shape[1:]))
        pts = np.frombuffer(self._mm, dtype="<u8", count=count * width, offset=pos).astype(np.uint64).reshape(shape)
        fq = self.curve.fq
        p = np.array(fq.params.to_limbs(fq.p), dtype=np.uint64)
        if _first_not_below(pts.reshape(-1, limbs), p) >= 0:  # one pass; the full mask only to name them
            ok = fq.is_canonical(pts.reshape(-1, limbs)).reshape(count, -1).all(axis=1)
            raise FormatError(f"{self.path}: {what}: {describe_indices(~ok)}: coordinate not below the base field prime")
        if not (self.check_points or check_subgroup):  # an explicit subgroup check (validate) checks all
            return pts
        validate_points(group, pts, check_subgroup=check_subgroup, where=f"{self.path}: {what}")
        return pts

    def _points(self, stype: int, group: Group, count: int, check_subgroup: bool = False) -> np.ndarray:
        return self._decode(self.sections[stype][0], group, count, self._label(stype), check_subgroup)

    # ---- the point sections ----------------------------------------------------
    def points(self, name: str, check_subgroup: bool = False) -> np.ndarray:
        """A fresh decoded copy of point section `name` (IC, A, B1, B2, C, H)."""
        curve = self.curve
        table = {
            "IC": (3, curve.g1, self.n_public + 1), "A": (5, curve.g1, self.n_vars), "B1": (6, curve.g1, self.n_vars),
            "B2": (7, curve.g2, self.n_vars), "C": (8, curve.g1, self.num_private), "H": (9, curve.g1, self.domain_size),
        }
        if name not in table:
            raise KeyError(f"unknown zkey point section {name!r}; expected one of {sorted(table)}")
        return self._points(*table[name], check_subgroup=check_subgroup)

    def validate(self) -> None:
        """Every point of every section in the prime-order subgroup (slow; opening checks less)."""
        for name in ("IC", "A", "B1", "B2", "C", "H"):
            self.points(name, check_subgroup=True)
        self.matrices  # noqa: B018 -- decoding checks the coefficient records

    def _density_bases(self, name: str, vars_: np.ndarray) -> np.ndarray:
        """The bases of `vars_` from section `name`; every other base must be infinity.

        One numba pass straight off the mmap copies the kept points, checks their
        coordinates canonical and every other point all-zero; the on-curve check then
        runs on the kept points only. (Copying the whole section, checking it, then
        `pts[vars_]` and a numpy stray mask took 1.2 s of a 2^20 proof's 1.5 s of
        decoding.) Any failure re-runs the full decode, whose errors name the points."""
        stype = {"A": 5, "B1": 6, "B2": 7}[name]
        group = self.curve.g2 if name == "B2" else self.curve.g1
        limbs = group.field.limbs
        width = 2 * int(np.prod(group.coord))
        words = np.frombuffer(self._mm, dtype="<u8", count=self.n_vars * width,
                              offset=self.sections[stype][0]).reshape(self.n_vars, width)
        out = np.empty((len(vars_), 2) + group.coord, dtype=np.uint64)
        fq = self.curve.fq
        p = np.array(fq.params.to_limbs(fq.p), dtype=np.uint64)
        bad = _gather_rows(words, np.ascontiguousarray(vars_, dtype=np.int64), out.reshape(len(vars_), width), p, limbs)
        del words
        if bad < 0 and (not self.check_points or group.is_on_curve(out).all()):
            return out
        pts = self.points(name)  # raises, naming the points, unless only a stray base is wrong
        rest = np.ones(self.n_vars, dtype=bool)
        rest[vars_] = False
        stray = rest & pts.reshape(self.n_vars, -1).any(axis=1)
        matrix = "A" if name == "A" else "B"
        raise ValidationError(
            f"{self.path}: {self._label(stype)}: signal {int(np.argmax(stray))} has a non-zero base but no "
            f"{matrix} coefficient in section 4; the key is inconsistent"
        )

    # ---- coefficients -----------------------------------------------------------
    @functools.cached_property
    def matrices(self) -> ZkeyMatrices:
        """Section 4 as CSR, in two numba passes over the records (no per-field copies, no sort):
        the first checks them, classifies +-1 values and counts terms per row, the second
        places each term in its row, record order kept within a row."""
        where, label = self.path, self._label(4)
        fr = self.curve.fr
        off, _ = self.sections[4]
        count = self._u32(off)
        buf = np.frombuffer(self._mm, dtype=np.uint8)
        p4 = np.array(fr.params.to_limbs(fr.p), dtype=np.uint64)
        one_m, minus_one_m = fr.from_ints([1, fr.p - 1])
        stored_pm1 = fr.to_mont(np.stack([one_m, minus_one_m]))  # what +1 / -1 look like stored (c R^2)
        first_bad = np.full(4, -1, dtype=np.int64)
        cls = np.empty(count, dtype=np.uint8)
        per_row = np.zeros((2, self.domain_size), dtype=np.int64)
        snarkjs_rows = _coeff_scan(buf, off + 4, count, self.domain_size, self.n_vars, p4, stored_pm1, first_bad,
                                   cls, per_row)
        for k, what in enumerate((
            "matrix id is not 0 (A) or 1 (B)", f"constraint index is not below domainSize {self.domain_size}",
            f"signal index is not below nVars {self.n_vars}", "value is not below the scalar field prime",
        )):
            if first_bad[k] >= 0:
                raise FormatError(f"{where}: {label}: record {int(first_bad[k])}: {what}")
        positions = row_positions(fr, self.domain_size, np.arange(snarkjs_rows, dtype=np.int64))
        identity = np.array_equal(positions, np.arange(snarkjs_rows))
        num_rows = snarkjs_rows if identity else self.domain_size  # permuted rows spread over the domain
        counts = np.zeros(2 * num_rows, dtype=np.int64)
        counts[positions] = per_row[0, :snarkjs_rows]
        counts[num_rows + positions] = per_row[1, :snarkjs_rows]
        del per_row
        indptr = np.zeros(2 * num_rows + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        n_other = int(np.count_nonzero(cls == 2))
        idx_dtype = np.uint32 if n_other + 2 <= 1 << 32 else np.uint64
        cols = np.empty(count, dtype=np.uint32)
        idx = np.empty(count, dtype=idx_dtype)
        others = np.empty((n_other, 4), dtype=np.uint64)
        a_seen = np.zeros(self.n_vars, dtype=np.bool_)
        b_seen = np.zeros(self.n_vars, dtype=np.bool_)
        _coeff_fill(buf, off + 4, count, positions, num_rows, cls, indptr[:-1].copy(), cols, idx, others,
                    a_seen, b_seen)
        del buf
        table = np.concatenate([one_m[None], minus_one_m[None], fr.from_mont(others)])  # stored c R^2 -> c R
        nnz_a = int(indptr[num_rows])
        ip_dtype = np.int32 if count < 1 << 31 else np.int64
        a = CsrMatrix(indptr[: num_rows + 1].astype(ip_dtype), cols[:nnz_a], idx[:nnz_a])
        b = CsrMatrix((indptr[num_rows:] - nnz_a).astype(ip_dtype), cols[nnz_a:], idx[nnz_a:])
        a_vars, b_vars = np.flatnonzero(a_seen), np.flatnonzero(b_seen)
        if snarkjs_rows < self.num_inputs or not a_seen[: self.num_inputs].all():
            raise FormatError(f"{where}: {label}: the rows A = {{public signal}} that snarkjs appends are missing")
        return ZkeyMatrices(a, b, table, a_vars, b_vars, positions)

    # ---- proving ----------------------------------------------------------------
    @functools.cached_property
    def proving_key(self) -> ProvingKey:
        """A ProvingKey whose bases are decoded from the file on first use."""
        m = self.matrices
        g1 = self.curve.g1
        vectors = {
            "a": lambda: self._density_bases("A", m.a_vars),
            "b_g1": lambda: self._density_bases("B1", m.b_vars),
            "b_g2": lambda: self._density_bases("B2", m.b_vars),
            "l": lambda: self._points(8, g1, self.num_private),
            "h": self._h_bases,
        }
        return ProvingKey(
            vk=self.vk, num_inputs=self.num_inputs, num_aux=self.num_private, domain_size=self.domain_size,
            h_convention=H_SNARKJS, beta_g1=self._beta1, delta_g1=self._delta1,
            a_vars=m.a_vars, b_vars=m.b_vars, vectors=vectors,
        )

    def _h_bases(self) -> np.ndarray:
        """Section 9, re-indexed into cuzk's odd-coset order (snarkjs_domain.py)."""
        pts = self._points(9, self.curve.g1, self.domain_size)
        pos = h_positions(self.curve.fr, self.domain_size)
        if pos is None:
            return pts
        out = np.empty_like(pts)
        out[pos] = pts
        return out

    def check_witness(self, curve_name: str, num_values: int, where: str) -> None:
        """Refuse a witness of another field or another circuit size."""
        if curve_name != self.curve.name:
            raise FormatError(f"{where}: the witness is over {curve_name}, the key {self.path} over {self.curve.name}")
        if num_values != self.n_vars:
            raise FormatError(
                f"{where}: the witness has {num_values} values, the key {self.path} expects nVars = {self.n_vars}"
            )

    def row_evaluations(self, w: np.ndarray, backend) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """a = A.w, b = B.w by SpMV and c = a * b pointwise (snarkjs's rule:
        for a satisfying witness C.w equals a * b on every row), in cuzk's
        domain order (`matrices.in_snarkjs_order` gives snarkjs's)."""
        m = self.matrices
        a = backend.spmv(self.curve, m.a.indptr, m.a.cols, m.a.coeff_idx, m.coeff_table, w)
        b = backend.spmv(self.curve, m.b.indptr, m.b.cols, m.b.coeff_idx, m.coeff_table, w)
        return a, b, self.curve.fr.mul(a, b)

    def public_signals(self, w: np.ndarray) -> list[int]:
        """w[1 .. nPublic] as canonical ints (what public.json lists)."""
        return self.curve.fr.to_ints(w[1 : self.num_inputs])

    # ---- section 10 -------------------------------------------------------------
    @functools.cached_property
    def contributions(self) -> ZkeyContributions:
        where, label = self.path, self._label(10)
        if 10 not in self.sections:
            raise FormatError(f"{where}: {label}: missing")
        off, size = self.sections[10]
        end = off + size
        mm, g1 = self._mm, self.curve.g1
        fq_bytes = 8 * self.curve.fq.limbs

        def need(pos, n):
            if pos + n > end:
                raise FormatError(f"{where}: {label}: truncated")

        need(off, 68)
        cs_hash = bytes(mm[off : off + 64])
        n = self._u32(off + 64)
        pos, names, deltas = off + 68, [], []
        fixed = 3 * 2 * fq_bytes + 4 * fq_bytes + 64 + 4
        for _ in range(n):
            need(pos, fixed + 4)
            deltas.append(self._decode(pos, g1, 1, f"{label} deltaAfter")[0])
            pos += fixed
            plen = self._u32(pos)
            pos += 4
            need(pos, plen)
            names.append(_contribution_name(bytes(mm[pos : pos + plen])))
            pos += plen
        if pos != end:
            raise FormatError(f"{where}: {label}: {end - pos} unexpected bytes after {n} contributions")
        stacked = np.stack(deltas) if deltas else g1.identity(0)
        return ZkeyContributions(cs_hash, tuple(names), stacked)

    # ---- lifetime -----------------------------------------------------------------
    def close(self) -> None:
        """Release the mmap; decoded arrays are copies and stay valid, vectors
        not decoded yet can no longer be."""
        try:
            self._mm.close()
        except BufferError:  # a caller still holds a view; the mmap closes with it
            pass

    def __enter__(self) -> "ZKey":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"ZKey({self.path!r}, {self.curve.name}, nVars={self.n_vars}, nPublic={self.n_public}, "
                f"domainSize={self.domain_size})")


def _contribution_name(params: bytes) -> str:
    """Param 1 of a contribution record is its name (u8 length, UTF-8)."""
    pos = 0
    while pos < len(params):
        kind = params[pos]
        if kind == 1 and pos + 1 < len(params):
            length = params[pos + 1]
            return params[pos + 2 : pos + 2 + length].decode("utf-8", "replace")
        if kind == 2:
            pos += 2
        elif kind in (1, 3) and pos + 1 < len(params):
            pos += 2 + params[pos + 1]
        else:
            break
    return ""


def key_shape(path) -> tuple[str, int] | None:
    """(curve name, domain size) of a .zkey from its section table and header alone (no decoding,
    no kernels: a command asks before it compiles anything); None for a file that is not a readable
    key (opening it then says why)."""
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            off, size = scan_sections(mm, ZKEY_MAGIC, ZKEY_VERSION, str(path), SECTION_NAMES)[2]
            u32 = lambda pos: int.from_bytes(mm[pos : pos + 4], "little")  # noqa: E731
            n8q = u32(off)
            n8r = u32(off + 4 + n8q) if size >= 8 + n8q else 0
            domain_at = off + 8 + n8q + n8r + 8
            if domain_at + 4 > off + size:
                return None
            curve = curve_of_prime(int.from_bytes(mm[off + 4 : off + 4 + n8q], "little"), str(path), field="fq")
            return curve.name, u32(domain_at)
    except (OSError, ValueError, KeyError, FormatError):
        return None


def read_zkey(path, check_points: bool = True) -> ZKey:
    """Open a snarkjs Groth16 .zkey (header, IC and vk read; the rest lazily); `check_points`: see ZKey."""
    if not Path(path).is_file():
        raise FormatError(f"{path}: no such file")
    return ZKey(path, check_points)
