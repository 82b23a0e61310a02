"""Bit-level building blocks of the workload circuits, as stamping templates.

Every template here is recorded once (per curve and shape) under a bit tape,
so the witness of N stamped copies is one `program.run` over N instances
(`cuzk.gadgets.bit_tape`). Interfaces are lists of template inputs that a
circuit maps onto its own variables; a "node" is 254 kept bits in SHA-256
order (see `fr_bytes`), its two dropped bits are constant zeros inside the
templates, so they cost nothing.

    sha_level     binary SHA-256 Merkle level: [cur node, position bit] -> parent node
                  (own: the sibling's 254 bits; the pair is swapped by the bit)
    sha_pair      [left node, right node] -> parent node (apex trees)
    sha_first     first compression from the constant IV: [512 block bits] -> 256 state bits
    sha_final     last compression with constant padding: [256 state, tail bits] -> 256 digest bits
    compression   (cuzk.gadgets.sha256.stamped) [256 state, 512 block] -> 256 state bits
    decompose     [target] -> own bits whose packing equals target (node: 254 SHA-order
                  bits; index: n little-endian bits)
    free_bits     no interface; n own boolean bits
    pack_equal    [node bits, target]: packing(node) == target, 1 constraint, no aux
    porep_encode  [key, replica] -> own data node bits with key + data == replica
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.gadgets import bit_tape
from cuzk.gadgets.boolean import Boolean, sha256_ch
from cuzk.gadgets.sha256.gadget import iv_bits, padding_bits, sha256, sha256_compression
from cuzk.gadgets.sha256.stamped import compression_template
from cuzk.gadgets.stamped import StampedGadget, output_indices
from cuzk.r1cs import LC, ONE, RecordingCS

from .fr_bytes import KEPT, NODE_BITS, SHA_WEIGHTS

ZERO_BIT = Boolean.constant(False)


def _node(bits_254: list[Boolean]) -> list[Boolean]:
    """254 kept bits -> the node's 256 SHA-order bits (dropped positions constant 0)."""
    full = [ZERO_BIT] * 256
    for pos, b in zip(KEPT.tolist(), bits_254):
        full[pos] = b
    return full


def _kept(bits_256: list[Boolean]) -> list[Boolean]:
    return [bits_256[i] for i in KEPT.tolist()]


def _iface_bits(cs, n: int) -> list[Boolean]:
    return [Boolean.of_var(v) for v in cs.alloc_input_many(n).tolist()]


def _finish(cs, tape, out_bits, curve) -> StampedGadget:
    if any(b.var is None or b.neg for b in out_bits):
        raise AssertionError("template outputs must be plain variables")
    program = tape.program()
    template = cs.template()
    assert program.num_aux == template.num_aux
    return StampedGadget(curve, template, output_indices(b.var for b in out_bits), program)


def node_lc(bits: list[Boolean]) -> LC:
    """The field element a node's kept bits encode (linear, free)."""
    return LC.from_arrays(np.array([b.var for b in bits], dtype=np.int64), SHA_WEIGHTS)


@functools.cache
def sha_level(curve: str) -> StampedGadget:
    cs = RecordingCS(curve)
    cur = _iface_bits(cs, NODE_BITS)
    (pos,) = _iface_bits(cs, 1)
    with bit_tape.recording(cs) as tape:
        sib = [Boolean.alloc(cs) for _ in range(NODE_BITS)]
        c, s = _node(cur), _node(sib)
        left = [sha256_ch(cs, pos, y, x) for x, y in zip(c, s)]   # pos = 1: cur is the right child
        right = [sha256_ch(cs, pos, x, y) for x, y in zip(c, s)]
        out = sha256(cs, left + right)
    return _finish(cs, tape, _kept(out), curve)


@functools.cache
def sha_pair(curve: str) -> StampedGadget:
    cs = RecordingCS(curve)
    left = _iface_bits(cs, NODE_BITS)
    right = _iface_bits(cs, NODE_BITS)
    with bit_tape.recording(cs) as tape:
        out = sha256(cs, _node(left) + _node(right))
    return _finish(cs, tape, _kept(out), curve)


@functools.cache
def sha_first(curve: str) -> StampedGadget:
    cs = RecordingCS(curve)
    block = _iface_bits(cs, 512)
    with bit_tape.recording(cs) as tape:
        out = sha256_compression(cs, iv_bits(), block)
    return _finish(cs, tape, out, curve)


@functools.cache
def sha_final(curve: str, tail_bits: int, message_bits: int) -> StampedGadget:
    """The last block of a `message_bits`-bit message whose final `tail_bits`
    bits (0 or less than 448) share the block with the constant padding."""
    pad = padding_bits(message_bits)
    if (tail_bits + len(pad)) != 512:
        raise ValueError(f"{tail_bits} tail bits and {len(pad)} padding bits do not make one block")
    cs = RecordingCS(curve)
    state = _iface_bits(cs, 256)
    tail = _iface_bits(cs, tail_bits)
    with bit_tape.recording(cs) as tape:
        out = sha256_compression(cs, state, tail + pad)
    return _finish(cs, tape, out, curve)


def compression(curve: str) -> StampedGadget:
    return compression_template(curve)


@functools.cache
def decompose_node(curve: str) -> StampedGadget:
    """[target] -> 254 own bits (SHA order) with packing == target."""
    cs = RecordingCS(curve)
    target = cs.alloc_input()
    with bit_tape.recording(cs) as tape:
        bits = [Boolean.alloc(cs) for _ in range(NODE_BITS)]
    cs.enforce(node_lc(bits), ONE, LC.of(target))
    return _finish(cs, tape, bits, curve)


@functools.cache
def decompose_index(curve: str, nbits: int) -> StampedGadget:
    """[target] -> nbits own little-endian bits with packing == target."""
    cs = RecordingCS(curve)
    target = cs.alloc_input()
    with bit_tape.recording(cs) as tape:
        bits = [Boolean.alloc(cs) for _ in range(nbits)]
    cs.enforce(LC.from_arrays(np.array([b.var for b in bits], dtype=np.int64), [1 << i for i in range(nbits)]),
               ONE, LC.of(target))
    return _finish(cs, tape, bits, curve)


@functools.cache
def free_bits(curve: str, nbits: int) -> StampedGadget:
    cs = RecordingCS(curve)
    with bit_tape.recording(cs) as tape:
        bits = [Boolean.alloc(cs) for _ in range(nbits)]
    return _finish(cs, tape, bits, curve)


@functools.cache
def pack_equal(curve: str) -> StampedGadget:
    cs = RecordingCS(curve)
    bits = _iface_bits(cs, NODE_BITS)
    target = cs.alloc_input()
    with bit_tape.recording(cs) as tape:
        cs.enforce(node_lc(bits), ONE, LC.of(target))
    return _finish(cs, tape, [], curve)


@functools.cache
def porep_encode(curve: str) -> StampedGadget:
    """[key, replica] -> own data-node bits; enforces key + data == replica
    (the PoRep encoding, addition in Fr)."""
    cs = RecordingCS(curve)
    key = cs.alloc_input()
    replica = cs.alloc_input()
    with bit_tape.recording(cs) as tape:
        bits = [Boolean.alloc(cs) for _ in range(NODE_BITS)]
    cs.enforce(node_lc(bits) + LC.of(key) - LC.of(replica), ONE, LC())
    return _finish(cs, tape, bits, curve)
