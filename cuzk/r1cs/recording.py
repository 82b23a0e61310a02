"""RecordingCS: records the structure of a circuit into growable int64 arrays.

Each `enforce` appends the three LCs' variable and coefficient codes to
`array('q')` buffers (C-level extends) plus one row length; stamping appends
whole numpy blocks. Nothing per constraint is a Python object. `compile()`
turns the buffers into a `CompiledCircuit` (CSR, coefficient table,
densities, topology hash); `template()` into a `Template` for stamping.
"""

from __future__ import annotations

from array import array

import numpy as np

from .compiled import CompiledCircuit, compile_rows
from .stamping import SparseRows, Template, instantiate
from .system import ConstraintSystem


class RowBuffer:
    """One matrix being recorded: row lengths, variable codes, coefficient codes."""

    __slots__ = ("lens", "vars", "coeffs")

    def __init__(self):
        self.lens = array("q")
        self.vars = array("q")
        self.coeffs = array("q")

    def add_block(self, rows: SparseRows) -> None:
        self.lens.frombytes(np.ascontiguousarray(rows.lens, dtype=np.int64).tobytes())
        self.vars.frombytes(np.ascontiguousarray(rows.vars, dtype=np.int64).tobytes())
        self.coeffs.frombytes(np.ascontiguousarray(rows.coeffs, dtype=np.int64).tobytes())

    def to_rows(self) -> SparseRows:
        def arr(a):
            return np.frombuffer(a, dtype=np.int64).copy() if len(a) else np.zeros(0, np.int64)

        return SparseRows(arr(self.lens), arr(self.vars), arr(self.coeffs))


class StructureRecorder:
    """The structural half shared by RecordingCS and TestCS."""

    def _init_structure(self):
        self._rows = (RowBuffer(), RowBuffer(), RowBuffer())

    def _record(self, a, b, c, name) -> None:
        for buf, lc in zip(self._rows, (a, b, c)):
            buf.vars.extend(lc.vars)
            buf.coeffs.extend(lc.coeffs)
            buf.lens.append(len(lc.vars))

    def _record_stamp(self, template: Template, count, inputs, aux_base) -> None:
        for buf, rows in zip(self._rows, template.matrices):
            buf.add_block(instantiate(rows, count, inputs, aux_base, template.num_aux))

    def sparse_rows(self) -> tuple[SparseRows, SparseRows, SparseRows]:
        """The recorded A, B, C in variable-code form (copies)."""
        return tuple(buf.to_rows() for buf in self._rows)

    def template(self) -> Template:
        """This recording as a stamping template (inputs = its interface)."""
        return Template(self.num_inputs, self.num_aux, self.num_constraints, *self.sparse_rows())

    def compile(self) -> CompiledCircuit:
        """-> CompiledCircuit (input rows `input_i * 0 = 0` appended, as bellperson does)."""
        return compile_rows(self.curve, self.num_inputs, self.num_aux, self.sparse_rows())


class RecordingCS(StructureRecorder, ConstraintSystem):
    """Structure only: values are ignored and value callables never called."""

    needs_values = False

    def __init__(self, curve: str):
        ConstraintSystem.__init__(self, curve)
        self._init_structure()
