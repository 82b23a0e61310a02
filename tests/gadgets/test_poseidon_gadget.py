import pytest

from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.gadget import poseidon_hash
from cuzk.gadgets.poseidon.native import poseidon_hash_ints
from cuzk.r1cs import TestCS

import circuit_sizes as sizes
from gadget_helpers import assert_satisfied_and_tamper_evident

CONSTRAINTS = {arity: sizes.poseidon(arity) for arity in (2, 4, 8, 11)}  # 241, 298, 403, 466 by the round numbers


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
@pytest.mark.parametrize("arity", [2, 4, 8, 11])
def test_gadget_matches_native(curve, arity):
    cs = TestCS(curve)
    xs = [(7919 * i + 3) ** 9 % cs.modulus for i in range(arity)]
    ins = [Num.alloc(cs, x) for x in xs]
    out = poseidon_hash(cs, ins)
    assert out.value == poseidon_hash_ints(curve, xs)
    assert cs.value(out.single_var()) == out.value
    assert cs.num_constraints == CONSTRAINTS[arity]
    assert cs.is_satisfied(), cs.which_is_unsatisfied()
    assert_satisfied_and_tamper_evident(cs, samples=None if arity == 2 else 40)


def test_linear_combination_inputs_and_constants():
    cs = TestCS("bls12_381")
    a = Num.alloc(cs, 5)
    b = Num.alloc(cs, 11)
    out = poseidon_hash(cs, [a + b.scale(3), Num.constant(9, cs.modulus)])
    assert out.value == poseidon_hash_ints("bls12_381", [38, 9])
    assert cs.is_satisfied()
    const = poseidon_hash(TestCS("bls12_381"), [Num.constant(1, cs.modulus), Num.constant(2, cs.modulus)])
    assert const.value == poseidon_hash_ints("bls12_381", [1, 2])
