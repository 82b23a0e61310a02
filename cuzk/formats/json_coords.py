"""Points as snarkjs writes them in proof.json and verification_key.json.

snarkjs (through ffjavascript's `toObject`/`fromObject`) writes coordinates
as decimal strings of canonical integers, in projective form:

    G1  ["x", "y", "1"]                           infinity ["0", "1", "0"]
    G2  [["x0", "x1"], ["y0", "y1"], ["1", "0"]]  infinity [["0","0"], ["1","0"], ["0","0"]]

where a G2 coordinate is c0 + c1*u, c0 first. Same for both curves (snarkjs
calls BN254 "bn128", BLS12-381 "bls12381"). Readers also accept what
`fromObject` accepts: [x, y] without z, z == 0 for infinity, and any other z
as Jacobian coordinates (x/z^2, y/z^3). Values must be decimal strings (or
JSON integers) below p. Parsing is per value (JSON is small: proofs, keys);
conversion and all checks are vectorized.

Errors name coordinates by their JSON index, as a user edits them:
"pi_c: coordinate [1] (y): ..." for one point (proof.json pi_c), "IC:
element 2, coordinate [0][1] (x.c1): ..." in a list of points.
"""

from __future__ import annotations

import numpy as np

from cuzk.curve import Group
from cuzk.curve.subgroup import as_points, curve_b, describe_indices, in_subgroup
from cuzk.errors import FormatError, ValidationError

_NAMES = ("x", "y", "z")
_MISSING = object()  # z left out: [x, y] means z = 1
_MAX_DIGITS = 200  # far above any canonical value; keeps int() cheap on hostile input


def _fq(group: Group):
    return group.field if group.name == "g1" else group.field.base


def points_to_json(group: Group, points) -> list:
    """Affine points -> list of snarkjs coordinate lists (decimal strings, z = 1)."""
    pts = as_points(group, points)
    n = pts.shape[0]
    if n == 0:
        return []
    inf = ~pts.reshape(n, -1).any(axis=1)
    vals = [str(v) for v in _fq(group).to_ints(pts.reshape(-1, group.field.limbs))]
    out = []
    if group.name == "g1":
        for i in range(n):
            out.append(["0", "1", "0"] if inf[i] else [vals[2 * i], vals[2 * i + 1], "1"])
    else:
        for i in range(n):
            if inf[i]:
                out.append([["0", "0"], ["1", "0"], ["0", "0"]])
            else:
                v = vals[4 * i : 4 * i + 4]
                out.append([[v[0], v[1]], [v[2], v[3]], ["1", "0"]])
    return out


def point_to_json(group: Group, point) -> list:
    """One affine point -> its snarkjs coordinate list."""
    return points_to_json(group, np.asarray(point)[None])[0]


