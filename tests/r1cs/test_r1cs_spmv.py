"""SpMV (A.w, B.w, C.w) equals direct evaluation of the recorded LCs with Python ints."""

import numpy as np
import pytest

from cuzk.backend.cpu.spmv import spmv, spmv_kernel
from cuzk.r1cs import LC, RecordingCS, Variable
from cuzk.r1cs.evaluation import evaluate


def random_circuit(curve, rng, n_inputs=6, n_aux=60, n_constraints=150):
    """A RecordingCS with random LCs (+-1, small, big, zero, repeated variables)
    and the LCs themselves, kept for the oracle."""
    cs = RecordingCS(curve)
    p = cs.modulus
    inputs = [cs.alloc_input() for _ in range(n_inputs)]
    aux = [cs.alloc() for _ in range(n_aux)]
    variables = [cs.ONE] + inputs + aux
    choices = [1, -1, 2, 3, -7, 1 << 40, p - 1, p - 2, 0, p]

    def coeff():
        if rng.random() < 0.15:
            return int(rng.integers(0, 2**63)) * int(rng.integers(0, 2**63)) * 12345 % p
        return choices[int(rng.integers(len(choices)))]

    def random_lc():
        lc = LC()
        for _ in range(int(rng.integers(0, 7))):
            lc += (coeff(), variables[int(rng.integers(len(variables)))])
        return lc

    lcs = []
    for _ in range(n_constraints):
        abc = (random_lc(), random_lc(), random_lc())
        cs.enforce(*abc)
        lcs.append(abc)
    return cs, lcs


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_spmv_matches_python_ints(curve):
    rng = np.random.default_rng(1)
    cs, lcs = random_circuit(curve, rng)
    cc = cs.compile()
    fr, p = cc.fr, cc.fr.p
    for trial in range(2):
        w = fr.random(cc.num_vars, rng)
        w[0] = fr.ones(1)[0]
        w_int = fr.to_ints(w)

        def value(v):
            v = int(v)
            return w_int[cc.num_inputs + ~v] if v < 0 else w_int[v]

        a, b, c = (fr.to_ints(x) for x in evaluate(cc, w))
        for k, abc in enumerate(lcs):
            assert (a[k], b[k], c[k]) == tuple(lc.evaluate(value, p) for lc in abc), k
        # input rows: a = the input, b = c = 0
        assert a[cc.num_constraints :] == w_int[: cc.num_inputs]
        assert b[cc.num_constraints :] == c[cc.num_constraints :] == [0] * cc.num_inputs


@pytest.mark.parametrize("curve", ["bls12_381"])  # one curve: each dtype combination is a numba compile
def test_spmv_kernel_wide_index_types(curve):
    """int64 row pointers and uint16 coefficient indices (large circuits, large tables)."""
    rng = np.random.default_rng(2)
    cs, _ = random_circuit(curve, rng, n_constraints=40)
    cc = cs.compile()
    w = cc.fr.random(cc.num_vars, rng)
    expect = evaluate(cc, w)
    for m, ref in zip(cc.matrices, expect):
        out = np.empty_like(ref)
        spmv(m.indptr.astype(np.int64), m.cols, m.coeff_idx.astype(np.uint16), cc.coeff_table, w, out, curve=curve)
        assert np.array_equal(out, ref)
    with pytest.raises(ValueError):
        spmv(cc.a.indptr, cc.a.cols, cc.a.coeff_idx, cc.coeff_table, w, np.empty((3, 4), np.uint64), curve=curve)
    assert spmv_kernel(curve) is spmv_kernel(curve)


def test_bellperson_style_interleaved_inputs():
    """Inputs allocated after aux variables still get columns [ONE, inputs..., aux...]."""
    cs = RecordingCS("bls12_381")
    a = cs.alloc()
    i1 = cs.alloc_input()
    b = cs.alloc()
    i2 = cs.alloc_input()
    cs.enforce(a + i2, b, LC.of(i1))
    cc = cs.compile()
    assert cc.num_inputs == 3 and cc.num_aux == 2
    assert cc.a.cols[: cc.a.indptr[1]].tolist() == [2, 3]  # i2 -> 2, a -> 3
    assert cc.b.cols[: cc.b.indptr[1]].tolist() == [4]
    assert isinstance(a, Variable)
