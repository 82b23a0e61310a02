"""Placing a Merkle node among its siblings, as storage-proofs-core's `insertion` lays it out.

A Merkle path step hashes the node together with its arity - 1 siblings, the
node at the position its index bits name. Filecoin's circuits build that
preimage with `pick` (c = cond ? a : b, one variable and the constraint
(b - a) * cond = b - c) in fixed orders for arities 2, 4 and 8 (arity 8 first
computes b0 NOR b1 and b0 AND b1). Filecoin's parameters fix the R1CS, so the
order of the picks is part of the circuit: `plan(arity)` states it once and
both the constraint-system gadget (`insert`) and vectorized witnesses
(`insert_values`) follow it, so they allocate the same values in the same order.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.r1cs import LC, ONE

from .boolean import Boolean, and_
from .num import Num

# one step: (op, out, cond, a, b); op "pick": out = cond ? a : b; "nor"/"and": out = a op b (bits);
# names: "x" the node, "e0".. the siblings, "b0".. the index bits, others earlier outputs


@functools.cache
def plan(arity: int) -> tuple[tuple[tuple, ...], tuple[str, ...]]:
    """(steps, outputs): the allocation order of `insert` for `arity` (2, 4 or 8)."""
    P = lambda out, cond, a, b: ("pick", out, cond, a, b)  # noqa: E731
    if arity == 2:
        return (P("p0", "b0", "e0", "x"), P("p1", "b0", "x", "e0")), ("p0", "p1")
    if arity == 4:
        x, b, c, d = "x", "e0", "e1", "e2"
        steps = (
            P("p0_x0", "b0", b, x), P("p0", "b1", b, "p0_x0"),
            P("p1_x0", "b0", x, b), P("p1", "b1", c, "p1_x0"),
            P("p2_x1", "b0", d, x), P("p2", "b1", "p2_x1", c),
            P("p3_x1", "b0", x, d), P("p3", "b1", "p3_x1", d),
        )
        return steps, ("p0", "p1", "p2", "p3")
    if arity == 8:
        x, b, c, d, e, f, g, h = "x", "e0", "e1", "e2", "e3", "e4", "e5", "e6"
        steps = (
            ("nor", "nor01", None, "b0", "b1"), ("and", "and01", None, "b0", "b1"),
            P("p0_xx0", "nor01", x, b), P("p0", "b2", b, "p0_xx0"),
            P("p1_x00", "b0", x, b), P("p1_xx0", "b1", c, "p1_x00"), P("p1", "b2", c, "p1_xx0"),
            P("p2_x10", "b0", d, x), P("p2_xx0", "b1", "p2_x10", c), P("p2", "b2", d, "p2_xx0"),
            P("p3_xx0", "and01", x, d), P("p3", "b2", e, "p3_xx0"),
            P("p4_xx1", "nor01", x, f), P("p4", "b2", "p4_xx1", e),
            P("p5_x01", "b0", x, f), P("p5_xx1", "b1", g, "p5_x01"), P("p5", "b2", "p5_xx1", f),
            P("p6_x11", "b0", h, x), P("p6_xx1", "b1", "p6_x11", g), P("p6", "b2", "p6_xx1", g),
            P("p7_xx1", "and01", x, h), P("p7", "b2", "p7_xx1", h),
        )
        return steps, tuple(f"p{i}" for i in range(8))
    raise ValueError(f"insertion is defined for arities 2, 4 and 8, not {arity}")


def num_aux(arity: int) -> int:
    return len(plan(arity)[0])


def pick(cs, cond: Boolean, a: Num, b: Num, name: str | None = None) -> Num:
    """cond ? a : b as a new variable: (b - a) * cond = b - c."""
    value = None
    if cs.needs_values:
        value = (a.value if cond.value else b.value)
    c = Num.alloc(cs, value, name=name)
    cs.enforce((b - a).lc(), cond.lc(), (b - c).lc(), name=name)
    return c


def insert(cs, node: Num, bits: list[Boolean], siblings: list[Num]) -> list[Num]:
    """The arity-element preimage with `node` at the position of `bits` (little-endian)."""
    arity = len(siblings) + 1
    if 1 << len(bits) != arity:
        raise ValueError(f"{len(bits)} index bits for arity {arity}")
    env: dict = {"x": node, **{f"e{i}": s for i, s in enumerate(siblings)}, **{f"b{i}": b for i, b in enumerate(bits)}}
    steps, outputs = plan(arity)
    for op, out, cond, a, b in steps:
        if op == "pick":
            env[out] = pick(cs, env[cond], env[a], env[b], name=out)
        elif op == "nor":
            env[out] = and_(cs, ~env[a], ~env[b])
        else:
            env[out] = and_(cs, env[a], env[b])
    return [env[o] for o in outputs]


def insert_values(node: np.ndarray, bits: np.ndarray, siblings: np.ndarray,
                  one: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized `insert` over N instances: node uint64[N, 4], bits uint8[N, log2 arity],
    siblings uint64[N, arity-1, 4], `one` the encoding of 1 (all in one field-element encoding,
    e.g. Montgomery) -> (aux uint64[N, num_aux, 4] in the gadget's allocation order,
    preimage uint64[N, arity, 4])."""
    n, k = siblings.shape[0], siblings.shape[1]
    arity = k + 1
    steps, outputs = plan(arity)
    env: dict = {"x": node, **{f"e{i}": siblings[:, i] for i in range(k)},
                 **{f"b{i}": bits[:, i].astype(bool) for i in range(bits.shape[1])}}
    aux = np.empty((n, len(steps), node.shape[-1]), dtype=np.uint64)
    for j, (op, out, cond, a, b) in enumerate(steps):
        if op == "pick":
            v = np.where(env[cond][:, None], env[a], env[b])
            aux[:, j] = v
        else:
            v = (~env[a] & ~env[b]) if op == "nor" else (env[a] & env[b])
            aux[:, j] = np.where(v[:, None], one, np.uint64(0))
        env[out] = v
    return aux, np.stack([env[o] for o in outputs], axis=1)


def enforce_equal(cs, a: Num, b: Num, name: str | None = None) -> None:
    """a * 1 = b (storage-proofs-core's `constraint::equal`)."""
    cs.enforce(a.lc(), ONE, b.lc(), name=name)


def pack_bits_into_input(cs, bits: list[Boolean], input_var: int, name: str | None = None) -> None:
    """bellperson's `multipack::pack_into_inputs` for one chunk (<= 254 bits), the input already
    allocated: sum(2^i bit_i) * 1 = input."""
    lc = LC()
    for i, bit in enumerate(bits):
        vs, cf = bit.terms(1 << i)
        for v, c in zip(vs, cf):
            lc += (c, v)
    cs.enforce(lc, ONE, LC.of(input_var), name=name)
