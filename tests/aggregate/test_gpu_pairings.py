"""The CUDA backend's pairing products (miller.cuh, called directly: the backend sends
fewer than GPU_MIN_PAIRS pairs to the host's cores) against py_ecc's pairings and the CPU
backend's numba Miller loops, and a whole aggregate made with the CUDA backend (gpu marked)."""

from __future__ import annotations

import random

import numpy as np
import py_ecc.optimized_bls12_381 as bls
import py_ecc.optimized_bn128 as bn
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.curve.pairing import final_exponentiation
from cuzk.field.tower import towers_of

pytestmark = pytest.mark.gpu

E = {"bn254": bn, "bls12_381": bls}


@pytest.fixture(scope="module")
def cuda():
    return get_backend("cuda")


def device_products(*args):
    from cuzk.backend.cuda.pairing import device_products as products  # CuPy: only where a GPU is

    return products(*args)


def _g1(curve, E_, ks):
    return get_curve(curve).g1.from_ints([tuple(int(c) for c in E_.normalize(E_.multiply(E_.G1, k))) for k in ks])


def _g2(curve, E_, ks):
    pts = []
    for k in ks:
        x, y = E_.normalize(E_.multiply(E_.G2, k))
        pts.append((tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs)))
    return get_curve(curve).g2.from_ints(pts)


@pytest.mark.parametrize("curve", list(E))
def test_gpu_products_match_py_ecc(cuda, curve):
    """Two products over two G2 points (one point with pairs in both products): the GT values
    after our final exponentiation equal py_ecc's pairings (its BLS12-381 value is the inverse
    of the optimal ate pairing we compute, see tests/curve/test_pairing.py)."""
    E_ = E[curve]
    rnd = random.Random(curve)
    a = [rnd.randrange(2, E_.curve_order) for _ in range(3)]
    b = [rnd.randrange(2, E_.curve_order) for _ in range(2)]
    g1, g2 = _g1(curve, E_, a), _g2(curve, E_, b)
    # pairs: (a0, b0) -> 0, (a1, b0) -> 1, (a2, b1) -> 0
    q_ptr = np.array([0, 2, 3], dtype=np.int64)
    got = final_exponentiation(curve, device_products(curve, g1, g2, q_ptr, np.array([0, 1, 2]),
                                                      np.array([0, 1, 0]), 2, cuda.device))

    def pair(x, y):
        v = E_.pairing(E_.multiply(E_.G2, y), E_.multiply(E_.G1, x))
        return v.inv() if curve == "bls12_381" else v

    fq12 = towers_of(curve)[1]
    ours = [E_.FQ12(list(fq12.to_poly_ints(v)[0])) for v in got]
    assert ours == [pair(a[0], b[0]) * pair(a[2], b[1]), pair(a[1], b[0])]


@pytest.mark.parametrize("curve", list(E))
def test_gpu_products_match_cpu_backend(cuda, curve):
    """Many distinct random points; G2 points with 1-9 pairs (a thread takes at most 4: points
    with more are split), one product with ~300 pairs (three reduction levels), one with none."""
    c = get_curve(curve)
    rng = np.random.default_rng(7)
    nq, nprod = 80, 6
    counts = rng.integers(1, 10, nq)
    npairs = int(counts.sum())
    q_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    g2 = c.g2.random(nq, rng)
    g1 = c.g1.random(npairs + 7, rng)
    p_idx = rng.permutation(npairs + 7)[:npairs].astype(np.int64)
    prod = np.where(rng.random(npairs) < 0.75, 0, rng.integers(1, nprod - 1, npairs)).astype(np.int64)
    assert (prod == 0).sum() > 256 and not (prod == nprod - 1).any()
    cpu = get_backend("cpu")
    want = final_exponentiation(curve, cpu.miller_products(curve, g1, g2, q_ptr, p_idx, prod, nprod))
    got = final_exponentiation(curve, device_products(curve, g1, g2, q_ptr, p_idx, prod, nprod, cuda.device))
    fq12 = towers_of(curve)[1]
    assert fq12.equal(got, want).all()
    ones = fq12.is_one(got)
    assert ones[nprod - 1] and not ones[0]


@pytest.mark.parametrize("curve", list(E))
def test_gpu_aggregate_same_bytes_as_cpu(cuda, curve):
    """An aggregate of 512 proofs (the 9 test proofs repeated) made with the CUDA backend has the
    same bytes as the CPU backend's (the transcript is deterministic) and verifies; its commitments
    (6n pairs) and first GIPA round (16 n/2) are above GPU_MIN_PAIRS, so they run on the device."""
    from cuzk.aggregate import proof_format, prover, srs, transcript, verifier

    from cuzk.backend.cuda.pairing import GPU_MIN_PAIRS

    from .helpers import CPU, arrays, canon_inputs, keyed, mont_inputs

    n = 512
    assert 6 * n >= GPU_MIN_PAIRS and 8 * n >= GPU_MIN_PAIRS
    pk, pvk, proofs, pubs = keyed(curve)
    proofs, pubs = [proofs[i % len(proofs)] for i in range(n)], [pubs[i % len(pubs)] for i in range(n)]
    generic = srs.generate(curve, n)
    canon = canon_inputs(curve, pubs)
    include = transcript.statement_digest(pk.vk, canon, n, transcript.DOMAIN)
    pkey = srs.prover_key(generic, n)
    data = {name: proof_format.to_bytes(prover.aggregate(pkey, *arrays(proofs), include, be))
            for name, be in (("cpu", CPU), ("cuda", cuda))}
    assert data["cuda"] == data["cpu"]
    agg = proof_format.from_bytes(get_curve(curve), data["cuda"])
    assert verifier.verify(srs.verifier_key(generic), pvk, mont_inputs(curve, canon), agg, include, CPU) == (True, "")
