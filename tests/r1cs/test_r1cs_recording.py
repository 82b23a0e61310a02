"""Constraint-system API: recording gives the expected matrices; witness and test modes."""

import numpy as np
import pytest

from cuzk.r1cs import LC, ONE, RecordingCS, TestCS, Variable, WitnessCS
from cuzk.r1cs.evaluation import check_satisfied

from r1cs_helpers import dense_rows


def cube(cs, x_value=None):
    """x^3 + x + 5 = out (the classic example)."""
    out = cs.alloc_input(lambda: x_value**3 + x_value + 5)
    x = cs.alloc(lambda: x_value)
    sq = cs.alloc(lambda: x_value * x_value)
    cu = cs.alloc(lambda: x_value**3)
    with cs.namespace("powers"):
        cs.enforce(x, x, sq, name="square")
        cs.enforce(sq, x, cu, name="cube")
    with cs.namespace("sum"):
        cs.enforce(cu + x + (5, ONE), ONE, out)
    return out


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_recording_gives_expected_matrices(curve):
    cs = RecordingCS(curve)
    cube(cs)  # recording never calls the value callables (x_value is None)
    cc = cs.compile()
    p = cc.fr.p
    assert (cc.num_inputs, cc.num_aux, cc.num_constraints, cc.num_rows) == (2, 3, 3, 5)
    # columns: ONE 0, out 1, x 2, sq 3, cu 4; then one input row per input (A = input, B = C = 0)
    assert dense_rows(cc, cc.a) == [{2: 1}, {3: 1}, {0: 5, 2: 1, 4: 1}, {0: 1}, {1: 1}]
    assert dense_rows(cc, cc.b) == [{2: 1}, {2: 1}, {0: 1}, {}, {}]
    assert dense_rows(cc, cc.c) == [{3: 1}, {4: 1}, {1: 1}, {}, {}]
    assert cc.coefficient_ints() == [1, p - 1, 5]
    assert cc.a.indptr.dtype == np.int32 and cc.a.cols.dtype == np.uint32 and cc.a.coeff_idx.dtype == np.uint8
    assert cc.density("a_aux").tolist() == [True, True, True]
    assert cc.density("b_input").tolist() == [True, False]
    assert cc.density("b_aux").tolist() == [True, False, False]
    assert len(cc.topology_hash) == 32
    again = RecordingCS(curve)
    cube(again)
    assert again.compile().id == cc.id


def test_canonical_form_merges_sorts_and_drops_zero():
    cs = RecordingCS("bls12_381")
    x, y = cs.alloc(), cs.alloc()
    p = cs.modulus
    cs.enforce(LC.of(y, 3) + x + (2, x) + (p, y) + (-3, y), x - x, LC.of(ONE, p + 7))
    cc = cs.compile()
    assert dense_rows(cc, cc.a)[0] == {1: 3}  # x: 1 + 2; y: 3 + p - 3 = 0 mod p, dropped
    assert dense_rows(cc, cc.b)[0] == {}
    assert dense_rows(cc, cc.c)[0] == {0: 7}


def test_lc_and_variable_operators():
    v, w = Variable(~0), Variable(3)
    assert (v + w).terms() == [(1, v), (1, w)]
    assert (v - w).terms() == [(1, v), (-1, w)]
    assert (-v).terms() == [(-1, v)]
    assert (3 * v).terms() == (v * 3).terms() == [(3, v)]
    big = 2**200 + 12345
    lc = LC.of(v, big) + (5, w)
    assert (-lc).terms() == [(-big, v), (-5, w)]
    assert (lc * 2).terms() == [(2 * big, v), (10, w)]
    lc2 = LC()
    lc2 += v
    lc2 -= (4, w)
    assert lc2.terms() == [(1, v), (-4, w)]
    arr = LC.from_arrays(np.array([1, 2, -1]), np.array([1, 2, 4]))
    assert arr.terms() == [(1, 1), (2, 2), (4, -1)]
    assert LC.from_arrays([1, 2], [2**100, 3]).terms() == [(2**100, 1), (3, 2)]
    with pytest.raises(TypeError):
        v * w  # not linear
    with pytest.raises(ValueError):
        LC.from_arrays([1, 2], [1])


