import numpy as np
import pytest

from cuzk.gadgets.multieq import MultiEq
from cuzk.gadgets.uint32 import UInt32
from cuzk.r1cs import TestCS, check_satisfied

from gadget_helpers import assert_satisfied_and_tamper_evident

M = 0xFFFFFFFF


def rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & M


def _words(seed, n):
    return [int(v) for v in np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64)]


@pytest.mark.parametrize("nops", [2, 3, 5, 7, 10])
def test_addmany(nops):
    """Result bits: as many as len(operands) * (2^32 - 1) needs, each a booleanity
    constraint; the equality of the sums is one (packed) constraint."""
    vals = _words(nops, nops)
    cs = TestCS("bls12_381")
    words = [UInt32.alloc(cs, v) for v in vals[:-1]] + [UInt32.constant(vals[-1])]
    start_aux, start = cs.num_aux, cs.num_constraints
    out = UInt32.addmany(cs, words)
    assert out.value == sum(vals) & M
    assert [b.value for b in out.bits] == [bool((out.value >> i) & 1) for i in range(32)]
    nbits = (nops * M).bit_length()  # the constant word counts as a full word
    assert (cs.num_aux - start_aux, cs.num_constraints - start) == (nbits, nbits + 1)
    assert_satisfied_and_tamper_evident(cs, aux_indices=range(start_aux, cs.num_aux))


def test_addmany_constants_fold():
    """bellperson's test_uint32_addmany_constants: constants only, a constant result, no constraint."""
    a, b, c = _words(1, 3)
    cs = TestCS("bls12_381")
    r = UInt32.addmany(cs, [UInt32.constant(a), UInt32.constant(b), UInt32.constant(c)])
    assert r.value == (a + b + c) & M and r.is_constant and cs.num_constraints == 0


def test_addmany_of_xor_and_constants():
    """bellperson's test_uint32_addmany: (a xor b) + c + d with b, c constant; flipping
    result bit 0 breaks the circuit."""
    a, b, c, d = _words(2, 4)
    cs = TestCS("bls12_381")
    r = UInt32.alloc(cs, a).xor(cs, UInt32.constant(b))
    out = UInt32.addmany(cs, [r, UInt32.constant(c), UInt32.alloc(cs, d)])
    assert out.value == ((a ^ b) + c + d) & M
    assert all(x.var is not None and not x.neg for x in out.bits)
    assert cs.is_satisfied()
    cc, w = cs.compile(), cs.witness()
    col = cc.num_inputs + ~out.bits[0].var
    w[col] = cs.fr.zeros(1)[0] if out.bits[0].value else cs.fr.ones(1)[0]
    assert check_satisfied(cc, w) is not None


def test_addmany_operand_count():
    cs = TestCS("bls12_381")
    with pytest.raises(ValueError):
        UInt32.addmany(cs, [UInt32.constant(1)])
    with pytest.raises(ValueError):
        UInt32.addmany(cs, [UInt32.constant(1)] * 11)


@pytest.mark.parametrize("curve, capacity", [("bls12_381", 254), ("bn254", 253)])
def test_multieq_packs_until_the_capacity(curve, capacity):
    """bellperson's MultiEq: equalities stack while bits_used + num_bits < CAPACITY,
    then go out as one constraint; the rest at flush. Two-word sums have 33 bits."""
    vals = _words(3, 20)
    cs = TestCS(curve)
    words = [UInt32.alloc(cs, v) for v in vals]
    start = cs.num_constraints
    meq = MultiEq(cs)
    sums = [UInt32.addmany(meq, [words[i], words[i + 1]]) for i in range(0, 20, 2)]  # 10 sums
    per = (capacity - 1) // 33  # sums per packed constraint
    assert cs.num_constraints - start == 10 * 33 + 10 // per
    meq.flush()
    assert cs.num_constraints - start == 10 * 33 + -(-10 // per)
    assert [s.value for s in sums] == [(vals[i] + vals[i + 1]) & M for i in range(0, 20, 2)]
    assert cs.is_satisfied()
    cs = TestCS(curve)  # 11 equalities of 23 bits: 253 bits, below 254 but not below 253
    with MultiEq(cs) as meq:
        for _ in range(11):
            meq.enforce_equal(23, ([], []), ([], []))
    assert cs.num_constraints == (1 if capacity == 254 else 2)


def test_bitwise_rotations_and_shifts():
    x, y, z = _words(7, 3)
    cs = TestCS("bls12_381")
    a, b, c = UInt32.alloc(cs, x), UInt32.alloc(cs, y), UInt32.alloc(cs, z)
    start = cs.num_aux
    for n in (0, 1, 7, 31, 32):
        assert a.rotr(n).value == rotr(x, n % 32)
        assert UInt32.from_bits(a.rotr(n).bits).value == rotr(x, n % 32)
        assert UInt32.from_bits(a.shr(n).bits).value == x >> (n % 32)
    assert UInt32.from_bits_be(a.bits_be()).value == x
    assert a.xor(cs, b).value == x ^ y
    assert UInt32.sha256_ch(cs, a, b, c).value == (x & y) ^ (~x & z) & M
    assert UInt32.sha256_maj(cs, a, b, c).value == (x & y) ^ (x & z) ^ (y & z)
    assert (~a).value == ~x & M
    assert cs.num_aux - start == 32 + 32 + 64  # xor, ch one bit each; maj two (maj, b and c)
    assert_satisfied_and_tamper_evident(cs, aux_indices=range(start, cs.num_aux))
