"""Vectorized witness helpers shared by the stamped Filecoin circuits (PoRep, SnapDeals).

A stamped piece's aux values must come in the order its gadget allocates them, for N instances at
once (Montgomery field elements, bits as uint8). These are the pieces both circuits need: the
encodings of 0/1, a value's little-endian bits, the packing of a SHA-256 digest into a field element,
a cursor that fills consecutive aux columns, and a whole tree D level (the binary sha254 Merkle
step: insertion of the node among its sibling, SHA-256 of both children's bits, the packed digest),
whose templates are `tree_d.tree_d_pieces`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.insertion import insert_values
from cuzk.gadgets.poseidon.neptune_stamped import hash_witness
from cuzk.r1cs.witness_phases import phase

from .fr_bytes import from_mont, small_to_mont, to_mont

NUM_BITS = 255  # Fr::NUM_BITS: bits of AllocatedNum::to_bits_le


@functools.cache
def _one_cached() -> np.ndarray:
    out = small_to_mont([1])[0]
    out.flags.writeable = False
    return out


def one() -> np.ndarray:
    """The Montgomery form of 1, uint64[4]."""
    return _one_cached()


def bit_mont(bits: np.ndarray) -> np.ndarray:
    """0/1 array -> Montgomery (0 or R), one more axis of 4 limbs."""
    return np.where(np.asarray(bits, dtype=bool)[..., None], one(), np.uint64(0))


def le_bits(values_mont: np.ndarray, nbits: int = NUM_BITS) -> np.ndarray:
    """Montgomery [..., 4] -> the canonical value's little-endian bits uint8[..., nbits]."""
    return np.unpackbits(from_mont(values_mont), axis=-1, bitorder="little")[..., :nbits]


def packed(digest_bits: np.ndarray) -> np.ndarray:
    """SHA-order digest bits uint8[N, 256] -> pack_digest's value (the first 254 little-endian bits
    of the digest's bytes), Montgomery [N, 4]."""
    d = np.packbits(digest_bits, axis=-1)
    d[:, 31] &= 0x3F
    return to_mont(d)


class Cursor:
    """Writes consecutive aux columns of N instances (Montgomery), in allocation order."""

    def __init__(self, n: int, width: int):
        self.aux = np.empty((n, width, 4), dtype=np.uint64)
        self.pos = 0

    def put(self, block: np.ndarray) -> np.ndarray:
        block = block.reshape(block.shape[0], -1, 4)
        k = block.shape[1]
        self.aux[:, self.pos : self.pos + k] = block
        self.pos += k
        return block

    def put_hash(self, inputs: np.ndarray) -> np.ndarray:
        """A Poseidon gadget of the inputs' arity (Filecoin's constants): its aux; returns the hash."""
        with phase("poseidon"):
            aux, out = hash_witness(np.ascontiguousarray(inputs))
        self.put(aux)
        return out

    def done(self) -> np.ndarray:
        if self.pos != self.aux.shape[1]:
            raise AssertionError(f"witness wrote {self.pos} of {self.aux.shape[1]} aux values")
        return self.aux


@dataclass
class TreeDStep:
    """One tree D level of N paths: the insertion's aux [N, 2, 4] (p0, p1), the SHA-256 piece's
    bits uint8[N, aux] and the packed parent [N, 1, 4]."""

    insert: np.ndarray
    hash: np.ndarray
    pack: np.ndarray

    @property
    def parent(self) -> np.ndarray:
        return self.pack[:, 0]


def tree_d_step(hash_piece, cur: np.ndarray, bit: np.ndarray, sibling: np.ndarray) -> TreeDStep:
    """The witness of a tree D step over N paths: cur and sibling Montgomery [N, 4], bit uint8[N]
    (1: the node is the right child); hash_piece: `tree_d.tree_d_pieces().hash`."""
    ins, pre = insert_values(cur, np.asarray(bit, dtype=np.uint8).reshape(-1, 1), sibling[:, None], one())
    return TreeDStep(ins, *sha_pair(hash_piece, pre[:, 0], pre[:, 1]))


def sha_pair(hash_piece, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bits uint8[N, aux] of the tree D hash piece, packed digest [N, 1, 4]) of sha254(left || right)
    for N pairs of Montgomery field elements (hash_piece: `tree_d.tree_d_pieces().hash`, whose
    aux are all on its bit tape)."""
    n = left.shape[0]
    ext = np.concatenate([le_bits(left), le_bits(right)], axis=1)
    bits = hash_piece.program.run_sliced(np.zeros((n, 2), np.uint8), ext).to_bits()
    return bits, packed(bits[:, hash_piece.outputs])[:, None]
