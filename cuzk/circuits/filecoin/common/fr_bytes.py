"""Node encodings shared by the circuits and their input generators.

Filecoin stores every tree node and label as the 32-byte little-endian
representation of an Fr element. SHA-256 nodes are digests with the two top
bits cleared (`digest[31] &= 0x3f`), so they are Fr elements below 2^254.
Inside circuits such a node is 256 bits in SHA-256 order (byte 0's most
significant bit first); positions 248 and 249 (the two cleared bits of byte
31) are the constant zero, so a node is carried as its other 254 bits,
`KEPT` positions in SHA order. `SHA_WEIGHTS` packs those bits back into the
field element (a linear combination, no constraint of its own).
"""

from __future__ import annotations

import numpy as np

from cuzk.field import fields_of

CURVE = "bls12_381"
NODE_BYTES = 32
DROPPED = (248, 249)  # SHA-order positions of bits 7 and 6 of byte 31
KEPT = np.array([i for i in range(256) if i not in DROPPED], dtype=np.int64)
NODE_BITS = len(KEPT)  # 254
TOP_MASK = 0x3F


def sha_weight_exponents() -> np.ndarray:
    """Exponent of 2 of each kept SHA-order bit in the node's integer value."""
    return 8 * (KEPT // 8) + 7 - KEPT % 8


SHA_WEIGHTS = [1 << int(e) for e in sha_weight_exponents()]


def fr():
    return fields_of(CURVE)[0]


def truncate(digests: np.ndarray) -> np.ndarray:
    """SHA-256 digests uint8[..., 32] -> Fr-safe nodes (top two bits cleared), a copy."""
    out = np.array(digests, dtype=np.uint8, copy=True)
    out[..., 31] &= TOP_MASK
    return out


def node_bits(nodes: np.ndarray) -> np.ndarray:
    """Nodes uint8[..., 32] -> their kept SHA-order bits uint8[..., 254]."""
    return np.unpackbits(np.asarray(nodes, dtype=np.uint8), axis=-1)[..., KEPT]


def bits_to_nodes(bits: np.ndarray) -> np.ndarray:
    """Kept bits uint8[..., 254] -> nodes uint8[..., 32] (dropped bits zero)."""
    bits = np.asarray(bits, dtype=np.uint8)
    full = np.zeros(bits.shape[:-1] + (256,), dtype=np.uint8)
    full[..., KEPT] = bits
    return np.packbits(full, axis=-1)


def to_mont(nodes: np.ndarray) -> np.ndarray:
    """32-byte LE encodings uint8[..., 32] -> Montgomery uint64[..., 4].

    Values >= r raise ValueError (the vanilla decoder turns that into a
    FormatError naming the array)."""
    nodes = np.ascontiguousarray(nodes, dtype=np.uint8)
    shape = nodes.shape[:-1]
    limbs = nodes.reshape(-1, NODE_BYTES).view("<u8").astype(np.uint64)
    f = fr()
    ok = f.is_canonical(limbs)
    if not ok.all():
        raise ValueError(f"element {int(np.argmin(ok))} is not a field element (>= r)")
    return f.to_mont(limbs).reshape(shape + (4,))


def non_canonical_rows(nodes: np.ndarray) -> np.ndarray:
    """int64 indices of the rows of uint8[N, 32] whose little-endian value is not below r
    (Rust converts every node to Fr and refuses those)."""
    rows = np.ascontiguousarray(nodes, dtype=np.uint8).reshape(-1, 32)
    return np.flatnonzero(~fr().is_canonical(rows.view("<u8").astype(np.uint64)))


def from_mont(values: np.ndarray) -> np.ndarray:
    """Montgomery uint64[..., 4] -> 32-byte LE encodings uint8[..., 32]."""
    values = np.ascontiguousarray(values, dtype=np.uint64)
    shape = values.shape[:-1]
    canon = np.ascontiguousarray(fr().from_mont(values.reshape(-1, 4)), dtype="<u8")
    return canon.view(np.uint8).reshape(shape + (NODE_BYTES,))


def random_nodes(rng: np.random.Generator, shape) -> np.ndarray:
    """Uniform nodes below 2^254 (valid Fr elements and SHA-tree leaves)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    out = rng.integers(0, 256, size=shape + (NODE_BYTES,), dtype=np.uint8)
    out[..., 31] &= TOP_MASK
    return out


def random_fr(rng: np.random.Generator, shape) -> np.ndarray:
    """Uniform Fr elements as 32-byte LE encodings."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    return from_mont(fr().random(n, rng)).reshape(shape + (NODE_BYTES,))


def index_bits(indices: np.ndarray, nbits: int) -> np.ndarray:
    """Little-endian bits uint8[..., nbits] of non-negative integers."""
    idx = np.asarray(indices, dtype=np.uint64)
    shifts = np.arange(nbits, dtype=np.uint64)
    return ((idx[..., None] >> shifts) & np.uint64(1)).astype(np.uint8)


def small_to_mont(values) -> np.ndarray:
    """Non-negative integers below 2^64 (indices) -> Montgomery uint64[n, 4]."""
    values = np.asarray(values, dtype=np.uint64).ravel()
    limbs = np.zeros((len(values), 4), dtype=np.uint64)
    limbs[:, 0] = values
    return fr().to_mont(limbs)


def ints(values_mont: np.ndarray) -> list[int]:
    """Montgomery values -> canonical Python ints (edge use: public inputs)."""
    return fr().to_ints(np.asarray(values_mont, dtype=np.uint64).reshape(-1, 4))
