import itertools

import numpy as np
import pytest

from cuzk.gadgets.boolean import (
    FALSE, TRUE, Boolean, and_, enforce_equal, or_, pack_lc, pack_to_input, pack_to_inputs, sha256_ch, sha256_maj, xor,
)
from cuzk.r1cs import TestCS
from cuzk.r1cs import check_satisfied
from cuzk.r1cs.coefficients import decode

from gadget_helpers import assert_satisfied_and_tamper_evident

OPS2 = {"xor": (xor, lambda a, b: a != b), "and": (and_, lambda a, b: a and b), "or": (or_, lambda a, b: a or b)}


def operands(cs, x_val, y_val):
    """Literals over two witness bits: plain, negated, constants, repeats."""
    x = Boolean.alloc(cs, x_val)
    y = Boolean.alloc(cs, y_val)
    return [x, ~x, y, ~y, TRUE, FALSE]


@pytest.mark.parametrize("op", sorted(OPS2))
def test_binary_ops_all_literal_combinations(op):
    gadget, truth = OPS2[op]
    for xv, yv in itertools.product([False, True], repeat=2):
        cs = TestCS("bls12_381")
        lits = operands(cs, xv, yv)
        for a, b in itertools.product(lits, repeat=2):
            before = cs.num_constraints
            out = gadget(cs, a, b)
            assert out.value == truth(a.value, b.value)
            if a.is_constant or b.is_constant:
                assert cs.num_constraints == before  # folded
            else:  # bellpepper does not fold a repeated variable (x xor x, x and not x)
                assert cs.num_constraints == before + 1
        assert cs.is_satisfied(), cs.which_is_unsatisfied()
        assert_satisfied_and_tamper_evident(cs)


def test_ch_maj_truth_tables():
    for va, vb, vc in itertools.product([False, True], repeat=3):
        cs = TestCS("bn254")
        a, b, c = (Boolean.alloc(cs, v) for v in (va, vb, vc))
        lits = [a, ~a, b, c, TRUE, FALSE]
        for x, y, z in itertools.product(lits, repeat=3):
            assert sha256_ch(cs, x, y, z).value == (y.value if x.value else z.value)
            assert sha256_maj(cs, x, y, z).value == (x.value + y.value + z.value >= 2)
        assert cs.is_satisfied(), cs.which_is_unsatisfied()
        assert_satisfied_and_tamper_evident(cs)


def _rows(cs):
    """Each constraint as three {variable: coefficient mod r} maps, equal variables merged."""
    sides = []
    for m in cs.sparse_rows():
        ends = np.concatenate([[0], np.cumsum(m.lens)])
        rows = []
        for r in range(len(m.lens)):
            terms = {}
            for v, c in zip(m.vars[ends[r] : ends[r + 1]].tolist(), m.coeffs[ends[r] : ends[r + 1]].tolist()):
                terms[v] = (terms.get(v, 0) + decode(c)) % cs.modulus
            rows.append({v: c for v, c in terms.items() if c})
        sides.append(rows)
    return list(zip(*sides))


def test_layout_follows_bellpepper():
    """The A, B, C sides of each gadget's constraint as bellpepper-core's boolean.rs writes them."""
    cs = TestCS("bls12_381")
    x, y, z = (Boolean.alloc(cs, v) for v in (True, False, True))
    X, Y, Z = x.var, y.var, z.var
    m = -1 % cs.modulus
    assert _rows(cs)[0] == ({0: 1, X: m}, {X: 1}, {})  # (1 - x) * x = 0
    n = cs.num_constraints
    out = [xor(cs, ~x, y), and_(cs, ~x, y), and_(cs, ~x, ~y), sha256_ch(cs, x, y, ~z), sha256_maj(cs, x, y, z)]
    r = _rows(cs)[n:]
    assert r[0] == ({Y: 2}, {X: 1}, {X: 1, Y: 1, out[0].var: m}) and out[0].neg  # Is operand first, result negated
    assert r[1] == ({Y: 1}, {0: 1, X: m}, {out[1].var: 1})  # and_not(is, not)
    assert r[2] == ({0: 1, X: m}, {0: 1, Y: m}, {out[2].var: 1})  # nor
    assert r[3] == ({Y: 1, 0: m, Z: 1}, {X: 1}, {out[3].var: 1, 0: m, Z: 1})  # (b - c) * a = ch - c
    bc = int(out[4].var) - 1  # maj is allocated first, then b AND c (the next aux code)
    assert r[4] == ({Y: 1}, {Z: 1}, {bc: 1})
    assert r[5] == ({bc: 2, Y: m, Z: m}, {X: 1}, {bc: 1, out[4].var: m})
    assert cs.is_satisfied()
    n = cs.num_constraints
    enforce_equal(cs, x, z)
    enforce_equal(cs, TRUE, x)
    assert _rows(cs)[n:] == [({}, {}, {X: 1, Z: m}), ({}, {}, {0: 1, X: m})]
    assert cs.is_satisfied()


def test_alloc_is_constrained_boolean():
    cs = TestCS("bls12_381")
    Boolean.alloc(cs, True)
    assert cs.num_constraints == 1
    assert cs.is_satisfied()


def test_non_boolean_value_rejected():
    cs = TestCS("bls12_381")
    Boolean.alloc(cs, True)
    cc, w = cs.compile(), cs.witness()
    w[cc.num_inputs] = cs.fr.from_int(2)
    assert check_satisfied(cc, w) == 0


def test_packing():
    cs = TestCS("bls12_381")
    bits = [Boolean.alloc(cs, b) for b in (1, 0, 1, 1, 0, 0, 1)] + [~Boolean.alloc(cs, 1), TRUE, FALSE]
    value = sum(int(b.value) << i for i, b in enumerate(bits))
    assert value == 0b01_0100_1101
    inp = pack_to_input(cs, bits)
    assert cs.value(inp) == value
    assert pack_lc(bits).evaluate(cs.value, cs.modulus) == value
    chunks = pack_to_inputs(cs, bits, chunk=4)
    assert [cs.value(v) for v in chunks] == [value & 15, (value >> 4) & 15, value >> 8]
    assert cs.is_satisfied()
    with pytest.raises(ValueError):
        pack_to_input(cs, [TRUE] * 255)
