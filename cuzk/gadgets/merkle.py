"""Merkle inclusion proofs in circuits: binary and arity-8 (any power of two)
trees hashed with Poseidon or SHA-256.

Conventions (shared with `merkle_native`): a node's children are hashed in
order; Poseidon nodes are field elements hashed with `poseidon_hash` of
arity `arity`; SHA-256 nodes are 256-bit digests and a parent is
sha256(child_0 || ... || child_{arity-1}) (no truncation). A path is, per
level from the leaves up, the arity-1 siblings in order and the position of
the current node among its siblings, given as log2(arity) witness bits,
little-endian; so the leaf index is the concatenation of the level positions
with the leaf level least significant.

`insert_*` places the current node among its siblings with a tree of
conditional selections (1 constraint per non-trivial select; identical
candidates fold).
"""

from __future__ import annotations

from cuzk.r1cs import LC

from .boolean import Boolean, pack_to_inputs, sha256_ch
from .num import Num
from .poseidon.gadget import poseidon_hash
from .sha256.gadget import sha256


def select_num(cs, bit: Boolean, a: Num, b: Num) -> Num:
    """bit ? a : b, one constraint: bit * (a - b) = out - b."""
    if a is b:
        return a
    if bit.is_constant:
        return a if bit.value else b
    value = None if bit.value is None or a.value is None or b.value is None else (a.value if bit.value else b.value)
    out = Num.alloc(cs, value)
    cs.enforce(bit.lc(), (a - b).lc(), (out - b).lc())
    return out


def select_bits(cs, bit: Boolean, a: list[Boolean], b: list[Boolean]) -> list[Boolean]:
    if a is b:
        return a
    return [sha256_ch(cs, bit, x, y) for x, y in zip(a, b)]


def _candidates(cur, siblings, k):
    """What slot k holds for each position p of the current node."""
    arity = len(siblings) + 1
    return [cur if p == k else (siblings[k] if p > k else siblings[k - 1]) for p in range(arity)]


def _mux(cs, bits, cands, select):
    for bit in bits:  # least significant position bit first
        cands = [select(cs, bit, cands[2 * m + 1], cands[2 * m]) for m in range(len(cands) // 2)]
    return cands[0]


def _check_shape(siblings, bits):
    arity = len(siblings) + 1
    if arity != 1 << len(bits):
        raise ValueError(f"{len(siblings)} siblings need {(arity - 1).bit_length()} position bits, got {len(bits)}")


def insert_num(cs, cur: Num, siblings: list[Num], bits: list[Boolean]) -> list[Num]:
    """The arity children with `cur` at position bits (little-endian)."""
    _check_shape(siblings, bits)
    if len(siblings) == 1:  # binary: the second slot is linear in the first
        first = select_num(cs, bits[0], siblings[0], cur)
        return [first, cur + siblings[0] - first]
    return [_mux(cs, bits, _candidates(cur, siblings, k), select_num) for k in range(len(siblings) + 1)]


def insert_bits(cs, cur: list[Boolean], siblings: list[list[Boolean]], bits: list[Boolean]) -> list[list[Boolean]]:
    _check_shape(siblings, bits)
    return [_mux(cs, bits, _candidates(cur, siblings, k), select_bits) for k in range(len(siblings) + 1)]


# ---- roots -----------------------------------------------------------------

def poseidon_root(cs, leaf: Num, path: list[tuple[list[Num], list[Boolean]]]) -> Num:
    """Root from a leaf and [(siblings, position bits)] per level."""
    cur = leaf
    for siblings, bits in path:
        cur = poseidon_hash(cs, insert_num(cs, cur, siblings, bits))
    return cur


def sha256_root(cs, leaf: list[Boolean], path: list[tuple[list[list[Boolean]], list[Boolean]]]) -> list[Boolean]:
    cur = list(leaf)
    for siblings, bits in path:
        cur = sha256(cs, [b for node in insert_bits(cs, cur, siblings, bits) for b in node])
    return cur


# ---- witness allocation + inclusion proofs ----------------------------------

def _position_bits(cs, position, nbits):
    return [Boolean.alloc(cs, None if position is None else (position >> i) & 1) for i in range(nbits)]


def _levels(arity, depth, siblings, positions):
    if arity < 2 or arity & (arity - 1):
        raise ValueError("arity must be a power of two")
    if siblings is not None and (len(siblings) != depth or len(positions) != depth):
        raise ValueError(f"path must have {depth} levels")
    return (arity - 1).bit_length()


def alloc_poseidon_path(cs, arity: int, depth: int, siblings=None, positions=None):
    """Witness path: siblings [depth][arity-1] ints, positions [depth] ints (None: recording)."""
    nbits = _levels(arity, depth, siblings, positions)
    values = cs.needs_values
    return [
        ([Num.alloc(cs, siblings[lv][j] if values else None) for j in range(arity - 1)],
         _position_bits(cs, positions[lv] if values else None, nbits))
        for lv in range(depth)
    ]


def alloc_sha256_path(cs, arity: int, depth: int, siblings=None, positions=None):
    """Witness path: siblings [depth][arity-1] 32-byte digests, positions [depth] ints."""
    nbits = _levels(arity, depth, siblings, positions)
    values = cs.needs_values

    def digest_bits(d):
        return [Boolean.alloc(cs, (d[i // 8] >> (7 - i % 8)) & 1 if values else None) for i in range(256)]

    return [
        ([digest_bits(siblings[lv][j] if values else None) for j in range(arity - 1)],
         _position_bits(cs, positions[lv] if values else None, nbits))
        for lv in range(depth)
    ]


def poseidon_inclusion(cs, leaf: Num, arity: int, depth: int, siblings=None, positions=None,
                       public_root: bool = True) -> Num:
    """Prove `leaf` is in a Poseidon tree; the root becomes a public input
    (enforced equal to the computed root) or, with public_root=False, is
    returned as a variable for the caller to constrain."""
    root = poseidon_root(cs, leaf, alloc_poseidon_path(cs, arity, depth, siblings, positions))
    if not public_root:
        return root
    exposed = Num.alloc_input(cs, root.value if cs.needs_values else None)
    root.enforce_equal(cs, exposed)
    return exposed


def sha256_inclusion(cs, leaf: list[Boolean], arity: int, depth: int, siblings=None, positions=None,
                     public_root: bool = True):
    """SHA-256 tree inclusion; with public_root the 256 root bits are packed
    into public inputs (bellman multipack: little-endian bit order of the
    digest's SHA bit sequence, capacity-sized chunks) and their variables
    returned; otherwise the root bits are returned."""
    root = sha256_root(cs, leaf, alloc_sha256_path(cs, arity, depth, siblings, positions))
    return pack_to_inputs(cs, root) if public_root else root


def enforce_bits_equal(cs, a: list[Boolean], b: list[Boolean]) -> None:
    for x, y in zip(a, b):
        cs.enforce(x.lc() - y.lc(), LC.constant(1), LC())
