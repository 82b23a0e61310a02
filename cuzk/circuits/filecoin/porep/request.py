"""A PoRep C2 request as Curio sends it: generated for tests and benchmarks, and its sector checked.

`sample_request(cfg, seed)` returns the SubmitProofRequest fields of a valid request for a random
sector (`porep_sparse_gen`: any size, 32 GiB in about two seconds): `vanilla_proof` is Curio's C1
envelope around the SealCommitPhase1Output JSON, with proof_kind POREP_SEAL_COMMIT,
registered_proof (Go's abi.RegisteredSealProof), sector_number and miner_id, whose prover id and
sector number are the ones the sector's replica_id derives from.
"""

from __future__ import annotations

import numpy as np

from .challenges import generate_replica_id
from .config import PorepConfig
from .sparse_gen import SectorProofs, make_sector_proofs
from cuzk.circuits.filecoin.common.prover_id import prover_id
from .sdr import porep_id
from cuzk.errors import ValidationError

from .c1_layout import C1Output
from .c1_write import encode_c1

PROOF_KIND = "POREP_SEAL_COMMIT"


def c1_of(sp: SectorProofs, registered_proof: int, sector_number: int | None = None) -> C1Output:
    """One generated sector's C1 output (in Curio's envelope when `sector_number` is given)."""
    return C1Output(registered_proof, sp.comm_r.copy(), sp.comm_d.copy(), sp.replica_id.copy(),
                    np.frombuffer(sp.seed, np.uint8).copy(), np.frombuffer(sp.ticket, np.uint8).copy(),
                    sp.partitions, sector_number=sector_number,
                    sector_size=None if sector_number is None else sp.cfg.sector_size)


def sample_request(cfg: PorepConfig, seed=None) -> dict:
    """A valid POREP_SEAL_COMMIT request's fields for `cfg` (a registered seal proof's config)."""
    rng = np.random.default_rng(seed)
    miner = int(rng.integers(1000, 1 << 20))
    sector = int(rng.integers(0, 1 << 20))
    sp = make_sector_proofs(cfg, int(rng.integers(1 << 31)), prover_id=prover_id(miner), sector_id=sector)
    return {"proof_kind": PROOF_KIND, "vanilla_proof": encode_c1(c1_of(sp, cfg.registered_proof, sector)),
            "registered_proof": cfg.registered_proof, "sector_number": sector, "miner_id": miner}


def check_sector(c1: C1Output, miner_id: int, sector_number: int) -> None:
    """The C1 output's replica_id is the one sealing derives for this miner and sector (its ticket,
    comm_d and the registered proof's porep id): a C1 output of another sector or miner is refused."""
    want = generate_replica_id(prover_id(miner_id), sector_number, bytes(c1.ticket), bytes(c1.comm_d),
                               porep_id(c1.registered_proof))
    if want != bytes(c1.replica_id):
        raise ValidationError(f"C1 output: replica_id is not the one sector {sector_number} of miner "
                              f"f0{miner_id} derives from its ticket and comm_d (a C1 output of another "
                              "sector or miner?)")
