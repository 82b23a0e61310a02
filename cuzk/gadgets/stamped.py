"""A recorded gadget ready for stamping: template, interface, outputs.

`StampedGadget` bundles what a circuit needs to instantiate a gadget N times
(`cs.stamp(g.template, N, inputs, aux_values)`): the template, which
template aux indices are the gadget's outputs, and the curve. Each gadget
module supplies the vectorized witness function for its template.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.forward import forward
from cuzk.r1cs import Template

from .bit_tape import BitProgram


@dataclass(frozen=True, eq=False)
class StampedGadget:
    curve: str
    template: Template
    outputs: np.ndarray  # int64 template aux indices of the outputs, in output order
    program: BitProgram | None = None  # bit-level gadgets: the witness program

    @property
    def num_inputs(self) -> int:
        """Interface size (template inputs other than ONE)."""
        return self.template.num_inputs - 1

    num_aux = forward("template.num_aux")
    num_constraints = forward("template.num_constraints")

    def stamp(self, cs, inputs: np.ndarray, aux_values=None) -> np.ndarray:
        """Stamp len(inputs) copies into `cs`; returns the output variables int64[N, n_out].

        inputs: int64[N, num_inputs] variable codes of `cs` for the interface;
        aux_values: the vectorized witness (ignored when cs records only).
        """
        inputs = np.asarray(inputs, dtype=np.int64)
        n = inputs.shape[0]
        return cs.stamp_columns(self.template, n, inputs, aux_values if cs.needs_values else None, self.outputs)


def output_indices(out_vars) -> np.ndarray:
    """Template aux indices of output variables (which must be plain aux variables)."""
    codes = np.array([int(v) for v in out_vars], dtype=np.int64)
    if (codes >= 0).any():
        raise ValueError("template outputs must be aux variables created by the gadget")
    return ~codes