def _parse_int(value, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise FormatError(f"{where}: negative value {value}")
        return value
    if not isinstance(value, str):
        raise FormatError(f"{where}: expected a decimal string, got {type(value).__name__}")
    if not (value.isascii() and value.isdigit()) or len(value) > _MAX_DIGITS:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise FormatError(f"{where}: {shown!r} is not a decimal integer string")
    return int(value)


def _point_where(group: Group, what: str, i: int, single: bool) -> str:
    """How errors name point i: the point itself when it is the only one, else its element index."""
    return f"{group} {what}" if single else f"{group} {what}: element {i}"


def _coordinate(c: int, j: int | None = None) -> str:
    """'coordinate [1] (y)' (G1) or 'coordinate [1][0] (y.c0)' (G2): the JSON index, then its meaning."""
    return f"coordinate [{c}] ({_NAMES[c]})" if j is None else f"coordinate [{c}][{j}] ({_NAMES[c]}.c{j})"


def _parse(group: Group, objs, what: str, single: bool) -> list[int]:
    """Flatten to ints [x.., y.., z..] per point (z = 1 filled in), validating structure."""
    width = 1 if group.name == "g1" else 2
    one = [1] + [0] * (width - 1)
    flat: list[int] = []
    for i, obj in enumerate(objs):
        where = _point_where(group, what, i, single)
        if not isinstance(obj, (list, tuple)) or len(obj) not in (2, 3):
            raise FormatError(f"{where}: expected a list [x, y] or [x, y, z], got {_short(obj)}")
        coords = list(obj) if len(obj) == 3 else list(obj) + [_MISSING]
        for k, c in enumerate(coords):
            if c is _MISSING:
                flat.extend(one)
            elif width == 1:
                flat.append(_parse_int(c, f"{where}: {_coordinate(k)}"))
            elif not isinstance(c, (list, tuple)) or len(c) != 2:
                raise FormatError(f"{where}: {_coordinate(k)}: expected a pair [c0, c1], got {_short(c)}")
            else:
                flat.extend(_parse_int(v, f"{where}: {_coordinate(k, j)}") for j, v in enumerate(c))
    return flat


def _off_curve(group: Group, pt: np.ndarray, jacobian: bool) -> str:
    """Which coordinate of an off-curve point is wrong, as far as the curve equation tells: x when
    no point has that x, else y (it does not match x)."""
    if jacobian:
        return "the point is not on the curve (coordinates [0] (x), [1] (y) and [2] (z) taken together)"
    field = group.field
    x = np.ascontiguousarray(pt[0][None])
    rhs = field.add(field.mul(field.sqr(x), x), np.broadcast_to(curve_b(group), x.shape).copy())
    has_y, _ = field.sqrt(rhs)
    if not bool(np.asarray(has_y).reshape(-1)[0]):
        return "coordinate [0] (x): no curve point has this x: the point is not on the curve (x^3 + b is not a square)"
    return "coordinate [1] (y) does not match coordinate [0] (x): the point is not on the curve (y^2 != x^3 + b)"


def _short(obj) -> str:
    s = repr(obj)
    return s if len(s) <= 60 else s[:60] + "..."


def points_from_json(group: Group, objs, *, check_subgroup: bool = True, what: str = "point",
                     _single: bool = False) -> np.ndarray:
    """snarkjs coordinate lists -> validated affine points uint64[n, 2, ...].

    Raises FormatError for structure, non-decimal or non-canonical (>= p)
    values, ValidationError for points off the curve or (unless
    check_subgroup=False) outside the prime-order subgroup.
    """
    if isinstance(objs, (str, bytes)) or not hasattr(objs, "__len__"):
        raise FormatError(f"{group} {what}: expected a list of points, got {_short(objs)}")
    objs = list(objs)
    n = len(objs)
    if n == 0:
        return np.zeros((0, 2) + group.coord, dtype=np.uint64)
    fq, field = _fq(group), group.field
    width = 1 if group.name == "g1" else 2
    ints = _parse(group, objs, what, _single)
    bad = np.array([v >= fq.p for v in ints], dtype=bool).reshape(n, 3, width)
    if bad.any():
        i, c, j = (int(t) for t in np.argwhere(bad)[0])
        where = f"{group} {what}" if _single else f"{group} {what}: {describe_indices(bad.any(axis=(1, 2)))}"
        raise FormatError(f"{where}: {_coordinate(c, None if width == 1 else j)} "
                          "is not canonical (>= the field modulus p)")
    coords = fq.from_ints(ints).reshape((n, 3) + group.coord)
    x, y, z = coords[:, 0], coords[:, 1], coords[:, 2]
    inf = ~z.reshape(n, -1).any(axis=1)
    one = np.broadcast_to(field.ones(1).reshape(group.coord), z.shape)
    jac = ~inf & ~(z == one).reshape(n, -1).all(axis=1)
    if jac.any():
        zi = field.inv(np.ascontiguousarray(z[jac]))
        zi2 = field.sqr(zi)
        x[jac] = field.mul(np.ascontiguousarray(x[jac]), zi2)
        y[jac] = field.mul(np.ascontiguousarray(y[jac]), field.mul(zi2, zi))
    pts = np.zeros((n, 2) + group.coord, dtype=np.uint64)
    pts[~inf, 0] = x[~inf]
    pts[~inf, 1] = y[~inf]
    # (0, 0) is our internal infinity, so a finite point with x = y = 0 must be caught here.
    on = group.is_on_curve(pts) & (inf | pts.reshape(n, -1).any(axis=1))
    if not on.all():
        if _single:
            raise ValidationError(f"{group} {what}: {_off_curve(group, pts[0], bool(jac[0]))}")
        raise ValidationError(f"{group} {what}: {describe_indices(~on)}: point is not on the curve")
    if check_subgroup:
        sub = in_subgroup(group, pts)
        if not sub.all():
            where = f"{group} {what}" if _single else f"{group} {what}: {describe_indices(~sub)}"
            raise ValidationError(f"{where}: point is not in the prime-order subgroup")
    return pts


def point_from_json(group: Group, obj, *, check_subgroup: bool = True, what: str = "point") -> np.ndarray:
    """One snarkjs coordinate list -> one validated affine point."""
    return points_from_json(group, [obj], check_subgroup=check_subgroup, what=what, _single=True)[0]
