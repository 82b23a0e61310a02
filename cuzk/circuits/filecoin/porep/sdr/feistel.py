"""rust-fil-proofs' Feistel permutation (storage-proofs-core crypto/feistel.rs), in numba.

The facts it follows:

- The index space [0, num_elements) is embedded in 2*h bits, h = the smallest
  h >= 1 with 4^h >= num_elements (`precompute`): left half = bits h..2h-1,
  right half = bits 0..h-1.
- `encode` runs 3 rounds with keys[0], keys[1], keys[2] (a fourth key exists
  but is never used): (L, R) <- (R, L ^ F(R, key)).
- The round function F(R, key) hashes 16 bytes, R then key, each as a
  big-endian u64, with BLAKE2b-512 (unkeyed, blake2b_simd's default), reads
  the first 8 digest bytes as a big-endian u64 and keeps the low h bits.
- `permute` re-encodes ("cycle walking") until the value is < num_elements.

BLAKE2b of a 16-byte message is one compression of one block: the message
words are m[0] = the 8 bytes of R read little-endian (= byte-swapped R),
m[1] = likewise for the key, m[2..15] = 0, byte counter 16, final block.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cuzk.field.threads import run_spans

IV = np.array([0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
               0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179],
              dtype=np.uint64)
_SIGMA10 = [  # BLAKE2b's message schedule; its 12 rounds take rows 0-9, then 0 and 1 again
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
]
SIGMA = np.array(_SIGMA10 + _SIGMA10[:2], dtype=np.int64)
ROUNDS = 3  # FEISTEL_ROUNDS

_IV0, _IV1, _IV2, _IV3 = IV[0], IV[1], IV[2], IV[3]
_IV4, _IV5, _IV6, _IV7 = IV[4], IV[5], IV[6], IV[7]
_H0 = IV[0] ^ np.uint64(0x01010040)  # parameter block: digest length 64, no key, fanout 1, depth 1
_T0 = np.uint64(16)  # bytes hashed
_FINAL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ZERO = np.uint64(0)
_R63, _R1, _R32, _R24, _R40, _R16, _R48 = (np.uint64(s) for s in (63, 1, 32, 24, 40, 16, 48))
_B8 = np.uint64(8)
_BYTE = np.uint64(0xFF)


@njit(nogil=True, cache=True, inline="always")
def bswap64(x):
    r = np.uint64(0)
    for i in range(8):
        r = (r << _B8) | ((x >> np.uint64(8 * i)) & _BYTE)
    return r


@njit(nogil=True, cache=True, inline="always")
def _half(a, b, c, d, x, rd, ld, rb, lb):
    """Half of G, taking message word x: d rotated right by rd (ld = 64 - rd), b by rb (lb = 64 - rb)."""
    a = a + b + x
    d ^= a
    d = (d >> rd) | (d << ld)
    c = c + d
    b ^= c
    b = (b >> rb) | (b << lb)
    return a, b, c, d


@njit(nogil=True, cache=True, inline="always")
def _g(a, b, c, d, x, y):
    a, b, c, d = _half(a, b, c, d, x, _R32, _R32, _R24, _R40)
    return _half(a, b, c, d, y, _R16, _R48, _R63, _R1)


@njit(nogil=True, cache=True, inline="always")
def _m(s, m0, m1):
    return m0 if s == 0 else (m1 if s == 1 else _ZERO)


@njit(nogil=True, cache=True)
def blake2b_16_first_word(m0, m1):
    """The first 8 bytes, read little-endian, of BLAKE2b-512 of the 16 bytes whose
    little-endian words are m0, m1."""
    m0, m1 = np.uint64(m0), np.uint64(m1)
    v0, v1, v2, v3 = _H0, _IV1, _IV2, _IV3
    v4, v5, v6, v7 = _IV4, _IV5, _IV6, _IV7
    v8, v9, v10, v11 = _IV0, _IV1, _IV2, _IV3
    v12, v13, v14, v15 = _IV4 ^ _T0, _IV5, _IV6 ^ _FINAL, _IV7
    for r in range(12):
        s = SIGMA[r]
        v0, v4, v8, v12 = _g(v0, v4, v8, v12, _m(s[0], m0, m1), _m(s[1], m0, m1))
        v1, v5, v9, v13 = _g(v1, v5, v9, v13, _m(s[2], m0, m1), _m(s[3], m0, m1))
        v2, v6, v10, v14 = _g(v2, v6, v10, v14, _m(s[4], m0, m1), _m(s[5], m0, m1))
        v3, v7, v11, v15 = _g(v3, v7, v11, v15, _m(s[6], m0, m1), _m(s[7], m0, m1))
        v0, v5, v10, v15 = _g(v0, v5, v10, v15, _m(s[8], m0, m1), _m(s[9], m0, m1))
        v1, v6, v11, v12 = _g(v1, v6, v11, v12, _m(s[10], m0, m1), _m(s[11], m0, m1))
        v2, v7, v8, v13 = _g(v2, v7, v8, v13, _m(s[12], m0, m1), _m(s[13], m0, m1))
        v3, v4, v9, v14 = _g(v3, v4, v9, v14, _m(s[14], m0, m1), _m(s[15], m0, m1))
    return _H0 ^ v0 ^ v8


@njit(nogil=True, cache=True, inline="always")
def _encode(index, swapped_keys, left_mask, right_mask, half_bits):
    left = (index & left_mask) >> half_bits
    right = index & right_mask
    for k in range(ROUNDS):
        f = bswap64(blake2b_16_first_word(bswap64(right), swapped_keys[k])) & right_mask
        left, right = right, left ^ f
    return (left << half_bits) | right


@njit(nogil=True, cache=True)
def permute(num_elements, index, swapped_keys, left_mask, right_mask, half_bits):
    """feistel::permute: encode, then re-encode while the value is >= num_elements."""
    u = _encode(index, swapped_keys, left_mask, right_mask, half_bits)
    while u >= num_elements:
        u = _encode(u, swapped_keys, left_mask, right_mask, half_bits)
    return u


@njit(nogil=True, cache=True)
def permute_many_span(s0, s1, num_elements, indices, swapped_keys, left_mask, right_mask, half_bits, out):
    for i in range(s0, s1):
        out[i] = permute(num_elements, indices[i], swapped_keys, left_mask, right_mask, half_bits)


def permute_many(num_elements, indices, swapped_keys, left_mask, right_mask, half_bits, out):
    run_spans(permute_many_span, indices.shape[0], num_elements, indices, swapped_keys, left_mask, right_mask,
              half_bits, out)


def precompute(num_elements: int) -> tuple[int, int, int]:
    """(left_mask, right_mask, half_bits) of feistel::precompute."""
    next_pow4, log4 = 4, 1
    while next_pow4 < num_elements:
        next_pow4 *= 4
        log4 += 1
    return ((1 << log4) - 1) << log4, (1 << log4) - 1, log4


def swapped_keys(keys) -> np.ndarray:
    """The keys as BLAKE2b message words (each big-endian u64 read back little-endian)."""
    return np.array([int.from_bytes(int(k).to_bytes(8, "big"), "little") for k in keys], dtype=np.uint64)


def permute_indices(num_elements: int, indices, keys) -> np.ndarray:
    """feistel::permute(num_elements, i, keys, precompute(num_elements)) for each i (uint64)."""
    lm, rm, hb = precompute(num_elements)
    idx = np.ascontiguousarray(indices, dtype=np.uint64)
    out = np.empty_like(idx)
    permute_many(np.uint64(num_elements), idx, swapped_keys(keys), np.uint64(lm), np.uint64(rm),
                 np.uint64(hb), out)
    return out
