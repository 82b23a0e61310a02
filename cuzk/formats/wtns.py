"""circom / snarkjs witness files (`.wtns`) -> Montgomery witness arrays.

An iden3 section file (iden3_sections.py), magic "wtns", version 1 or 2:
section 1 header = field size n8 u32, prime (n8 bytes), nWitness u32;
section 2 = nWitness values of n8 bytes each (canonical, little-endian).
The values are circom's wire order, w = [1, outputs, public inputs,
private inputs, internal] (circom_r1cs.py), so they are the flat witness.
`write_wtns` writes the format (version 2, as circom's calculator does).
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass

import numpy as np

from cuzk.curve import CURVES
from cuzk.errors import FormatError

from .iden3_sections import curve_of_prime, file_map, require, scan_sections, write_sections

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
    """Read over an mmap: the values are converted straight out of the page cache (a 2^20-wire
    witness: one 34 MB read and two copies fewer than reading the file into bytes)."""
    data = file_map(path)
    try:
        return wtns_from_bytes(data, str(path))
    finally:
        if isinstance(data, mmap.mmap):
            try:
                data.close()
            except BufferError:  # an error's traceback still holds a view; the mmap closes with it
                pass


def wtns_from_bytes(data, where: str = "wtns") -> CircomWitness:
    """A whole .wtns file's bytes (or an mmap) -> the witness (Montgomery); FormatError names the section."""
    if not isinstance(data, (bytes, mmap.mmap)):
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
    fr = curve.fr
    limbs = np.frombuffer(data, dtype="<u8", count=n * 4, offset=voff).reshape(n, 4)  # n8 = 32: 4 limbs
    ok = fr.is_canonical(limbs)
    if not ok.all():
        raise FormatError(f"{where}: values: {fr.params.name}: element {int(np.argmin(ok))} is not canonical (>= p)")
    values = fr.to_mont(np.array(limbs, dtype=np.uint64))  # an aligned, writable copy: the kernel's type; the mmap may close
    del limbs
    return CircomWitness(where, curve.name, values)


def write_wtns(path, curve: str, canonical: np.ndarray) -> None:
    """Write a version-2 .wtns (what circom's witness calculator writes) of canonical uint64[n, 4] values."""
    fr = CURVES[curve].fr
    values = np.ascontiguousarray(canonical, dtype="<u8")
    if values.ndim != 2 or values.shape[1] != 4:
        raise ValueError(f"wtns values must be uint64[n, 4], got {values.shape}")
    n8 = 32
    header = n8.to_bytes(4, "little") + fr.p.to_bytes(n8, "little") + len(values).to_bytes(4, "little")
    write_sections(path, WTNS_MAGIC, 2, {1: [header], 2: [memoryview(values).cast("B")]})
