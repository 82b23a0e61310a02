"""SHA-256 as stamping templates with vectorized witnesses.

* `compression_template`: interface 768 bits (template inputs 1..256: the
  state, 257..768: the block, both in SHA-256 bit order, and they must be
  plain boolean variables of the parent); all 26,166 aux bits are its own,
  256 of them the new state (`outputs`); 26,192 constraints (bellperson's
  layout with a variable state: 26,166 booleanity + 26 packed additions).
* `hash_template(curve, nbytes)`: the full hash of a private `nbytes`-byte
  message: no interface; the message bits are the template's own witness
  bits (first 8*nbytes aux, constrained boolean), IV and padding are
  constants and fold away; `outputs` are the 256 digest bits.

The witness of N stamped copies comes from the bit tape recorded with the
template, run for all N at once (`compression_witness`, `hash_witness`).
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import fields_of
from cuzk.r1cs import RecordingCS

from .. import bit_tape
from ..boolean import Boolean
from ..stamped import StampedGadget, output_indices
from .gadget import alloc_message_bits, sha256, sha256_compression
from .native import words_to_bits


@functools.cache
def compression_template(curve: str) -> StampedGadget:
    cs = RecordingCS(curve)
    iface = cs.alloc_input_many(768)
    bits = [Boolean.of_var(v) for v in iface.tolist()]
    return compression_gadget(cs, curve, bits[:256], bits[256:])


def compression_gadget(cs: RecordingCS, curve: str, state, block) -> StampedGadget:
    """The template of one compression of `block` from `state` (Booleans over `cs`'s interface or
    constants), recorded with its own bit tape; outputs: the new state's 256 plain variables."""
    with bit_tape.recording(cs) as tape:
        out = sha256_compression(cs, state, block)
    if any(b.var is None or b.neg for b in out):
        raise AssertionError("compression outputs must be plain variables")
    program = tape.program()
    template = cs.template()
    assert program.num_aux == template.num_aux
    return StampedGadget(curve, template, output_indices(b.var for b in out), program)


def interface_bits(state: np.ndarray, block: np.ndarray) -> np.ndarray:
    """uint32[N, 8] state, uint32[N, 16] block -> the template's input bits uint8[N, 768]."""
    return np.concatenate([words_to_bits(state), words_to_bits(block)], axis=-1)


def compression_witness(curve: str, state: np.ndarray, block: np.ndarray, montgomery: bool = True) -> np.ndarray:
    """Aux assignment of N stamped compressions.

    Returns Montgomery uint64[N, num_aux, 4] (or the bits uint8[N, num_aux]
    with montgomery=False; `cs.stamp` accepts either, flattened for bits).
    """
    g = compression_template(curve)
    bits = g.program.run(interface_bits(np.asarray(state, np.uint32), np.asarray(block, np.uint32)))
    if not montgomery:
        return bits
    return bit_tape.bits_to_montgomery(bits, fields_of(curve)[0])


@functools.cache
def hash_template(curve: str, nbytes: int) -> StampedGadget:
    cs = RecordingCS(curve)
    with bit_tape.recording(cs) as tape:
        out = sha256(cs, alloc_message_bits(cs, None, nbytes))
    if any(b.var is None or b.neg for b in out):
        raise AssertionError("digest bits must be plain variables")
    return StampedGadget(curve, cs.template(), output_indices(b.var for b in out), tape.program())


def hash_witness(curve: str, messages: np.ndarray, montgomery: bool = True) -> np.ndarray:
    """Aux assignment of N stamped hashes of messages uint8[N, nbytes]."""
    messages = np.asarray(messages, dtype=np.uint8)
    n, nbytes = messages.shape
    g = hash_template(curve, nbytes)
    bits = g.program.run(np.zeros((n, 0), dtype=np.uint8), np.unpackbits(messages, axis=1))
    if not montgomery:
        return bits
    return bit_tape.bits_to_montgomery(bits, fields_of(curve)[0])
