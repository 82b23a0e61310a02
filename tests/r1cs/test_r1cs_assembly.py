"""RecordingCS.compile (the streaming assembly) against two oracles: the expanded
reference path (compile_rows over the stamps expanded into code-form rows) must
give the same bytes and id, and every row must equal the LCs' terms summed with
Python ints mod r. Covers repeated columns with small and big coefficients (the
kernel's merge and the chunk redone in numpy), zero terms, inputs allocated
after aux variables, scalar rows between stamps, and chunking."""

import numpy as np
import pytest

from cuzk.r1cs import LC, ONE, RecordingCS, Variable, assembly
from cuzk.r1cs.compiled import compile_rows
from cuzk.r1cs.variable import columns

from r1cs_helpers import dense_rows

BIG = (1 << 200) + 12345  # a coefficient outside the kernel's small range


def template(curve):
    """A gadget whose rows repeat interface variables, hold a zero term, a big
    coefficient and ONE."""
    t = RecordingCS(curve)
    x, y, z = (t.alloc_input() for _ in range(3))
    u, v = t.alloc(), t.alloc()
    t.enforce(LC.of(x, 2) + (3, y) + (BIG, z) + (5, ONE), x + u, LC.of(v, -7) + (0, u))
    t.enforce(LC.of(u, BIG) + (1, v), LC.of(y, 4) - (4, y), LC.of(z, BIG) + (BIG, x))
    t.enforce(x + y + z, ONE, LC.of(u, 1 << 61) + (1 << 61, x) + (1 << 61, y))
    return t.template()


def record(curve, with_big_repeats: bool):
    """Scalar rows, an input allocated after aux, stamps whose interface repeats variables."""
    cs = RecordingCS(curve)
    a = cs.alloc_many(6)
    key = cs.alloc_input()
    cs.enforce(LC.from_arrays(a) + (3, a[0]) + (-3, a[0]), ONE, LC.of(key, BIG) + (BIG, key))
    t = template(curve)
    n = 9
    inputs = np.stack([np.resize(a, n), np.resize(a[::-1], n), np.full(n, key)], axis=1)
    if with_big_repeats:
        inputs[::2, 2] = inputs[::2, 0]  # x == z: BIG and 2 meet on one column
    else:
        inputs[::2, 1] = inputs[::2, 0]  # x == y: small coefficients meet
    cs.stamp(t, n, inputs)
    second = cs.alloc_input()
    cs.enforce(LC.of(second) + (1, Variable(int(a[2]))) + (1, Variable(int(a[2]))), LC.of(a[1]), LC())
    cs.stamp(t, 4, np.stack([np.full(4, a[3]), np.full(4, a[3]), np.full(4, second)], axis=1))
    cs.enforce(LC.of(key, 0), LC.of(second), LC.of(a[5]))
    return cs


def python_rows(cs, cc):
    """Each expanded row as {column: coefficient} summed with Python ints mod r, zeros dropped."""
    p = cc.fr.p
    from cuzk.r1cs.coefficients import decode

    out = []
    for k, rows in enumerate(cs.sparse_rows()):
        cols = columns(rows.vars, cs.num_inputs).tolist()
        coeffs = [decode(c) for c in rows.coeffs.tolist()]
        mat, j = [], 0
        for n in rows.lens.tolist():
            d = {}
            for col, c in zip(cols[j : j + n], coeffs[j : j + n]):
                d[col] = (d.get(col, 0) + c) % p
            mat.append({col: c for col, c in d.items() if c})
            j += n
        extra = [{i: 1} for i in range(cs.num_inputs)] if k == 0 else [{} for _ in range(cs.num_inputs)]
        out.append(mat + extra)
    return out


def same_bytes(x, y):
    assert (x.num_inputs, x.num_aux, x.num_constraints) == (y.num_inputs, y.num_aux, y.num_constraints)
    for mx, my in zip(x.matrices, y.matrices):
        for u, v in zip((mx.indptr, mx.cols, mx.coeff_idx), (my.indptr, my.cols, my.coeff_idx)):
            assert u.dtype == v.dtype and np.array_equal(u, v)
    assert np.array_equal(x.coeff_table, y.coeff_table)
    for name in ("a_aux_density", "b_input_density", "b_aux_density"):
        assert np.array_equal(getattr(x, name), getattr(y, name))
    assert x.id == y.id


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("chunk", [1 << 22, 5])
def test_assembly_equals_reference_and_python_sums(curve_name, big, chunk, monkeypatch):
    monkeypatch.setattr(assembly, "CHUNK_TERMS", chunk)  # 5: a few terms per kernel call, many chunks
    cs = record(curve_name, big)
    cc = cs.compile()
    ref = compile_rows(cs.curve, cs.num_inputs, cs.num_aux, cs.sparse_rows())
    same_bytes(cc, ref)
    assert [dense_rows(cc, m) for m in cc.matrices] == python_rows(cs, cc)


@pytest.mark.parametrize("coeff, slow_path", [(3, False), (-(1 << 60), False), (-(1 << 61), True), (BIG, True)])
def test_repeats_merge_in_the_kernel_unless_big(coeff, slow_path, monkeypatch):
    calls = []
    slow = assembly._slow
    monkeypatch.setattr(assembly, "_slow", lambda *a: (calls.append(1), slow(*a)))
    cs = RecordingCS("bls12_381")
    x = cs.alloc()
    cs.enforce(LC.of(x, coeff) + (coeff, x), x, x)  # 2 * coeff: |2^62| and above leave the kernel's range
    cc = cs.compile()
    assert bool(calls) == slow_path
    assert dense_rows(cc, cc.a)[0] == {1: (2 * coeff) % cc.fr.p}


def test_peak_estimate_covers_the_finished_arrays():
    cs = record("bls12_381", False)
    cc = cs.compile()
    nnz = sum(m.nnz for m in cc.matrices)
    assert assembly.peak_bytes_estimate(cc.num_rows, nnz, cc.num_aux) > cc.nbytes
