"""memory_plan's decisions, and the CPU backend following a plan that streams everything: chunked
MSMs against arkworks, the split H computation against the unsplit one and against polynomial
arithmetic in Python integers (test_quotient's oracle)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from cuzk.backend import memory_plan as mp
from cuzk.backend.cpu import CpuBackend

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "groth16"))
from msm_oracle import pool_of  # noqa: E402
from test_quotient import _oracle, quotient_case  # noqa: E402

GiB = 1 << 30


def sector_shape() -> mp.ProofShape:
    """A 2^27 partition's shape (the stamped SHA-256 workload's proportions)."""
    n, v = 1 << 27, 137_975_824
    return mp.ProofShape(n, 134_193_281, v, {"h": (n - 1, 96), "l": (v, 96), "a": (v // 2, 96),
                                             "b_g1": (v // 3, 96), "b_g2": (v // 3, 192)},
                         (18 * n, 9 * n, 18 * n))


def test_no_budget_is_no_plan():
    assert mp.plan(sector_shape(), None) is None


def test_a_budget_that_holds_everything_keeps_todays_path():
    s = sector_shape()
    p = mp.plan(s, 400 * GiB)
    assert p.resident == frozenset(("h", "l", "a", "b_g1", "b_g2")) and not p.split_h and p.prefetch
    assert p.chunk_bytes == max(c * pb for c, pb in s.bases.values())  # every MSM in one piece
    assert p.table_room > 0


@pytest.mark.parametrize("gib", [24, 40])
def test_a_sector_partition_fits_the_cards_storage_providers_own(gib):
    s = sector_shape()
    p = mp.plan(s, gib * GiB)
    assert p.split_h and p.streams("h") and p.chunk_bytes <= mp.STREAM_TARGET
    resident = sum(s.bases[k][0] * s.bases[k][1] for k in p.resident)
    phases = max(mp.split_h_bytes(s, p.elementwise, p.matrices_resident),
                 mp.msm_bytes(s, p.chunk_bytes, True, True, True))
    assert resident + phases <= gib * GiB


@pytest.mark.parametrize("gib", [79.2, 139, 400])
def test_window_tables_leave_room_for_the_next_witness(gib):
    """A second prover worker uploads its witness while a proof runs (prefetch): the room the plan
    gives window tables must leave it, beside the resident bases and the proof's largest phase
    (on an 80 GB card the tables took it, and the upload ran out of memory every partition)."""
    s = sector_shape()
    p = mp.plan(s, int(gib * GiB))
    assert p.prefetch and p.table_room > 0
    resident = sum(s.bases[k][0] * s.bases[k][1] for k in p.resident)
    if p.split_h:
        phases = max(mp.split_h_bytes(s, p.elementwise, p.matrices_resident),
                     mp.msm_bytes(s, p.chunk_bytes, False, True, True))
    else:
        phases = max(mp.whole_h_bytes(s), mp.msm_bytes(s, p.chunk_bytes, False, True, False))
    witness = 32 * s.num_vars
    cap = int(gib * GiB)
    # within what the plan may use: the reserve is for fragmentation and what the model misses
    assert resident + phases + witness + p.table_room <= cap - cap // mp.RESERVE


def parked_h_phases(s: mp.ProofShape, elementwise: int) -> tuple[int, int]:
    """The split H's two phases with the witness parked, from the shape: an SpMV holds the witness
    uploaded for it, the vector, the largest matrix (uploaded for it), the matrix's long-row scan
    (9 B a row) and two cached chunk power tables, but no twiddles (dropped before the vector
    loads); a transform holds the twiddles (counted as both directions, n/2 each), the vector, its
    scratch and five chunk tables."""
    n, v = s.n, s.num_vars
    evaluate = 32 * v + 32 * n + 18 * n + 9 * s.rows + 2 * 32 * elementwise
    transform = 32 * n + 2 * 32 * n + 5 * 32 * elementwise
    return evaluate, transform


def parked_msm_bytes(s: mp.ProofShape, chunk: int) -> int:
    """The MSM phase with the witness parked, from the shape: the witness's and H's scalars, the
    worse group's chunk (176 B of sort scratch a scalar, 17 windows of 2^15 XYZZ buckets for chunks
    of up to 2^24 points, a first and a last XYZZ point per accumulation thread) and two chunk
    buffers of bases; no NTT table (the twiddles go with H)."""
    worst = 0
    for pb in (96, 192):
        points = chunk // pb
        assert 1 << 12 <= points <= 1 << 24  # the window of 16 bits
        acc = 2 * min(-(-points * 17 // 16), 6144 * 144) * 2 * pb
        worst = max(worst, 176 * points + 17 * (1 << 15) * 2 * pb + acc)
    return 32 * (s.num_vars + max(s.n, s.num_vars)) + s.indices + worst + 2 * chunk


def test_16_gib_fits_with_the_witness_parked_in_host_memory_during_h():
    # with the witness on the device the split H holds it (4.4 GB), the twiddles, a vector and the
    # transform's scratch (8.6 GB) at once, over 16 GiB (measured on an H100 on 2026-12-06: such a
    # plan ran out of memory at 15.0 GB of a 16 GiB cap)
    s = sector_shape()
    n, v = s.n, s.num_vars
    p = mp.plan(s, 16 * GiB)
    assert p.split_h and p.park_witness and not p.prefetch and not p.resident
    usable = 16 * GiB - 16 * GiB // 16  # the plan keeps 1/16 back
    unparked = 32 * n + 32 * v + 2 * 32 * n + 5 * 32 * p.elementwise  # twiddles, witness, vector, scratch, tables
    assert unparked > usable  # parking is what makes it fit
    assert mp.split_h_bytes(s, p.elementwise, p.matrices_resident, True) == max(*parked_h_phases(s, p.elementwise))
    assert max(*parked_h_phases(s, p.elementwise)) <= usable


def test_a_sector_partition_plans_within_the_pool_of_a_15_gib_card_budget():
    # 15GiB on a card leaves CuPy's pool ~14.3 GiB (the CUDA context and kernels sit outside it): it
    # fits because the parked plan's SpMVs and MSMs hold no twiddles
    s = sector_shape()
    n, v = s.n, s.num_vars
    budget = 14 * GiB + GiB // 4
    p = mp.plan(s, budget)
    usable = budget - budget // 16
    assert p.split_h and p.park_witness and not p.resident and not p.matrices_resident
    assert p.elementwise == 1 << 22 and p.chunk_bytes == 1 << 30  # full-size pointwise chunks and MSM chunks
    evaluate, transform = parked_h_phases(s, p.elementwise)
    assert evaluate + 32 * n > usable  # the SpMV beside the twiddles would not fit
    assert transform > evaluate  # the transform is the largest phase now
    assert mp.split_h_bytes(s, p.elementwise, p.matrices_resident, True) == transform <= usable
    assert mp.msm_bytes(s, p.chunk_bytes, True, True, True, True) == parked_msm_bytes(s, p.chunk_bytes) <= usable


def test_a_budget_below_the_parked_transform_is_refused_naming_what_it_needs():
    # the floor: a transform with the smallest pointwise chunks (2^10 elements), plus 1/15 (an SpMV
    # and an MSM of the smallest chunk hold less)
    s = sector_shape()
    need = (32 * 3 * s.n + 5 * 32 * (1 << 10)) * 16 / 15 / GiB
    assert f"{need:.2f}" == "12.80"
    with pytest.raises(mp.MemoryBudgetError, match=rf"budget of 12\.00 GiB is too small .* needs at least {need:.2f} GiB"):
        mp.plan(s, 12 * GiB)
    p = mp.plan(s, 13 * GiB)  # above it, with smaller pointwise chunks
    assert p.park_witness and p.elementwise < 1 << 22


def test_24_gib_keeps_the_witness_and_the_twiddles_on_the_device():
    s = sector_shape()
    p = mp.plan(s, 24 * GiB)
    assert p.split_h and not p.park_witness
    assert p.resident == frozenset({"b_g1"}) and p.chunk_bytes == 1 << 30 and not p.matrices_resident
    n, v = s.n, s.num_vars  # the model of the path kept: the twiddles held throughout, the witness beside H
    assert mp.split_h_bytes(s, p.elementwise, p.matrices_resident) == 32 * n + 32 * v + 2 * 32 * n + 5 * 32 * p.elementwise
    assert (mp.msm_bytes(s, p.chunk_bytes, True, True, True)
            == parked_msm_bytes(s, p.chunk_bytes) + 32 * n)


def test_a_budget_below_one_chunk_is_one_clear_error():
    with pytest.raises(mp.MemoryBudgetError, match=r"budget of 8\.00 GiB is too small .* needs at least"):
        mp.plan(sector_shape(), 8 * GiB)


def test_chunks_cover_the_range():
    assert list(mp.chunks(10, 4)) == [(0, 4), (4, 8), (8, 10)]
    assert list(mp.chunks(0, 4)) == []


# ---- the CPU backend under a plan that streams everything ---------------------------------------


def streaming_plan(n: int, elementwise: int, chunk_bytes: int) -> mp.MemoryPlan:
    return mp.MemoryPlan(budget=1, resident=frozenset(), chunk_bytes=chunk_bytes, split_h=True,
                         elementwise=elementwise, matrices_resident=False, prefetch=False, table_room=0)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_chunked_msm_matches_arkworks(group):
    pool = pool_of("bls12_381", group, 300)
    rng = np.random.default_rng(3)
    ints = pool.random_scalars(300, rng)
    ints[:7] = [0, 1, 0, 1, 1, 2, pool.r - 1]
    cpu = CpuBackend()
    cpu.plan = streaming_plan(512, 16, 37 * 2 * 8 * (6 if group == "g1" else 12))  # 37 points: ragged chunks
    got = cpu.msm("bls12_381", group, pool.points, pool.scalars(ints))
    assert pool.G.to_ints(got[None])[0] == pool.expect(pool.logs, ints)


@pytest.mark.parametrize("curve_name", ["bls12_381", "bn254"])
@pytest.mark.parametrize("to_coefficients", [True, False])
def test_split_h_matches_the_whole_computation_and_polynomial_arithmetic(curve_name, to_coefficients):
    curve, a, b, c, n, shift, scale, count = quotient_case(curve_name, to_coefficients, seed=11)
    fr = curve.fr
    whole = CpuBackend().quotient(curve, a, b, c, n, shift, scale, to_coefficients, count)
    cpu = CpuBackend()
    cpu.plan = streaming_plan(n, 3, 1 << 10)  # chunks of 3 elements: the last one short
    split = cpu.quotient(curve, a, b, c, n, shift, scale, to_coefficients, count)
    assert np.array_equal(split, whole)
    want = _oracle(fr, fr.to_ints(a), fr.to_ints(b), fr.to_ints(c), n, shift, scale, to_coefficients)
    assert fr.canonical_to_ints(split) == want[:count]
