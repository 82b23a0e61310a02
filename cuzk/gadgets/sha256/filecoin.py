"""Filecoin's SHA-256 flavour ("sha254", filecoin-hashers' `Sha256Hasher`).

Filecoin stores SHA-256 digests as field elements: the digest bytes are read
little-endian (fr32's convention) and the two most significant bits of byte
31 are cleared so the value is below the BLS12-381 scalar modulus. Tree D
(comm_d) and piece commitments are built from it.

Native: `sha254` (one message) and `sha254_many` (N messages, vectorized).
In circuits, as rust-fil-proofs synthesizes them on top of the bellperson
SHA-256 gadget (single-circuit path; these allocate field elements, so they
are not for bit-tape templates):

    hash_circuit(cs, bits)     sha256 of SHA-order bits, then the digest's first
                               CAPACITY little-endian bits packed into one new
                               variable (multipack::pack_bits: 1 aux, 1 constraint)
    hash2_circuit(cs, a, b)    sha254(bytes(a) || bytes(b)) of two field elements:
                               each decomposed into NUM_BITS allocated bits
                               (AllocatedNum::to_bits_le), padded to 256, bytes
                               put back in SHA order, then `hash_circuit`
"""

from __future__ import annotations

import hashlib

import numpy as np

from cuzk.r1cs import LC, ONE

from ..boolean import FALSE, Boolean, pack_lc, pack_value
from ..num import Num
from .gadget import sha256
from .native import sha256 as sha256_native

TOP_BITS_MASK = 0b0011_1111  # byte 31 keeps its low 6 bits: 254 bits in all


def sha254(data: bytes) -> bytes:
    """SHA-256 of `data` with the two top bits of byte 31 cleared (32 bytes)."""
    d = bytearray(hashlib.sha256(data).digest())
    d[31] &= TOP_BITS_MASK
    return bytes(d)


def sha254_many(messages) -> np.ndarray:
    """uint8[N, 32] truncated digests of N messages (uint8[N, L] or a sequence of bytes)."""
    out = sha256_native(messages)
    out[:, 31] &= TOP_BITS_MASK
    return out


def digest_to_int(digest: bytes) -> int:
    """The field element a (truncated) digest stands for (little-endian bytes)."""
    return int.from_bytes(digest, "little")


def int_to_bytes(value: int) -> bytes:
    """A field element as its 32 little-endian bytes (fr32's `fr_into_bytes`)."""
    return int(value).to_bytes(32, "little")


# ---- in circuits -------------------------------------------------------------

def flip_byte_bits(bits: list[Boolean]) -> list[Boolean]:
    """Reverse the bit order inside each byte (after padding with constant zeros to whole
    bytes): a number's little-endian bits -> its little-endian bytes as SHA-256 message
    bits, and a digest's SHA-order bits -> the little-endian bits of its value."""
    bits = list(bits) + [FALSE] * (-len(bits) % 8)
    return [b for i in range(0, len(bits), 8) for b in reversed(bits[i : i + 8])]


def pack_bits(cs, bits: list[Boolean]) -> Num:
    """multipack::pack_bits: one new variable equal to the first CAPACITY bits (little-endian)."""
    bits = list(bits)[: cs.modulus.bit_length() - 1]
    value = pack_value(bits) if cs.needs_values else None
    out = Num.alloc(cs, value)
    cs.enforce(pack_lc(bits), ONE, out.lc())
    return out


def num_to_bits_le(cs, num: Num) -> list[Boolean]:
    """AllocatedNum::to_bits_le: NUM_BITS new bits, least significant first, and
    the unpacking constraint 0 * 0 = sum 2^i bit_i - num."""
    n = cs.modulus.bit_length()
    v = num.value if cs.needs_values else None
    bits = [Boolean.alloc(cs, None if v is None else (v >> i) & 1) for i in range(n)]
    cs.enforce(LC(), LC(), pack_lc(bits) - num.lc())
    return bits


def hash_circuit(cs, bits: list[Boolean]) -> Num:
    """Sha256Function::hash_circuit: sha254 of SHA-order message bits, as one field element."""
    digest = sha256(cs, bits)
    return pack_bits(cs, flip_byte_bits(digest))


def hash2_circuit(cs, a: Num, b: Num) -> Num:
    """Sha256Function::hash2_circuit: sha254(bytes(a) || bytes(b))."""
    a_bits = num_to_bits_le(cs, a)
    b_bits = num_to_bits_le(cs, b)
    return hash_circuit(cs, flip_byte_bits(a_bits) + flip_byte_bits(b_bits))
