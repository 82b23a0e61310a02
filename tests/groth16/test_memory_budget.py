"""Whole proofs under a device-memory budget (backend/memory_plan.py) on the CPU backend: the budget
is chosen so that the plan streams every base in chunks, splits H into chunked steps and parks
the witness during H; the proofs equal the unconstrained ones (same r, s) and pass the Groth16 verifier."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backend import memory_plan as mp
from cuzk.backend.cpu import CpuBackend
from cuzk.curve import get_curve
from cuzk.groth16 import prover, setup
from cuzk.groth16.verifier import PreparedVerifyingKey, verify
from cuzk.r1cs import LC, ONE, RecordingCS, WitnessCS

STEPS = 300


def squarings(cs, x):
    """Public y = x^(2^STEPS) + 3x, through a chain of squarings (a few hundred variables)."""
    p = get_curve("bls12_381").fr.p
    v = cs.alloc(x)
    acc, val = v, x
    for _ in range(STEPS):
        val = val * val % p
        nxt = cs.alloc(lambda val=val: val)
        cs.enforce(acc, acc, nxt)
        acc = nxt
    y = cs.alloc_input(lambda: (val + 3 * x) % p)
    cs.enforce(LC.of(acc, 1) + LC.of(v, 3), ONE, y)


@pytest.fixture(scope="module")
def case():
    rec = RecordingCS("bls12_381")
    squarings(rec, 0)
    cc = rec.compile()
    ws = WitnessCS("bls12_381")
    squarings(ws, 7)
    w = ws.witness()
    pk = setup.generate(cc, backend=CpuBackend(), progress=False)
    return cc, w, pk


def forcing_budget(pk, cc) -> int:
    """The largest budget (KiB steps) whose plan streams everything, splits H and chunks its steps."""
    shape = mp.shape_of(pk, cc)
    limits = CpuBackend().plan_limits()
    for kib in range(400, 10, -1):
        try:
            p = mp.plan(shape, kib << 10, **limits)
        except mp.MemoryBudgetError:
            continue
        if p.split_h and not p.resident and p.elementwise < shape.n and p.chunk_points(96) < shape.n // 2:
            return kib << 10
    raise AssertionError("no budget forces every streaming path")


def test_proofs_under_a_budget_equal_the_unconstrained_ones_and_verify(case):
    cc, w, pk = case
    budget = forcing_budget(pk, cc)
    small = CpuBackend(memory_limit=budget)
    rs = [(12345, 67890)]
    got = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], small, rs=rs)[0]
    plan = small.plan
    # at this size H's steps are chunked only once the witness is parked: the smallest budgets' path
    # (on a device also the one whose twiddles are dropped during the SpMVs and the MSMs)
    assert plan.split_h and not plan.resident and plan.park_witness
    want = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], CpuBackend(), rs=rs)[0]
    for x, y in ((got.a, want.a), (got.b, want.b), (got.c, want.c)):
        assert np.array_equal(x, y)
    public = cc.fr.to_ints(w[1:cc.num_inputs])
    assert verify(PreparedVerifyingKey(pk.vk), got, public)


def test_a_budget_too_small_for_one_chunk_is_refused_before_any_work(case):
    cc, w, pk = case
    with pytest.raises(mp.MemoryBudgetError, match="too small for this proof"):
        prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)], CpuBackend(memory_limit=1000))
