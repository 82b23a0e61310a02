"""Fuzz target and seeds of the PoRep C1 output reader (cuzk.circuits.filecoin.porep.c1_read, c1_verify), to be
registered in fuzz/targets.py."""

from __future__ import annotations

import functools

SEAL_PROOF = 5  # StackedDrg2KiBV1_1: small enough to seal in the seeds and to check per input
SEED = bytes(range(32))
TICKET = bytes(range(100, 132))


def c1_output(data: bytes):
    """A `vanilla_proof` of a PoRep C2 request as the daemon takes it: Curio's envelope (or a bare
    SealCommitPhase1Output), decoded, checked (check_c1), re-encoded, and partition 0's public
    inputs derived. Our error (FormatError / ValidationError) or a result."""
    from cuzk.circuits.filecoin.porep.c1_read import decode_c1
    from cuzk.circuits.filecoin.porep.c1_verify import check_c1
    from cuzk.circuits.filecoin.porep.c1_write import encode_c1

    c1 = decode_c1(data)
    check_c1(c1)
    return encode_c1(c1), c1.partitions[0].public_inputs()[:8]


@functools.lru_cache(maxsize=None)
def seeds() -> list[bytes]:
    """A sealed 2 KiB sector's C1 output: in the envelope, bare, with Go's top-level key order, and
    the V1 (api 1.0.0 graph) and 8 MiB names on the same bytes (refused, but deep)."""
    import json

    import numpy as np

    from cuzk.circuits.filecoin.porep.config import porep_config
    from cuzk.circuits.filecoin.porep.vanilla_gen import make_replica
    from cuzk.circuits.filecoin.porep.c1_layout import GO_ORDER, C1Output
    from cuzk.circuits.filecoin.porep.c1_write import encode_c1

    cfg = porep_config(SEAL_PROOF)
    rep = make_replica(cfg, 11)
    c1 = C1Output(SEAL_PROOF, rep.comm_r.copy(), rep.comm_d.copy(), rep.replica_id.copy(),
                  np.frombuffer(SEED, np.uint8).copy(), np.frombuffer(TICKET, np.uint8).copy(),
                  [rep.partition_proof(SEED, k) for k in range(cfg.partitions)], sector_number=234,
                  sector_size=cfg.sector_size)
    env = encode_c1(c1)
    bare = encode_c1(c1, envelope=False)
    go = encode_c1(c1, envelope=False, key_order=GO_ORDER)
    out = [env, bare, go,
           bare.replace(b'"StackedDrg2KiBV1_1"', b'"StackedDrg2KiBV1"'),
           bare.replace(b'"StackedDrg2KiBV1_1"', b'"StackedDrg8MiBV1_1"'),
           json.dumps(json.loads(bare), indent=1).encode()]
    return out
