"""Point encodings: zcash bytes (BLS12-381) and snarkjs JSON (both curves).

Expected bytes come from py_arkworks_bls12381 and py_ecc at test time;
rejections are checked for the project's error type, the problem named in
the message and the index of the bad element.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import py_arkworks_bls12381 as ark
import pytest
from py_ecc import optimized_bls12_381 as ecc
from py_ecc.bls.point_compression import compress_G1, compress_G2

from cuzk.curve import BLS12_381, BN254, get_curve
from cuzk.curve.encoding import decode_points, encode_points, encoded_size, lexicographically_largest
from cuzk.curve.subgroup import random_curve_points
from cuzk.errors import FormatError, ValidationError
from cuzk.formats.json_coords import point_from_json, point_to_json, points_from_json, points_to_json

R = BLS12_381.fr.p
P = BLS12_381.fq.p
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "circom"


class Sample:
    """[k]G for a few k (P and -P so both sort flags occur), infinity last."""

    def __init__(self, name: str):
        self.name = name
        self.group = getattr(BLS12_381, name)
        rng = np.random.default_rng(2024 if name == "g1" else 2025)
        k = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(3)]
        self.ks = [k[0], R - k[0], k[1], k[2]]
        g = self.group
        gens = np.broadcast_to(g.generator, (len(self.ks),) + g.generator.shape)
        self.points = np.concatenate([g.scalar_mul(gens, self.ks), g.identity(1)])
        self.ark_cls = ark.G1Point if name == "g1" else ark.G2Point
        self.ark = [self.ark_cls() * ark.Scalar(k) for k in self.ks] + [self.ark_cls.identity()]
        self.ecc_gen = ecc.G1 if name == "g1" else ecc.G2


_SAMPLES: dict = {}


@pytest.fixture(params=["g1", "g2"])
def sample(request) -> Sample:
    if request.param not in _SAMPLES:
        _SAMPLES[request.param] = Sample(request.param)
    return _SAMPLES[request.param]


def _py_ecc_compressed(name: str, pt) -> bytes:
    if name == "g1":
        return compress_G1(pt).to_bytes(48, "big")
    z1, z2 = compress_G2(pt)
    return z1.to_bytes(48, "big") + z2.to_bytes(48, "big")


def _swap_fq2_halves(name: str, raw: bytes) -> bytes:
    """arkworks' xy bytes write a G2 coordinate c0 || c1, zcash writes c1 || c0 (an involution)."""
    if name == "g1":
        return raw
    c = [raw[i : i + 48] for i in range(0, 192, 48)]
    return c[1] + c[0] + c[3] + c[2]


def _ark_uncompressed_zcash(name: str, pt) -> bytes:
    return _swap_fq2_halves(name, pt.to_xy_bytes_be())


# ---- zcash bytes: agreement with the oracles -------------------------------------


def test_encoded_size(sample):
    k = 1 if sample.name == "g1" else 2
    assert encoded_size(sample.group) == 48 * k
    assert encoded_size(sample.group, compressed=False) == 96 * k
    with pytest.raises(ValueError, match="BLS12-381"):
        encode_points(BN254.g1, BN254.g1.identity(1))


def test_compressed_matches_arkworks_and_py_ecc(sample):
    got = encode_points(sample.group, sample.points)
    want_ark = b"".join(p.to_compressed_bytes() for p in sample.ark)
    ecc_pts = [ecc.multiply(sample.ecc_gen, k) for k in sample.ks] + [ecc.Z1 if sample.name == "g1" else ecc.Z2]
    want_ecc = b"".join(_py_ecc_compressed(sample.name, p) for p in ecc_pts)
    assert got == want_ark
    assert got == want_ecc
    size = encoded_size(sample.group)
    first = [got[i] for i in range(0, len(got), size)]
    assert {b & 0x20 for b in first[:-1]} == {0, 0x20}  # both sort flags exercised
    assert first[-1] & 0xE0 == 0xC0


