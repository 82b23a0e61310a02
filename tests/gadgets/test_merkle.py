import numpy as np
import pytest

from cuzk.field import fields_of
from cuzk.gadgets import merkle
from cuzk.gadgets import merkle_native as mn
from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.num import Num
from cuzk.gadgets.sha256.gadget import bits_to_bytes
from cuzk.r1cs import TestCS

from gadget_helpers import assert_satisfied_and_tamper_evident


@pytest.mark.parametrize("arity", [2, 4, 8])
def test_insert_every_position(arity):
    nbits = arity.bit_length() - 1
    for pos in range(arity):
        cs = TestCS("bls12_381")
        cur = Num.alloc(cs, 1000)
        sibs = [Num.alloc(cs, 1 + j) for j in range(arity - 1)]
        bits = [Boolean.alloc(cs, (pos >> i) & 1) for i in range(nbits)]
        bcur = [Boolean.alloc(cs, 1), Boolean.alloc(cs, 1)]
        bsibs = [[Boolean.constant(j & 1), Boolean.alloc(cs, (j >> 1) & 1)] for j in range(arity - 1)]
        start = cs.num_aux
        slots = merkle.insert_num(cs, cur, sibs, bits)
        expect = list(range(1, arity))
        expect.insert(pos, 1000)
        assert [s.value for s in slots] == expect
        bslots = merkle.insert_bits(cs, bcur, bsibs, bits)
        got = [int(b[0].value) + 2 * int(b[1].value) for b in bslots]
        bexpect = [(j & 1) + 2 * ((j >> 1) & 1) for j in range(arity - 1)]
        bexpect.insert(pos, 3)
        assert got == bexpect
        assert cs.is_satisfied()
        assert_satisfied_and_tamper_evident(cs, aux_indices=range(start, cs.num_aux))


@pytest.mark.parametrize("curve,arity,depth", [("bls12_381", 2, 3), ("bn254", 8, 2)])
def test_poseidon_inclusion(curve, arity, depth):
    fr = fields_of(curve)[0]
    leaves = fr.random(arity**depth, np.random.default_rng(arity))
    levels = mn.poseidon_tree(curve, leaves, arity)
    index = arity**depth - 3
    sib_rows, positions = mn.path(levels, index, arity)
    siblings = [fr.to_ints(np.array(s)) for s in sib_rows]
    cs = TestCS(curve)
    leaf = Num.alloc(cs, fr.to_int(leaves[index]))
    root = merkle.poseidon_inclusion(cs, leaf, arity, depth, siblings, positions)
    assert root.single_var() > 0  # a public input
    assert cs.value(root.single_var()) == fr.to_int(levels[-1][0])
    assert cs.is_satisfied(), cs.which_is_unsatisfied()
    assert_satisfied_and_tamper_evident(cs, samples=40)
    # a wrong sibling cannot reach the published root
    bad = TestCS(curve)
    siblings[0][0] = (siblings[0][0] + 1) % fr.p
    root_var = merkle.poseidon_inclusion(bad, Num.alloc(bad, fr.to_int(leaves[index])), arity, depth,
                                         siblings, positions, public_root=False)
    assert root_var.value != fr.to_int(levels[-1][0])


@pytest.mark.parametrize("arity", [2, 8])
def test_sha256_inclusion(arity):
    rng = np.random.default_rng(5)
    leaves = rng.integers(0, 256, (arity, 32), dtype=np.uint8)
    levels = mn.sha256_tree(leaves, arity)
    index = arity - 1
    sib_rows, positions = mn.path(levels, index, arity)
    siblings = [[bytes(x) for x in s] for s in sib_rows]
    cs = TestCS("bls12_381")
    leaf = [Boolean.alloc(cs, (leaves[index][i // 8] >> (7 - i % 8)) & 1) for i in range(256)]
    inputs = merkle.sha256_inclusion(cs, leaf, arity, 1, siblings, positions, public_root=True)
    root_bits = np.unpackbits(levels[-1][0])  # SHA bit order
    packed = sum(cs.value(v) << (254 * i) for i, v in enumerate(inputs))
    assert packed == sum(int(b) << i for i, b in enumerate(root_bits))
    assert_satisfied_and_tamper_evident(cs, samples=16)


def test_sha256_root_bits():
    leaves = np.arange(64, dtype=np.uint8).reshape(2, 32)
    levels = mn.sha256_tree(leaves, 2)
    cs = TestCS("bn254")
    leaf = [Boolean.alloc(cs, (leaves[0][i // 8] >> (7 - i % 8)) & 1) for i in range(256)]
    root = merkle.sha256_inclusion(cs, leaf, 2, 1, [[bytes(leaves[1])]], [0], public_root=False)
    assert bits_to_bytes(root) == bytes(levels[-1][0])


def test_bad_shapes():
    cs = TestCS("bls12_381")
    one = Num.constant(1, cs.modulus)
    with pytest.raises(ValueError):
        merkle.insert_num(cs, one, [one, one], [Boolean.constant(True)])
    with pytest.raises(ValueError):
        merkle.poseidon_inclusion(cs, one, 3, 1, [[1, 2]], [0])
