"""BLS12-381 point bytes in the zcash/bellperson format, vectorized.

This is the layout of bellperson .params/.vk files and 192-byte proofs (and
of blst, arkworks' BLS12-381 and py_ecc). Coordinates are big-endian, 48
bytes per Fq element; a G2 coordinate c0 + c1*u is written c1 then c0. The top
three bits of the first byte are flags:

    0x80 compressed   set in the 48/96-byte form, clear in the 96/192-byte form
    0x40 infinity     all other bits zero (x and y are zero)
    0x20 sort         compressed only: y is the lexicographically larger root
                      (Fq2: compare c1, or c0 when c1 == 0)

Decoders take n concatenated encodings (bytes, memoryview, mmap or uint8
array) and return `uint64[n, 2, ...]` affine points. Checks run CHUNK points
at a time, in a fixed order; the first failing check of the first failing
chunk raises `FormatError` (layout: length, flags, coordinate >= p) or
`ValidationError` (mathematics: no square root, off curve, outside the
subgroup), naming the element indices.

The uncompressed form (.params files, tens of GB) goes through the parallel
kernels of `encoding_kernels`, one pass per point on every core; the
compressed form (proofs, keys: a few points) stays on the numpy path below.
"""

from __future__ import annotations

import numpy as np

from cuzk.errors import FormatError, ValidationError
from cuzk.field.threads import threads_for

from . import encoding_kernels as ek
from .curves import Group
from .subgroup import as_points, curve_b, describe_indices, in_subgroup

COMPRESSED = 0x80
INFINITY = 0x40
SORT = 0x20
FLAGS = COMPRESSED | INFINITY | SORT
CHUNK = 1 << 16  # points per vectorized pass; bounds the temporaries on huge inputs
BLOCK_CHUNKS = 16  # chunks per parallel kernel call when decoding: bounds the failure-bit buffer

# Problems in the order they are checked; each names the failing elements of its chunk.
NOT_COMPRESSED = "compression flag (0x80) is not set in a compressed encoding"
INF_SORT = "infinity flag (0x40) together with the sort flag (0x20)"
INF_BITS = "infinity flag (0x40) with nonzero coordinate bits"
NON_CANONICAL = "coordinate is not canonical (>= the field modulus p)"
NOT_SUBGROUP = "point is not in the prime-order subgroup"
UNCOMPRESSED_CHECKS = (  # (failure bit of the decode kernel, error class, problem)
    (ek.BAD_COMPRESSED, FormatError, "compression flag (0x80) is set in an uncompressed encoding"),
    (ek.BAD_SORT, FormatError, "sort flag (0x20) is set in an uncompressed encoding"),
    (ek.BAD_INF_SORT, FormatError, INF_SORT),
    (ek.BAD_INF_BITS, FormatError, INF_BITS),
    (ek.BAD_CANONICAL, FormatError, NON_CANONICAL),
    (ek.BAD_CURVE, ValidationError, "point is not on the curve"),
)


def _check_group(group: Group) -> None:
    if group.curve != "bls12_381":
        raise ValueError(f"{group}: the zcash point encoding is defined for BLS12-381 only")


def _ncoords(group: Group) -> int:
    return 1 if group.name == "g1" else 2


def encoded_size(group: Group, compressed: bool = True) -> int:
    """Bytes per point: 48/96 (G1) and 96/192 (G2)."""
    _check_group(group)
    return _fq(group).nbytes * _ncoords(group) * (1 if compressed else 2)


def _fq(group: Group):
    return group.field if group.name == "g1" else group.field.base


# ---- big-endian bytes <-> canonical limbs -------------------------------------


def _be_to_limbs(raw: np.ndarray, limbs: int) -> np.ndarray:
    """uint8[m, nbytes] big-endian -> canonical uint64[m, limbs]."""
    m, nbytes = raw.shape
    padded = np.zeros((m, 8 * limbs), dtype=np.uint8)
    padded[:, :nbytes] = raw[:, ::-1]
    return padded.view("<u8").astype(np.uint64)


def _limbs_to_be(canon: np.ndarray, nbytes: int) -> np.ndarray:
    """canonical uint64[m, limbs] -> uint8[m, nbytes] big-endian."""
    le = np.ascontiguousarray(canon, dtype="<u8").view(np.uint8).reshape(canon.shape[0], -1)
    return le[:, :nbytes][:, ::-1]


