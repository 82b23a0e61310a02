"""neptune v11 `circuit::poseidon_hash` (HashType::MerkleTree), constraint for constraint.

Filecoin's Groth16 parameters were generated from the R1CS this gadget of
neptune produces, so it is reproduced exactly: the same aux variables in the
same order with the same values, and the same constraints in the same order
with the same linear combinations (A and B not swapped).

How neptune's gadget works (circuit.rs, on the preprocessed constants of
`neptune_constants`, following neptune's optimized static hash):

* State elements are either allocated variables or unallocated linear forms
  ("Elt::Num"); every MDS product (dense, pre-sparse or sparse) yields forms,
  never variables, so forms grow through the partial rounds (a sparse round
  adds one variable to each element).
* An S-box on a form first allocates it: v = form, constraint form * ONE = v
  ("ensure_allocated"), even if the form is a single variable. Inputs are
  already variables and are not re-allocated.
* First round: the tag's S-box is folded to a constant; each input x gets
  (x + k)^2 [A = B = x + k ONE], its square, and (x + k) * l4 + k'
  [A = x + k ONE, B = l4, C = res - k' ONE], with k, k' the first two key rows.
* Other S-boxes: x^2, x^4, then x * x^4 + k [A = x, B = x^4, C = res - k ONE];
  the terminal full round has no key (C = res).
* The output, state element 1 (a form), is allocated the same way as an
  S-box input (1 constraint).

Constraints: 3 arity + 4 (t (R_F - 1) + R_P) + 1, equal to neptune's own
count 3 (t R_F + R_P - 1) + t R_F + R_P - arity (test_poseidon_hash):
arity 2: 311, 4: 377, 8: 505, 11: 598, 16: 761, 24: 1009, 36: 1385.

Linear forms are `Num`s (dicts var -> coefficient), so repeated variables
merge as in bellpepper's LinearCombination; a coefficient that sums to zero
is dropped where bellpepper would keep a zero entry (no effect on the R1CS).
"""

from __future__ import annotations

from cuzk.r1cs import LC, ONE

from ..num import Num
from .neptune_constants import CURVE, NeptuneConstants, neptune_constants


def allocate(cs, form: Num, name: str = "allocate for Elt::Num") -> Num:
    """neptune's `ensure_allocated(enforce=True)` of a form: v = form; form * ONE = v."""
    v = Num.alloc(cs, form.value, name=name)
    cs.enforce(form.lc(), ONE, v.lc(), name="enforce num allocation preserves lc")
    return v


def _square(cs, x: Num, pre: int | None = None, name: str = "squared num") -> Num:
    """(x + pre)^2 as a new variable; A = B = x (+ pre ONE)."""
    base = x if pre is None else x.add_constant(pre)
    out = Num.alloc(cs, None if base.value is None else base.value * base.value % x.p, name=name)
    cs.enforce(base.lc(), base.lc(), out.lc(), name="squaring constraint" if pre is None else "squared sum constraint")
    return out


def _mul_sum(cs, l4: Num, x: Num, pre: int | None, post: int | None) -> Num:
    """neptune's `mul_sum(a=l4, b=x, pre, post)`: (x + pre) * l4 + post;
    A = x (+ pre ONE), B = l4, C = res (- post ONE)."""
    p = x.p
    a = x if pre is None else x.add_constant(pre)
    value = None
    if a.value is not None and l4.value is not None:
        value = (a.value * l4.value + (post or 0)) % p
    res = Num.alloc(cs, value, name="mul_sum")
    c = res.lc() if post is None else LC.from_terms(((1, res.single_var()), ((-post) % p, ONE)))
    cs.enforce(a.lc(), l4.lc(), c, name="mul sum constraint")
    return res


def _sbox(cs, form: Num, post: int | None) -> Num:
    """neptune's `quintic_s_box` on a form (allocated first)."""
    with cs.namespace("S-box input"):
        x = allocate(cs, form)
    with cs.namespace("l^2"):
        x2 = _square(cs, x)
    with cs.namespace("l^4"):
        x4 = _square(cs, x2)
    with cs.namespace("(l4 * l) + rk)"):
        return _mul_sum(cs, x4, x, None, post)


