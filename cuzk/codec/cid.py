"""Filecoin's commitment CIDs (go-fil-commcid): the 32-byte comm_r or comm_d inside a CID string.

A sealed-sector CID (lotus and Curio write comm_r this way, e.g. `SealedCID` in
PoSt verify info) is a CIDv1 in multibase 'b' (RFC 4648 base32, lower case,
no padding): varint version 1, varint codec (fil-commitment-sealed 0xf102,
fil-commitment-unsealed 0xf101), then a multihash: varint hash code
(poseidon-bls12_381-a2-fc1 0xb401 for comm_r, sha2-256-trunc254-padded 0x1012
for comm_d), varint length 32, the commitment's bytes (multicodec table).
"""

from __future__ import annotations

import base64

from cuzk.errors import FormatError

SEALED, UNSEALED = 0xF102, 0xF101
HASHES = {SEALED: 0xB401, UNSEALED: 0x1012}


def _varint(data: bytes, pos: int, what: str) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise FormatError(f"{what}: truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def commitment_from_cid(text: str, codec: int = SEALED, what: str = "CID") -> bytes:
    """The 32 commitment bytes of a commitment CID string (codec: SEALED or UNSEALED)."""
    if not isinstance(text, str) or not text.startswith("b") or len(text) > 128:
        raise FormatError(f"{what}: expected a base32 CIDv1 string starting with 'b'")
    body = text[1:].upper()
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except ValueError:
        raise FormatError(f"{what}: not base32") from None
    version, pos = _varint(raw, 0, what)
    found, pos = _varint(raw, pos, what)
    code, pos = _varint(raw, pos, what)
    length, pos = _varint(raw, pos, what)
    if version != 1:
        raise FormatError(f"{what}: CID version {version}, expected 1")
    if found != codec:
        raise FormatError(f"{what}: codec {found:#x}, expected {codec:#x}")
    if code != HASHES[codec]:
        raise FormatError(f"{what}: multihash {code:#x}, expected {HASHES[codec]:#x}")
    if length != 32 or len(raw) - pos != 32:
        raise FormatError(f"{what}: a {len(raw) - pos}-byte digest (header says {length}), expected 32")
    return raw[pos:]
