"""SHA-256 outside the circuit, vectorized over N messages (FIPS 180-4).

Used to compute gadget witnesses and expected digests. Every function works
on uint32 word arrays with a leading instance axis, so one numpy operation
advances all N messages; no per-message Python loop runs inside a
compression.
"""

from __future__ import annotations

import numpy as np

IV = np.array(
    [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19],
    dtype=np.uint32,
)

K = np.array(
    [
        0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
        0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
        0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
        0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
        0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
        0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
        0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
        0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2,
    ],
    dtype=np.uint32,
)


def rotr(x: np.ndarray, n: int) -> np.ndarray:
    return (x >> np.uint32(n)) | (x << np.uint32(32 - n))


def shr(x: np.ndarray, n: int) -> np.ndarray:
    return x >> np.uint32(n)


def big_sigma0(x):
    return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22)


def big_sigma1(x):
    return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25)


def small_sigma0(x):
    return rotr(x, 7) ^ rotr(x, 18) ^ shr(x, 3)


def small_sigma1(x):
    return rotr(x, 17) ^ rotr(x, 19) ^ shr(x, 10)


def ch(e, f, g):
    return (e & f) ^ (~e & g)


def maj(a, b, c):
    return (a & b) ^ (a & c) ^ (b & c)


def message_schedule(block: np.ndarray) -> np.ndarray:
    """uint32[N, 16] block words -> uint32[N, 64] schedule W."""
    w = np.empty(block.shape[:-1] + (64,), dtype=np.uint32)
    w[..., :16] = block
    for t in range(16, 64):
        w[..., t] = small_sigma1(w[..., t - 2]) + w[..., t - 7] + small_sigma0(w[..., t - 15]) + w[..., t - 16]
    return w


def compress(state: np.ndarray, block: np.ndarray) -> np.ndarray:
    """One SHA-256 compression: uint32[N, 8] state, uint32[N, 16] block -> uint32[N, 8]."""
    state = np.asarray(state, dtype=np.uint32)
    block = np.asarray(block, dtype=np.uint32)
    state = np.broadcast_to(state, block.shape[:-1] + (8,))
    w = message_schedule(block)
    a, b, c, d, e, f, g, h = (state[..., i].copy() for i in range(8))
    with np.errstate(over="ignore"):
        for t in range(64):
            t1 = h + big_sigma1(e) + ch(e, f, g) + K[t] + w[..., t]
            t2 = big_sigma0(a) + maj(a, b, c)
            h, g, f, e, d, c, b, a = g, f, e, d + t1, c, b, a, t1 + t2
        out = np.stack([a, b, c, d, e, f, g, h], axis=-1) + state
    return out.astype(np.uint32)


def pad_messages(messages) -> tuple[np.ndarray, np.ndarray]:
    """Pad N messages; returns (uint32[N, B, 16] blocks, int64[N] block counts).

    `messages` is a uint8[N, L] array (all the same length, fully
    vectorized) or a sequence of bytes of any lengths (parsed at the edge).
    Messages with fewer than B blocks are zero-filled past their padding.
    """
    if isinstance(messages, np.ndarray):
        msgs = np.ascontiguousarray(messages, dtype=np.uint8)
        if msgs.ndim != 2:
            raise ValueError("message array must be uint8[N, L]")
        n, length = msgs.shape
        lengths = np.full(n, length, dtype=np.int64)
    else:
        raw = [bytes(m) for m in messages]
        n = len(raw)
        lengths = np.array([len(m) for m in raw], dtype=np.int64)
        length = int(lengths.max()) if n else 0
        msgs = np.zeros((n, length), dtype=np.uint8)
        for i, m in enumerate(raw):
            msgs[i, : len(m)] = np.frombuffer(m, dtype=np.uint8)
    nblocks = (lengths + 8) // 64 + 1
    total = int(nblocks.max()) if n else 1
    buf = np.zeros((n, total * 64), dtype=np.uint8)
    buf[:, :length] = msgs
    rows = np.arange(n)
    buf[rows, lengths] = 0x80
    bitlen = (lengths * 8).astype(">u8").view(np.uint8).reshape(n, 8)
    ends = nblocks * 64
    for k in range(8):
        buf[rows, ends - 8 + k] = bitlen[:, k]
    words = buf.view(">u4").astype(np.uint32).reshape(n, total, 16)
    return words, nblocks


def sha256(messages) -> np.ndarray:
    """Digests of N messages as uint8[N, 32] (see `pad_messages` for input forms)."""
    blocks, nblocks = pad_messages(messages)
    n = blocks.shape[0]
    state = np.tile(IV, (n, 1))
    for b in range(blocks.shape[1]):
        live = nblocks > b
        if live.all():
            state = compress(state, blocks[:, b])
        elif live.any():
            state[live] = compress(state[live], blocks[live, b])
    return state.astype(">u4").view(np.uint8).reshape(n, 32)


def words_to_bits(words: np.ndarray) -> np.ndarray:
    """uint32[..., k] -> uint8[..., 32k] bits, big-endian within each word (SHA-256 order)."""
    w = np.asarray(words, dtype=np.uint32)
    shifts = np.arange(31, -1, -1, dtype=np.uint32)
    return ((w[..., None] >> shifts) & np.uint32(1)).astype(np.uint8).reshape(w.shape[:-1] + (32 * w.shape[-1],))


def bits_to_words(bits: np.ndarray) -> np.ndarray:
    """Inverse of `words_to_bits`."""
    b = np.asarray(bits, dtype=np.uint32)
    b = b.reshape(b.shape[:-1] + (b.shape[-1] // 32, 32))
    shifts = np.arange(31, -1, -1, dtype=np.uint32)
    return (b << shifts).sum(axis=-1, dtype=np.uint64).astype(np.uint32)
