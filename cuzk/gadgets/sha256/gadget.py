"""SHA-256 in circuits, bit-exact with hashlib and laid out as bellperson's gadget.

Filecoin's Groth16 parameters were generated from bellperson's SHA-256
(`gadgets/sha256.rs`), so this follows it step for step: the message
schedule (sigma0 then sigma1 as two word XORs each, then one 4-word
addition), rounds whose new `a` and `e` stay deferred word lists until the
next round needs them (so each is one addition of 6 or 7 words, the round
constant among them), `sha256_ch` / `sha256_maj` bit gadgets, the final
additions into the state (h0 and h4 absorb the deferred `a` and `e`), and
one `MultiEq` per compression for all additions. With the constant IV and a
variable 512-bit block a compression costs 25,840 constraints; a full hash
of 512 variable bits 44,874 (bellperson's test numbers).

Bits are `Boolean`s in SHA-256's own order: big-endian within each 32-bit
word, words in order (digest bit 8*i + k is bit 7-k of digest byte i).
"""

from __future__ import annotations

from ..boolean import Boolean
from ..multieq import MultiEq
from ..uint32 import UInt32
from .native import IV, K


def _sum(meq, value):
    """A round's `a` or `e`: a word, or a deferred list of words to add."""
    return UInt32.addmany(meq, value) if isinstance(value, list) else value


def compression_words(cs, state: list[UInt32], block: list[UInt32]) -> list[UInt32]:
    """One compression on words: 8 state words, 16 block words -> 8 words."""
    if len(state) != 8 or len(block) != 16:
        raise ValueError("SHA-256 compression takes 8 state words and 16 block words")
    meq = MultiEq(cs)
    w = list(block)
    for t in range(16, 64):
        x, y = w[t - 15], w[t - 2]
        s0 = x.rotr(7).xor(cs, x.rotr(18)).xor(cs, x.shr(3))
        s1 = y.rotr(17).xor(cs, y.rotr(19)).xor(cs, y.shr(10))
        w.append(UInt32.addmany(meq, [w[t - 16], s0, w[t - 7], s1]))
    a, b, c, d, e, f, g, h = state
    for t in range(64):
        e = _sum(meq, e)
        s1 = e.rotr(6).xor(cs, e.rotr(11)).xor(cs, e.rotr(25))
        ch = UInt32.sha256_ch(cs, e, f, g)
        temp1 = [h, s1, ch, UInt32.constant(int(K[t])), w[t]]
        a = _sum(meq, a)
        s0 = a.rotr(2).xor(cs, a.rotr(13)).xor(cs, a.rotr(22))
        maj = UInt32.sha256_maj(cs, a, b, c)
        h, g, f, e, d, c, b, a = g, f, e, temp1 + [d], c, b, a, temp1 + [s0, maj]
    out = [
        _sum(meq, a + [state[0]]),
        UInt32.addmany(meq, [state[1], b]),
        UInt32.addmany(meq, [state[2], c]),
        UInt32.addmany(meq, [state[3], d]),
        _sum(meq, e + [state[4]]),
        UInt32.addmany(meq, [state[5], f]),
        UInt32.addmany(meq, [state[6], g]),
        UInt32.addmany(meq, [state[7], h]),
    ]
    meq.flush()
    return out


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


def sha256_block_no_padding(cs, block_bits: list[Boolean]) -> list[Boolean]:
    """One compression of 512 bits from the constant IV (bellperson's `sha256_block_no_padding`)."""
    return sha256_compression(cs, iv_bits(), block_bits)


def padding_bits(message_bits: int) -> list[Boolean]:
    """The constant SHA-256 padding for a message of `message_bits` bits."""
    zeros = (447 - message_bits) % 512
    length = [Boolean.constant((message_bits >> (63 - i)) & 1) for i in range(64)]
    return [Boolean.constant(True)] + [Boolean.constant(False)] * zeros + length


def sha256(cs, message_bits: list[Boolean]) -> list[Boolean]:
    """Digest bits of a message given as bits (a whole number of bytes, as
    bellperson requires); IV and padding are constants."""
    if len(message_bits) % 8:
        raise ValueError("SHA-256 gadget: the message must be a whole number of bytes")
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