def test_test_cs_names_first_unsatisfied():
    cs = TestCS("bn254")
    cube(cs, 3)
    assert cs.is_satisfied() and cs.which_is_unsatisfied() is None
    bad = TestCS("bn254")
    out = bad.alloc_input(35)
    x = bad.alloc(3)
    sq = bad.alloc(9)
    cu = bad.alloc(28)  # wrong: should be 27
    with bad.namespace("powers"):
        bad.enforce(x, x, sq, name="square")
        with bad.namespace("inner"):
            bad.enforce(sq, sq - (72, ONE), sq)  # 9 * (9 - 72) != 9 -> the first failure
            bad.enforce(sq, x, cu)
    bad.enforce(cu + x + (5, ONE), ONE, out)
    assert not bad.is_satisfied()
    assert bad.first_unsatisfied() == 1
    assert bad.which_is_unsatisfied() == "powers/inner/#0 (constraint 1)"
    assert bad.unsatisfied_rows(limit=None) == [1, 2, 3]
    assert bad.constraint_name(0) == "powers/square"
    assert bad.constraint_name(2) == "powers/inner/#1"


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_witness_cs_matches_test_cs_and_satisfies_compiled(curve):
    t, wcs, rec = TestCS(curve), WitnessCS(curve), RecordingCS(curve)
    for cs in (t, wcs, rec):
        cube(cs, 3) if cs is not rec else cube(cs)
    w = wcs.witness()
    assert np.array_equal(w, t.witness())
    assert wcs.fr.to_ints(w) == [1, 35, 3, 9, 27]
    assert wcs.value(Variable(~2)) == 27 and wcs.value(ONE) == 1
    assert check_satisfied(rec.compile(), w) is None
    w[4] = wcs.fr.from_int(28)
    assert check_satisfied(rec.compile(), w) == 1


def test_vectorized_alloc_many_and_value_store():
    cs = TestCS("bls12_381")
    fr = cs.fr
    bits = np.array([1, 0, 1, 1, 0], dtype=np.int64)
    b = cs.alloc_many(5, bits)  # small ints (not Montgomery)
    vals = fr.from_ints([10, 20, 30])
    v = cs.alloc_many(3, vals)  # Montgomery rows
    s = cs.alloc(lambda: 13)
    packed = cs.alloc_input(sum(int(x) << i for i, x in enumerate(bits)))
    for var in b:
        cs.enforce(Variable(var), Variable(var), Variable(var))  # booleanity
    cs.enforce(LC.from_arrays(b, 1 << np.arange(5)), ONE, packed)
    cs.enforce(LC.from_arrays(v), ONE, s + (47, ONE))  # 10 + 20 + 30 = 13 + 47
    assert cs.is_satisfied()
    assert [cs.value(x) for x in b] == bits.tolist()
    assert [cs.value(x) for x in v] == [10, 20, 30] and cs.value(s) == 13
    with pytest.raises(ValueError):
        WitnessCS("bn254").alloc_many(2, np.zeros((3, 4), np.uint64))
    with pytest.raises(ValueError):
        WitnessCS("bn254").alloc()  # a value is required in witness mode


def test_value_store_flushes_scalar_values(monkeypatch):
    from cuzk.r1cs import witness

    monkeypatch.setattr(witness, "FLUSH", 4)
    cs = WitnessCS("bn254")
    xs = [cs.alloc(i * i) for i in range(11)]
    cs.alloc_many(2, np.array([5, 6]))
    ys = [cs.alloc(100 + i) for i in range(3)]
    assert [cs.value(x) for x in xs] == [i * i for i in range(11)]
    assert [cs.value(y) for y in ys] == [100, 101, 102]
    assert cs.fr.to_ints(cs.aux_assignment()) == [i * i for i in range(11)] + [5, 6, 100, 101, 102]


def test_unknown_variable_is_rejected():
    cs = RecordingCS("bn254")
    x = cs.alloc()
    cs.enforce(x, x, Variable(~5))
    with pytest.raises(ValueError, match="not a variable"):
        cs.compile()
