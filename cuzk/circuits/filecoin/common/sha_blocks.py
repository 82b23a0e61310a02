"""bellperson's SHA-256 gadget over messages with constant bits, one stamped template per block.

bellperson folds constant message bits (a constant XOR costs nothing, an addition of constant
words folds), so the R1CS of a compression depends on which block bits are constants and on
their values. A message of Booleans (plain variables or constants) is cut into 512-bit blocks
after bellperson's constant padding; each block is a `block_template` keyed by its pattern
(per bit: 0 or 1 for a constant, VAR for a variable) and by whether its state is the constant IV
(the first block) or the 256 output bits of the previous block. Stamping the blocks in order,
the state of block k+1 wired to the outputs of block k, is constraint for constraint and
variable for variable the inline `sha256` gadget: each compression is a separate MultiEq in
bellperson too.

Template interface: the 256 state bits (unless IV), then the block's variable bits in message
order; aux: the compression's bits (own bit tape, no external bits), outputs: the new state.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.sha256.gadget import iv_bits, padding_bits
from cuzk.gadgets.sha256.stamped import compression_gadget
from cuzk.gadgets.stamped import StampedGadget
from cuzk.r1cs import RecordingCS

VAR = 2  # pattern entry of a variable bit


@functools.cache
def block_template(curve: str, iv_state: bool, pattern: bytes) -> StampedGadget:
    """One compression: state IV (constant) or 256 interface bits; block bits per `pattern`."""
    if len(pattern) != 512 or not set(pattern) <= {0, 1, VAR}:
        raise ValueError("a block pattern is 512 entries of 0, 1 or VAR")
    cs = RecordingCS(curve)
    state = iv_bits() if iv_state else [Boolean.of_var(v) for v in cs.alloc_input_many(256).tolist()]
    nvar = pattern.count(VAR)
    it = iter(cs.alloc_input_many(nvar).tolist())
    block = [Boolean.of_var(next(it)) if p == VAR else Boolean.constant(p) for p in pattern]
    return compression_gadget(cs, curve, state, block)


@dataclass(frozen=True)
class MessageLayout:
    """A padded message as blocks: per message bit (padding included) its source, an index into
    the caller's vector of variable bits, or CONST0 / CONST1."""

    source: np.ndarray  # int64[blocks * 512]
    patterns: tuple[bytes, ...]

    CONST0 = -1
    CONST1 = -2

    @property
    def blocks(self) -> int:
        return len(self.patterns)

    def block_sources(self, k: int) -> np.ndarray:
        """Source indices of block k's variable bits, in interface order."""
        s = self.source[512 * k : 512 * (k + 1)]
        return s[s >= 0]

    def bits(self, values: np.ndarray) -> np.ndarray:
        """The padded message bits uint8[N, blocks * 512] for N instances' source bits uint8[N, S]."""
        src = self.source
        out = np.zeros((values.shape[0], len(src)), dtype=np.uint8)
        var = src >= 0
        out[:, var] = values[:, src[var]]
        out[:, src == self.CONST1] = 1
        return out

    def templates(self, curve: str) -> list[StampedGadget]:
        return [block_template(curve, k == 0, p) for k, p in enumerate(self.patterns)]


def layout(message: list[Boolean]) -> MessageLayout:
    """The layout of a message whose variable bits are template inputs 1.. of a recording
    (Boolean.of_var(i + 1) stands for source i); constants stay constants."""
    if len(message) % 8:
        raise ValueError("SHA-256 gadget: the message must be a whole number of bytes")
    bits = list(message) + padding_bits(len(message))
    src = np.empty(len(bits), dtype=np.int64)
    for i, b in enumerate(bits):
        if b.var is None:
            src[i] = MessageLayout.CONST1 if b.value else MessageLayout.CONST0
        elif b.neg or b.var <= 0:
            raise ValueError("message bits must be constants or plain interface variables")
        else:
            src[i] = b.var - 1
    pats = []
    for k in range(0, len(src), 512):
        s = src[k : k + 512]
        pats.append(bytes(np.where(s >= 0, VAR, np.where(s == MessageLayout.CONST1, 1, 0)).astype(np.uint8).tolist()))
    return MessageLayout(src, tuple(pats))


def stamp_message(cs, lay: MessageLayout, sources: np.ndarray, curve: str, aux: list | None) -> np.ndarray:
    """Stamp the blocks of one message into `cs`; sources: int64[S] variable codes of the source
    bits; aux: per block the stamped values (witness modes) or None. Returns the digest codes [256]."""
    state = None
    for k, g in enumerate(lay.templates(curve)):
        iface = sources[lay.block_sources(k)]
        if state is not None:
            iface = np.concatenate([state, iface])
        out = cs.stamp_columns(g.template, 1, iface[None, :], None if aux is None else aux[k], g.outputs)
        state = out[0]
    return state


def run_blocks(groups: list[tuple[MessageLayout, np.ndarray]], curve: str) -> list[tuple[list[np.ndarray], np.ndarray]]:
    """The aux bits of every block of N_g messages per group (layout, padded message bits uint8[N_g,
    blocks * 512]) -> per group (per block uint8[N_g, block aux], digest bits uint8[N_g, 256]).
    Bit-sliced tapes; a block whose template several groups share runs once for all of them."""
    nblocks = {lay.blocks for lay, _ in groups}
    if len(nblocks) != 1:
        raise ValueError("grouped messages must have the same number of blocks")
    states: list = [None] * len(groups)
    per_block: list[list] = [[] for _ in groups]
    for k in range(nblocks.pop()):
        by_template: dict[int, list[int]] = {}
        templates = [lay.templates(curve)[k] for lay, _ in groups]
        for gi, g in enumerate(templates):
            by_template.setdefault(id(g), []).append(gi)
        for members in by_template.values():
            g = templates[members[0]]
            inputs = []
            for gi in members:
                lay, bits = groups[gi]
                var = lay.source[512 * k : 512 * (k + 1)] >= 0
                inp = bits[:, 512 * k : 512 * (k + 1)][:, var]
                inputs.append(inp if states[gi] is None else np.concatenate([states[gi], inp], axis=1))
            block = g.program.run_sliced(np.ascontiguousarray(np.concatenate(inputs))).to_bits()
            start = 0
            for gi, inp in zip(members, inputs):
                part = block[start : start + len(inp)]
                start += len(inp)
                per_block[gi].append(part)
                states[gi] = np.ascontiguousarray(part[:, g.outputs])
    return [(per_block[gi], states[gi]) for gi in range(len(groups))]