def _to_wire(group: Group, coord: np.ndarray) -> np.ndarray:
    """[n, *coord] -> [n, k, L] in wire order (G2: c1 before c0)."""
    return coord[:, None, :] if group.name == "g1" else coord[:, ::-1, :]


def _from_wire(group: Group, wire: np.ndarray) -> np.ndarray:
    """[n, k, L] in wire order -> [n, *coord]."""
    return wire[:, 0, :] if group.name == "g1" else np.ascontiguousarray(wire[:, ::-1, :])


def lexicographically_largest(group: Group, y: np.ndarray) -> np.ndarray:
    """bool[n]: the zcash sort flag of each y (Fq, or Fq2 by c1 then c0)."""
    fq = _fq(group)
    if group.name == "g1":
        return fq.lexicographically_largest(y)
    c0, c1 = y[:, 0], y[:, 1]
    c1_zero = ~c1.any(axis=1)
    return fq.lexicographically_largest(c1) | (c1_zero & fq.lexicographically_largest(c0))


# ---- encoding -----------------------------------------------------------------


def encode_points(group: Group, points, *, compressed: bool = True) -> bytes:
    """Affine points (Montgomery limbs, infinity all-zero) -> concatenated encodings."""
    return encode_array(group, points, compressed=compressed).tobytes()


def encode_array(group: Group, points, *, compressed: bool = True) -> np.ndarray:
    """Like encode_points, as uint8[n, size]: a writer passes it to write() without a copy to bytes."""
    _check_group(group)
    pts = as_points(group, points)
    n = pts.shape[0]
    out = np.empty((n, encoded_size(group, compressed)), dtype=np.uint8)
    if not compressed:
        with threads_for(n):
            getattr(ek.kernels(), f"{group.name}_encode_uncompressed")(pts, out)
        return out
    for lo in range(0, n, CHUNK):
        out[lo : lo + CHUNK] = _encode_compressed(group, pts[lo : lo + CHUNK])
    return out


def _encode_compressed(group: Group, pts: np.ndarray) -> np.ndarray:
    n, fq = pts.shape[0], _fq(group)
    inf = ~pts.reshape(n, -1).any(axis=1)
    canon = fq.from_mont(pts[:, 0].reshape(-1, fq.limbs)).reshape(pts[:, 0].shape)
    x = np.ascontiguousarray(_to_wire(group, canon))  # [n, k, L]
    body = _limbs_to_be(x.reshape(-1, fq.limbs), fq.nbytes).reshape(n, -1).copy()
    flags = np.where(inf, INFINITY, 0).astype(np.uint8) | COMPRESSED
    flags |= np.where(~inf & lexicographically_largest(group, pts[:, 1]), SORT, 0).astype(np.uint8)
    body[:, 0] |= flags
    return body


# ---- decoding -----------------------------------------------------------------


def _raw(group: Group, data, size: int, count: int | None, what: str) -> np.ndarray:
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8:
            raise TypeError(f"{group} {what}: expected a uint8 array, got {data.dtype}")
        raw = np.ascontiguousarray(data).reshape(-1)
    else:
        raw = np.frombuffer(data, dtype=np.uint8)
    if raw.size % size:
        raise FormatError(f"{group} {what}: {raw.size} bytes is not a multiple of the {size}-byte encoding")
    if count is not None and raw.size != count * size:
        raise FormatError(
            f"{group} {what}: expected {count} encodings ({count * size} bytes), got {raw.size} bytes"
        )
    return raw.reshape(-1, size)


def _fail(cls, group: Group, what: str, bad: np.ndarray, offset: int, problem: str):
    raise cls(f"{group} {what}: {describe_indices(bad, offset)}: {problem}")


def decode_points(
    group: Group,
    data,
    *,
    compressed: bool = True,
    check_subgroup: bool = True,
    count: int | None = None,
    what: str = "point",
) -> np.ndarray:
    """Concatenated zcash encodings -> validated affine points uint64[n, 2, ...].

    `check_subgroup=False` skips only the subgroup check, for trusted inputs
    (e.g. parameters whose hash was verified); flags, canonical coordinates
    and the curve equation are always checked. `what` names the data in
    error messages (e.g. "params.h").
    """
    if not compressed:
        return decode_uncompressed(group, data, check_subgroup=check_subgroup, count=count, what=what)[0]
    _check_group(group)
    raw = _raw(group, data, encoded_size(group, compressed), count, what)
    n = raw.shape[0]
    out = np.empty((n, 2) + group.coord, dtype=np.uint64)
    for lo in range(0, n, CHUNK):
        chunk = raw[lo : lo + CHUNK]
        out[lo : lo + CHUNK] = _decode_compressed(group, chunk, check_subgroup, what, lo)
    return out


