"""Field-level building blocks (Poseidon trees, columns, selections) as
stamping templates, each with a vectorized witness function.

    poseidon_level(arity)  [cur, log2(arity) position bits] -> parent
                           own: arity-1 siblings, the selections that place cur
                           among them, then the Poseidon hash (its output last)
    column(width)          own: `width` labels, then their Poseidon hash
    poseidon2              [x, y] -> Poseidon(x, y) (cuzk.gadgets.poseidon.stamped)
    equal                  [x, y]: x == y, 1 constraint, no aux
    apex_select(bits)      [2^bits apex values, bits, node bits]: packing(node) equals
                           the apex value the bits select (SnapDeals' apex leaves)
    rho_encode(h)          [phi, h high bits, data node bits, old, new]:
                           rho = Poseidon(phi, high) and data * rho == new - old

Selections follow one recorded `SelectPlan` (bit ? a : b, one constraint
each; identical candidates fold), so the witness replays the plan with
numpy over all instances, in the template's allocation order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.gadget import poseidon_hash
from cuzk.gadgets.poseidon.stamped import hash_template, hash_witness
from cuzk.gadgets.stamped import StampedGadget, output_indices
from cuzk.r1cs import LC, ONE, RecordingCS

from .bit_templates import node_lc
from .fr_bytes import NODE_BITS


@dataclass(frozen=True)
class SelectPlan:
    """Selections in allocation order: (bit, a, b) meaning out = bit ? src[a] : src[b].

    Sources 0..num_sources-1 are given; selection j produces source
    num_sources + j. `results` are the source ids of the plan's outputs."""

    num_sources: int
    selects: tuple[tuple[int, int, int], ...]
    results: tuple[int, ...]

    def evaluate(self, sources: np.ndarray, bits: np.ndarray) -> np.ndarray:
        """sources uint64[N, num_sources, 4], bits uint8[N, nbits] ->
        all source values uint64[N, num_sources + len(selects), 4]."""
        n = sources.shape[0]
        vals = np.empty((n, self.num_sources + len(self.selects), sources.shape[2]), dtype=np.uint64)
        vals[:, : self.num_sources] = sources
        b = np.asarray(bits, dtype=bool)
        for j, (bit, x, y) in enumerate(self.selects):
            vals[:, self.num_sources + j] = np.where(b[:, bit, None], vals[:, x], vals[:, y])
        return vals


