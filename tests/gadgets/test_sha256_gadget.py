import hashlib

import numpy as np
import pytest

from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.sha256.gadget import alloc_message_bits, bits_to_bytes, sha256, sha256_compression
from cuzk.gadgets.sha256.native import compress, words_to_bits
from cuzk.r1cs import TestCS

import circuit_sizes as sizes
from gadget_helpers import assert_satisfied_and_tamper_evident


def test_compression_matches_native():
    rng = np.random.default_rng(3)
    state = rng.integers(0, 2**32, (1, 8), dtype=np.uint32)
    block = rng.integers(0, 2**32, (1, 16), dtype=np.uint32)
    cs = TestCS("bls12_381")
    sb = [Boolean.alloc(cs, int(b)) for b in words_to_bits(state)[0]]
    bb = [Boolean.alloc(cs, int(b)) for b in words_to_bits(block)[0]]
    start = cs.num_constraints
    out = sha256_compression(cs, sb, bb)
    assert cs.num_constraints - start == sizes.sha256_compression()  # 26,416, from FIPS 180-4's structure
    expect = words_to_bits(compress(state, block))[0]
    assert [int(b.value) for b in out] == expect.tolist()
    assert_satisfied_and_tamper_evident(cs, samples=24)


@pytest.mark.parametrize("length", [0, 3, 56])
def test_full_hash_matches_hashlib(length):
    msg = bytes(np.random.default_rng(length).integers(0, 256, length, dtype=np.uint8))
    cs = TestCS("bn254")
    digest = sha256(cs, alloc_message_bits(cs, msg, length))
    assert bits_to_bytes(digest) == hashlib.sha256(msg).digest()
    if length == 0:
        assert cs.num_constraints == 0  # everything is constant
    else:
        assert cs.is_satisfied(), cs.which_is_unsatisfied()
        assert_satisfied_and_tamper_evident(cs, samples=8)
