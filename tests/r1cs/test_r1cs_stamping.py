"""Stamping a recorded template N times equals recording N copies directly."""

import numpy as np
import pytest

from cuzk.r1cs import LC, ONE, RecordingCS, Template, TestCS, Variable
from cuzk.r1cs.evaluation import check_satisfied


def xor_gadget(cs, a, b, key, values=None):
    """c = a XOR b, d = c * key + 3 (uses the shared input `key` and ONE).
    values: (a, b, key) ints in witness modes."""
    if values is not None:
        va, vb, vk = values
        vc = va ^ vb
    c = cs.alloc(lambda: vc)
    d = cs.alloc(lambda: vc * vk + 3)
    cs.enforce(a, a, a)
    cs.enforce(b, b, b)
    cs.enforce(LC.of(a, 2), b, a + b - c)
    cs.enforce(c, key, d - (3, ONE))
    return c, d


def record_template(curve):
    t = RecordingCS(curve)
    a, b, key = t.alloc_input(), t.alloc_input(), t.alloc_input()
    xor_gadget(t, a, b, key)
    return t.template()


def parent_prefix(cs, n, bits=None):
    key = cs.alloc_input(None if bits is None else 5)
    if bits is None:
        xs = cs.alloc_many(2 * n)
    else:
        xs = cs.alloc_many(2 * n, bits)
    cs.enforce(key, ONE, key)
    return key, xs


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_stamp_equals_direct_recording(curve):
    n = 7
    direct = RecordingCS(curve)
    key, xs = parent_prefix(direct, n)
    for k in range(n):
        xor_gadget(direct, Variable(xs[2 * k]), Variable(xs[2 * k + 1]), key)
    direct.enforce(LC.from_arrays(xs), ONE, LC.from_arrays(xs))

    tmpl = record_template(curve)
    assert (tmpl.num_inputs, tmpl.num_aux, tmpl.num_constraints) == (4, 2, 4)
    stamped = RecordingCS(curve)
    key2, xs2 = parent_prefix(stamped, n)
    inputs = np.stack([xs2[0::2], xs2[1::2], np.full(n, key2)], axis=1)
    outs = stamped.stamp(tmpl, n, inputs)
    stamped.enforce(LC.from_arrays(xs2), ONE, LC.from_arrays(xs2))

    assert outs.shape == (n, 2)
    assert outs[3].tolist() == [~(2 * n + 6), ~(2 * n + 7)]
    d, s = direct.compile(), stamped.compile()
    assert (s.num_inputs, s.num_aux, s.num_constraints) == (d.num_inputs, d.num_aux, d.num_constraints)
    for md, ms in zip(d.matrices, s.matrices):
        for x, y in zip((md.indptr, md.cols, md.coeff_idx), (ms.indptr, ms.cols, ms.coeff_idx)):
            assert np.array_equal(x, y)
    assert np.array_equal(d.coeff_table, s.coeff_table)
    assert d.id == s.id


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_stamped_witness_vectorized(curve):
    n = 9
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2, size=2 * n)
    cs = TestCS(curve)
    fr = cs.fr
    key, xs = parent_prefix(cs, n, bits)
    tmpl = record_template(curve)
    # the gadget's witness for all instances at once, in the template's aux order (c, d)
    c = bits[0::2] ^ bits[1::2]
    aux = np.stack([fr.from_ints(c.tolist()), fr.from_ints((5 * c + 3).tolist())], axis=1)
    inputs = np.stack([xs[0::2], xs[1::2], np.full(n, key)], axis=1)
    outs = cs.stamp(tmpl, n, inputs, aux_values=aux)
    assert cs.is_satisfied()
    assert [cs.value(v) for v in outs[:, 0]] == c.tolist()
    assert check_satisfied(cs.compile(), cs.witness()) is None

    broken = aux.copy()
    broken[4, 1] = fr.from_int(12345)  # instance 4's d
    bad = TestCS(curve)
    key, xs = parent_prefix(bad, n, bits)
    with bad.namespace("xors"):
        bad.stamp(tmpl, n, np.stack([xs[0::2], xs[1::2], np.full(n, key)], axis=1), aux_values=broken)
    assert bad.which_is_unsatisfied() == f"xors/stamp[4]/row 3 (constraint {1 + 4 * 4 + 3})"
    assert check_satisfied(bad.compile(), bad.witness()) == 1 + 4 * 4 + 3


def test_template_from_compiled_round_trip():
    tmpl = record_template("bn254")
    rec = RecordingCS("bn254")
    ins = rec.alloc_input_many(3)
    rec.stamp(tmpl, 1, ins)
    cc = rec.compile()
    again = RecordingCS("bn254")
    ins2 = again.alloc_input_many(3)
    again.stamp(Template.from_compiled(cc), 1, ins2)
    assert again.compile().id == cc.id


def test_stamp_checks_inputs():
    tmpl = record_template("bn254")
    cs = RecordingCS("bn254")
    with pytest.raises(ValueError, match="shape"):
        cs.stamp(tmpl, 2, np.zeros((2, 2), np.int64))
    with pytest.raises(ValueError, match="do not exist"):
        cs.stamp(tmpl, 1, np.array([[1, 2, 3]]))


def test_stamp_accepts_small_integer_aux_values():
    """A non-uint64 integer array (e.g. uint8[N, num_aux] bits) is taken as integers, not Montgomery."""
    n = 5
    bits = np.array([1, 0, 1, 1, 0, 0, 1, 1, 0, 1])
    cs = TestCS("bls12_381")
    key, xs = parent_prefix(cs, n, bits)
    c = bits[0::2] ^ bits[1::2]
    small = np.stack([c, 5 * c + 3], axis=1).astype(np.uint8)
    outs = cs.stamp(record_template("bls12_381"), n, np.stack([xs[0::2], xs[1::2], np.full(n, key)], axis=1), small)
    assert cs.is_satisfied()
    assert [cs.value(v) for v in outs[:, 1]] == (5 * c + 3).tolist()
