"""Bytes of the points and scalars inside SRS files, aggregates and transcripts.

BLS12-381 points use the zcash/bellperson compressed encoding (48-byte G1,
96-byte G2; cuzk.curve.encoding), as bellperson's aggregate files do. BN254
has no such standard in bellperson, so its points are written uncompressed:
big-endian x then y (G2 coordinates c1 before c0, like the zcash layout),
32 bytes per Fq element, all-zero bytes for the point at infinity; decoding
checks canonical coordinates, the curve equation and (G2) the subgroup.
Scalars (Fr) are 32 bytes little-endian canonical, as bellperson's Fr repr.
"""

from __future__ import annotations

import numpy as np

from cuzk.curve import Curve
from cuzk.curve import encoding as zcash
from cuzk.curve.curves import Group
from cuzk.curve.subgroup import in_subgroup
from cuzk.errors import FormatError, ValidationError

from .errors import AggregateFormatError

FR_BYTES = 32


def point_size(group: Group) -> int:
    if group.curve == "bls12_381":
        return zcash.encoded_size(group, compressed=True)
    fq = group.field if group.name == "g1" else group.field.base
    return 2 * fq.nbytes * (1 if group.name == "g1" else 2)


def encode_points(group: Group, points) -> bytes:
    if group.curve == "bls12_381":
        return zcash.encode_points(group, points, compressed=True)
    pts = np.ascontiguousarray(points, dtype=np.uint64).reshape((-1, 2) + group.coord)
    fq = group.field if group.name == "g1" else group.field.base
    n = pts.shape[0]
    canon = fq.from_mont(pts.reshape(-1, fq.limbs)).reshape(pts.shape)
    if group.name == "g2":
        canon = canon[:, :, ::-1, :]  # c1 before c0
    le = np.ascontiguousarray(canon.reshape(-1, fq.limbs), dtype="<u8").view(np.uint8).reshape(-1, 8 * fq.limbs)
    be = le[:, : fq.nbytes][:, ::-1]
    return np.ascontiguousarray(be).reshape(n, -1).tobytes()


def decode_points(group: Group, data, *, check_subgroup: bool = True, what: str = "point") -> np.ndarray:
    """Concatenated encodings -> validated affine points; AggregateFormatError when malformed."""
    raw = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    size = point_size(group)
    if raw.size % size:
        raise AggregateFormatError(f"{what}: {raw.size} bytes is not a multiple of {size}")
    if group.curve == "bls12_381":
        try:
            return zcash.decode_points(group, raw, compressed=True, check_subgroup=check_subgroup, what=what)
        except (FormatError, ValidationError) as exc:
            raise AggregateFormatError(str(exc)) from None
    fq = group.field if group.name == "g1" else group.field.base
    rows = raw.reshape(-1, fq.nbytes)
    n = raw.size // size
    limbs = np.zeros((rows.shape[0], 8 * fq.limbs), dtype=np.uint8)
    limbs[:, : fq.nbytes] = rows[:, ::-1]
    canon = limbs.view("<u8").astype(np.uint64)
    if not fq.is_canonical(canon).all():
        raise AggregateFormatError(f"{what}: coordinate is not canonical (>= the field modulus p)")
    pts = fq.to_mont(canon).reshape((n, 2) + group.coord)
    if group.name == "g2":
        pts = np.ascontiguousarray(pts[:, :, ::-1, :])
    finite = pts.reshape(n, -1).any(axis=1)
    on = group.is_on_curve(pts) | ~finite
    if not on.all():
        raise AggregateFormatError(f"{what}: element {int(np.argmin(on))}: point is not on the curve")
    if check_subgroup and finite.any():
        sub = in_subgroup(group, pts[finite])
        if not sub.all():
            raise AggregateFormatError(f"{what}: point is not in the prime-order subgroup")
    return pts


def encode_scalars(curve: Curve, mont: np.ndarray) -> bytes:
    """Montgomery Fr array -> 32-byte little-endian canonical values."""
    canon = curve.fr.from_mont(np.ascontiguousarray(mont, dtype=np.uint64).reshape(-1, 4))
    return np.ascontiguousarray(canon, dtype="<u8").tobytes()


def scalar_bytes(x: int) -> bytes:
    return int(x).to_bytes(FR_BYTES, "little")
