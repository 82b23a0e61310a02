"""TestCS: records structure and values, then says which constraint fails.

For gadget tests. Every constraint remembers its namespace path (interned,
one small int per row) and its optional name; stamped blocks remember their
instance layout. Satisfaction is checked with Python ints, independently of
the compiled-circuit/SpMV path, so it can serve as an oracle for it.
"""

from __future__ import annotations

from array import array

import numpy as np

from .coefficients import decode
from .recording import StructureRecorder
from .system import ConstraintSystem
from .witness import ValueKeeper


class TestCS(StructureRecorder, ValueKeeper, ConstraintSystem):
    """Structure + values + `is_satisfied()` / `which_is_unsatisfied()`."""

    __test__ = False  # not a pytest test class
    needs_values = True

    def __init__(self, curve: str):
        ConstraintSystem.__init__(self, curve)
        self._init_structure()
        self._init_values()
        self._path_ids: dict[tuple[str, ...], int] = {}
        self._paths: list[tuple[str, ...]] = []
        self._row_path = array("l")  # per recorded row (stamped blocks: one entry per block row range)
        self._names: dict[int, str] = {}
        self._stamps: list[tuple[int, int, int]] = []  # (first row, count, rows per instance)

    def _path_id(self) -> int:
        key = tuple(self._ns)
        pid = self._path_ids.get(key)
        if pid is None:
            pid = self._path_ids[key] = len(self._paths)
            self._paths.append(key)
        return pid

    def _record(self, a, b, c, name) -> None:
        StructureRecorder._record(self, a, b, c, name)
        if name is not None:
            self._names[self.num_constraints] = str(name)
        self._row_path.append(self._path_id())

    def _record_stamp(self, template, count, inputs, aux_base) -> None:
        StructureRecorder._record_stamp(self, template, count, inputs, aux_base)
        rows = count * template.num_constraints
        self._stamps.append((self.num_constraints, count, template.num_constraints))
        self._row_path.extend(array("l", [self._path_id()]) * rows)

    # ---- checking --------------------------------------------------------
    def unsatisfied_rows(self, limit: int | None = 1) -> list[int]:
        """Indices of failing constraints (the first `limit`; None = all)."""
        p = self.modulus
        w = self._inputs.to_ints() + self._aux.to_ints()
        n_in = self.num_inputs
        evaluated = []
        for rows in self.sparse_rows():
            ends = np.cumsum(rows.lens).tolist()
            cols = np.where(rows.vars < 0, n_in + ~rows.vars, rows.vars).tolist()
            coeffs = [decode(c) for c in rows.coeffs.tolist()]
            vals, start = [], 0
            for end in ends:
                vals.append(sum(coeffs[j] * w[cols[j]] for j in range(start, end)) % p)
                start = end
            evaluated.append(vals)
        bad = []
        for i, (a, b, c) in enumerate(zip(*evaluated)):
            if (a * b - c) % p:
                bad.append(i)
                if limit is not None and len(bad) >= limit:
                    break
        return bad

    def is_satisfied(self) -> bool:
        return not self.unsatisfied_rows(1)

    def first_unsatisfied(self) -> int | None:
        bad = self.unsatisfied_rows(1)
        return bad[0] if bad else None

    def constraint_name(self, row: int) -> str:
        """'ns/sub/name' (or 'ns/sub/#i', i counted within that namespace); stamped
        rows read 'ns/stamp[k]/row r'."""
        path = "/".join(self._paths[self._row_path[row]])
        prefix = path + "/" if path else ""
        for first, count, per in self._stamps:
            if first <= row < first + count * per:
                k, r = divmod(row - first, per)
                return f"{prefix}stamp[{k}]/row {r}"
        if row in self._names:
            return prefix + self._names[row]
        pid = self._row_path[row]
        local = sum(1 for i in range(row) if self._row_path[i] == pid)
        return f"{prefix}#{local}"

    def which_is_unsatisfied(self) -> str | None:
        """Name of the first failing constraint plus its global index, or None."""
        row = self.first_unsatisfied()
        if row is None:
            return None
        return f"{self.constraint_name(row)} (constraint {row})"
