"""Poseidon round constants and MDS matrix from the Grain LFSR.

A port of `generate_parameters_grain.sage` (the Poseidon reference
implementation, https://extgit.iaik.tugraz.at/krypto/hadeshash, code/; the
procedure of eprint 2019/458, appendix F): an 80-bit LFSR seeded with
(field=1 for GF(p), sbox=0 for x^alpha, n, t, R_F, R_P, thirty 1 bits),
160 warm-up steps, then self-shrinking (emit the second bit of each pair
whose first bit is 1). Round constants are n-bit big-endian draws with
rejection of values >= p; the MDS matrix is the Cauchy matrix
1/(x_i + y_j) of 2t further draws (reduced mod p, redrawn on duplicates or
a zero denominator), redrawn until the reference's subspace-trail checks
(`mds_security`) accept it.
"""

from __future__ import annotations

import numpy as np

from . import mds_security


class Grain:
    """The self-shrinking Grain LFSR bit stream of the reference script.

    The LFSR runs 18 steps per big-int operation (its nearest tap is 18
    positions back, so 18 new bits depend only on the current window); the
    self-shrinking pairs are then selected with numpy."""

    _BLOCK = 18

    def __init__(self, field: int, sbox: int, n: int, t: int, R_F: int, R_P: int):
        seed = (
            format(field, "02b") + format(sbox, "04b") + format(n, "012b")
            + format(t, "012b") + format(R_F, "010b") + format(R_P, "010b") + "1" * 30
        )
        self._window = sum(int(c) << k for k, c in enumerate(seed))  # bit k = b_{i+k}
        self._raw(160)  # warm-up, discarded
        self._out = np.zeros(0, dtype=np.uint8)
        self._pos = 0

    def _raw(self, count: int) -> np.ndarray:
        """The next `count` raw LFSR bits, oldest first."""
        blocks, sizes = [], []
        w = self._window
        while count > 0:
            b = min(self._BLOCK, count)
            new = (w >> 62 ^ w >> 51 ^ w >> 38 ^ w >> 23 ^ w >> 13 ^ w) & ((1 << b) - 1)
            blocks.append(new)
            sizes.append(b)
            w = (w >> b) | (new << (80 - b))
            count -= b
        self._window = w
        bits = (np.array(blocks, dtype=np.uint32)[:, None] >> np.arange(self._BLOCK, dtype=np.uint32)) & 1
        keep = np.arange(self._BLOCK)[None, :] < np.array(sizes)[:, None]
        return bits[keep].astype(np.uint8)

    def _refill(self, need: int) -> None:
        raw = self._raw(max(4 * need + 360, 1 << 14) // 36 * 36)  # an even number of bits
        pairs = raw.reshape(-1, 2)
        fresh = pairs[pairs[:, 0] == 1, 1]
        self._out = np.concatenate([self._out[self._pos:], fresh])
        self._pos = 0

    def next_bits(self, count: int) -> np.ndarray:
        while len(self._out) - self._pos < count:
            self._refill(count)
        bits = self._out[self._pos : self._pos + count]
        self._pos += count
        return bits

    def next_bit(self) -> int:
        return int(self.next_bits(1)[0])

    def next_int(self, nbits: int) -> int:
        """nbits output bits, most significant first."""
        bits = self.next_bits(nbits)
        pad = (-nbits) % 8
        return int.from_bytes(np.packbits(np.concatenate([np.zeros(pad, np.uint8), bits])).tobytes(), "big")


def round_constants(g: Grain, n: int, t: int, R_F: int, R_P: int, p: int) -> list[int]:
    out = []
    for _ in range((R_F + R_P) * t):
        v = g.next_int(n)
        while v >= p:
            v = g.next_int(n)
        out.append(v)
    return out


def cauchy_matrix(g: Grain, n: int, t: int, p: int) -> list[list[int]]:
    """`create_mds_p`: one Cauchy matrix from 2t draws."""
    while True:
        draws = [g.next_int(n) % p for _ in range(2 * t)]
        while len(set(draws)) != len(draws):
            draws = [g.next_int(n) % p for _ in range(2 * t)]
        xs, ys = draws[:t], draws[t:]
        if any((x + y) % p == 0 for x in xs for y in ys):
            continue
        return [[pow((x + y) % p, -1, p) for y in ys] for x in xs]


def mds_matrix(g: Grain, n: int, t: int, p: int) -> list[list[int]]:
    """`generate_matrix`: the first Cauchy matrix passing the security checks."""
    while True:
        M = cauchy_matrix(g, n, t, p)
        if mds_security.is_secure(M, p):
            return M


def generate(p: int, t: int, R_F: int, R_P: int, alpha: int = 5) -> tuple[list[int], list[list[int]]]:
    """(round constants, MDS matrix) exactly as the reference script prints them."""
    if alpha < 0:
        raise ValueError("only x^alpha S-boxes are supported")
    n = p.bit_length()
    g = Grain(1, 0, n, t, R_F, R_P)
    rc = round_constants(g, n, t, R_F, R_P, p)
    return rc, mds_matrix(g, n, t, p)
