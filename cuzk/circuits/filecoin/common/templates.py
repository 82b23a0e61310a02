"""Recording the templates of the stamped Filecoin circuits.

A template is recorded over an interface of public inputs that stand for the values it reads:
`input_nums` and `input_bits` allocate that interface, `recorded_gadget` turns the recorded
constraint system into a StampedGadget of Filecoin's curve with the given outputs.
"""

from __future__ import annotations

from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.num import Num
from cuzk.gadgets.stamped import StampedGadget, output_indices

from .fr_bytes import CURVE


def input_nums(cs, n: int) -> list[Num]:
    return [Num.of_var(v, None, cs.modulus) for v in cs.alloc_input_many(n).tolist()]


def input_bits(cs, n: int) -> list[Boolean]:
    return [Boolean.of_var(v) for v in cs.alloc_input_many(n).tolist()]


def recorded_gadget(cs, outputs=(), program=None) -> StampedGadget:
    return StampedGadget(CURVE, cs.template(), output_indices(outputs), program)
