"""circom / snarkjs witness files (`.wtns`) -> Montgomery witness arrays.

An iden3 section file (iden3_sections.py), magic "wtns", version 1 or 2:
section 1 header = field size n8 u32, prime (n8 bytes), nWitness u32;
section 2 = nWitness values of n8 bytes each (canonical, little-endian).
The values are circom's wire order, w = [1, outputs, public inputs,
private inputs, internal] (circom_r1cs.py), so they are the flat witness.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.errors import FormatError

from .iden3_sections import curve_of_prime, file_bytes, require, scan_sections

WTNS_MAGIC = b"wtns"
WTNS_SECTION_NAMES = {1: "header", 2: "values"}


@dataclass(frozen=True, eq=False)
class CircomWitness:
    path: str
    curve: str
    values: np.ndarray  # Montgomery uint64[n, 4]; values[0] = 1

    def __len__(self) -> int:
        return len(self.values)


def read_wtns(path) -> CircomWitness:
    return wtns_from_bytes(file_bytes(path), str(path))


def wtns_from_bytes(data: bytes, where: str = "wtns") -> CircomWitness:
    """A whole .wtns file's bytes -> the witness (Montgomery); FormatError names the section."""
    data = bytes(data)
    sections = scan_sections(data, WTNS_MAGIC, 2, where, WTNS_SECTION_NAMES)
    require(sections, WTNS_SECTION_NAMES, where, WTNS_SECTION_NAMES)
    hoff, hsize = sections[1]
    if hsize < 4:
        raise FormatError(f"{where}: header: truncated ({hsize} bytes)")
    n8 = int.from_bytes(data[hoff : hoff + 4], "little")
    if n8 != 32 or hsize != 4 + n8 + 4:
        raise FormatError(f"{where}: header: field size {n8} / header size {hsize}, expected 32 / 40")
    curve = curve_of_prime(int.from_bytes(data[hoff + 4 : hoff + 4 + n8], "little"), f"{where}: header")
    n = int.from_bytes(data[hoff + 4 + n8 : hoff + 8 + n8], "little")
    voff, vsize = sections[2]
    if vsize != n * n8:
        raise FormatError(f"{where}: values: {vsize} bytes, expected {n} values * {n8} bytes")
    try:
        values = curve.fr.from_bytes(data[voff : voff + vsize], "little")
    except ValueError as exc:
        raise FormatError(f"{where}: values: {exc}") from None
    return CircomWitness(where, curve.name, values)
