"""Bit-sliced values: the bits of 64 instances of a template in one uint64 word.

A bit-level template's witness (SHA-256: ~26k aux bits per compression, 94%
of a PoRep partition) is computed 64 instances at a time, lane k of word
[g, j] holding aux bit j of instance 64*g + k (`cuzk.gadgets.bit_tape`).
`SlicedBits` carries that result into the witness store unchanged (1 bit
per aux value: a 32 GiB PoRep partition's 130M bits are 16 MB) until
`WitnessCS.witness()` expands it, once, into Montgomery limbs; `columns`
unpacks the few outputs a circuit wires onward.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from cuzk.field.threads import run_spans


@dataclass(frozen=True, eq=False)
class SlicedBits:
    """Bits of `count` instances x `width` values: words uint64[ceil(count/64), width]."""

    words: np.ndarray
    count: int

    @property
    def width(self) -> int:
        return self.words.shape[1]

    @property
    def size(self) -> int:
        return self.count * self.width

    def columns(self, cols) -> np.ndarray:
        """Bits uint8[count, len(cols)] of value columns `cols`."""
        cols = np.ascontiguousarray(cols, dtype=np.int64).reshape(-1)
        out = np.empty((self.count, len(cols)), dtype=np.uint8)
        _unpack_columns(self.words, cols, out)
        return out

    def to_bits(self) -> np.ndarray:
        """All bits uint8[count, width] (tests, small cases)."""
        return self.columns(np.arange(self.width))

    def bit(self, i: int) -> int:
        """Value i in instance-major order (instance i // width, column i % width)."""
        k, j = divmod(int(i), self.width)
        return int(self.words[k >> 6, j] >> np.uint64(k & 63)) & 1

    @classmethod
    def pack(cls, bits: np.ndarray) -> "SlicedBits":
        """bits uint8[count, width] (0/1) -> sliced."""
        bits = np.ascontiguousarray(bits, dtype=np.uint8)
        n, m = bits.shape
        words = np.empty(((n + 63) >> 6, m), dtype=np.uint64)
        pack_words(bits, words)
        return cls(words, n)


@njit(nogil=True, cache=True)
def pack_words(bits, words):
    """words[g, j] = sum_k bits[64 g + k, j] << k (lanes past the last row are 0).
    On the calling thread, as `_unpack_columns`: both touch a template's interface
    only (~1 ms for 3,564 SHA-256 blocks), less than a parallel region can stall."""
    n, m = bits.shape
    for g in range(words.shape[0]):
        for j in range(m):
            words[g, j] = 0
        for k in range(min(64, n - 64 * g)):
            row = bits[64 * g + k]
            sh = np.uint64(k)
            for j in range(m):
                words[g, j] |= np.uint64(row[j] & 1) << sh


@njit(nogil=True, cache=True)
def _unpack_columns(words, cols, out):
    for k in range(out.shape[0]):
        g = k >> 6
        sh = np.uint64(k & 63)
        for t in range(cols.shape[0]):
            out[k, t] = np.uint8((words[g, cols[t]] >> sh) & np.uint64(1))


@njit(nogil=True, cache=True)
def expand_sliced_chunks_span(s0, s1, words, meta, items, table, out):
    flat = out.reshape(-1)
    r0, r1, r2, r3 = table[1, 0], table[1, 1], table[1, 2], table[1, 3]
    for i in range(s0, s1):
        c = items[i, 0]
        g = items[i, 1]
        off, width, count, start = meta[c, 0], meta[c, 1], meta[c, 2], meta[c, 3]
        row = off + g * width
        for k in range(64 * g, min(64 * g + 64, count)):
            sh = np.uint64(k & 63)
            q = (start + k * width) * 4
            for j in range(width):
                m = np.uint64(0) - ((words[row + j] >> sh) & np.uint64(1))  # all ones for a 1 bit
                flat[q] = r0 & m
                flat[q + 1] = r1 & m
                flat[q + 2] = r2 & m
                flat[q + 3] = r3 & m
                q += 4


def expand_sliced_chunks(words, meta, items, table, out):
    """Many sliced chunks into out uint64[rows, 4] in one parallel region. words: the
    chunks' words, concatenated; meta[c] = (offset in words, width, count, first row of
    out); items[i] = (chunk, word group): 64 instances each. Row start + k * width + j
    of out gets table[bit j of instance k] (table: the Montgomery forms of 0 and 1).
    Branch-free masked stores into the flat array: store-bound (~memset speed)."""
    run_spans(expand_sliced_chunks_span, items.shape[0], words, meta, items, table, out)
