import numpy as np
import pytest

from cuzk.gadgets.uint32 import UInt32
from cuzk.r1cs import TestCS

from gadget_helpers import assert_satisfied_and_tamper_evident

M = 0xFFFFFFFF


def rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & M


@pytest.mark.parametrize("nops", [1, 2, 3, 5, 7])
def test_addmany(nops):
    rng = np.random.default_rng(nops)
    vals = [int(v) for v in rng.integers(0, 2**32, nops, dtype=np.uint64)]
    k = int(rng.integers(0, 2**32))
    cs = TestCS("bls12_381")
    words = [UInt32.alloc(cs, v) for v in vals]
    start_aux, start = cs.num_aux, cs.num_constraints
    out = UInt32.addmany(cs, words, k)
    assert out.value == (sum(vals) + k) & M
    assert [b.value for b in out.bits] == [bool((out.value >> i) & 1) for i in range(32)]
    nbits = (nops * M + k).bit_length()
    assert cs.num_constraints - start == nbits + 1
    assert cs.is_satisfied()
    assert_satisfied_and_tamper_evident(cs, aux_indices=range(start_aux, cs.num_aux))


def test_addmany_with_negated_and_constant_words():
    cs = TestCS("bn254")
    a = UInt32.alloc(cs, 0xDEADBEEF)
    out = UInt32.addmany(cs, [~a, UInt32.constant(7), a.rotr(5)], 3)
    assert out.value == ((~0xDEADBEEF & M) + 7 + rotr(0xDEADBEEF, 5) + 3) & M
    assert UInt32.addmany(cs, [UInt32.constant(M), UInt32.constant(2)]).value == 1
    assert cs.is_satisfied()


def test_bitwise_rotations_and_shifts():
    rng = np.random.default_rng(7)
    x, y, z = (int(v) for v in rng.integers(0, 2**32, 3, dtype=np.uint64))
    cs = TestCS("bls12_381")
    a, b, c = UInt32.alloc(cs, x), UInt32.alloc(cs, y), UInt32.alloc(cs, z)
    start = cs.num_aux
    assert a.rotr(7).value == rotr(x, 7)
    assert UInt32.from_bits(a.rotr(7).bits).value == rotr(x, 7)
    assert UInt32.from_bits(a.shr(10).bits).value == x >> 10
    assert a.xor(cs, b).value == x ^ y
    assert a.and_(cs, b).value == x & y
    assert UInt32.xor3(cs, a.rotr(2), a.rotr(13), a.shr(22)).value == rotr(x, 2) ^ rotr(x, 13) ^ (x >> 22)
    assert UInt32.ch(cs, a, b, c).value == (x & y) ^ (~x & z) & M
    assert UInt32.maj(cs, a, b, c).value == (x & y) ^ (x & z) ^ (y & z)
    assert (~a).value == ~x & M
    assert cs.is_satisfied()
    assert_satisfied_and_tamper_evident(cs, aux_indices=range(start, cs.num_aux))
