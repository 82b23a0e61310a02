"""What the PoRep and SnapDeals circuit tests check alike of a partition circuit."""

from __future__ import annotations

import numpy as np

from cuzk.r1cs import RecordingCS, WitnessCS, check_satisfied


def sizes_and_witness_check(synthesize, cfg, x, counts) -> np.ndarray:
    """`synthesize(cs, cfg[, x])` recorded and run on inputs `x`: the recorded sizes are the analytic
    `counts(cfg)` and the witness satisfies the compiled circuit. Returns the witness."""
    ws = WitnessCS("bls12_381")
    synthesize(ws, cfg, x)
    rec = RecordingCS("bls12_381")
    synthesize(rec, cfg)
    n = counts(cfg)
    assert (rec.num_constraints, rec.num_inputs, rec.num_aux) == (n.constraints, n.inputs, n.aux)
    w = ws.witness()
    assert check_satisfied(rec.compile(), w) is None
    return w
