"""The aggregate-proof byte layout and its parser (docs/aggregate.md).

Field order follows bellperson's `AggregateProof::write`; sizes per curve
(GT = compressed torus element, gt.py; G1/G2 = encoding.py):

  com_ab      2 GT      T, U of pair(v, w, A, B)
  com_c       2 GT      T, U of single(v, C)
  ip_ab       GT        prod e(A_i, B_i^(r^i))
  agg_c       G1        sum r^i C_i
  nproofs     u32 LE    padded count n, a power of two >= 2; l = log2(n)
  comms_ab    l x 4 GT  per round: L.T, L.U, R.T, R.U
  comms_c     l x 4 GT  per round: L.T, L.U, R.T, R.U
  z_ab        l x 2 GT  per round: L, R
  z_c         l x 2 G1  per round: L, R
  final_a     G1
  final_b     G2
  final_c     G1
  final_vkey  2 G2
  final_wkey  2 G1
  vkey_open   2 G2      KZG openings at a and b
  wkey_open   2 G1

The parser checks the length first (so nothing is decoded from a truncated
or padded buffer), then every element: canonical coordinates, points on the
curve and in their subgroup, GT elements in the cyclotomic subgroup. Any
failure is one AggregateFormatError naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.curve import Curve
from cuzk.field.threads import threads_for

from . import encoding, gt, side_task
from .errors import AggregateFormatError
from .gipa import GipaProof

MAX_LOG = 24  # 16M proofs: far beyond any SRS we read (srs.MAX_POWERS)
KIND = {"com_ab": "gt", "com_c": "gt", "ip_ab": "gt", "agg_c": "g1", "comms_ab": "gt", "comms_c": "gt", "z_ab": "gt",
        "z_c": "g1", "final_a": "g1", "final_b": "g2", "final_c": "g1", "final_vkey": "g2", "final_wkey": "g1",
        "vkey_opening": "g2", "wkey_opening": "g1"}


@dataclass
class AggregateProof(GipaProof):
    """GIPA's proof with the aggregate's commitments, its claimed product and the two KZG openings."""
    curve: Curve
    com_ab: np.ndarray  # GT[2]
    com_c: np.ndarray  # GT[2]
    ip_ab: np.ndarray  # GT
    agg_c: np.ndarray  # G1
    nproofs: int
    vkey_opening: np.ndarray  # G2[2]
    wkey_opening: np.ndarray  # G1[2]
    wire: object = None  # a Wire over the parsed bytes (set by from_bytes)

    @property
    def rounds(self) -> int:
        return self.nproofs.bit_length() - 1


def _sizes(curve: Curve):
    return gt.element_size(curve.name), encoding.point_size(curve.g1), encoding.point_size(curve.g2)


def serialized_size(curve: Curve, nproofs: int) -> int:
    sgt, s1, s2 = _sizes(curve)
    l = nproofs.bit_length() - 1
    return 5 * sgt + s1 + 4 + l * (10 * sgt + 2 * s1) + 6 * s1 + 5 * s2


def to_bytes(p: AggregateProof) -> bytes:
    c, name = p.curve, p.curve.name
    l = p.rounds
    g1 = lambda pts: encoding.encode_points(c.g1, np.asarray(pts))
    g2 = lambda pts: encoding.encode_points(c.g2, np.asarray(pts))
    parts = [
        gt.encode(name, p.com_ab), gt.encode(name, p.com_c), gt.encode(name, p.ip_ab[None]), g1(p.agg_c[None]),
        int(p.nproofs).to_bytes(4, "little"),
    ]
    if l:
        parts += [gt.encode(name, p.comms_ab.reshape((-1,) + p.comms_ab.shape[3:])),
                  gt.encode(name, p.comms_c.reshape((-1,) + p.comms_c.shape[3:])),
                  gt.encode(name, p.z_ab.reshape((-1,) + p.z_ab.shape[2:])),
                  g1(p.z_c.reshape((-1,) + p.z_c.shape[2:]))]
    parts += [g1(p.final_a[None]), g2(p.final_b[None]), g1(p.final_c[None]), g2(p.final_vkey), g1(p.final_wkey),
              g2(p.vkey_opening), g1(p.wkey_opening)]
    return b"".join(parts)


def layout(curve: Curve, nproofs: int) -> dict[str, tuple[int, int, int]]:
    """name -> (byte offset, element size, element count) of every field."""
    sgt, s1, s2 = _sizes(curve)
    l = nproofs.bit_length() - 1
    fields = [("com_ab", sgt, 2), ("com_c", sgt, 2), ("ip_ab", sgt, 1), ("agg_c", s1, 1), ("nproofs", 4, 1),
              ("comms_ab", sgt, 4 * l), ("comms_c", sgt, 4 * l), ("z_ab", sgt, 2 * l), ("z_c", s1, 2 * l),
              ("final_a", s1, 1), ("final_b", s2, 1), ("final_c", s1, 1), ("final_vkey", s2, 2),
              ("final_wkey", s1, 2), ("vkey_opening", s2, 2), ("wkey_opening", s1, 2)]
    out, pos = {}, 0
    for name, size, count in fields:
        out[name] = (pos, size, count)
        pos += size * count
    return out


class Wire:
    """Byte slices of a serialized aggregate, for the transcript (canonical
    encodings are unique, so these are the bytes the prover hashed)."""

    def __init__(self, curve: Curve, data: bytes, nproofs: int):
        self.data, self.lay = data, layout(curve, nproofs)

    def field(self, name: str, first: int = 0, count: int | None = None) -> bytes:
        pos, size, total = self.lay[name]
        count = total - first if count is None else count
        return self.data[pos + first * size : pos + (first + count) * size]

    def span(self, first: str, last: str) -> bytes:
        """From the start of field `first` to the end of field `last`."""
        pos, _, _ = self.lay[first]
        p2, size, count = self.lay[last]
        return self.data[pos : p2 + size * count]

    def round(self, i: int) -> bytes:
        """z_ab, z_c, comms_ab, comms_c of round i: what its challenge hashes."""
        return (self.field("z_ab", 2 * i, 2) + self.field("z_c", 2 * i, 2) + self.field("comms_ab", 4 * i, 4)
                + self.field("comms_c", 4 * i, 4))


def from_bytes(curve: Curve, data) -> AggregateProof:
    """Parse and validate; AggregateFormatError for anything off the layout.
    All GT elements are decoded in one pass, all G1 and all G2 points in one
    each (per-call costs dominate at these sizes); the failing field is named."""
    data = bytes(data)
    sgt, s1, s2 = _sizes(curve)
    head = 5 * sgt + s1
    if len(data) < head + 4:
        raise AggregateFormatError(f"aggregate: {len(data)} bytes is too short for a {curve.name} aggregate")
    nproofs = int.from_bytes(data[head : head + 4], "little")
    if nproofs < 2 or nproofs & (nproofs - 1) or nproofs > (1 << MAX_LOG):
        raise AggregateFormatError(f"aggregate: nproofs = {nproofs} is not a power of two in [2, 2^{MAX_LOG}]")
    want = serialized_size(curve, nproofs)
    if len(data) != want:
        raise AggregateFormatError(
            f"aggregate: {len(data)} bytes, but a {curve.name} aggregate of {nproofs} proofs has {want}")
    l = nproofs.bit_length() - 1
    wire = Wire(curve, data, nproofs)
    kinds = {"gt": [], "g1": [], "g2": []}
    for name, (_, _, count) in wire.lay.items():
        if name in KIND:
            kinds[KIND[name]].append((name, count))

    def decode(kind):
        names = kinds[kind]
        raw = b"".join(wire.field(name) for name, _ in names)
        try:
            if kind == "gt":
                vals = gt.decode(curve.name, raw, "GT element")
            else:
                grp = curve.g1 if kind == "g1" else curve.g2
                vals = encoding.decode_points(grp, raw, what=f"{kind.upper()} point")
        except AggregateFormatError:
            # name the field: decode them one by one (only on failure)
            for name, _ in names:
                try:
                    if kind == "gt":
                        gt.decode(curve.name, wire.field(name), name)
                    else:
                        encoding.decode_points(curve.g1 if kind == "g1" else curve.g2, wire.field(name), what=name)
                except AggregateFormatError as exc:
                    raise AggregateFormatError(f"aggregate field {exc}") from None
            raise
        out, pos = {}, 0
        for name, count in names:
            out[name] = vals[pos : pos + count]
            pos += count
        return out

    # O(log n) elements: GT and G2 on a side task, G1 on this thread (side_task
    # says why); a failure is reported in the order GT, G1, G2 either way
    def side():
        out = [decode("gt")]
        try:
            out.append(decode("g2"))
        except AggregateFormatError as exc:
            out.append(exc)
        return out

    task = side_task.start(side)
    try:
        with threads_for(0):
            f = decode("g1")
    finally:
        f_gt, f_g2 = task.result() if task else side()
    if isinstance(f_g2, AggregateFormatError):
        raise f_g2
    f.update(f_gt)
    f.update(f_g2)
    shape = f["ip_ab"].shape[1:]
    agg = AggregateProof(
        curve=curve, com_ab=f["com_ab"], com_c=f["com_c"], ip_ab=f["ip_ab"][0], agg_c=f["agg_c"][0], nproofs=nproofs,
        comms_ab=f["comms_ab"].reshape((l, 2, 2) + shape), comms_c=f["comms_c"].reshape((l, 2, 2) + shape),
        z_ab=f["z_ab"].reshape((l, 2) + shape), z_c=f["z_c"].reshape((l, 2) + f["agg_c"].shape[1:]),
        final_a=f["final_a"][0], final_b=f["final_b"][0], final_c=f["final_c"][0], final_vkey=f["final_vkey"],
        final_wkey=f["final_wkey"], vkey_opening=f["vkey_opening"], wkey_opening=f["wkey_opening"])
    agg.wire = wire
    return agg
