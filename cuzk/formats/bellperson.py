"""bellperson `.params`, `.vk` and 192-byte proofs (BLS12-381), read and written.

Layouts (no header, no padding; lengths are u32 big-endian; points are
uncompressed zcash encodings, 96 bytes in G1 and 192 in G2):

    .vk      alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2, u32 n_ic, ic[n_ic]
    .params  the .vk, then five vectors each as u32 len + points:
             h (G1, N-1: tau^i t(tau)/delta), l (G1, one per aux variable),
             a (G1), b_g1 (G1), b_g2 (G2)  -- a/b without identity points,
             i.e. only the variables in the circuit's A/B density
    proof    A (G1 compressed, 48) || B (G2 compressed, 96) || C (G1 compressed, 48)

A .params file is opened through mmap: the verifying key is decoded at once,
the vector offsets are recorded, and each vector is decoded (and validated)
only when the prover first asks for it. Sizes are checked against the file
length before anything is read, so a truncated file names its section.
bellperson rejects the point at infinity in every vector and in IC; so do we.
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from cuzk import file_pages
from cuzk.curve import BLS12_381
from cuzk.curve.encoding import decode_points, decode_uncompressed, encode_array, encode_points
from cuzk.errors import FormatError, ValidationError
from cuzk.groth16.keys import H_BELLPERSON, Proof, ProvingKey, VerifyingKey, density_vars

G1_SIZE, G2_SIZE = 96, 192
VK_FIXED = 3 * G1_SIZE + 3 * G2_SIZE  # 864
SECTIONS = (("h", "g1"), ("l", "g1"), ("a", "g1"), ("b_g1", "g1"), ("b_g2", "g2"))
PROOF_SIZE = 192


def _group(name: str):
    return BLS12_381.g1 if name == "g1" else BLS12_381.g2


def _size(name: str) -> int:
    return G1_SIZE if name == "g1" else G2_SIZE


def _no_infinity(pts: np.ndarray, what: str) -> np.ndarray:
    inf = ~pts.reshape(pts.shape[0], -1).any(axis=1)
    if inf.any():
        raise ValidationError(f"{what}: element {int(np.argmax(inf))} is the point at infinity")
    return pts


def _decode(buf, offset: int, count: int, group: str, what: str, checked: bool) -> np.ndarray:
    size = _size(group)
    data = memoryview(buf)[offset : offset + count * size]
    pts, inf = decode_uncompressed(_group(group), data, check_subgroup=checked, count=count, what=what)
    if inf >= 0:  # found while decoding: no second pass over a many-GB vector
        raise ValidationError(f"{what}: element {inf} is the point at infinity")
    return pts


def _u32(buf, offset: int, what: str) -> int:
    if offset + 4 > len(buf):
        raise FormatError(f"{what}: file ends before the length field (offset {offset})")
    return struct.unpack_from(">I", buf, offset)[0]


def _read_vk(buf, what: str) -> tuple[VerifyingKey, int]:
    if len(buf) < VK_FIXED + 4:
        raise FormatError(f"{what}: {len(buf)} bytes is too short for a verifying key ({VK_FIXED + 4} at least)")
    off = 0
    pts = {}
    for name, grp in (("alpha_g1", "g1"), ("beta_g1", "g1"), ("beta_g2", "g2"), ("gamma_g2", "g2"),
                      ("delta_g1", "g1"), ("delta_g2", "g2")):
        pts[name] = _decode(buf, off, 1, grp, f"{what}: vk.{name}", True)[0]
        off += _size(grp)
    n_ic = _u32(buf, off, f"{what}: vk.ic")
    off += 4
    if off + n_ic * G1_SIZE > len(buf):
        raise FormatError(f"{what}: vk.ic declares {n_ic} points but the file ends after "
                          f"{(len(buf) - off) // G1_SIZE}")
    if n_ic == 0:
        raise FormatError(f"{what}: vk.ic is empty (it needs at least the point for ONE)")
    ic = _decode(buf, off, n_ic, "g1", f"{what}: vk.ic", True)
    off += n_ic * G1_SIZE
    return VerifyingKey(curve=BLS12_381, ic=ic, **pts), off


def vk_from_bytes(data, what: str = "vk") -> VerifyingKey:
    """A whole .vk file's bytes -> its validated verifying key."""
    vk, end = _read_vk(data, what)
    if end != len(data):
        raise FormatError(f"{what}: {len(data) - end} unexpected bytes after the verifying key")
    return vk


