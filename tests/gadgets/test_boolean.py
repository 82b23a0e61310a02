import itertools

import pytest

from cuzk.gadgets.boolean import (
    FALSE, TRUE, Boolean, and_, ch, maj, or_, pack_lc, pack_to_input, pack_to_inputs, xor, xor3,
)
from cuzk.r1cs import TestCS
from cuzk.r1cs import check_satisfied

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
            if a.is_constant or b.is_constant or a.var == b.var:
                assert cs.num_constraints == before  # folded
            else:
                assert cs.num_constraints == before + 1
        assert cs.is_satisfied(), cs.which_is_unsatisfied()
        assert_satisfied_and_tamper_evident(cs)


def test_ch_maj_xor3_truth_tables():
    for va, vb, vc in itertools.product([False, True], repeat=3):
        cs = TestCS("bn254")
        a, b, c = (Boolean.alloc(cs, v) for v in (va, vb, vc))
        lits = [a, ~a, b, c, TRUE, FALSE]
        for x, y, z in itertools.product(lits, repeat=3):
            assert ch(cs, x, y, z).value == (y.value if x.value else z.value)
            assert maj(cs, x, y, z).value == (x.value + y.value + z.value >= 2)
            assert xor3(cs, x, y, z).value == (x.value ^ y.value ^ z.value)
        assert cs.is_satisfied(), cs.which_is_unsatisfied()
        assert_satisfied_and_tamper_evident(cs)


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
