"""The iden3 binary section container (snarkjs .zkey/.ptau, circom .r1cs/.wtns).

Layout, little-endian: magic (4 bytes), version u32, section count u32, then
per section: type u32, size u64, body. Sections may come in any order. The
table is scanned once and every size checked against the file length, so a
truncated file is reported with the section it cuts, before anything is
allocated from the sizes it declares. Every iden3 file names its curve by
a field modulus in its header (circom's .r1cs/.wtns the scalar field's,
snarkjs's .zkey the base field's): `curve_of_prime` maps it back.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

from cuzk.curve import CURVES, Curve
from cuzk.errors import FormatError


def scan_sections(data, magic: bytes, max_version: int, where: str, names: dict[int, str]) -> dict[int, tuple[int, int]]:
    """Section type -> (body offset, body size); `data` is bytes or an mmap.

    Raises FormatError for a bad magic/version, a truncated table or body,
    trailing bytes, and a known section that appears twice.
    """
    total = len(data)
    if total < 12:
        raise FormatError(f"{where}: file header: truncated ({total} bytes, need 12)")
    if bytes(data[:4]) != magic:
        raise FormatError(f"{where}: file header: bad magic {bytes(data[:4])!r}, expected {magic!r}")
    version = int.from_bytes(data[4:8], "little")
    if not 1 <= version <= max_version:
        raise FormatError(f"{where}: file header: unsupported version {version} (this reader knows 1..{max_version})")
    count = int.from_bytes(data[8:12], "little")
    pos, sections = 12, {}
    for k in range(count):
        if pos + 12 > total:
            raise FormatError(f"{where}: section table: truncated at entry {k} of {count}")
        stype = int.from_bytes(data[pos : pos + 4], "little")
        size = int.from_bytes(data[pos + 4 : pos + 12], "little")
        label = section_label(stype, names)
        if pos + 12 + size > total:
            raise FormatError(
                f"{where}: {label}: truncated (declares {size} bytes, {total - pos - 12} left in the file)"
            )
        if stype in sections and stype in names:
            raise FormatError(f"{where}: {label}: appears twice")
        sections.setdefault(stype, (pos + 12, size))
        pos += 12 + size
    if pos != total:
        raise FormatError(f"{where}: {total - pos} trailing bytes after the last section")
    return sections


def section_label(stype: int, names: dict[int, str]) -> str:
    return f"section {stype} ({names.get(stype, 'unknown')})"


def require(sections: dict, stypes, where: str, names: dict[int, str]) -> None:
    for stype in stypes:
        if stype not in sections:
            raise FormatError(f"{where}: {section_label(stype, names)}: missing")


def curve_of_prime(prime: int, where: str, field: str = "fr") -> Curve:
    """The curve whose scalar (field="fr") or base (field="fq") field modulus is `prime`."""
    for curve in CURVES.values():
        if getattr(curve, field).p == prime:
            return curve
    kind = "scalar" if field == "fr" else "base"
    raise FormatError(f"{where}: prime {prime:#x} is neither BN254's nor BLS12-381's {kind} field modulus")


def file_bytes(path) -> bytes:
    """A whole file's bytes; FormatError (naming the path) when it cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise FormatError(f"{path}: cannot read ({exc.strerror})") from None


def file_map(path):
    """A whole file read-only through mmap (b"" when empty: mmap refuses length 0), for readers
    that convert straight out of the page cache; FormatError (naming the path) when unreadable."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    except OSError as exc:
        raise FormatError(f"{path}: cannot read ({exc.strerror})") from None


def write_sections(path, magic: bytes, version: int, bodies: dict[int, list]) -> None:
    """Write an iden3 section file: `bodies` maps section type -> list of byte buffers.

    Written beside `path` and renamed into place, so an interrupted write
    never leaves half a file under the name.
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(magic + int(version).to_bytes(4, "little") + len(bodies).to_bytes(4, "little"))
            for stype, parts in bodies.items():
                fh.write(int(stype).to_bytes(4, "little") + sum(len(memoryview(b).cast("B")) for b in parts)
                         .to_bytes(8, "little"))
                for buf in parts:
                    fh.write(buf)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