def read_vk(path) -> VerifyingKey:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError(f"{path}: cannot read ({exc.strerror})") from None
    return vk_from_bytes(data, str(path))


def vk_bytes(vk: VerifyingKey) -> bytes:
    g1, g2 = BLS12_381.g1, BLS12_381.g2
    parts = [encode_points(g1, vk.alpha_g1[None], compressed=False), encode_points(g1, vk.beta_g1[None], compressed=False),
             encode_points(g2, vk.beta_g2[None], compressed=False), encode_points(g2, vk.gamma_g2[None], compressed=False),
             encode_points(g1, vk.delta_g1[None], compressed=False), encode_points(g2, vk.delta_g2[None], compressed=False),
             struct.pack(">I", vk.ic.shape[0]), encode_points(g1, vk.ic, compressed=False)]
    return b"".join(parts)


def write_vk(path, vk: VerifyingKey) -> None:
    _atomic_write(path, [vk_bytes(vk)])


@dataclass
class ParamsLayout:
    """Where each vector of a .params file lies: name -> (offset, count, group)."""

    vk: VerifyingKey
    sections: dict[str, tuple[int, int, str]]
    size: int


def scan_params(buf, what: str) -> ParamsLayout:
    vk, off = _read_vk(buf, what)
    sections = {}
    for name, grp in SECTIONS:
        count = _u32(buf, off, f"{what}: params.{name}")
        off += 4
        end = off + count * _size(grp)
        if end > len(buf):
            raise FormatError(f"{what}: params.{name} declares {count} points but the file ends after "
                              f"{max(0, len(buf) - off) // _size(grp)}")
        sections[name] = (off, count, grp)
        off = end
    if off != len(buf):
        raise FormatError(f"{what}: {len(buf) - off} unexpected bytes after params.b_g2")
    return ParamsLayout(vk, sections, len(buf))


def decode_section(buf, layout: ParamsLayout, name: str, what: str, checked: bool = True) -> np.ndarray:
    """Vector `name` of a scanned .params buffer, decoded and validated. Over an mmap, the section's
    file pages are then unmapped from this process (they stay in the page cache): read once, they
    would otherwise count in its resident memory beside the decoded copy, 47 GB for a 32 GiB PoRep."""
    off, count, grp = layout.sections[name]
    pts = _decode(buf, off, count, grp, f"{what}: params.{name}", checked)
    if isinstance(buf, mmap.mmap):
        file_pages.drop(buf, off, count * _size(grp))
    return pts


