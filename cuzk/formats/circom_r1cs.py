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
arrays; everything after that is numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from cuzk.errors import FormatError
from cuzk.field import fields_of
from cuzk.r1cs.compiled import CompiledCircuit, build

from .iden3_sections import curve_of_prime, file_bytes, require, scan_sections
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
            n = np.int64(buf[pos]) | (np.int64(buf[pos + 1]) << 8) | (np.int64(buf[pos + 2]) << 16) | (
                np.int64(buf[pos + 3]) << 24
            )
            pos += 4
            if pos + n * stride > end:
                return -1 - i
            lens[k, i] = n
            if fill:
                base = bases[k] + used[k]
                for t in range(n):
                    q = pos + t * stride
                    wires[base + t] = (
                        np.uint32(buf[q])
                        | (np.uint32(buf[q + 1]) << np.uint32(8))
                        | (np.uint32(buf[q + 2]) << np.uint32(16))
                        | (np.uint32(buf[q + 3]) << np.uint32(24))
                    )
                    for b in range(n8):
                        coeffs[base + t, b] = buf[q + 4 + b]
            used[k] += n
            pos += n * stride
    return pos


def read_r1cs(path) -> CircomR1CS:
    return r1cs_from_bytes(file_bytes(path), str(path))


def r1cs_from_bytes(data: bytes, where: str = "r1cs") -> CircomR1CS:
    """A whole .r1cs file's bytes -> the compiled circuit; FormatError names the section."""
    data = bytes(data)
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
    num_inputs = 1 + n_out + n_pub
    if num_inputs + n_prv > n_wires:
        raise FormatError(
            f"{where}: header: 1 + {n_out} outputs + {n_pub} public + {n_prv} private inputs exceed {n_wires} wires"
        )

    loff, lsize = sections[3]
    if lsize != 8 * n_wires:  # checked first: it bounds nWires by the file size before anything is allocated
        raise FormatError(f"{where}: wire-to-label map: {lsize} bytes, expected 8 * {n_wires} wires")
    coff, csize = sections[2]
    if 12 * m > csize:  # each constraint holds at least three u32 term counts
        raise FormatError(f"{where}: header: nConstraints {m} cannot fit the {csize}-byte constraints section")
    buf = np.frombuffer(data, dtype=np.uint8)
    lens = np.zeros((3, m), dtype=np.int64)
    dummy_w, dummy_c = np.zeros(0, np.uint32), np.zeros((0, n8), np.uint8)
    zero3 = np.zeros(3, np.int64)
    end = _scan_constraints(buf, coff, coff + csize, m, n8, lens, zero3, dummy_w, dummy_c, False)
    if end < 0:
        raise FormatError(f"{where}: constraints: constraint {-1 - end} of {m} runs past the end of the section")
    if end != coff + csize:
        raise FormatError(f"{where}: constraints: {coff + csize - end} bytes left after {m} constraints")
    totals = lens.sum(axis=1)
    bases = np.concatenate([[0], np.cumsum(totals)[:2]]).astype(np.int64)
    wires = np.empty(int(totals.sum()), dtype=np.uint32)
    coeff_bytes = np.empty((int(totals.sum()), n8), dtype=np.uint8)
    _scan_constraints(buf, coff, coff + csize, m, n8, lens, bases, wires, coeff_bytes, True)
    if len(wires) and int(wires.max()) >= n_wires:
        raise FormatError(f"{where}: constraints: wire id {int(wires.max())} >= nWires {n_wires}")

    fr = fields_of(curve)[0]
    limbs = coeff_bytes.view("<u8").astype(np.uint64)
    uniq, inverse = np.unique(limbs, axis=0, return_inverse=True)
    ok = fr.is_canonical(uniq)
    if not ok.all():
        raise FormatError(f"{where}: constraints: coefficient {fr.canonical_to_ints(uniq[~ok][:1])[0]:#x} is not below the prime")
    table = fr.canonical_to_ints(uniq)
    ids = inverse.reshape(-1).astype(np.int64)
    cols = wires.astype(np.int64)
    mats = [
        (lens[k], cols[bases[k] : bases[k] + totals[k]], ids[bases[k] : bases[k] + totals[k]]) for k in range(3)
    ]
    circuit = build(curve, num_inputs, n_wires - num_inputs, m, mats, table)

    labels = np.frombuffer(data, dtype="<u8", count=n_wires, offset=loff).astype(np.uint64)
    return CircomR1CS(where, curve, n_wires, n_out, n_pub, n_prv, n_labels, m, labels, circuit)


def witness_for(r1cs: CircomR1CS, wtns: CircomWitness) -> np.ndarray:
    """The flat w for the circuit, checking that the two files belong together."""
    if wtns.curve != r1cs.curve:
        raise FormatError(f"{wtns.path}: witness is over {wtns.curve}, circuit {r1cs.path} over {r1cs.curve}")
    if len(wtns) != r1cs.n_wires:
        raise FormatError(f"{wtns.path}: witness has {len(wtns)} values, circuit has {r1cs.n_wires} wires")
    return wtns.values