def _sbox_pre_add(cs, x: Num, pre: int, post: int) -> Num:
    """neptune's `quintic_s_box_pre_add` on an allocated input."""
    with cs.namespace("(l+rk)^2"):
        x2 = _square(cs, x, pre)
    with cs.namespace("l^4"):
        x4 = _square(cs, x2)
    with cs.namespace("l4 * (l + rk)"):
        return _mul_sum(cs, x4, x, pre, post)


class Hasher:
    """neptune's PoseidonCircuit: the state as Nums, the round counter, the key offset."""

    def __init__(self, C: NeptuneConstants, state: list[Num]):
        self.C = C
        self.state = state
        self.offset = 0
        self.round = 0

    def keys(self, count: int) -> tuple[int, ...]:
        ks = self.C.compressed_round_constants[self.offset : self.offset + count]
        self.offset += count
        return ks

    def first_round(self, cs) -> None:
        p, t = self.C.p, self.C.t
        pre, post = self.keys(t), self.keys(t)
        tag = self.state[0].constant_value()
        self.state[0] = Num.constant(pow((tag + pre[0]) % p, 5, p) + post[0], p)
        for i in range(1, t):
            with cs.namespace(f"quintic s-box {i}"):
                self.state[i] = _sbox_pre_add(cs, self.state[i], pre[i], post[i])
        self.mix()

    def full_round(self, cs, last: bool) -> None:
        t = self.C.t
        post = (None,) * t if last else self.keys(t)
        for i in range(t):
            with cs.namespace(f"quintic s-box {i}"):
                self.state[i] = _sbox(cs, self.state[i], post[i])
        self.mix()

    def partial_round(self, cs) -> None:
        (key,) = self.keys(1)
        with cs.namespace("solitary quintic s-box"):
            self.state[0] = _sbox(cs, self.state[0], key)
        self.mix()

    def mix(self) -> None:
        C, p, r, half, s = self.C, self.C.p, self.round, self.C.half_full_rounds, self.state
        if half <= r < half + C.R_P:
            sm = C.sparse_matrices[r - half]
            s = [Num.linear(sm.w_hat, s, p)] + [Num.linear((1, v), (s[j], s[0]), p)
                                                 for j, v in enumerate(sm.v_rest, start=1)]
        else:
            m = C.pre_sparse_matrix if r == half - 1 else C.mds
            s = [Num.linear([row[j] for row in m], s, p) for j in range(C.t)]
        self.state = s
        self.round += 1


def as_allocated(cs, x) -> Num:
    if isinstance(x, Num):
        if x.single_var() is None:
            raise ValueError("neptune's gadget hashes allocated variables; allocate linear forms first")
        return x
    value = cs.value(int(x)) if cs.needs_values else None
    return Num.of_var(int(x), value, cs.modulus)


def poseidon_hash(cs, inputs, strength: str = "standard", constants=None) -> Num:
    """neptune's `circuit::poseidon_hash` of `inputs` (allocated variables: Nums of one
    variable, or variable codes) with Filecoin's constants (or `constants`, e.g. another
    domain tag); the output as an allocated Num."""
    if cs.curve != CURVE:
        raise ValueError(f"neptune's Poseidon is defined on {CURVE}, not {cs.curve}")
    C = constants or neptune_constants(len(inputs), strength)
    state = [Num.constant(C.domain_tag, C.p)] + [as_allocated(cs, x) for x in inputs]
    h = Hasher(C, state)
    half = C.half_full_rounds
    with cs.namespace("first round"):
        h.first_round(cs)
    for i in range(1, half):
        with cs.namespace(f"initial full round {i}"):
            h.full_round(cs, last=False)
    for i in range(C.R_P):
        with cs.namespace(f"partial round {i}"):
            h.partial_round(cs)
    for i in range(half - 1):
        with cs.namespace(f"final full round {i}"):
            h.full_round(cs, last=False)
    with cs.namespace("terminal full round"):
        h.full_round(cs, last=True)
    with cs.namespace("hash result"):
        return allocate(cs, h.state[1])


def num_constraints(arity: int, strength: str = "standard") -> int:
    """Constraints (= aux variables) of one hash."""
    C = neptune_constants(arity, strength)
    return 3 * arity + 4 * (C.t * (C.R_F - 1) + C.R_P) + 1
