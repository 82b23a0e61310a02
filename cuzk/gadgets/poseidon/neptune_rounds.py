"""Round numbers of neptune v11 (the Poseidon crate Filecoin uses).

neptune computes (R_F, R_P) with its own port of the reference round-number
script, which differs from the script (and from `round_numbers`) in ways
that decide the published numbers, so it is reproduced as neptune runs it:

* the inequalities are evaluated in 32-bit floats with n = 256 bits, M = 128,
  the interpolation bound as 0.43 M + log2 t - R_P and the Groebner bounds as
  0.21 n - R_P and (0.14 n - 1 - R_P) / (t - 1); negative ceilings count as 0;
* R_F runs over 2..1000 (even), R_P over 4..199; when a pair is secure the
  margin (R_F + 2, ceil(1.075 R_P) in f32) is applied, and the R_F increment
  persists for the rest of that R_F's inner loop (neptune mutates the outer
  loop variable);
* "strengthened" adds 25% to R_P, rounded up.
"""

from __future__ import annotations

import functools

import numpy as np

STRENGTHS = ("standard", "strengthened")
_F = np.float32


def _full_rounds_needed(t: int, r_p: int) -> int:
    """The least secure R_F for (t, R_P) (neptune's `round_numbers_are_secure`)."""
    rp, tt, n, m = _F(r_p), _F(t), _F(256), _F(128)
    rf_stat = _F(6) if m <= (n - _F(3)) * (tt + _F(1)) else _F(10)
    rf_interp = _F(0.43) * m + np.log2(tt) - rp
    rf_grob_1 = _F(0.21) * n - rp
    rf_grob_2 = (_F(0.14) * n - _F(1) - rp) / (tt - _F(1))
    return max(max(0, int(np.ceil(x))) for x in (rf_stat, rf_interp, rf_grob_1, rf_grob_2))


@functools.cache
def _base_round_numbers(t: int) -> tuple[int, int]:
    need = {rp: _full_rounds_needed(t, rp) for rp in range(4, 200)}
    margin_rp = {rp: int(np.ceil(_F(1.075) * _F(rp))) for rp in range(4, 200)}
    rf = rp = 0
    best = None
    for rf_outer in range(2, 1001, 2):
        rf_test = rf_outer
        for rp_test in range(4, 200):
            if rf_test >= need[rp_test]:
                rf_test += 2
                rp_adj = margin_rp[rp_test]
                cost = t * rf_test + rp_adj
                if best is None or cost < best or (cost == best and rf_test < rf):
                    rf, rp, best = rf_test, rp_adj, cost
    return rf, rp


def neptune_round_numbers(arity: int, strength: str = "standard") -> tuple[int, int]:
    """(R_F, R_P) neptune uses for `arity` inputs (width arity + 1)."""
    if strength not in STRENGTHS:
        raise ValueError(f"unknown strength {strength!r}; expected one of {STRENGTHS}")
    rf, rp = _base_round_numbers(arity + 1)
    if strength == "strengthened":
        rp = -(-rp * 5 // 4)  # ceil(1.25 R_P), exact on integers
    return rf, rp
