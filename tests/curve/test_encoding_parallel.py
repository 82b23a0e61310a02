"""The parallel uncompressed path (.params form) on inputs of several chunks.

Expected bytes are arkworks' (py_arkworks_bls12381) and expected coordinates
py_ecc's; inputs are those few oracle points tiled past CHUNK, so a bad
point can sit deep inside: past the first chunk, in the second half of a
kernel block (another worker's range), or in a later block. Errors must
name that element, and the first failing chunk's first failing check wins,
as in the chunk-by-chunk numpy checks this path replaced.
"""

from __future__ import annotations

import numba
import numpy as np
import py_arkworks_bls12381 as ark
import pytest
from py_ecc import optimized_bls12_381 as ecc

import cuzk.curve.encoding as encoding
from cuzk.curve import BLS12_381
from cuzk.curve.encoding import CHUNK, decode_points, decode_uncompressed, encode_array, encode_points
from cuzk.curve.subgroup import random_curve_points
from cuzk.errors import FormatError, ValidationError
from cuzk.formats import bellperson

R, P = BLS12_381.fr.p, BLS12_381.fq.p
DISTINCT = 24
N = 2 * CHUNK + 4 * DISTINCT + 5  # three chunks, the last one partial
DEEP = 2 * CHUNK + 3 * DISTINCT + 1  # third chunk, second half of the kernel's range


def _zcash_from_ark(name: str, raw: bytes) -> bytes:
    """arkworks writes a G2 coordinate c0 || c1, zcash c1 || c0."""
    if name == "g1":
        return raw
    c = [raw[i : i + 48] for i in range(0, 192, 48)]
    return c[1] + c[0] + c[3] + c[2]


def _ecc_ints(name: str, pt):
    x, y = ecc.normalize(pt)
    if name == "g1":
        return (int(x), int(y))
    return (tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs))


