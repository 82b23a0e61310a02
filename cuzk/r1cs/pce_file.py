"""The compiled-circuit file (`.pce`): a header, a section directory, raw arrays.

Loading maps the file (`np.memmap`, read-only) and views each section in
place: nothing is parsed or copied, so a multi-GiB circuit loads in
milliseconds and pages in on first use. All integers are little-endian.

Header (80 bytes):

    offset size field
         0    8 magic b"CUZKPCE\\0"
         8    4 version u32 = 1
        12    4 curve u32: 1 = bls12_381, 2 = bn254
        16    8 num_inputs u64 (ONE included)
        24    8 num_aux u64
        32    8 num_constraints u64 (the circuit's rows; num_inputs input rows follow)
        40    4 num_sections u32 = 12
        44    4 crc32 of header + directory, computed with this field zeroed
        48   32 topology hash (sha256, see compiled.topology_hash)

Directory: num_sections entries of 40 bytes, in this order:
A.indptr A.cols A.coeff B.indptr B.cols B.coeff C.indptr C.cols C.coeff
coeff_table density.a_aux density.b_input density.b_aux

    offset size field
         0   16 name, ASCII, NUL-padded
        16    4 dtype code u32: 1 u8, 2 u16, 3 u32, 4 i32, 5 i64, 6 u64
        20    4 crc32 of the section's bytes
        24    8 element count u64 (coeff_table: 4 * entries)
        32    8 byte offset u64 from the file start, a multiple of 64

Sections follow, each starting at its 64-byte-aligned offset; the file ends
at the end of the last one. Writes go to a temporary file renamed into place.

Checks: `load` validates the header (magic, version, crc), every section's
dtype, count (against the header's sizes) and bounds (truncation), and the
CSR end points; `load(verify=True)` also checks every section's crc32, the
indices' ranges, the coefficient table and the topology hash. Failures raise
FormatError naming the section.
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from pathlib import Path

import numpy as np

from cuzk.errors import FormatError
from cuzk.field import fields_of

from .compiled import CURVE_IDS, CompiledCircuit, CsrMatrix, topology_hash

MAGIC = b"CUZKPCE\0"
VERSION = 1
HEADER = struct.Struct("<8sIIQQQII32s")
ENTRY = struct.Struct("<16sIIQQ")
ALIGN = 64
DTYPES = {1: np.uint8, 2: np.uint16, 3: np.uint32, 4: np.int32, 5: np.int64, 6: np.uint64}
DTYPE_CODES = {np.dtype(v): k for k, v in DTYPES.items()}
SECTIONS = [f"{m}.{part}" for m in "ABC" for part in ("indptr", "cols", "coeff")] + [
    "coeff_table",
    "density.a_aux",
    "density.b_input",
    "density.b_aux",
]
CURVE_NAMES = {v: k for k, v in CURVE_IDS.items()}


def _arrays(cc: CompiledCircuit) -> list[np.ndarray]:
    out = [x for m in cc.matrices for x in (m.indptr, m.cols, m.coeff_idx)]
    out += [cc.coeff_table.reshape(-1), cc.a_aux_density, cc.b_input_density, cc.b_aux_density]
    return [np.ascontiguousarray(a) for a in out]


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def save(cc: CompiledCircuit, path) -> None:
    arrays = _arrays(cc)
    offset = _align(HEADER.size + ENTRY.size * len(SECTIONS))
    entries = []
    for name, arr in zip(SECTIONS, arrays):
        data = memoryview(arr).cast("B")
        entries.append((name, DTYPE_CODES[arr.dtype], zlib.crc32(data), arr.size, offset))
        offset = _align(offset + arr.nbytes)
    directory = b"".join(ENTRY.pack(n.encode(), d, crc, cnt, off) for n, d, crc, cnt, off in entries)

    def header(crc):
        return HEADER.pack(MAGIC, VERSION, CURVE_IDS[cc.curve], cc.num_inputs, cc.num_aux,
                           cc.num_constraints, len(SECTIONS), crc, cc.topology_hash)

    crc = zlib.crc32(header(0) + directory)
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(header(crc) + directory)
            for (_, _, _, _, off), arr in zip(entries, arrays):
                fh.write(b"\0" * (off - fh.tell()))
                fh.write(memoryview(arr).cast("B"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load(path, verify: bool = False) -> CompiledCircuit:
    path = Path(path)
    size = path.stat().st_size
    if size < HEADER.size:
        raise FormatError(f"{path}: header: file has {size} bytes, the header needs {HEADER.size}")
    buf = np.memmap(path, dtype=np.uint8, mode="r")
    magic, version, curve_id, n_in, n_aux, n_cons, n_sec, crc, digest = HEADER.unpack(bytes(buf[: HEADER.size]))
    if magic != MAGIC:
        raise FormatError(f"{path}: header: bad magic {magic!r} (not a cuzk .pce file)")
    if version != VERSION:
        raise FormatError(f"{path}: header: unsupported version {version} (expected {VERSION})")
    if n_sec != len(SECTIONS):
        raise FormatError(f"{path}: header: {n_sec} sections, expected {len(SECTIONS)}")
    dir_end = HEADER.size + ENTRY.size * n_sec
    if size < dir_end:
        raise FormatError(f"{path}: directory: truncated (file has {size} bytes, directory ends at {dir_end})")
    head = bytearray(buf[:dir_end])
    head[44:48] = b"\0\0\0\0"
    if zlib.crc32(head) != crc:
        raise FormatError(f"{path}: header: checksum mismatch (corrupted header or directory)")
    if curve_id not in CURVE_NAMES:
        raise FormatError(f"{path}: header: unknown curve id {curve_id}")
    curve = CURVE_NAMES[curve_id]
    limbs = fields_of(curve)[0].limbs
    rows = n_cons + n_in
    arrays = {}
    for k, expected in enumerate(SECTIONS):
        name, dcode, scrc, count, off = ENTRY.unpack_from(head, HEADER.size + k * ENTRY.size)
        name = name.rstrip(b"\0").decode("ascii", "replace")
        if name != expected:
            raise FormatError(f"{path}: directory: entry {k} is {name!r}, expected {expected!r}")
        if dcode not in DTYPES:
            raise FormatError(f"{path}: {name}: unknown dtype code {dcode}")
        dtype = np.dtype(DTYPES[dcode])
        end = off + count * dtype.itemsize
        if off % ALIGN or off < dir_end:
            raise FormatError(f"{path}: {name}: bad offset {off}")
        if end > size:
            raise FormatError(f"{path}: {name}: truncated (section ends at byte {end}, file has {size})")
        arr = buf[off:end].view(dtype)
        if verify and zlib.crc32(memoryview(arr).cast("B")) != scrc:
            raise FormatError(f"{path}: {name}: checksum mismatch (corrupted data)")
        arrays[name] = arr
    _check_sizes(path, arrays, rows, n_in, n_aux, limbs)
    mats = [CsrMatrix(arrays[f"{m}.indptr"], arrays[f"{m}.cols"], arrays[f"{m}.coeff"]) for m in "ABC"]
    cc = CompiledCircuit(
        curve, int(n_in), int(n_aux), int(n_cons), *mats,
        arrays["coeff_table"].reshape(-1, limbs),
        arrays["density.a_aux"], arrays["density.b_input"], arrays["density.b_aux"], bytes(digest),
    )
    if verify:
        verify_structure(cc, str(path))
    return cc


def _check_sizes(path, arrays, rows, n_in, n_aux, limbs) -> None:
    def need(name, ok, what):
        if not ok:
            raise FormatError(f"{path}: {name}: {what}")

    words = lambda n: (n + 63) // 64  # noqa: E731
    for m in "ABC":
        ip, cols, co = arrays[f"{m}.indptr"], arrays[f"{m}.cols"], arrays[f"{m}.coeff"]
        need(f"{m}.indptr", ip.dtype.kind == "i" and len(ip) == rows + 1,
             f"expected {rows + 1} signed entries, found {len(ip)} {ip.dtype}")
        need(f"{m}.cols", cols.dtype == np.uint32, f"expected uint32, found {cols.dtype}")
        need(f"{m}.coeff", co.dtype.kind == "u" and len(co) == len(cols),
             f"expected {len(cols)} unsigned entries (one per column), found {len(co)} {co.dtype}")
        need(f"{m}.indptr", int(ip[0]) == 0 and int(ip[-1]) == len(cols),
             f"row pointers run from {int(ip[0])} to {int(ip[-1])}, expected 0 to {len(cols)}")
    t = arrays["coeff_table"]
    need("coeff_table", t.dtype == np.uint64 and len(t) % limbs == 0 and len(t) >= 2 * limbs,
         f"expected uint64 entries of {limbs} limbs (at least 2), found {len(t)} {t.dtype}")
    for name, n in (("density.a_aux", n_aux), ("density.b_input", n_in), ("density.b_aux", n_aux)):
        d = arrays[name]
        need(name, d.dtype == np.uint64 and len(d) == words(n), f"expected {words(n)} uint64 words, found {len(d)}")


def verify_structure(cc: CompiledCircuit, where: str = "circuit") -> None:
    """Full O(nnz) consistency check; FormatError names the failing section."""
    fr = cc.fr
    k = len(cc.coeff_table)
    for m, name in zip(cc.matrices, "ABC"):
        ip = np.asarray(m.indptr)
        if len(ip) > 1 and bool(np.any(ip[1:] < ip[:-1])):
            raise FormatError(f"{where}: {name}.indptr: row pointers decrease")
        if m.nnz and int(m.cols.max()) >= cc.num_vars:
            raise FormatError(f"{where}: {name}.cols: column {int(m.cols.max())} >= {cc.num_vars} variables")
        if m.nnz and int(m.coeff_idx.max()) >= k:
            raise FormatError(f"{where}: {name}.coeff: index {int(m.coeff_idx.max())} >= table size {k}")
    canon = fr.from_mont(np.ascontiguousarray(cc.coeff_table))
    if not (fr.is_canonical(canon).all() and fr.is_canonical(np.ascontiguousarray(cc.coeff_table)).all()):
        raise FormatError(f"{where}: coeff_table: entry not reduced modulo r")
    if fr.to_ints(cc.coeff_table[:2]) != [1, fr.p - 1]:
        raise FormatError(f"{where}: coeff_table: entries 0 and 1 must be +1 and -1")
    if topology_hash(cc) != cc.topology_hash:
        raise FormatError(f"{where}: header: topology hash does not match the contents")
