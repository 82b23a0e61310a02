"""RecordingCS: records the structure of a circuit without expanding its stamps.

Each `enforce` appends the three LCs' variable and coefficient codes to
`array('q')` buffers (C-level extends) plus one row length; a stamp is kept
as one segment (template, count, a copy of its inputs, aux base), a few bytes
per instance. Nothing per constraint is a Python object. `compile()` builds
the `CompiledCircuit` (CSR, coefficient table, densities, topology hash)
straight from the segments in its final narrow arrays (`assembly`: ~70 bytes
per constraint at peak, so a 2^27-row partition compiles on a 128 GiB host);
`sparse_rows()` and `template()` expand the stamps (small circuits: templates,
TestCS).
"""

from __future__ import annotations

from array import array

import numpy as np

from .assembly import assemble
from .compiled import CompiledCircuit
from .stamping import SparseRows, Template, instantiate
from .system import ConstraintSystem


class RowBuffer:
    """One matrix being recorded: row lengths, variable codes, coefficient codes."""

    __slots__ = ("lens", "vars", "coeffs")

    def __init__(self):
        self.lens = array("q")
        self.vars = array("q")
        self.coeffs = array("q")

    def view(self) -> SparseRows:
        """The buffers as arrays, without copying (record nothing while it is alive)."""
        def arr(a):
            return np.frombuffer(a, dtype=np.int64) if len(a) else np.zeros(0, np.int64)

        return SparseRows(arr(self.lens), arr(self.vars), arr(self.coeffs))


class StructureRecorder:
    """The structural half shared by RecordingCS and TestCS."""

    def _init_structure(self):
        self._rows = (RowBuffer(), RowBuffer(), RowBuffer())  # the enforce'd rows
        self._segments: list[tuple] = []  # (enforce'd rows before it, template, count, inputs, aux base)

    def _record(self, a, b, c, name) -> None:
        for buf, lc in zip(self._rows, (a, b, c)):
            buf.vars.extend(lc.vars)
            buf.coeffs.extend(lc.coeffs)
            buf.lens.append(len(lc.vars))

    def _record_stamp(self, template: Template, count, inputs, aux_base) -> None:
        inputs = np.array(inputs, dtype=np.int64, order="C")  # a copy: the caller may reuse its array
        self._segments.append((len(self._rows[0].lens), template, int(count), inputs, int(aux_base)))

    def sparse_rows(self) -> tuple[SparseRows, SparseRows, SparseRows]:
        """The recorded A, B, C in variable-code form, stamps expanded (new arrays)."""
        out = []
        for k, buf in enumerate(self._rows):
            rows = buf.view()
            ends = np.zeros(len(rows.lens) + 1, dtype=np.int64)
            np.cumsum(rows.lens, out=ends[1:])
            parts, done = [], 0
            for before, t, count, inputs, aux_base in self._segments + [(len(rows.lens), None, 0, None, 0)]:
                a, b = int(ends[done]), int(ends[before])
                parts.append(SparseRows(rows.lens[done:before], rows.vars[a:b], rows.coeffs[a:b]))
                done = before
                if t is not None:
                    parts.append(instantiate(t.matrices[k], count, inputs, aux_base, t.num_aux))
            out.append(SparseRows(*(np.concatenate([getattr(q, f) for q in parts]).astype(np.int64, copy=False)
                                    for f in ("lens", "vars", "coeffs"))))
            del rows
        return tuple(out)

    def template(self) -> Template:
        """This recording as a stamping template (inputs = its interface)."""
        return Template(self.num_inputs, self.num_aux, self.num_constraints, *self.sparse_rows())

    def compile(self) -> CompiledCircuit:
        """-> CompiledCircuit (input rows `input_i * 0 = 0` appended, as bellperson does)."""
        return assemble(self.curve, self.num_inputs, self.num_aux, self.num_constraints,
                        tuple(buf.view() for buf in self._rows), self._segments)


class RecordingCS(StructureRecorder, ConstraintSystem):
    """Structure only: values are ignored and value callables never called."""

    needs_values = False

    def __init__(self, curve: str):
        ConstraintSystem.__init__(self, curve)
        self._init_structure()
