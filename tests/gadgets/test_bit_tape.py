"""The bit tape reproduces, for N instances at once, exactly the aux
assignment that the gadget calls produce, including negated and constant
literals, folded operations and externally supplied witness bits."""

import numpy as np

from cuzk.gadgets import bit_tape
from cuzk.gadgets.boolean import Boolean, and_, or_, sha256_ch, sha256_maj, xor
from cuzk.gadgets.multieq import MultiEq
from cuzk.gadgets.stamped import StampedGadget, output_indices
from cuzk.gadgets.uint32 import UInt32
from cuzk.r1cs import RecordingCS, WitnessCS, check_satisfied

N = 5


def mixed_circuit(cs, iface_bits, ext_values):
    """Every bit operation with plain, negated and constant operands."""
    a = UInt32.from_bits(iface_bits[:32])
    b = UInt32.from_bits(iface_bits[32:])
    k = UInt32.constant(0x0F0F_F0F0)
    e = [Boolean.alloc(cs, None if ext_values is None else v) for v in (ext_values or [None] * 3)]
    x = a.xor(cs, ~b)
    y = UInt32.sha256_ch(cs, ~a, b, k)
    z = UInt32.sha256_maj(cs, a, ~b, UInt32.constant(0xFF00_FF00))
    v = UInt32.sha256_maj(cs, ~a, b.rotr(9), x)
    w = a.rotr(3).xor(cs, (~b).shr(5)).xor(cs, k)
    with MultiEq(cs) as meq:
        s = UInt32.addmany(meq, [x, ~y, z, k, w.rotr(11), v, UInt32.constant(77)])
        t = UInt32.addmany(meq, [~s, ~a, UInt32.constant(0xFFFF_FFFF)])
    extra = [or_(cs, e[0], ~a.bits[0]), and_(cs, ~e[1], b.bits[3]), sha256_ch(cs, e[2], ~a.bits[1], e[0]),
             sha256_maj(cs, ~e[0], e[1], a.bits[7]), xor(cs, e[2], Boolean.constant(True)),
             sha256_ch(cs, Boolean.constant(True), e[1], ~e[2])]
    return t.bits + s.bits + extra


def record():
    cs = RecordingCS("bls12_381")
    iface = [Boolean.of_var(v) for v in cs.alloc_input_many(64).tolist()]
    with bit_tape.recording(cs) as tape:
        out = mixed_circuit(cs, iface, None)
    plain = [b for b in out if b.var is not None and not b.neg and b.var < 0]
    return StampedGadget("bls12_381", cs.template(), output_indices(b.var for b in plain), tape.program()), cs


def test_tape_matches_direct_witness():
    g, _ = record()
    rng = np.random.default_rng(9)
    iface = rng.integers(0, 2, (N, 64), dtype=np.uint8)
    ext = rng.integers(0, 2, (N, 3), dtype=np.uint8)
    bits = g.program.run(iface, ext)

    direct = WitnessCS("bls12_381")
    codes = direct.alloc_many(N * 64, iface.ravel()).reshape(N, 64)
    for k in range(N):
        mixed_circuit(direct, [Boolean.of_var(v, x) for v, x in zip(codes[k].tolist(), iface[k].tolist())],
                      ext[k].tolist())
    assert (direct.aux_assignment()[N * 64:] == bit_tape.bits_to_montgomery(bits, direct.fr).reshape(-1, 4)).all()

    rec = RecordingCS("bls12_381")
    g.stamp(rec, rec.alloc_many(N * 64).reshape(N, 64))
    assert check_satisfied(rec.compile(), direct.witness()) is None


def test_tape_refuses_foreign_allocations():
    cs = RecordingCS("bls12_381")
    with bit_tape.recording(cs):
        cs.alloc()  # not a bit gadget: the tape would lose step
        try:
            Boolean.alloc(cs)
        except RuntimeError as e:
            assert "out of step" in str(e)
        else:
            raise AssertionError("expected the tape to detect a foreign allocation")


def test_sliced_tape_matches_direct_witness():
    """64 instances per word, over more than one word and a partial last word:
    the bits equal the gadget calls' own witness (computed per instance with ints)."""
    g, _ = record()
    n = 70
    rng = np.random.default_rng(21)
    iface = rng.integers(0, 2, (n, 64), dtype=np.uint8)
    ext = rng.integers(0, 2, (n, 3), dtype=np.uint8)
    sliced = g.program.run_sliced(iface, ext)
    assert sliced.count == n and sliced.words.shape == (2, g.program.num_aux)

    direct = WitnessCS("bls12_381")
    codes = direct.alloc_many(n * 64, iface.ravel()).reshape(n, 64)
    for k in range(n):
        mixed_circuit(direct, [Boolean.of_var(v, x) for v, x in zip(codes[k].tolist(), iface[k].tolist())],
                      ext[k].tolist())
    expected = [v for v in direct.fr.to_ints(direct.aux_assignment()[n * 64:])]
    assert sliced.to_bits().ravel().tolist() == expected
    assert [sliced.bit(i) for i in range(0, len(expected), 97)] == expected[::97]

    stamped = WitnessCS("bls12_381")  # the sliced bits as stamp values give the same witness
    iface_vars = stamped.alloc_many(n * 64, iface.ravel()).reshape(n, 64)
    g.stamp(stamped, iface_vars, sliced)
    assert np.array_equal(stamped.witness(), direct.witness())


def test_sliced_sums_with_any_weights_and_constants():
    """Sum bits for weights that are not powers of two and a constant past 2^32,
    against the integer sums (mod 2^64) of the literals."""
    rng = np.random.default_rng(5)
    n_in, n = 6, 67
    lits = [(i << 2) for i in range(1, n_in + 1)] + [(1 << 2) | 1]  # inputs 1..6, then NOT input 1
    weights = [3, 1, 1 << 40, 5, 2, 1, 7]
    const = (1 << 33) + 11
    nbits = 45
    prog = bit_tape.BitProgram(
        ops=np.full(nbits, bit_tape.OP_SUMBIT, np.int64), a=np.zeros(nbits, np.int64),
        b=np.arange(nbits, dtype=np.int64), c=np.zeros(nbits, np.int64),
        sum_ptr=np.array([0, len(lits)], np.int64), sum_lits=np.array(lits, np.int64),
        sum_weights=np.array(weights, np.int64), sum_const=np.array([const], np.int64), num_external=0)
    inputs = rng.integers(0, 2, (n, n_in), dtype=np.uint8)
    got = prog.run_sliced(inputs).to_bits()
    for k in range(n):
        vals = [int(x) for x in inputs[k]] + [1 - int(inputs[k, 0])]
        total = (const + sum(v * w for v, w in zip(vals, weights))) % (1 << 64)
        assert got[k].tolist() == [(total >> i) & 1 for i in range(nbits)]
    assert np.array_equal(got, prog.run(inputs))
