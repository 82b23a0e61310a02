"""Tree D's step: the binary sha254 Merkle tree over a sector's data (PoRep's comm_d, SnapDeals'
comm_d_new).

A parent is SHA-256 of its two children's 32-byte encodings with the digest's two top bits cleared
(storage-proofs-core Sha256Hasher). Natively `sha_level` hashes a whole level; in the circuit a step
is the index bit and sibling with their insertion (`tree_d_level`), each child's to_bits_le and
SHA-256 (`sha_leaves`), and the digest packed into one number (`pack_digest`). The stamped circuits
record these three once (`tree_d_pieces`) and compute their witness with
`stamped_witness.tree_d_step`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets import bit_tape
from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.insertion import insert
from cuzk.gadgets.num import Num
from cuzk.gadgets.sha256.filecoin import flip_byte_bits, num_to_bits_le, pack_bits, sha254_many
from cuzk.gadgets.sha256.gadget import sha256
from cuzk.gadgets.stamped import StampedGadget
from cuzk.r1cs import RecordingCS

from .fr_bytes import CURVE
from .stamped_witness import NUM_BITS
from .templates import input_bits, input_nums, recorded_gadget


def sha_level(kids: np.ndarray) -> np.ndarray:
    """One tree D level: [Np, 2, 32] -> [Np, 32] (sha254 of the 64-byte pair)."""
    return sha254_many(np.ascontiguousarray(kids).reshape(len(kids), 64))


# ---- the gadget-level step -----------------------------------------------------------------------


def tree_d_level(cs, cur: Num, index_bit: int | None, sibling: int | None) -> tuple[Boolean, list[Num]]:
    """A tree D level up to its preimage: the index bit, the sibling, the insertion (arity 2)."""
    with cs.namespace("index bit 0"):
        bit = Boolean.alloc(cs, index_bit)
    with cs.namespace("path element 0"):
        sib = Num.alloc(cs, sibling)
    return bit, insert(cs, cur, [bit], [sib])


def sha_leaves(cs, leaves: list[Num]) -> list[Boolean]:
    """Sha256Function::hash_multi_leaf_circuit up to the digest: each leaf's to_bits_le, its bytes
    in SHA-256 bit order, then SHA-256 (digest bits in SHA-256 order)."""
    bits = []
    for i, leaf in enumerate(leaves):
        with cs.namespace(f"{i}_num_into_bits"):
            bits += flip_byte_bits(num_to_bits_le(cs, leaf))
    with cs.namespace("hash"):
        return sha256(cs, bits)


def pack_digest(cs, digest: list[Boolean]) -> Num:
    """The digest's first 254 little-endian bits as one new number (multipack::pack_bits)."""
    return pack_bits(cs, flip_byte_bits(digest))


# ---- the recorded step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeDPieces:
    front: StampedGadget  # [cur] -> aux [bit, sibling, p0, p1]
    hash: StampedGadget  # [p0, p1] -> to_bits of both, SHA-256; outputs the 256 digest bits
    pack: StampedGadget  # [256 digest bits] -> the packed number (aux 0, output)


@functools.cache
def tree_d_pieces() -> TreeDPieces:
    cs = RecordingCS(CURVE)
    (cur,) = input_nums(cs, 1)
    tree_d_level(cs, cur, None, None)
    front = recorded_gadget(cs)

    cs = RecordingCS(CURVE)
    leaves = input_nums(cs, 2)
    with bit_tape.recording(cs) as tape:
        digest = sha_leaves(cs, leaves)
    program = tape.program()
    hash_ = recorded_gadget(cs, [b.var for b in digest], program)
    if program.num_aux != hash_.num_aux or program.num_external != 2 * NUM_BITS:
        raise AssertionError("tree D hash: every aux must be on the bit tape")

    cs = RecordingCS(CURVE)
    out = pack_digest(cs, input_bits(cs, 256))
    return TreeDPieces(front, hash_, recorded_gadget(cs, [out.single_var()]))