def test_uncompressed_matches_arkworks(sample):
    got = encode_points(sample.group, sample.points, compressed=False)
    size = encoded_size(sample.group, compressed=False)
    n = len(sample.ks)
    assert got[: n * size] == b"".join(_ark_uncompressed_zcash(sample.name, p) for p in sample.ark[:n])
    # infinity: only the infinity flag (arkworks' xy form carries no flags, so check the spec)
    inf = got[n * size :]
    assert inf[0] == 0x40 and not any(inf[1:])


@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
def test_round_trip_and_input_types(sample, compressed):
    g = sample.group
    data = encode_points(g, sample.points, compressed=compressed)
    for buf in (data, memoryview(data), np.frombuffer(data, dtype=np.uint8), bytearray(data)):
        assert g.equal(decode_points(g, buf, compressed=compressed), sample.points).all()
    assert decode_points(g, data, compressed=compressed, count=len(sample.points)).shape == sample.points.shape
    assert decode_points(g, b"", compressed=compressed).shape == (0,) + sample.points.shape[1:]


def test_decode_arkworks_bytes(sample):
    comp = b"".join(p.to_compressed_bytes() for p in sample.ark)
    assert sample.group.equal(decode_points(sample.group, comp), sample.points).all()
    n = len(sample.ks)
    unc = b"".join(_ark_uncompressed_zcash(sample.name, p) for p in sample.ark[:n])
    assert sample.group.equal(decode_points(sample.group, unc, compressed=False), sample.points[:n]).all()


def test_many_points_round_trip(sample):
    """A larger batch: random multiples of the sample points, with infinities."""
    g = sample.group
    rng = np.random.default_rng(9)
    base = sample.points[rng.integers(0, len(sample.points), 48)]
    pts = g.add(base, sample.points[rng.integers(0, len(sample.points), 48)])
    for compressed in (True, False):
        data = encode_points(g, pts, compressed=compressed)
        assert g.equal(decode_points(g, data, compressed=compressed), pts).all()
    # arkworks reads each of our encodings back to the same bytes
    size = encoded_size(g)
    data = encode_points(g, pts[:8])
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    assert [sample.ark_cls.from_compressed_bytes(c).to_compressed_bytes() for c in chunks] == chunks


