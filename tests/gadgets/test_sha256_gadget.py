import hashlib

import numpy as np
import pytest

from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.sha256.gadget import (
    alloc_message_bits, bits_to_bytes, sha256, sha256_block_no_padding, sha256_compression,
)
from cuzk.gadgets.sha256.native import compress, words_to_bits
from cuzk.r1cs import TestCS, check_satisfied

from gadget_helpers import assert_satisfied_and_tamper_evident


def _random_bits(cs, n, seed):
    return [Boolean.alloc(cs, int(b)) for b in np.random.default_rng(seed).integers(0, 2, n)]


def test_bellperson_constraint_counts():
    """bellperson's sha256.rs tests: 512 allocated input bits, then one compression from the
    IV (test_full_block: 25,840) or the whole padded hash (test_full_hash: 44,874)."""
    cs = TestCS("bls12_381")
    sha256_block_no_padding(cs, _random_bits(cs, 512, 1))
    assert cs.num_constraints - 512 == 25840
    assert cs.is_satisfied()
    cs = TestCS("bls12_381")
    sha256(cs, _random_bits(cs, 512, 2))
    assert cs.num_constraints - 512 == 44874
    assert cs.is_satisfied()


def test_blank_hash_is_free():
    """bellperson's test_blank_hash: the padded empty message as one constant block."""
    block = [Boolean.constant(i == 0) for i in range(512)]
    cs = TestCS("bls12_381")
    out = sha256_block_no_padding(cs, block)
    assert cs.num_constraints == 0
    assert bits_to_bytes(out).hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_compression_matches_native():
    rng = np.random.default_rng(3)
    state = rng.integers(0, 2**32, (1, 8), dtype=np.uint32)
    block = rng.integers(0, 2**32, (1, 16), dtype=np.uint32)
    cs = TestCS("bls12_381")
    sb = [Boolean.alloc(cs, int(b)) for b in words_to_bits(state)[0]]
    bb = [Boolean.alloc(cs, int(b)) for b in words_to_bits(block)[0]]
    out = sha256_compression(cs, sb, bb)
    expect = words_to_bits(compress(state, block))[0]
    assert [int(b.value) for b in out] == expect.tolist()
    assert_satisfied_and_tamper_evident(cs, samples=24)


@pytest.mark.parametrize("curve, length", [("bls12_381", n) for n in (0, 1, 31, 55, 56, 100)]
                         + [("bn254", n) for n in (3, 64)])
def test_full_hash_matches_hashlib(curve, length):
    msg = bytes(np.random.default_rng(length).integers(0, 256, length, dtype=np.uint8))
    cs = TestCS(curve)
    digest = sha256(cs, alloc_message_bits(cs, msg, length))
    assert bits_to_bytes(digest) == hashlib.sha256(msg).digest()
    if length == 0:
        assert cs.num_constraints == 0  # everything is constant
        return
    assert cs.is_satisfied(), cs.which_is_unsatisfied()
    # a wrong digest is caught: any digest bit flipped breaks some constraint
    cc, w = cs.compile(), cs.witness()
    one, zero = cs.fr.ones(1)[0], cs.fr.zeros(1)[0]
    for b in digest[::37]:
        col = cc.num_inputs + ~b.var
        bad = w.copy()
        bad[col] = zero if (w[col] == one).all() else one
        assert check_satisfied(cc, bad) is not None
    if length <= 3:
        assert_satisfied_and_tamper_evident(cs, samples=16)


def test_message_must_be_whole_bytes():
    cs = TestCS("bls12_381")
    with pytest.raises(ValueError):
        sha256(cs, [Boolean.alloc(cs, 1)] * 7)
