"""A Filecoin circuit's verifying key from a file, in either of the layouts found in the wild.

Both are bellperson's `.vk` field order: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1,
delta_g2, a u32 big-endian IC count, the IC points (G1). They differ in the point encoding:

    uncompressed   bellperson's .vk as paramfetch and `cuzk setup` write it: 868 + 96 x IC bytes
    compressed     zcash-compressed points (e.g. the keys chains such as polka-storage store):
                   436 + 48 x IC bytes

The size tells them apart; where a size fits both layouts (436 + 48 a = 868 + 96 b), the first
byte's compression flag (0x80, set in every compressed point) decides.
"""

from __future__ import annotations

import struct

from cuzk.curve import BLS12_381
from cuzk.curve.encoding import decode_points, encode_points
from cuzk.errors import FormatError
from cuzk.groth16.keys import VerifyingKey

from ..bellperson import vk_from_bytes
from ..iden3_sections import file_bytes

FIELDS = (("alpha_g1", "g1"), ("beta_g1", "g1"), ("beta_g2", "g2"), ("gamma_g2", "g2"), ("delta_g1", "g1"),
          ("delta_g2", "g2"))
G1C, G2C = 48, 96
COMPRESSED_FIXED = 3 * G1C + 3 * G2C + 4  # 436: the points before IC, then the count
UNCOMPRESSED_FIXED = 2 * COMPRESSED_FIXED - 4  # 868


def _fits(n: int, fixed: int, per_ic: int, data: bytes, count_at: int) -> bool:
    if n < fixed or (n - fixed) % per_ic:
        return False
    return struct.unpack_from(">I", data, count_at)[0] == (n - fixed) // per_ic


def layout(data: bytes) -> str:
    """"compressed" or "uncompressed", from the size (and the count field it implies)."""
    n = len(data)
    comp = _fits(n, COMPRESSED_FIXED, G1C, data, COMPRESSED_FIXED - 4)
    unc = _fits(n, UNCOMPRESSED_FIXED, 2 * G1C, data, UNCOMPRESSED_FIXED - 4)
    if comp and unc:
        return "compressed" if data[0] & 0x80 else "uncompressed"
    if comp or unc:
        return "compressed" if comp else "uncompressed"
    raise FormatError(f"{n} bytes is neither a bellperson .vk (868 + 96 x IC bytes, the IC count as u32 at "
                      "byte 864) nor one of compressed points (436 + 48 x IC, the count at byte 432)")


def vk_from_compressed(data: bytes, what: str = "vk") -> VerifyingKey:
    """The compressed-point layout -> a verifying key (points decoded and checked)."""
    off, pts = 0, {}
    for name, grp in FIELDS:
        size = G1C if grp == "g1" else G2C
        group = BLS12_381.g1 if grp == "g1" else BLS12_381.g2
        pts[name] = decode_points(group, data[off:off + size], what=f"{what}: vk.{name}")[0]
        off += size
    n_ic = struct.unpack_from(">I", data, off)[0]
    off += 4
    if n_ic == 0:
        raise FormatError(f"{what}: vk.ic is empty (it needs at least the point for ONE)")
    ic = decode_points(BLS12_381.g1, data[off:off + n_ic * G1C], what=f"{what}: vk.ic")
    return VerifyingKey(curve=BLS12_381, ic=ic, **pts)


def compressed_bytes(vk: VerifyingKey) -> bytes:
    """The compressed-point layout of a BLS12-381 key (what vk_from_compressed reads)."""
    groups = {"g1": BLS12_381.g1, "g2": BLS12_381.g2}
    head = b"".join(encode_points(groups[grp], getattr(vk, name)[None]) for name, grp in FIELDS)
    return head + struct.pack(">I", vk.ic.shape[0]) + encode_points(BLS12_381.g1, vk.ic)


def vk_from_any(data: bytes, what: str = "vk") -> VerifyingKey:
    """A verifying key in either layout (see the module docstring)."""
    data = bytes(data)
    try:
        kind = layout(data)
    except FormatError as exc:
        raise FormatError(f"{what}: {exc}") from None
    return vk_from_compressed(data, what) if kind == "compressed" else vk_from_bytes(data, what)


def read_any_vk(path) -> VerifyingKey:
    return vk_from_any(file_bytes(path), str(path))
