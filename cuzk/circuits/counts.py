"""Constraint, variable and input counts per partition, without building the circuit.

Each kind is a fixed composition of templates, so its size is a sum over
components of (instances x template size). The formulas below are written
independently of the wiring code (tests compare them with built circuits
for tiny, small and medium); template sizes come from recording the
templates themselves (at most ~46K constraints each, about a second), so
the counts of `large` and `32g` cost no more than those of `tiny`.

Term counts (`nnz`) and distinct coefficients come from the templates too:
they are the raw sums before canonical merging (a stamped row that meets one
variable twice loses a term), so the compiled size derived from them is an
upper estimate, within a fraction of a percent for the workload kinds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import bit_templates as bt
from . import field_templates as ft
from .fr_bytes import CURVE
from .porep import PorepShape
from .snap import PARTITION_BITS, SnapShape


@dataclass(frozen=True)
class Component:
    name: str
    instances: int
    constraints: int  # each
    aux: int  # each
    nnz: tuple[int, int, int] = (0, 0, 0)  # terms of A, B, C, each
    coefficients: frozenset = field(default=frozenset(), repr=False, compare=False)  # values mod r

    @property
    def total_constraints(self) -> int:
        return self.instances * self.constraints


@dataclass(frozen=True)
class Counts:
    constraints: int  # the circuit's own rows
    aux: int
    inputs: int  # ONE included
    components: tuple[Component, ...]

    @property
    def rows(self) -> int:
        """Rows the prover evaluates: constraints plus one per input."""
        return self.constraints + self.inputs

    @property
    def domain_log2(self) -> int:
        return max(0, (self.rows - 1).bit_length())

    @property
    def nnz(self) -> tuple[int, int, int]:
        """Terms of A, B, C (A's input rows included), before merging repeated columns."""
        a, b, c = (sum(x.instances * x.nnz[k] for x in self.components) for k in range(3))
        return a + self.inputs, b, c

    @property
    def coefficients(self) -> int:
        """Distinct coefficient values of the templates, +1 and -1 included."""
        values = set().union(*(x.coefficients for x in self.components))
        return len(values | {1, -1}) - (0 in values)

    def as_dict(self) -> dict:
        return {"constraints": self.constraints, "aux": self.aux, "inputs": self.inputs, "rows": self.rows,
                "domain_log2": self.domain_log2, "nnz": list(self.nnz), "coefficients": self.coefficients,
                "components": [{"name": c.name, "instances": c.instances, "constraints": c.constraints,
                                "aux": c.aux, "nnz": list(c.nnz)} for c in self.components]}


def _t(name: str, instances: int, gadget) -> Component:
    t = gadget.template
    return Component(name, instances, gadget.num_constraints, gadget.num_aux, tuple(m.nnz for m in t.matrices),
                     _values(gadget.curve, t))


def _values(curve: str, t) -> frozenset:
    """The template's coefficients as signed values mod r (-1 for r - 1), like the set in Counts."""
    from cuzk.field import fields_of
    from cuzk.r1cs.coefficients import codes_to_field

    p = fields_of(curve)[0].p
    _, values = codes_to_field(np.concatenate([m.coeffs for m in t.matrices]), p)
    return frozenset(-1 if v == p - 1 else v for v in values)


def _raw(name: str, instances: int, constraints: int, aux: int, nnz=(0, 0, 0)) -> Component:
    return Component(name, instances, constraints, aux, nnz)


def _total(inputs: int, parts: list[Component]) -> Counts:
    parts = [c for c in parts if c.instances]
    return Counts(sum(c.instances * c.constraints for c in parts), sum(c.instances * c.aux for c in parts),
                  inputs, tuple(parts))


def porep(shape: PorepShape, curve: str = CURVE) -> Counts:
    C, D, L, n, d = shape.challenges, shape.degree, shape.layers, shape.nodes_log2, shape.tree_depth
    Db, De = shape.base_degree, shape.expansion_degree
    cols = C * (1 + D)
    full, tail, msg_bits = shape.label_blocks()
    return _total(1 + shape.num_public_inputs, [
        _raw("zero variable", 1, 1, 1, (1, 1, 0)),
        _raw("comm_c, comm_r_last", 1, 0, 2),
        _t("comm_r = Poseidon(comm_c, comm_r_last)", 1, ft.poseidon2(curve)),
        _t("comm_r check", 1, ft.equal(curve)),
        _t("replica_id bits", 1, bt.decompose_node(curve)),
        _t("node index bits", cols, bt.decompose_index(curve, n)),
        _t("columns (Poseidon arity L)", cols, ft.column(curve, L)),
        _raw("replica leaves", 1, 0, C),
        _t("tree_c / tree_r_last levels (Poseidon arity 8)", (cols + C) * d, ft.poseidon_level(curve, 8).gadget),
        _t("tree root checks", cols + C, ft.equal(curve)),
        _t("encoding (data bits)", C, bt.porep_encode(curve)),
        _t("comm_d levels (SHA-256)", C * n, bt.sha_level(curve)),
        _t("comm_d checks", C, bt.pack_equal(curve)),
        _t("parent label bits", C * (Db * L + De * (L - 1)), bt.decompose_node(curve)),
        _t("label: first block", C * L, bt.sha_first(curve)),
        _t("label: parent blocks", C * L * full, bt.compression(curve)),
        _t("label: last block", C * L, bt.sha_final(curve, tail, msg_bits)),
        _t("label checks", C * L, bt.pack_equal(curve)),
    ])


def snap(shape: SnapShape, curve: str = CURVE) -> Counts:
    C, a, m, t, d = shape.challenges, shape.apex_bits, shape.local_bits, shape.path_levels, shape.tree_depth
    A = 1 << a
    apex = (_t("apex selection", C, ft.apex_select(curve, a).gadget) if a
            else _t("apex checks", C, bt.pack_equal(curve)))
    return _total(1 + shape.num_public_inputs, [
        _raw("comm_c, comm_r_last_old/new", 1, 0, 3),
        _t("comm_r_old/new = Poseidon(comm_c, .)", 2, ft.poseidon2(curve)),
        _t("comm_r checks", 2, ft.equal(curve)),
        _t("phi = Poseidon(comm_d_new, comm_r_old)", 1, ft.poseidon2(curve)),
        _t("partition index bits", 1, bt.decompose_index(curve, PARTITION_BITS)),
        _t("challenge index bits", C, bt.decompose_index(curve, m)),
        _raw("apex leaves", 1, 0, A),
        _t("apex leaf bits", A, bt.decompose_node(curve)),
        _t("apex tree (SHA-256)", A - 1, bt.sha_pair(curve)),
        _t("partition path (SHA-256)", PARTITION_BITS, bt.sha_level(curve)),
        _t("comm_d_new check", 1, bt.pack_equal(curve)),
        _t("data leaf bits", C, bt.free_bits(curve, bt.NODE_BITS)),
        _t("data path levels (SHA-256)", C * t, bt.sha_level(curve)),
        apex,
        _raw("old/new replica leaves", 2 * C, 0, 1),
        _t("tree_r_last old/new levels (Poseidon arity 8)", 2 * C * d, ft.poseidon_level(curve, 8).gadget),
        _t("root checks", 2 * C, ft.equal(curve)),
        _t("encoding: rho = Poseidon(phi, high), data * rho", C, ft.rho_encode(curve, shape.high_bits)),
    ])
