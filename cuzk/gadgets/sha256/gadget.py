"""SHA-256 in circuits (FIPS 180-4), bit-exact with hashlib.

Bits are `Boolean`s in SHA-256's own order: big-endian within each 32-bit
word, words in order (so digest bit 8*i + k is bit 7-k of digest byte i).
`sha256_compression` is one compression of a 256-bit state with a 512-bit
block (26,416 constraints when everything is variable); `sha256` pads the
message with constant bits and chains compressions from the constant IV,
so constant folding removes much of the first and all of the padding-only
blocks' message-schedule cost.
"""

from __future__ import annotations

from ..boolean import Boolean
from ..uint32 import UInt32
from .native import IV, K


def compression_words(cs, state: list[UInt32], block: list[UInt32]) -> list[UInt32]:
    """One compression on words: 8 state words, 16 block words -> 8 words."""
    if len(state) != 8 or len(block) != 16:
        raise ValueError("SHA-256 compression takes 8 state words and 16 block words")
    w = list(block)
    for t in range(16, 64):
        x, y = w[t - 15], w[t - 2]
        s0 = UInt32.xor3(cs, x.rotr(7), x.rotr(18), x.shr(3))
        s1 = UInt32.xor3(cs, y.rotr(17), y.rotr(19), y.shr(10))
        w.append(UInt32.addmany(cs, [s1, w[t - 7], s0, w[t - 16]]))
    a, b, c, d, e, f, g, h = state
    for t in range(64):
        big_s1 = UInt32.xor3(cs, e.rotr(6), e.rotr(11), e.rotr(25))
        chv = UInt32.ch(cs, e, f, g)
        big_s0 = UInt32.xor3(cs, a.rotr(2), a.rotr(13), a.rotr(22))
        mj = UInt32.maj(cs, a, b, c)
        k = int(K[t])
        new_e = UInt32.addmany(cs, [d, h, big_s1, chv, w[t]], k)
        new_a = UInt32.addmany(cs, [h, big_s1, chv, w[t], big_s0, mj], k)
        h, g, f, e, d, c, b, a = g, f, e, new_e, c, b, a, new_a
    return [UInt32.addmany(cs, [s, x]) for s, x in zip(state, (a, b, c, d, e, f, g, h))]


def words_from_bits(bits: list[Boolean]) -> list[UInt32]:
    return [UInt32.from_bits_be(bits[i : i + 32]) for i in range(0, len(bits), 32)]


def bits_from_words(words: list[UInt32]) -> list[Boolean]:
    return [b for w in words for b in w.bits_be()]


def sha256_compression(cs, state_bits: list[Boolean], block_bits: list[Boolean]) -> list[Boolean]:
    """256 state bits + 512 block bits -> 256 new state bits (SHA-256 bit order)."""
    if len(state_bits) != 256 or len(block_bits) != 512:
        raise ValueError("SHA-256 compression takes 256 state bits and 512 block bits")
    return bits_from_words(compression_words(cs, words_from_bits(state_bits), words_from_bits(block_bits)))


def iv_bits() -> list[Boolean]:
    return bits_from_words([UInt32.constant(int(v)) for v in IV])


def padding_bits(message_bits: int) -> list[Boolean]:
    """The constant SHA-256 padding for a message of `message_bits` bits."""
    zeros = (447 - message_bits) % 512
    length = [Boolean.constant((message_bits >> (63 - i)) & 1) for i in range(64)]
    return [Boolean.constant(True)] + [Boolean.constant(False)] * zeros + length


def sha256(cs, message_bits: list[Boolean]) -> list[Boolean]:
    """Digest bits of a message given as bits (any length), IV and padding constant."""
    bits = list(message_bits) + padding_bits(len(message_bits))
    state = iv_bits()
    for i in range(0, len(bits), 512):
        state = sha256_compression(cs, state, bits[i : i + 512])
    return state


def alloc_message_bits(cs, message: bytes | None, length: int) -> list[Boolean]:
    """Witness bits of a `length`-byte message (bytes None while recording)."""
    if cs.needs_values and (message is None or len(message) != length):
        raise ValueError(f"expected a {length}-byte message")
    out = []
    for i in range(8 * length):
        v = None if message is None or not cs.needs_values else (message[i // 8] >> (7 - i % 8)) & 1
        out.append(Boolean.alloc(cs, v))
    return out


def bits_to_bytes(bits: list[Boolean]) -> bytes:
    """Values of SHA-order bits -> bytes (for tests and callers)."""
    out = bytearray(len(bits) // 8)
    for i, b in enumerate(bits):
        if b.value is None:
            raise ValueError("bit value unknown (recording mode)")
        out[i // 8] |= int(b.value) << (7 - i % 8)
    return bytes(out)
