"""cuzk.aggregate.g1_sums (the verifier's short G1 sums) against py_ecc."""

from __future__ import annotations

import random

import py_ecc.optimized_bls12_381 as bls
import py_ecc.optimized_bn128 as bn
import pytest

from cuzk.aggregate import g1_sums
from cuzk.curve import get_curve

E = {"bn254": bn, "bls12_381": bls}


@pytest.mark.parametrize("name", list(E))
def test_sums_match_py_ecc(name):
    E_, curve = E[name], get_curve(name)
    r = E_.curve_order
    rng = random.Random(name)

    def point(k):
        if k % r == 0:
            return curve.g1.identity(1)[0]
        x, y = E_.normalize(E_.multiply(E_.G1, k))
        return curve.g1.from_ints([(int(x), int(y))])[0]

    scalars = [lambda: rng.randrange(r), lambda: rng.getrandbits(128), lambda: -rng.getrandbits(128),
               lambda: -rng.randrange(r), lambda: 1, lambda: 0, lambda: r - 1, lambda: 3 * r + 5]
    groups, logs = [], []
    for size in (1, 2, 3, 5, 1, 28, 4):
        logs.append([rng.randrange(1, r) for _ in range(size)])
        groups.append([(point(k), rng.choice(scalars)()) for k in logs[-1]])
    # sums that need the exceptional cases: infinity terms, P + P, P - P
    k = rng.randrange(1, r)
    logs += [[0, k], [k, k], [k, k]]
    groups += [[(point(0), 7), (point(k), 5)], [(point(k), 2), (point(k), 2)], [(point(k), 9), (point(k), -9)]]

    got = g1_sums.sums(curve, groups)

    for i, (parts, ls) in enumerate(zip(groups, logs)):
        want_log = sum(l * s for l, (_, s) in zip(ls, parts)) % r
        if want_log == 0:
            assert not got[i].any(), f"group {i}: expected the identity"
            continue
        x, y = E_.normalize(E_.multiply(E_.G1, want_log))
        assert curve.g1.to_ints(got[i][None])[0] == (int(x), int(y)), f"group {i}"
