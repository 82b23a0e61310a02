"""Does a PoSt partition satisfy the circuit for the public inputs a verifier derives?

The proving path never needs this (it checks natively, then proves), but a
person debugging a Filecoin proof does: the vanilla proofs go into the real
circuit (`post_circuit.slot`, gadget by gadget, in a TestCS that names each
constraint) against public inputs built independently of them (comm_r as the
chain knows it, challenges derived from the randomness and sector ids), and
the first unsatisfied constraint is named. Slots that repeat a sector (the
padding of a partial WindowPoSt partition) are the same constraints on the
same values, so each distinct slot is checked once.
"""

from __future__ import annotations

import numpy as np

from cuzk.r1cs import TestCS

from cuzk.circuits.filecoin.common.fr_bytes import CURVE, fr, small_to_mont
from .circuit import PostInputs, slot, slot_values
from cuzk.circuits.filecoin.common.registered_proofs import PostConfig


def distinct_slots(cfg: PostConfig, slots) -> list[int]:
    """The slots whose constraints differ: every slot of a WinningPoSt (one challenge each),
    the first slot of each sector of a WindowPoSt partition."""
    if cfg.kind == "winning":
        return list(range(slots.real_slots))
    _, first = np.unique(np.asarray(slots.sector_ids[: slots.real_slots]), return_index=True)
    return sorted(int(i) for i in first)


def first_unsatisfied(cfg: PostConfig, slots, public: list[int], progress=None) -> str | None:
    """None when every distinct slot satisfies the circuit with `public` (the partition's
    public inputs, generate_public_inputs' order), else "slot S (sector N): namespace/path"."""
    x = PostInputs.from_slots(slots)
    k = cfg.challenges_per_sector
    rows = np.asarray(public, dtype=object).reshape(cfg.sectors_per_partition, 1 + k)
    todo = distinct_slots(cfg, slots)
    for n, s in enumerate(todo):
        cs = TestCS(CURVE)
        values = np.concatenate([_mont_int(int(rows[s, 0])), small_to_mont([int(v) for v in rows[s, 1:]])])
        pub = cs.alloc_input_many(1 + k, values).tolist()
        slot(cs, cfg, pub[0], pub[1:], slot_values(x, s))
        if progress:
            progress(n + 1, len(todo))
        name = cs.which_is_unsatisfied()
        if name is not None:
            return f"slot {s} (sector {int(slots.sector_ids[s])}): {name}"
    return None


def _mont_int(value: int) -> np.ndarray:
    f = fr()
    return f.from_ints([value % f.p])