def test_fq2_sort_rule_uses_c0_when_c1_is_zero():
    """The rule py_ecc's compress_G2 spells out: c1's top half, or c0's when c1 == 0."""
    g, fq = BLS12_381.g2, BLS12_381.fq
    half = (P - 1) // 2
    vals = [(1, 0), (P - 1, 0), (half, 0), (half + 1, 0), (0, 0), (0, 1), (P - 1, 1), (1, P - 1), (5, half + 1)]
    y = BLS12_381.fq2.from_ints(vals)
    want = [(c1 * 2) // P if c1 > 0 else (c0 * 2) // P for c0, c1 in vals]
    assert lexicographically_largest(g, y).astype(int).tolist() == want
    assert fq.lexicographically_largest(fq.from_ints([half, half + 1])).tolist() == [False, True]


# ---- zcash bytes: rejections ---------------------------------------------------------


def _set_coord(buf: bytearray, offset: int, value: int, keep_flags: bool = True) -> None:
    flags = buf[offset] & 0xE0
    buf[offset : offset + 48] = value.to_bytes(48, "big")
    if keep_flags:
        buf[offset] |= flags


def _bad_at_2(sample, compressed, mutate):
    """Encode the sample, mutate element 2, decode; return the raised error."""
    g = sample.group
    size = encoded_size(g, compressed)
    buf = bytearray(encode_points(g, sample.points, compressed=compressed))
    elem = bytearray(buf[2 * size : 3 * size])
    mutate(elem)
    buf[2 * size : 3 * size] = elem
    return bytes(buf)


def _raises(exc, match, data, group, **kw):
    with pytest.raises(exc, match=match) as info:
        decode_points(group, data, **kw)
    return str(info.value)


@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
def test_reject_wrong_length(sample, compressed):
    g = sample.group
    data = encode_points(g, sample.points, compressed=compressed)
    _raises(FormatError, "not a multiple", data[:-1], g, compressed=compressed)
    _raises(FormatError, "expected 4 encodings", data, g, compressed=compressed, count=4)


def test_reject_flags(sample):
    g = sample.group

    def clear_c(e):
        e[0] &= 0x7F

    def set_c(e):
        e[0] |= 0x80

    def set_sort(e):
        e[0] |= 0x20

    msg = _raises(FormatError, "compression flag", _bad_at_2(sample, True, clear_c), g)
    assert "element 2" in msg
    _raises(FormatError, "compression flag.*uncompressed", _bad_at_2(sample, False, set_c), g, compressed=False)
    _raises(FormatError, "sort flag.*uncompressed", _bad_at_2(sample, False, set_sort), g, compressed=False)
    # infinity combined with the sort flag, or with coordinate bits
    size = encoded_size(g)
    inf_sort = bytes([0xE0]) + bytes(size - 1)
    msg = _raises(FormatError, "infinity flag.*sort flag", sample_bytes(sample) + inf_sort, g)
    assert "element 5" in msg
    inf_bits = bytearray([0xC0]) + bytes(size - 1)
    inf_bits[-1] = 1
    _raises(FormatError, "infinity flag.*nonzero", bytes(inf_bits), g)
    inf_top = bytes([0xC1]) + bytes(size - 1)  # a coordinate bit right below the flags
    _raises(FormatError, "infinity flag.*nonzero", inf_top, g)
    unc = bytearray([0x40]) + bytes(2 * size - 1)
    unc[size + 3] = 7  # y bits
    _raises(FormatError, "infinity flag.*nonzero", bytes(unc), g, compressed=False)
    # and py_ecc rejects the same infinity-with-sort encoding
    with pytest.raises(ValueError):
        if sample.name == "g1":
            from py_ecc.bls.point_compression import decompress_G1

            decompress_G1(int.from_bytes(inf_sort, "big"))
        else:
            from py_ecc.bls.point_compression import decompress_G2

            decompress_G2((int.from_bytes(inf_sort[:48], "big"), 0))


def sample_bytes(sample) -> bytes:
    return encode_points(sample.group, sample.points)


@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
def test_reject_non_canonical(sample, compressed):
    g = sample.group
    size = encoded_size(g, compressed)
    for offset in range(0, size, 48):  # every coordinate slot (G2: c1 and c0 of x, y)
        for value in (P, 2**381 - 1):
            data = _bad_at_2(sample, compressed, lambda e, o=offset, v=value: _set_coord(e, o, v))
            msg = _raises(FormatError, "not canonical", data, g, compressed=compressed)
            assert "element 2" in msg


def _non_square_x(group, n: int) -> np.ndarray:
    """x values (Montgomery) for which x^3 + b has no square root, found with our sqrt."""
    from cuzk.curve.subgroup import curve_b

    f = group.field
    x = f.random(64, np.random.default_rng(4))
    ok, _ = f.sqrt(f.add(f.mul(f.sqr(x), x), np.broadcast_to(curve_b(group), x.shape).copy()))
    return x[~ok][:n]


def test_reject_x_not_on_curve(sample):
    g = sample.group
    x = _non_square_x(g, 1)
    enc = bytearray(encode_points(g, np.stack([x, x], axis=1)))  # (x, x): we only need x's bytes
    enc[0] = (enc[0] & 0x1F) | 0x80
    data = sample_bytes(sample)[: 2 * len(enc)] + bytes(enc)
    msg = _raises(ValidationError, "not the x-coordinate of a curve point", data, g)
    assert "element 2" in msg
    with pytest.raises(ValueError):  # arkworks agrees
        sample.ark_cls.from_compressed_bytes(bytes(enc))


def test_reject_point_not_on_curve(sample):
    g, f = sample.group, sample.group.field
    pts = sample.points.copy()
    pts[2, 1] = f.add(pts[2, 1], f.ones(1)[0])  # y + 1
    data = encode_points(g, pts, compressed=False)
    msg = _raises(ValidationError, "not on the curve", data, g, compressed=False)
    assert "element 2" in msg
    size = encoded_size(g, compressed=False)
    with pytest.raises(ValueError):
        sample.ark_cls.from_xy_bytes_unchecked_be(_swap_fq2_halves(sample.name, data[2 * size : 3 * size]))
    # all-zero coordinates without the infinity flag are not a point
    _raises(ValidationError, "element 0: point is not on the curve", bytes(size), g, compressed=False)


@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
def test_reject_not_in_subgroup(sample, compressed):
    g = sample.group
    off = random_curve_points(g, 2, np.random.default_rng(17))
    pts = np.concatenate([sample.points[:2], off[:1], sample.points[2:], off[1:]])
    data = encode_points(g, pts, compressed=compressed)
    msg = _raises(ValidationError, "not in the prime-order subgroup", data, g, compressed=compressed)
    assert "elements 2, 6" in msg
    got = decode_points(g, data, compressed=compressed, check_subgroup=False)
    assert g.equal(got, pts).all()
    if compressed:  # arkworks: checked decoding rejects, unchecked accepts the same bytes
        one = encode_points(g, off[:1])
        with pytest.raises(ValueError):
            sample.ark_cls.from_compressed_bytes(one)
        assert sample.ark_cls.from_compressed_bytes_unchecked(one).to_compressed_bytes() == one


# ---- snarkjs JSON --------------------------------------------------------------------

JSON_GROUPS = [("bls12_381", "g1"), ("bls12_381", "g2"), ("bn254", "g1"), ("bn254", "g2")]


@pytest.fixture(params=JSON_GROUPS, ids=[f"{c}-{g}" for c, g in JSON_GROUPS])
def jgroup(request):
    curve, name = request.param
    group = getattr(get_curve(curve), name)
    g = group
    pts = g.scalar_mul(np.broadcast_to(g.generator, (3,) + g.generator.shape), [5, 2**200 + 3, 7])
    return group, np.concatenate([pts[:1], g.identity(1), pts[1:]])


def _expected_json(group, pts):
    out = []
    for p in group.to_ints(pts):
        if group.name == "g1":
            out.append(["0", "1", "0"] if p is None else [str(p[0]), str(p[1]), "1"])
        elif p is None:
            out.append([["0", "0"], ["1", "0"], ["0", "0"]])
        else:
            out.append([[str(p[0][0]), str(p[0][1])], [str(p[1][0]), str(p[1][1])], ["1", "0"]])
    return out


def test_json_round_trip(jgroup):
    group, pts = jgroup
    obj = points_to_json(group, pts)
    assert obj == _expected_json(group, pts)
    assert json.loads(json.dumps(obj)) == obj
    assert group.equal(points_from_json(group, obj), pts).all()
    assert point_to_json(group, pts[0]) == obj[0]
    assert group.equal(point_from_json(group, obj[0]), pts[0])


def test_json_accepts_fromobject_forms(jgroup):
    """[x, y] without z, z = 0 for infinity, Jacobian z != 1 (x/z^2, y/z^3), JSON integers."""
    group, pts = jgroup
    p = group.field.p
    ints = group.to_ints(pts[:1])[0]
    z = 123456789
    if group.name == "g1":
        x, y = ints
        forms = [[str(x), str(y)], [str(x * z * z % p), str(y * z**3 % p), str(z)], [x, y, 1]]
        inf = ["5", "7", "0"]
    else:
        (x0, x1), (y0, y1) = ints
        zz, zzz = z * z, z**3  # z in Fq, so the Fq2 scaling is per component
        forms = [
            [[str(x0), str(x1)], [str(y0), str(y1)]],
            [[str(x0 * zz % p), str(x1 * zz % p)], [str(y0 * zzz % p), str(y1 * zzz % p)], [str(z), "0"]],
        ]
        inf = [["0", "0"], ["1", "0"], ["0", "0"]]
    got = points_from_json(group, forms + [inf])
    assert group.equal(got[:-1], np.broadcast_to(pts[0], got[:-1].shape)).all()
    assert group.equal(got[-1], group.identity(1)[0])


def test_json_matches_fixtures():
    files = sorted(FIXTURES.glob("*/*/*.json"))
    if not files:
        pytest.skip(f"no snarkjs fixtures under {FIXTURES}")
    checked = 0
    for f in files:
        doc = json.loads(f.read_text())
        if "curve" not in doc:
            continue
        curve = get_curve(doc["curve"])
        for key, value in doc.items():
            if key in ("pi_a", "pi_c", "vk_alpha_1"):
                groups = [(curve.g1, [value])]
            elif key in ("pi_b", "vk_beta_2", "vk_gamma_2", "vk_delta_2"):
                groups = [(curve.g2, [value])]
            elif key == "IC":
                groups = [(curve.g1, value)]
            else:
                continue
            for group, objs in groups:
                pts = points_from_json(group, objs, what=f"{f.name}:{key}")
                assert points_to_json(group, pts) == objs
                checked += 1
    assert checked >= 8


def test_json_g1_matches_py_ecc_bn128():
    from py_ecc import optimized_bn128 as bn

    g = BN254.g1
    pts = g.scalar_mul(g.generator[None], [987654321])
    x, y = bn.normalize(bn.multiply(bn.G1, 987654321))
    assert points_to_json(g, pts) == [[str(x.n), str(y.n), "1"]]


def _json_err(exc, match, group, objs, **kw):
    with pytest.raises(exc, match=match) as info:
        points_from_json(group, objs, **kw)
    return str(info.value)


def test_json_reject_structure_and_numbers(jgroup):
    group, pts = jgroup
    good = points_to_json(group, pts)
    p = group.field.p
    _json_err(FormatError, "expected a list of points", group, "12")
    _json_err(FormatError, r"element 1: expected a list \[x, y\]", group, [good[0], "oops"])
    _json_err(FormatError, "element 0: expected a list", group, [good[0][:1]])
    _json_err(FormatError, "element 0: expected a list", group, [good[0] + good[0][:1]])
    if group.name == "g1":
        cases = [("12a", "not a decimal"), ("-5", "not a decimal"), (" 5", "not a decimal"),
                 ("0x10", "not a decimal"), ("", "not a decimal"), ("٣", "not a decimal"),
                 (1.5, "expected a decimal string"), (None, "expected a decimal string"),
                 (-3, "negative"), (str(p), "not canonical"), (str(p + 1), "not canonical"),
                 ("9" * 300, "not a decimal")]
        for value, match in cases:
            bad = [list(good[0]), [good[2][0], value, "1"]]
            msg = _json_err(FormatError, match, group, bad)
            assert "element 1" in msg
    else:
        bad = [good[0], [good[2][0], "12", good[2][2]]]
        _json_err(FormatError, r"element 1: coordinate \[1\] \(y\): expected a pair", group, bad)
        bad = [good[0], [good[2][0], [good[2][1][0], "1e5"], good[2][2]]]
        _json_err(FormatError, r"element 1: coordinate \[1\]\[1\] \(y\.c1\): '1e5' is not a decimal", group, bad)
        bad = [good[0], [[str(p), good[2][0][1]], good[2][1], good[2][2]]]
        msg = _json_err(FormatError, r"coordinate \[0\]\[0\] \(x\.c0\) is not canonical", group, bad)
        assert "element 1" in msg


def test_json_reject_off_curve_and_subgroup(jgroup):
    group, pts = jgroup
    f = group.field
    bad = pts.copy()
    bad[2, 1] = f.add(bad[2, 1], f.ones(1)[0])
    obj = points_to_json(group, bad)
    msg = _json_err(ValidationError, "not on the curve", group, obj)
    assert "element 2" in msg
    zero = ["0", "0", "1"] if group.name == "g1" else [["0", "0"], ["0", "0"], ["1", "0"]]
    _json_err(ValidationError, "element 0: point is not on the curve", group, [zero])
    if (group.curve, group.name) == ("bn254", "g1"):
        return  # cofactor 1: every curve point is in the subgroup
    off = random_curve_points(group, 1, np.random.default_rng(23))
    obj = points_to_json(group, np.concatenate([pts, off]))
    msg = _json_err(ValidationError, "not in the prime-order subgroup", group, obj)
    assert f"element {len(pts)}" in msg
    assert group.equal(points_from_json(group, obj, check_subgroup=False)[-1], off[0])


def _single_err(exc, match, group, obj):
    with pytest.raises(exc, match=match) as info:
        point_from_json(group, obj, what="proof.json pi_c")
    msg = str(info.value)
    assert "element" not in msg, msg  # one point: no element index to mistake for a coordinate
    return msg


def test_json_single_point_errors_name_the_coordinate(jgroup):
    """A proof's pi_c with its coordinate 1 changed is reported at coordinate [1] (y), not 'element 0'."""
    group, pts = jgroup
    good = point_to_json(group, pts[0])
    p = group.field.p if group.name == "g1" else group.field.base.p
    y_moved = r"coordinate \[1\] \(y\) does not match coordinate \[0\] \(x\)"
    if group.name == "g1":
        x, y = int(good[0]), int(good[1])
        _single_err(ValidationError, y_moved, group, [good[0], str(y + 1), "1"])
        _single_err(FormatError, r"coordinate \[1\] \(y\): 'oops' is not a decimal", group, [good[0], "oops", "1"])
        _single_err(FormatError, r"coordinate \[0\] \(x\) is not canonical", group, [str(p), good[1], "1"])
        b = 3 if group.curve == "bn254" else 4

        def has_y(v):  # Euler's criterion, in Python integers
            rhs = (v**3 + b) % p
            return rhs == 0 or pow(rhs, (p - 1) // 2, p) == 1

        no_y = next(v for v in range(x + 1, x + 200) if not has_y(v))
        _single_err(ValidationError, r"coordinate \[0\] \(x\): no curve point has this x", group,
                    [str(no_y), good[1], "1"])
        other_x = next(v for v in range(x + 1, x + 200) if has_y(v))
        _single_err(ValidationError, y_moved, group, [str(other_x), good[1], "1"])
    else:
        bad = [good[0], [good[1][0], str(int(good[1][1]) + 1)], good[2]]
        _single_err(ValidationError, y_moved, group, bad)
        bad = [good[0], [good[1][0], "1e5"], good[2]]
        _single_err(FormatError, r"coordinate \[1\]\[1\] \(y\.c1\): '1e5' is not a decimal", group, bad)
    _single_err(FormatError, r"expected a list \[x, y\]", group, "oops")


def test_chunked_decode_reports_global_index(sample, monkeypatch):
    """Inputs are processed CHUNK points at a time; indices in errors stay global."""
    import cuzk.curve.encoding as encoding

    monkeypatch.setattr(encoding, "CHUNK", 2)
    g = sample.group
    pts = np.concatenate([sample.points, sample.points])
    for compressed in (True, False):
        data = encode_points(g, pts, compressed=compressed)
        assert data == encode_points(g, pts[:3], compressed=compressed) + encode_points(
            g, pts[3:], compressed=compressed
        )
        assert g.equal(decode_points(g, data, compressed=compressed), pts).all()
    size = encoded_size(g)
    bad = bytearray(encode_points(g, pts))
    bad[7 * size] &= 0x7F  # element 7 lies in the fourth chunk
    msg = _raises(FormatError, "compression flag", bytes(bad), g)
    assert "element 7:" in msg
