"""The witness store keeps values in the form they come (ints, Montgomery
rows, small integers at a byte each, bit-sliced template bits) and writes
them once into w: checked against Montgomery forms computed with Python
ints (v * 2^256 mod p, limb by limb), not with the field kernels."""

import numpy as np
import pytest

from cuzk.r1cs import ONE, LC, RecordingCS, TestCS, WitnessCS, check_satisfied
from cuzk.r1cs.bit_slices import SlicedBits
from cuzk.r1cs.witness_phases import collect, phase


def mont_rows(values, p, limbs=4):
    out = np.zeros((len(values), limbs), dtype=np.uint64)
    for i, v in enumerate(values):
        m = (int(v) << (64 * limbs)) % p
        for j in range(limbs):
            out[i, j] = (m >> (64 * j)) & ((1 << 64) - 1)
    return out


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_every_chunk_form_lands_in_w(curve):
    cs = WitnessCS(curve)
    fr, p = cs.fr, cs.fr.p
    rng = np.random.default_rng(3)
    ints = [int(x) for x in rng.integers(0, 2**62, 5)] + [p - 1]
    expected = []
    cs.alloc_input_many(2, [7, 8])
    for v in ints[:3]:
        cs.alloc(v)  # pending scalar values
    expected += ints[:3]
    cs.alloc_many(3, mont_rows(ints[3:], p))  # Montgomery rows
    expected += ints[3:]
    small = rng.integers(0, 256, 9).astype(np.uint8)
    cs.alloc_many(9, small)  # bytes
    expected += small.tolist()
    flags = np.array([True, False, True])
    cs.alloc_many(3, flags)
    expected += [1, 0, 1]
    wide = np.array([300, 0, 65536], dtype=np.int64)
    cs.alloc_many(3, wide)  # other integer arrays: canonical
    expected += wide.tolist()
    bits = rng.integers(0, 2, (70, 5), dtype=np.uint8)
    sliced = SlicedBits.pack(bits)
    cs.alloc_many(bits.size, sliced)
    expected += bits.ravel().tolist()
    cs.alloc(ints[0])
    expected += [ints[0]]

    want = np.concatenate([mont_rows([1, 7, 8], p), mont_rows(expected, p)])
    w = cs.witness()
    assert np.array_equal(w, want)
    assert [cs.value(~i) for i in range(len(expected))] == [v % p for v in expected]
    buf = np.full_like(w, 0xFFFF)
    assert cs.witness(out=buf) is buf and np.array_equal(buf, want)
    with pytest.raises(ValueError, match="out must be"):
        cs.witness(out=np.zeros((len(w) - 1, fr.limbs), np.uint64))


def test_sliced_bits_pack_and_columns():
    rng = np.random.default_rng(8)
    bits = rng.integers(0, 2, (130, 7), dtype=np.uint8)
    s = SlicedBits.pack(bits)
    assert s.words.shape == (3, 7) and s.size == 130 * 7
    for g in range(3):
        for j in range(7):
            word = sum(int(bits[64 * g + k, j]) << k for k in range(min(64, 130 - 64 * g)))
            assert int(s.words[g, j]) == word
    assert np.array_equal(s.columns([6, 0, 3]), bits[:, [6, 0, 3]])
    assert np.array_equal(s.to_bits(), bits)


def test_stamp_columns_and_stamp_agree():
    t = RecordingCS("bn254")
    x, y = t.alloc_input_many(2).tolist()
    a = t.alloc()
    b = t.alloc()
    t.enforce(LC.of(x), LC.of(y), LC.of(a))
    t.enforce(LC.of(a), ONE, LC.of(b))
    tmpl = t.template()
    r1, r2 = TestCS("bn254"), TestCS("bn254")
    for cs in (r1, r2):
        cs.alloc(5)
    n = 4
    xs = np.arange(2, 2 + 2 * n, dtype=np.int64).reshape(n, 2) % 7 + 1
    for cs in (r1, r2):
        iface = cs.alloc_input_many(2 * n, xs.ravel()).reshape(n, 2)
        vals = np.array([[u * v, u * v] for u, v in xs], dtype=np.int64)
        if cs is r1:
            full = cs.stamp(tmpl, n, iface, vals)
        else:
            cols = cs.stamp_columns(tmpl, n, iface, vals, [1])
    assert np.array_equal(full[:, [1]], cols)
    assert r1.is_satisfied() and r2.is_satisfied()
    assert np.array_equal(r1.witness(), r2.witness())


def test_phases_nest_and_cost_nothing_outside_collect():
    with phase("outside"):
        pass
    with collect() as times:
        with phase("outer"):
            with phase("inner"):
                sum(range(1000))
            with phase("inner"):
                pass
    assert times.calls == {"inner": 2, "outer": 1}
    assert times.parent == {"outer": None, "inner": "outer"}
    ex = times.exclusive()
    assert ex["outer"][0] <= times.wall["outer"] and ex["inner"][0] == times.wall["inner"]