def open_params(path, circuit, checked: bool = True, stamps=None) -> ProvingKey:
    """A lazily decoded ProvingKey for `circuit` (a CompiledCircuit) from a .params file. `stamps`
    (cuzk.engine.params.check_stamps.CheckStamps): sections of this very file checked before are not
    checked again, and a section checked now is recorded there."""
    path = str(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise FormatError(f"{path}: cannot open ({exc.strerror})") from None
    with fh:
        st = os.fstat(fh.fileno())  # the identity of the bytes mapped, for the stamps
        if st.st_size == 0:
            raise FormatError(f"{path}: empty file")
        buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    layout = scan_params(buf, path)
    a_vars, b_vars = density_vars(circuit)
    expect = {"l": circuit.num_aux, "a": len(a_vars), "b_g1": len(b_vars), "b_g2": len(b_vars)}
    for name, want in expect.items():
        got = layout.sections[name][1]
        if got != want:
            raise FormatError(f"{path}: params.{name} has {got} points but the circuit needs {want} "
                              "(parameters for another circuit?)")
    if layout.vk.ic.shape[0] != circuit.num_inputs:
        raise FormatError(f"{path}: vk.ic has {layout.vk.ic.shape[0]} points but the circuit has "
                          f"{circuit.num_inputs} inputs")
    n = layout.sections["h"][1] + 1
    if n & (n - 1) or n < circuit.num_rows:
        raise FormatError(f"{path}: params.h has {n - 1} points; expected a power of two minus one "
                          f">= {circuit.num_rows - 1}")

    def loader(name):
        def load():
            check = checked and not (stamps is not None and stamps.done(path, st, name))
            pts = decode_section(buf, layout, name, path, check)
            if check and stamps is not None:
                stamps.mark(path, st, name)
            return pts
        return load

    return ProvingKey(vk=layout.vk, num_inputs=circuit.num_inputs, num_aux=circuit.num_aux, domain_size=n,
                      h_convention=H_BELLPERSON, beta_g1=layout.vk.beta_g1, delta_g1=layout.vk.delta_g1,
                      a_vars=a_vars, b_vars=b_vars, vectors={name: loader(name) for name, _ in SECTIONS})


def write_params(path, pk: ProvingKey) -> None:
    """Written in chunks of encoded points, so a 2^27 key (~48 GB) never exists twice in memory.

    Each chunk is encoded on all cores while the previous one is written
    (`_atomic_write` pulls the next part on a second thread).
    """
    if pk.h_convention != H_BELLPERSON:
        raise ValueError("only bellperson-convention keys can be written as .params")

    def parts():
        yield vk_bytes(pk.vk)
        for name, grp in SECTIONS:
            pts = pk.bases(name)
            yield struct.pack(">I", pts.shape[0])
            for i in range(0, pts.shape[0], WRITE_CHUNK):
                yield encode_array(_group(grp), pts[i : i + WRITE_CHUNK], compressed=False)

    _atomic_write(path, parts())


WRITE_CHUNK = 1 << 20  # points encoded at a time: 96-192 MB; two chunks are in memory at once


def _atomic_write(path, parts) -> None:
    """Write bytes-like `parts` to a temp file, fsync, rename.

    Part k+1 is produced on a helper thread (with the caller's numba thread
    count, which is per thread) while part k is written.
    """
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"  # concurrent writers never share one
    threads = numba.get_num_threads()
    try:
        with (open(tmp, "wb") as fh,
              ThreadPoolExecutor(1, "params-encode", numba.set_num_threads, (threads,)) as ahead):
            it = iter(parts)
            nxt = ahead.submit(next, it, None)
            while (part := nxt.result()) is not None:
                nxt = ahead.submit(next, it, None)
                fh.write(part)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)  # a full disk leaves no half-written file behind
        raise


def proof_to_bytes(proof: Proof) -> bytes:
    g1, g2 = BLS12_381.g1, BLS12_381.g2
    return (encode_points(g1, proof.a[None]) + encode_points(g2, proof.b[None]) + encode_points(g1, proof.c[None]))


def proofs_from_bytes(data: bytes) -> list[Proof]:
    """Concatenated 192-byte proofs (e.g. a multi-partition proof), validated."""
    if len(data) == 0 or len(data) % PROOF_SIZE:
        raise FormatError(f"proof bytes: length {len(data)} is not a positive multiple of {PROOF_SIZE}")
    raw = np.frombuffer(bytes(data), dtype=np.uint8).reshape(-1, PROOF_SIZE)
    a = _no_infinity(decode_points(BLS12_381.g1, raw[:, :48].tobytes(), what="proof.A"), "proof.A")
    b = _no_infinity(decode_points(BLS12_381.g2, raw[:, 48:144].tobytes(), what="proof.B"), "proof.B")
    c = _no_infinity(decode_points(BLS12_381.g1, raw[:, 144:].tobytes(), what="proof.C"), "proof.C")
    return [Proof(BLS12_381, a[i], b[i], c[i]) for i in range(raw.shape[0])]
