"""Poseidon in circuits, same permutation and hash framing as `native`.

Each x^5 S-box on a non-constant element costs 3 constraints and 3 aux
variables, allocated in this order: x^2 = x*x, x^4 = x^2*x^2, x^5 = x^4*x.
Round constants and the MDS layer are linear (folded into the linear
combinations). An S-box whose input is constant is computed natively, which
happens for the capacity element in the first round of a hash. The hash
output is allocated as one more variable (1 constraint) so a template can
expose it. Constraints: arity 2: 241, 4: 298, 8: 403, 11: 466.
"""

from __future__ import annotations

from ..num import Num
from .params import PoseidonParams, poseidon_params


def sbox(cs, x: Num) -> Num:
    if x.is_constant():
        return Num.constant(pow(x.constant_value(), 5, x.p), x.p)
    x2 = x.mul(cs, x)
    x4 = x2.mul(cs, x2)
    return x4.mul(cs, x)


def permutation(cs, params: PoseidonParams, state: list[Num]) -> list[Num]:
    if len(state) != params.t:
        raise ValueError(f"state of width {len(state)}, parameters for t={params.t}")
    p = params.p
    state = list(state)
    for r in range(params.rounds):
        rc = params.round_constants[r]
        state = [s.add_constant(c) for s, c in zip(state, rc)]
        for i in range(params.t) if params.is_full_round(r) else (0,):
            state[i] = sbox(cs, state[i])
        state = [Num.linear(row, state, p) for row in params.mds]
    return state


def poseidon_hash(cs, inputs: list[Num]) -> Num:
    """Hash of len(inputs) (2, 4, 8 or 11) elements as an allocated variable."""
    params = poseidon_params(cs.curve, len(inputs))
    state = [Num.constant(0, params.p)] + list(inputs)
    return permutation(cs, params, state)[0].allocate(cs)


def allocated_sboxes(params: PoseidonParams) -> list[list[bool]]:
    """[round][i]: does the hash gadget allocate that S-box (inputs variable)?

    Mirrors the gadget's constant folding: only the capacity element starts
    constant, an S-box keeps constness, the MDS layer makes an element
    constant only if all elements it mixes in are."""
    const = [True] + [False] * params.arity
    out = []
    for r in range(params.rounds):
        idx = range(params.t) if params.is_full_round(r) else (0,)
        out.append([i in idx and not const[i] for i in range(params.t)])
        const = [all(const[j] or params.mds[i][j] == 0 for j in range(params.t)) for i in range(params.t)]
    return out
