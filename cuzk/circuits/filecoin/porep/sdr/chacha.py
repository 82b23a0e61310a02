"""The ChaCha block function as rand_chacha 0.3.1's `ChaChaRng` streams it, in numba.

What the DRG sampler needs (rand_chacha 0.3.1 / rand_core 0.6.4, the versions
rust-fil-proofs v28's Cargo.lock pins):

- `ChaCha8Rng::from_seed(seed)`: the 32-byte seed is the key, read as eight
  little-endian u32 words; the nonce (stream) is 0; the block counter is
  64 bits wide (state words 12, 13) and starts at 0. ChaCha8 = 4 double rounds.
- The generator fills its buffer four blocks at a time (counters 0, 1, 2, 3),
  block after block, each block's 16 output words in state order.
- `next_u32` takes the next word; `next_u64` (what `Rng::gen::<u64>()` calls)
  takes two consecutive words, the first as the low half.

Everything here computes on uint64 values holding 32-bit words (numba widens
small integers; masking keeps the arithmetic mod 2^32).
"""

from __future__ import annotations

import numpy as np
from numba import njit

M32 = np.uint64(0xFFFFFFFF)
SIGMA_WORDS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"
_S7, _S8, _S12, _S16 = np.uint64(7), np.uint64(8), np.uint64(12), np.uint64(16)
_S20, _S24, _S25 = np.uint64(20), np.uint64(24), np.uint64(25)
_C0, _C1, _C2, _C3 = (np.uint64(w) for w in SIGMA_WORDS)
_SH32 = np.uint64(32)


@njit(nogil=True, cache=True, inline="always")
def _half(a, b, c, d, sd, rd, sb, rb):
    """Half a quarter round: d rotated left by sd (rd = 32 - sd), b by sb (rb = 32 - sb)."""
    a = (a + b) & M32
    d ^= a
    d = ((d << sd) | (d >> rd)) & M32
    c = (c + d) & M32
    b ^= c
    b = ((b << sb) | (b >> rb)) & M32
    return a, b, c, d


@njit(nogil=True, cache=True, inline="always")
def _quarter(a, b, c, d):
    a, b, c, d = _half(a, b, c, d, _S16, _S16, _S12, _S20)
    return _half(a, b, c, d, _S8, _S24, _S7, _S25)


@njit(nogil=True, cache=True)
def chacha_block(key, counter, double_rounds, out, pos):
    """One ChaCha block: out[pos:pos+16] = the 16 output words (as uint64 < 2^32) for the
    8 key words `key` (uint64[8]), 64-bit block counter `counter`, nonce 0."""
    counter = np.uint64(counter)
    k0, k1, k2, k3, k4, k5, k6, k7 = key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7]
    d0 = counter & M32
    d1 = counter >> _SH32
    x0, x1, x2, x3 = _C0, _C1, _C2, _C3
    x4, x5, x6, x7 = k0, k1, k2, k3
    x8, x9, x10, x11 = k4, k5, k6, k7
    x12, x13, x14, x15 = d0, d1, np.uint64(0), np.uint64(0)
    for _ in range(double_rounds):
        x0, x4, x8, x12 = _quarter(x0, x4, x8, x12)
        x1, x5, x9, x13 = _quarter(x1, x5, x9, x13)
        x2, x6, x10, x14 = _quarter(x2, x6, x10, x14)
        x3, x7, x11, x15 = _quarter(x3, x7, x11, x15)
        x0, x5, x10, x15 = _quarter(x0, x5, x10, x15)
        x1, x6, x11, x12 = _quarter(x1, x6, x11, x12)
        x2, x7, x8, x13 = _quarter(x2, x7, x8, x13)
        x3, x4, x9, x14 = _quarter(x3, x4, x9, x14)
    out[pos + 0] = (x0 + _C0) & M32
    out[pos + 1] = (x1 + _C1) & M32
    out[pos + 2] = (x2 + _C2) & M32
    out[pos + 3] = (x3 + _C3) & M32
    out[pos + 4] = (x4 + k0) & M32
    out[pos + 5] = (x5 + k1) & M32
    out[pos + 6] = (x6 + k2) & M32
    out[pos + 7] = (x7 + k3) & M32
    out[pos + 8] = (x8 + k4) & M32
    out[pos + 9] = (x9 + k5) & M32
    out[pos + 10] = (x10 + k6) & M32
    out[pos + 11] = (x11 + k7) & M32
    out[pos + 12] = (x12 + d0) & M32
    out[pos + 13] = (x13 + d1) & M32
    out[pos + 14] = x14
    out[pos + 15] = x15


@njit(nogil=True, cache=True)
def _stream_words(key, double_rounds, n_words, out):
    for b in range((n_words + 15) // 16):
        chacha_block(key, b, double_rounds, out, 16 * b)


def key_words(seed: bytes) -> np.ndarray:
    """The 8 key words of a 32-byte seed (little-endian u32), as uint64."""
    if len(seed) != 32:
        raise ValueError(f"a ChaCha seed is 32 bytes, got {len(seed)}")
    return np.frombuffer(seed, dtype="<u4").astype(np.uint64)


def stream_u32(seed: bytes, n: int, double_rounds: int = 4) -> np.ndarray:
    """The first n `next_u32` values of `ChaCha{2*double_rounds}Rng::from_seed(seed)` (uint32).
    For tests and the CLI; the graph kernels call `chacha_block` directly."""
    out = np.empty(16 * ((n + 15) // 16), dtype=np.uint64)
    _stream_words(key_words(seed), double_rounds, n, out)
    return out[:n].astype(np.uint32)


def stream_u64(seed: bytes, n: int, double_rounds: int = 4) -> np.ndarray:
    """The first n `next_u64` values (`Rng::gen::<u64>()`) of a fresh generator: word pairs, low first."""
    w = stream_u32(seed, 2 * n, double_rounds).astype(np.uint64)
    return w[0::2] | (w[1::2] << np.uint64(32))
