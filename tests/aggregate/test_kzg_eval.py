"""cuzk.aggregate.kzg.evaluate against plain Python modular arithmetic."""

from __future__ import annotations

import random

import pytest

from cuzk.aggregate import kzg
from cuzk.curve import get_curve


@pytest.mark.parametrize("name", ["bn254", "bls12_381"])
@pytest.mark.parametrize("n,k", [(1, 1), (7, 3), (256, 1)])
def test_evaluate_matches_ints(name, n, k):
    fr = get_curve(name).fr
    rng = random.Random(f"{name}{n}{k}")
    cols = [[rng.randrange(fr.p) for _ in range(n)] for _ in range(k)]
    z = rng.choice([0, 1, fr.p - 1, rng.randrange(fr.p)])
    coeffs = fr.from_ints([cols[c][j] for j in range(n) for c in range(k)]).reshape(n, k, fr.limbs)
    got = fr.to_ints(kzg.evaluate(fr, coeffs, z))
    assert got == [sum(c * pow(z, j, fr.p) for j, c in enumerate(col)) % fr.p for col in cols]