def _mux(cands: list[int], nbits: int, selects: list, next_id: list[int]) -> int:
    """Reduce candidates by the bits (least significant first) -> result id."""
    for bit in range(nbits):
        nxt = []
        for m in range(len(cands) // 2):
            a, b = cands[2 * m + 1], cands[2 * m]
            if a == b:
                nxt.append(a)
            else:
                selects.append((bit, a, b))
                nxt.append(next_id[0])
                next_id[0] += 1
        cands = nxt
    return cands[0]


@functools.cache
def insert_plan(arity: int) -> SelectPlan:
    """Place source 0 (cur) among sources 1..arity-1 (siblings) at the position
    given by log2(arity) little-endian bits: results are the arity slots."""
    nbits = (arity - 1).bit_length()
    if arity != 1 << nbits:
        raise ValueError("arity must be a power of two")
    selects: list = []
    next_id = [arity]
    slots = []
    for k in range(arity):
        cands = [0 if p == k else (1 + k if p > k else k) for p in range(arity)]
        slots.append(_mux(cands, nbits, selects, next_id))
    return SelectPlan(arity, tuple(selects), tuple(slots))


@functools.cache
def select_plan(nbits: int) -> SelectPlan:
    """Pick source[index] from 2^nbits sources by little-endian index bits."""
    selects: list = []
    result = _mux(list(range(1 << nbits)), nbits, selects, [1 << nbits])
    return SelectPlan(1 << nbits, tuple(selects), (result,))


def _record_selects(cs, plan: SelectPlan, source_vars: list[int], bit_vars: list[int]) -> list[int]:
    """Allocate and constrain the plan's selections; returns all source variables."""
    src = list(source_vars)
    for bit, a, b in plan.selects:
        out = cs.alloc()
        cs.enforce(LC.of(bit_vars[bit]), LC.of(src[a]) - LC.of(src[b]), LC.of(out) - LC.of(src[b]))
        src.append(out)
    return src


def _nums(cs, variables) -> list[Num]:
    return [Num.of_var(v, None, cs.modulus) for v in variables]


# ---- Poseidon Merkle level ---------------------------------------------------


@dataclass(frozen=True, eq=False)
class FieldTemplate:
    gadget: StampedGadget
    plan: SelectPlan | None = None


@functools.cache
def poseidon_level(curve: str, arity: int) -> FieldTemplate:
    plan = insert_plan(arity)
    nbits = (arity - 1).bit_length()
    cs = RecordingCS(curve)
    cur = int(cs.alloc_input())
    bits = cs.alloc_input_many(nbits).tolist()
    sibs = cs.alloc_many(arity - 1).tolist()
    src = _record_selects(cs, plan, [cur] + sibs, bits)
    out = poseidon_hash(cs, _nums(cs, [src[s] for s in plan.results]))
    g = StampedGadget(curve, cs.template(), output_indices([out.single_var()]))
    return FieldTemplate(g, plan)


def poseidon_level_witness(t: FieldTemplate, curve: str, cur: np.ndarray, bits: np.ndarray,
                           siblings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cur uint64[N, 4], bits uint8[N, nbits], siblings uint64[N, arity-1, 4] (Montgomery)
    -> (aux uint64[N, num_aux, 4], parent uint64[N, 4])."""
    plan = t.plan
    n = cur.shape[0]
    src = np.empty((n, plan.num_sources, 4), dtype=np.uint64)
    src[:, 0] = cur
    src[:, 1:] = siblings
    vals = plan.evaluate(src, bits)
    h = hash_witness(curve, np.ascontiguousarray(vals[:, list(plan.results)]))
    aux = np.concatenate([vals[:, 1:], h], axis=1)
    return aux, h[:, -1]


# ---- columns, pairs, equality ---------------------------------------------------


@functools.cache
def column(curve: str, width: int) -> StampedGadget:
    """Own `width` labels (aux 0..width-1) and their Poseidon hash (the output)."""
    cs = RecordingCS(curve)
    labels = cs.alloc_many(width).tolist()
    out = poseidon_hash(cs, _nums(cs, labels))
    return StampedGadget(curve, cs.template(), output_indices([out.single_var()]))


def column_witness(curve: str, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """labels uint64[N, width, 4] -> (aux, column hash uint64[N, 4])."""
    h = hash_witness(curve, labels)
    return np.concatenate([labels, h], axis=1), h[:, -1]


def poseidon2(curve: str) -> StampedGadget:
    return hash_template(curve, 2)


def poseidon2_witness(curve: str, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = hash_witness(curve, np.stack([x, y], axis=1))
    return h, h[:, -1]


@functools.cache
def equal(curve: str) -> StampedGadget:
    cs = RecordingCS(curve)
    x, y = cs.alloc_input_many(2).tolist()
    cs.enforce(LC.of(x) - LC.of(y), ONE, LC())
    return StampedGadget(curve, cs.template(), np.zeros(0, dtype=np.int64))


# ---- SnapDeals pieces -----------------------------------------------------------------


@functools.cache
def apex_select(curve: str, nbits: int) -> FieldTemplate:
    plan = select_plan(nbits)
    cs = RecordingCS(curve)
    apex = cs.alloc_input_many(1 << nbits).tolist()
    bits = cs.alloc_input_many(nbits).tolist()
    node = cs.alloc_input_many(NODE_BITS)
    src = _record_selects(cs, plan, apex, bits)
    from cuzk.gadgets.boolean import Boolean

    cs.enforce(node_lc([Boolean.of_var(v) for v in node.tolist()]) - LC.of(src[plan.results[0]]), ONE, LC())
    return FieldTemplate(StampedGadget(curve, cs.template(), np.zeros(0, dtype=np.int64)), plan)


def apex_select_witness(t: FieldTemplate, apex: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """apex uint64[N, 2^nbits, 4], bits uint8[N, nbits] -> aux uint64[N, selects, 4]."""
    return t.plan.evaluate(apex, bits)[:, t.plan.num_sources :]


@functools.cache
def rho_encode(curve: str, high_bits: int) -> StampedGadget:
    if high_bits < 1:
        raise ValueError("rho needs at least one high bit")
    cs = RecordingCS(curve)
    phi = int(cs.alloc_input())
    high = cs.alloc_input_many(high_bits).tolist()
    data = cs.alloc_input_many(NODE_BITS).tolist()
    old, new = cs.alloc_input_many(2).tolist()
    p = cs.modulus
    high_num = Num({v: 1 << i for i, v in enumerate(high)}, None, p)
    rho = poseidon_hash(cs, [Num.of_var(phi, None, p), high_num])
    from cuzk.gadgets.boolean import Boolean

    cs.enforce(node_lc([Boolean.of_var(v) for v in data]), rho.lc(), LC.of(new) - LC.of(old))
    return StampedGadget(curve, cs.template(), output_indices([rho.single_var()]))


def rho_witness(curve: str, phi: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """phi uint64[N, 4], high uint64[N, 4] (packed high bits) -> (aux, rho)."""
    return poseidon2_witness(curve, phi, high)
