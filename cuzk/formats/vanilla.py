"""The vanilla-proof container: what SubmitProof's `vanilla_proof` carries for
the built-in circuit kinds (`cuzk bench gen-vanilla` writes it). The kinds
(cuzk.circuits) generate and consume the arrays; this module is their bytes.

Layout (all integers little-endian):

    offset  size  field
         0     8  magic b"CUZKVAN1"
         8     4  header length H (u32)
        12     H  header: UTF-8 JSON object
                    kind, preset, curve, version: strings / int
                    shape: the kind's shape parameters (checked on decode)
                    seed: generator seed (decimal string), informational
                    arrays: [{"name", "dtype", "shape", "offset"}, ...]
          ...     arrays, raw C-order bytes, each at its `offset` from the
                  start of the container, 8-byte aligned

dtypes are "u1" (bytes: every field element and tree node is its 32-byte
little-endian encoding, the last axis of length 32) and "<u8" (node
indices). Which arrays a kind carries, with their shapes, is documented in
its module (`cuzk.circuits.porep_vanilla`, `post`, `snap`; `expected_arrays`)
and in README.md (Vanilla proofs). Decoding maps the arrays in place (no
copy) and checks names, dtypes and shapes against what the circuit expects,
raising FormatError otherwise.
"""

from __future__ import annotations

import dataclasses
import json
import struct

import numpy as np

from cuzk import safe_json
from cuzk.circuits import CircuitKind, Vanilla
from cuzk.errors import FormatError

MAGIC = b"CUZKVAN1"
VERSION = 1
_HEAD = struct.Struct("<8sI")
_DTYPES = {"u1": np.uint8, "<u8": np.uint64}


def encode(kind: str, preset: str, shape: dict, arrays: dict[str, np.ndarray], seed: str = "") -> bytes:
    metas = []
    offset = 0
    blobs = []
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        code = "u1" if arr.dtype == np.uint8 else "<u8"
        arr = arr.astype(_DTYPES[code], copy=False)
        metas.append({"name": name, "dtype": code, "shape": list(arr.shape), "offset": offset})
        blobs.append(arr.tobytes())
        offset += (len(blobs[-1]) + 7) // 8 * 8
    header = {"kind": kind, "preset": preset, "curve": "bls12_381", "version": VERSION, "shape": shape,
              "seed": seed, "arrays": metas}
    hjson = json.dumps(header, separators=(",", ":")).encode()
    start = (_HEAD.size + len(hjson) + 7) // 8 * 8
    hjson += b" " * (start - _HEAD.size - len(hjson))
    out = bytearray(start + offset)
    out[: _HEAD.size] = _HEAD.pack(MAGIC, len(hjson))
    out[_HEAD.size : start] = hjson
    for meta, blob in zip(metas, blobs):
        o = start + meta["offset"]
        out[o : o + len(blob)] = blob
    return bytes(out)


def _header(data, where: str) -> dict:
    """The container's JSON header, checked to be an object (FormatError otherwise)."""
    buf = memoryview(data)
    if len(buf) < _HEAD.size:
        raise FormatError(f"{where}: {len(buf)} bytes is too short for the header")
    magic, hlen = _HEAD.unpack_from(buf)
    if magic != MAGIC:
        raise FormatError(f"{where}: bad magic {bytes(magic)!r} (expected {MAGIC!r}; make inputs with "
                          "`cuzk bench gen-vanilla`)")
    if _HEAD.size + hlen > len(buf):
        raise FormatError(f"{where}: header runs past the end ({hlen} bytes declared, "
                          f"{len(buf) - _HEAD.size} in the container)")
    header = safe_json.loads(bytes(buf[_HEAD.size : _HEAD.size + hlen]), f"{where}: header")
    if not isinstance(header, dict):
        raise FormatError(f"{where}: header is a JSON {type(header).__name__}, expected an object")
    return header


def _array_metas(header: dict, where: str) -> dict:
    arrays = header.get("arrays", [])
    if not isinstance(arrays, list) or not all(isinstance(m, dict) for m in arrays):
        raise FormatError(f"{where}: header field 'arrays': expected a list of objects")
    return {m.get("name"): m for m in arrays if isinstance(m.get("name"), str)}


def decode(data: bytes, kind: str, preset: str, shape: dict, expected: dict[str, tuple]) -> dict[str, np.ndarray]:
    """The arrays of a container made for (kind, preset, shape); `expected`
    maps each array name to its shape (dtype u1 unless the name is listed
    with a trailing dtype: {"challenges": ((P, C), "<u8")})."""
    where = f"vanilla proof for {kind}-{preset}"
    buf = memoryview(data)
    header = _header(buf, where)
    hlen = _HEAD.unpack_from(buf)[1]
    if header.get("version") != VERSION:
        raise FormatError(f"{where}: unsupported version {_short(header.get('version'))}")
    if header.get("kind") != kind:
        raise FormatError(f"{where}: made for kind {_short(header.get('kind'))}")
    if header.get("shape") != shape:
        raise FormatError(f"{where}: made for shape {_short(header.get('shape'))} (preset "
                          f"{_short(header.get('preset'))}), the circuit has {shape}")
    start = (_HEAD.size + hlen + 7) // 8 * 8
    metas = _array_metas(header, where)
    out = {}
    for name, spec in expected.items():
        want_shape, want_dtype = spec if len(spec) == 2 and isinstance(spec[1], str) else (spec, "u1")
        m = metas.get(name)
        if m is None:
            raise FormatError(f"{where}: array {name!r} is missing")
        got_shape = m.get("shape")
        if m.get("dtype") != want_dtype or not isinstance(got_shape, list) or got_shape != list(want_shape):
            raise FormatError(f"{where}: array {name!r} is {_short(m.get('dtype'))}{_short(got_shape)}, "
                              f"expected {want_dtype}{list(want_shape)}")
        offset = m.get("offset")
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise FormatError(f"{where}: array {name!r}: offset {_short(offset)} is not an integer")
        dtype = np.dtype(_DTYPES[want_dtype])
        count = int(np.prod(want_shape))
        o = start + offset
        if o < start or o % 8 or o + count * dtype.itemsize > len(buf):
            raise FormatError(f"{where}: array {name!r} lies outside the container")
        out[name] = np.frombuffer(buf, dtype=dtype, count=count, offset=o).reshape(want_shape)
    return out


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def peek(data: bytes) -> dict:
    """The header of a container (kind, preset, shape, arrays), checked to be a JSON object only."""
    return _header(data, "vanilla proof")


def generate_vanilla(kind: CircuitKind, preset: str, seed: int | None = None) -> bytes:
    """A valid vanilla proof for `kind` at `preset`, as container bytes (seed None: fresh randomness)."""
    if seed is None:
        seed = int.from_bytes(np.random.default_rng().bytes(8), "little")
    vanilla = kind.make_vanilla(preset, int(seed))
    return encode(kind.name, preset, dataclasses.asdict(kind.shape(preset)), vanilla.arrays, seed=str(seed))


def parse_vanilla(kind: CircuitKind, preset: str, data) -> Vanilla:
    """Decode and check a container made for `kind` at `preset` (FormatError if it was not)."""
    shape = dataclasses.asdict(kind.shape(preset))
    return Vanilla(kind.name, preset, decode(data, kind.name, preset, shape, kind.expected_arrays(preset)))
