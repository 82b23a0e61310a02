"""snarkjs's domain order -> cuzk's: the root exponent and the two re-indexings."""

import numpy as np
import pytest

from cuzk.field import fields_of
from cuzk.formats.snarkjs_domain import h_positions, row_positions, snarkjs_exponent, snarkjs_root


@pytest.mark.parametrize("curve,nqr", [("bn254", 5), ("bls12_381", 5)])
def test_root_and_exponent(curve, nqr):
    fr = fields_of(curve)[0]
    p, s = fr.p, fr.params.two_adicity
    w = snarkjs_root(fr)
    assert w == pow(nqr, (p - 1) >> s, p)  # ffjavascript: smallest non-residue ^ odd part
    k = snarkjs_exponent(fr)
    assert k % 2 == 1 and pow(fr.params.root_of_unity, k, p) == w
    assert (k == 1) == (curve == "bn254")


@pytest.mark.parametrize("curve", ["bn254", "bls12_381"])
def test_positions_map_points_onto_points(curve):
    fr = fields_of(curve)[0]
    p, n = fr.p, 16
    ours_n, ours_2n = fr.params.root_of_unity_of_order(4), fr.params.root_of_unity_of_order(5)
    theirs_2n = pow(snarkjs_root(fr), 1 << (fr.params.two_adicity - 5), p)
    theirs_n = theirs_2n * theirs_2n % p
    rows = row_positions(fr, n, np.arange(n))
    assert sorted(rows.tolist()) == list(range(n))
    assert all(pow(theirs_n, r, p) == pow(ours_n, int(rows[r]), p) for r in range(n))
    h = h_positions(fr, n)
    if h is None:
        assert curve == "bn254"
        return
    assert sorted(h.tolist()) == list(range(n))
    for i in range(n):  # snarkjs's H point i is cuzk's odd-coset point h[i]
        assert theirs_2n * pow(theirs_n, i, p) % p == ours_2n * pow(ours_n, int(h[i]), p) % p