class Oracle:
    """DISTINCT multiples k*G: our points (from py_ecc's coordinates) and arkworks' bytes."""

    def __init__(self, name: str):
        self.name = name
        self.group = getattr(BLS12_381, name)
        rng = np.random.default_rng(77 if name == "g1" else 78)
        ks = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(DISTINCT // 2)]
        ks += [R - k for k in ks]  # P and -P: both halves of y occur
        gen = ecc.G1 if name == "g1" else ecc.G2
        self.ints = [_ecc_ints(name, ecc.multiply(gen, k)) for k in ks]
        self.points = self.group.from_ints(self.ints)
        cls = ark.G1Point if name == "g1" else ark.G2Point
        self.ark_cls = cls
        self.bytes = b"".join(_zcash_from_ark(name, (cls() * ark.Scalar(k)).to_xy_bytes_be()) for k in ks)
        self.size = len(self.bytes) // DISTINCT

    def tiled(self, n: int = N):
        reps = -(-n // DISTINCT)
        pts = np.tile(self.points, (reps,) + (1,) * (self.points.ndim - 1))[:n]
        return np.ascontiguousarray(pts), (self.bytes * reps)[: n * self.size]


_ORACLES: dict = {}


def _oracle(name: str) -> Oracle:
    if name not in _ORACLES:
        _ORACLES[name] = Oracle(name)
    return _ORACLES[name]


@pytest.fixture(params=["g1", "g2"])
def oracle(request) -> Oracle:
    return _oracle(request.param)


def _decode_error(oracle, data, exc, match, check_subgroup=False):
    with pytest.raises(exc, match=match) as info:
        decode_points(oracle.group, data, compressed=False, check_subgroup=check_subgroup)
    return str(info.value)


def _with(data: bytes, size: int, index: int, element: bytes) -> bytes:
    return data[: index * size] + element + data[(index + 1) * size :]


def _off_curve(oracle) -> bytes:
    """A point's bytes with the last bit of y flipped (arkworks rejects it too)."""
    e = bytearray(oracle.bytes[: oracle.size])
    e[-1] ^= 1
    with pytest.raises(ValueError):
        oracle.ark_cls.from_xy_bytes_unchecked_be(_zcash_from_ark(oracle.name, bytes(e)))
    return bytes(e)


def _coordinate(oracle, slot: int, value: int) -> bytes:
    e = bytearray(oracle.bytes[: oracle.size])
    e[48 * slot : 48 * slot + 48] = value.to_bytes(48, "big")
    return bytes(e)


# ---- agreement with the oracles -------------------------------------------------------


def test_many_chunks_match_arkworks_and_py_ecc(oracle):
    pts, want = oracle.tiled()
    assert encode_points(oracle.group, pts, compressed=False) == want
    assert encode_array(oracle.group, pts, compressed=False).tobytes() == want
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            got = decode_points(oracle.group, want, compressed=False, check_subgroup=False)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        assert np.array_equal(got, pts)
    # decoded points deep inside, read back as ints, are py_ecc's coordinates
    assert oracle.group.to_ints(got[DEEP : DEEP + 3]) == [oracle.ints[i % DISTINCT] for i in range(DEEP, DEEP + 3)]


def test_infinity_is_flag_only_and_found_in_the_same_pass(oracle, monkeypatch):
    pts, data = oracle.tiled()
    inf = bytes([0x40]) + bytes(oracle.size - 1)  # zcash: the infinity flag, all other bits zero
    for i in (CHUNK + 3, DEEP, DEEP + 2):
        pts[i] = 0
        data = _with(data, oracle.size, i, inf)
    assert encode_points(oracle.group, pts, compressed=False) == data
    for block_chunks in (encoding.BLOCK_CHUNKS, 1):  # one kernel call, or one per chunk
        monkeypatch.setattr(encoding, "BLOCK_CHUNKS", block_chunks)
        got, first = decode_uncompressed(oracle.group, data, check_subgroup=False)
        assert np.array_equal(got, pts)
        assert first == CHUNK + 3
    assert decode_uncompressed(oracle.group, oracle.tiled()[1], check_subgroup=False)[1] == -1


# ---- a bad point deep inside is named by its index -------------------------------------------


def test_bad_point_deep_inside_is_named(oracle):
    _, data = oracle.tiled()
    size, last = oracle.size, oracle.size // 48 - 1
    inf_bits = bytes([0x40]) + oracle.bytes[1:size]
    cases = [
        (_off_curve(oracle), ValidationError, "point is not on the curve"),
        (bytes(size), ValidationError, "point is not on the curve"),  # all zero, no infinity flag
        (_coordinate(oracle, 0, P), FormatError, r"not canonical \(>= the field modulus p\)"),
        (_coordinate(oracle, last, 2**381 - 1), FormatError, "not canonical"),
        (inf_bits, FormatError, r"infinity flag \(0x40\) with nonzero coordinate bits"),
        (bytes([0x80 | oracle.bytes[0]]) + oracle.bytes[1:size], FormatError, "compression flag.*uncompressed"),
        (bytes([0x20 | oracle.bytes[0]]) + oracle.bytes[1:size], FormatError, "sort flag.*uncompressed"),
    ]
    for element, exc, match in cases:
        msg = _decode_error(oracle, _with(data, size, DEEP, element), exc, match, check_subgroup=False)
        assert f"element {DEEP}:" in msg, msg
    # a vector that holds 2^16 + some points, the bad one in the second worker's half of one call
    small = data[: (CHUNK + 3 * DISTINCT) * size]
    bad_at = CHUNK + 2 * DISTINCT
    msg = _decode_error(oracle, _with(small, size, bad_at, _off_curve(oracle)), ValidationError, "not on the curve")
    assert f"element {bad_at}:" in msg


def test_later_kernel_block_and_one_thread(oracle, monkeypatch):
    monkeypatch.setattr(encoding, "BLOCK_CHUNKS", 1)  # every chunk is its own kernel call
    _, data = oracle.tiled()
    bad = _with(data, oracle.size, DEEP, _coordinate(oracle, 0, P))
    for threads in (1, 2):
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            msg = _decode_error(oracle, bad, FormatError, "not canonical")
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        assert f"element {DEEP}:" in msg


def test_first_failing_chunk_then_first_check_wins(oracle):
    _, data = oracle.tiled()
    size = oracle.size
    off, big = _off_curve(oracle), _coordinate(oracle, 0, P)
    # same chunk: the earlier check (canonical) wins over the earlier index; all of its failures are listed
    two = _with(_with(_with(data, size, DEEP, off), size, DEEP + 1, big), size, DEEP + 7, big)
    msg = _decode_error(oracle, two, FormatError, "not canonical")
    assert f"elements {DEEP + 1}, {DEEP + 7}:" in msg
    # different chunks: the earlier chunk wins over the earlier check
    early = CHUNK + 5
    mixed = _with(_with(data, size, early, off), size, DEEP, big)
    msg = _decode_error(oracle, mixed, ValidationError, "not on the curve")
    assert f"element {early}:" in msg


def test_subgroup_is_checked_in_chunk_order(oracle, monkeypatch):
    """With smaller chunks (the subgroup check of 2^17 points would take long here), still one parallel call."""
    chunk = 2048
    monkeypatch.setattr(encoding, "CHUNK", chunk)
    g = oracle.group
    stray = random_curve_points(g, 1, np.random.default_rng(5))
    enc = encode_points(g, stray, compressed=False)
    assert not oracle.ark_cls.from_xy_bytes_unchecked_be(_zcash_from_ark(oracle.name, enc)).is_in_subgroup()
    _, data = oracle.tiled(3 * chunk + 37)
    size, deep = oracle.size, 2 * chunk + 1200
    bad = _with(data, size, deep, enc)
    msg = _decode_error(oracle, bad, ValidationError, "not in the prime-order subgroup", check_subgroup=True)
    assert f"element {deep}:" in msg
    assert np.array_equal(decode_points(g, bad, compressed=False, check_subgroup=False)[deep], stray[0])
    # the earlier chunk wins whichever check fails there; within a chunk the curve check comes first
    early = chunk + 9
    cases = [
        (_with(bad, size, early, enc), "subgroup"),  # outside the subgroup in chunk 1 and in chunk 2
        (_with(_with(bad, size, early, _off_curve(oracle)), size, early + 1, enc), "not on the curve"),
        (_with(_with(data, size, deep, _off_curve(oracle)), size, early, enc), "subgroup"),
    ]
    for data_case, match in cases:
        msg = _decode_error(oracle, data_case, ValidationError, match, check_subgroup=True)
        assert f"element {early}:" in msg, msg


# ---- bellperson files ---------------------------------------------------------------------------


def test_vk_ic_with_infinity_deep_inside_is_rejected():
    o, g2 = _oracle("g1"), _oracle("g2")
    n, deep = 5000, 4321  # a parallel kernel call; the subgroup check keeps it small
    _, ic = o.tiled(n)
    head = o.bytes[:96] * 2 + g2.bytes[:192] * 2 + o.bytes[:96] + g2.bytes[:192]
    good = head + n.to_bytes(4, "big") + ic
    vk = bellperson.vk_from_bytes(good)
    assert bellperson.vk_bytes(vk) == good
    bad = head + n.to_bytes(4, "big") + _with(ic, 96, deep, bytes([0x40]) + bytes(95))
    with pytest.raises(ValidationError, match=f"vk.ic: element {deep} is the point at infinity"):
        bellperson.vk_from_bytes(bad)


def test_atomic_write_streams_parts_and_leaves_nothing_on_failure(tmp_path):
    parts = [b"head", np.arange(10, dtype=np.uint8).reshape(2, 5), b"", np.full((3, 4), 7, np.uint8)]
    bellperson._atomic_write(tmp_path / "ok", iter(parts))
    assert (tmp_path / "ok").read_bytes() == b"head" + bytes(range(10)) + bytes([7]) * 12

    def failing():
        yield b"part one"
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        bellperson._atomic_write(tmp_path / "bad", failing())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok"]