def decode_uncompressed(
    group: Group, data, *, check_subgroup: bool = True, count: int | None = None, what: str = "point"
) -> tuple[np.ndarray, int]:
    """decode_points(compressed=False), plus the index of the first point at infinity (-1: none).

    The index comes out of the decoding pass itself, so a .params reader can
    reject infinity without reading tens of GB once more. Decoding runs on all
    cores, a block of chunks per kernel call; the kernel records failure bits
    instead of raising, and the first chunk with a failure (the subgroup
    check counts only for points that passed the others) is then reported
    exactly as a chunk-by-chunk check would.
    """
    _check_group(group)
    raw = _raw(group, data, encoded_size(group, False), count, what)
    n, step = raw.shape[0], CHUNK * BLOCK_CHUNKS
    out = np.empty((n, 2) + group.coord, dtype=np.uint64)
    kernel = getattr(ek.kernels(), f"{group.name}_decode_uncompressed")
    bits = np.empty(min(n, step), dtype=np.uint8)
    first_inf = -1
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        b = bits[: hi - lo]
        with threads_for(hi - lo):
            kernel(raw[lo:hi], out[lo:hi], b)
        failed = np.flatnonzero(b & ek.BAD_ANY)
        first = lo + (int(failed[0]) // CHUNK * CHUNK if failed.size else hi - lo)  # first failing chunk
        if check_subgroup and first > lo:
            sub = in_subgroup(group, out[lo:first])
            if not sub.all():
                at = lo + int(np.argmin(sub)) // CHUNK * CHUNK
                _fail(ValidationError, group, what, ~sub[at - lo : at - lo + CHUNK], at, NOT_SUBGROUP)
        if failed.size:
            chunk = b[first - lo : first - lo + CHUNK]
            for bit, cls, problem in UNCOMPRESSED_CHECKS:
                mask = (chunk & bit) != 0
                if mask.any():
                    _fail(cls, group, what, mask, first, problem)
        if first_inf < 0:
            inf = np.flatnonzero(b & ek.IS_INFINITY)
            first_inf = lo + int(inf[0]) if inf.size else -1
    return out, first_inf


def _decode_compressed(group: Group, raw, check_subgroup: bool, what: str, offset: int):
    """Decode uint8[n, size] whose first row is element `offset` of the whole input."""
    fq, k = _fq(group), _ncoords(group)
    n = raw.shape[0]
    flags = raw[:, 0] & FLAGS
    body = raw.copy()
    body[:, 0] &= ~np.uint8(FLAGS)
    inf = (flags & INFINITY) != 0
    sort = (flags & SORT) != 0
    comp = (flags & COMPRESSED) != 0

    nonzero = body.any(axis=1)
    layout = [(~comp, NOT_COMPRESSED), (inf & sort, INF_SORT), (inf & nonzero, INF_BITS)]
    for bad, problem in layout:
        if bad.any():
            _fail(FormatError, group, what, bad, offset, problem)

    limbs = _be_to_limbs(body.reshape(-1, fq.nbytes), fq.limbs)
    canonical = fq.is_canonical(limbs).reshape(n, -1).all(axis=1)
    if not canonical.all():
        _fail(FormatError, group, what, ~canonical, offset, NON_CANONICAL)
    x = _from_wire(group, fq.to_mont(limbs).reshape((n, k, fq.limbs)))
    finite = ~inf

    field = group.field
    rhs = field.add(field.mul(field.sqr(x), x), np.broadcast_to(curve_b(group), x.shape).copy())
    ok, y = field.sqrt(rhs)
    if not (ok | inf).all():
        problem = "x is not the x-coordinate of a curve point (x^3 + b is not a square)"
        _fail(ValidationError, group, what, ~ok & finite, offset, problem)
    flip = finite & (lexicographically_largest(group, y) != sort)
    if flip.any():
        y[flip] = field.neg(y[flip])

    pts = np.zeros((n, 2) + group.coord, dtype=np.uint64)
    pts[finite, 0] = x[finite]
    pts[finite, 1] = y[finite]
    if check_subgroup:
        sub = in_subgroup(group, pts)
        if not sub.all():
            _fail(ValidationError, group, what, ~sub, offset, NOT_SUBGROUP)
    return pts
