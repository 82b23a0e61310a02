"""Does a PoRep partition's vanilla proof satisfy the circuit for the public inputs a verifier derives?

The proof's challenges go into the gadget-level circuit (`circuit.challenge`, in a TestCS
that names each constraint) one at a time, after the header, against public inputs built
independently of the proof (replica_id, comm_d and comm_r as the chain knows them, challenges
and parents derived from the seed and the graph); the first unsatisfied constraint is named.
Each challenge is checked in its own TestCS (a challenge's constraints involve only the header
and its own values), and the TestCS's constraints are evaluated by SpMV on its compiled form,
the names read back from the TestCS.
"""

from __future__ import annotations

from cuzk.r1cs import TestCS, check_satisfied

from cuzk.circuits.filecoin.common.fr_bytes import CURVE
from .challenges import PER_CHALLENGE_INPUTS
from .circuit import synthesize_gadgets
from .stamped import PorepInputs
from .config import PorepConfig


def first_unsatisfied(cfg: PorepConfig, x: PorepInputs, public: list[int] | None = None,
                      challenges=None, progress=None) -> str | None:
    """None when every challenge (or those listed) satisfies the circuit with `public` (the
    partition's public inputs, generate_public_inputs' order; default the ones `x` implies), else
    "namespace/path/name (constraint i)" of the first failing constraint of the first failing
    challenge (indices within that challenge's check)."""
    todo = list(range(cfg.challenges)) if challenges is None else list(challenges)
    if public is not None and len(public) != 3 + cfg.challenges * PER_CHALLENGE_INPUTS:
        raise ValueError(f"{cfg.name}: {len(public)} public inputs, the circuit has "
                         f"{3 + cfg.challenges * PER_CHALLENGE_INPUTS}")
    for n, c in enumerate(todo):
        cs = TestCS(CURVE)
        synthesize_gadgets(cs, cfg, x, challenges=[c], public=public)
        if progress:
            progress(n + 1, len(todo))
        row = check_satisfied(cs.compile(), cs.witness())
        if row is not None:
            return f"{cs.constraint_name(row)} (constraint {row})"
    return None
