import hashlib

import numpy as np
import pytest

from cuzk.gadgets.sha256.native import IV, bits_to_words, compress, pad_messages, sha256, words_to_bits

LENGTHS = [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000]


def test_many_lengths_match_hashlib():
    rng = np.random.default_rng(1)
    msgs = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in LENGTHS for _ in range(3)]
    digests = sha256(msgs)
    assert digests.shape == (len(msgs), 32)
    for m, d in zip(msgs, digests):
        assert bytes(d) == hashlib.sha256(m).digest()


@pytest.mark.parametrize("length", [0, 64, 100])
def test_equal_length_array_form(length):
    rng = np.random.default_rng(length)
    msgs = rng.integers(0, 256, (17, length), dtype=np.uint8)
    digests = sha256(msgs)
    for m, d in zip(msgs, digests):
        assert bytes(d) == hashlib.sha256(m.tobytes()).digest()


def test_single_compression_is_the_one_block_hash():
    msg = b"abc" * 18  # 54 bytes: one padded block
    blocks, nblocks = pad_messages([msg])
    assert nblocks.tolist() == [1]
    state = compress(IV[None, :], blocks[:, 0])
    assert state.astype(">u4").tobytes() == hashlib.sha256(msg).digest()


def test_bit_word_roundtrip():
    w = np.random.default_rng(2).integers(0, 2**32, (5, 8), dtype=np.uint32)
    bits = words_to_bits(w)
    assert bits.shape == (5, 256)
    assert bits[0, 0] == w[0, 0] >> 31  # big-endian within words
    assert (bits_to_words(bits) == w).all()
