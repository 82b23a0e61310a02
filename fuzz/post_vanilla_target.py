"""Fuzz target and seeds of the Filecoin PoSt vanilla-proof reader
(cuzk.circuits.filecoin.post.vanilla_bincode), registered in fuzz/targets.py."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .readings import every_reading

FIXTURE = Path(os.environ.get("CUZK_FILECOIN_FIXTURES",
                              Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "filecoin")
               ) / "curio-window-post" / "post.vproof"

# the registered proofs the target reads every input as: 32 GiB window (Sub paths), 64 GiB window
# (Top paths), 2 KiB window and winning (Single paths; small enough to arrange into circuit slots)
PROOFS = (13, 14, 10, 0)
SLOTTED = (10, 0)
RANDOMNESS = bytes(32)  # the fixture's randomness; the generated seeds use it too


def post_vanilla(data: bytes):
    """One `vanilla_proofs` entry as the daemon takes it for each registered proof above:
    decoded, checked against the challenges of RANDOMNESS, public inputs derived, and for
    the small sizes arranged into the circuit's slots. Our error if no reading succeeds."""
    from cuzk.circuits.filecoin.post.challenges import public_inputs
    from cuzk.circuits.filecoin.common.registered_proofs import post_config
    from cuzk.circuits.filecoin.post import vanilla_bincode as pv

    def read(number) -> list:
        cfg = post_config(number)
        values = []
        if number in SLOTTED:
            slots = pv.load_partition(cfg, [data], RANDOMNESS, 0)
            values.append(slots.public_values())
            sector = ([slots.sector_ids[0]], slots.comm_r[:1])
        else:
            proof = pv.decode_sector_proof(data, cfg, position=0)
            pv.check_sector_proof(proof, cfg, RANDOMNESS, position=0)
            sector = ([proof.sector_id], [proof.comm_r])
        return values + [public_inputs(cfg, RANDOMNESS, sector, 0)[:16]]

    return [v for values in every_reading(read, PROOFS) for v in values]


@functools.lru_cache(maxsize=None)
def seeds() -> list[bytes]:
    """The real 32 GiB proof when the shared fixtures are present, and generated proofs of
    the 2 KiB window and winning and the 64 GiB window shapes."""
    from cuzk.circuits.filecoin.post.vanilla_gen import make_sector_proof
    from cuzk.circuits.filecoin.common.registered_proofs import post_config
    from cuzk.circuits.filecoin.post.vanilla_bincode import encode_sector_proof

    out = [FIXTURE.read_bytes()] if FIXTURE.is_file() else []
    for number, sector in ((10, 5), (0, 6), (14, 7)):
        cfg = post_config(number)
        out.append(encode_sector_proof(make_sector_proof(cfg, sector, RANDOMNESS, seed=1), cfg))
    return out
