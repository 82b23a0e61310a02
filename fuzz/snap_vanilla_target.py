"""Fuzz target and seeds of the Filecoin SnapDeals vanilla-proof reader
(cuzk.circuits.filecoin.snap.vanilla_bincode); its Target(...) line belongs in fuzz/targets.py."""

from __future__ import annotations

import functools

from .readings import every_reading

# the shapes the target reads every input as: the 2 KiB update proof (tree R Single paths) and
# rust-fil-proofs' 4 KiB (Sub paths) and 32 KiB (Top paths, two partitions) test shapes
SIZES = (2 << 10, 4 << 10, 32 << 10)
SEED = 1


@functools.lru_cache(maxsize=None)
def _sectors():
    from cuzk.circuits.filecoin.snap.config import snap_config_for
    from cuzk.circuits.filecoin.snap.vanilla_gen import make_sector

    return {size: make_sector(snap_config_for(size), seed=SEED) for size in SIZES}


def snap_vanilla(data: bytes):
    """One `vanilla_proofs` entry as the daemon takes it, for each shape above and each of its
    partitions: decoded (every path hashed to its root), then checked against the seed sector's
    public values (challenges, comm_r, encoding, apex leaves). Our error if no reading succeeds."""
    from cuzk.circuits.filecoin.snap import vanilla_bincode as sv

    def read(way):
        size, sec, k = way
        proof = sv.decode_partition_proof(data, sec.cfg, partition=k)
        pub = sec.public(k)
        sv.check_partition_proof(proof, sec.cfg, k, sec.h, *pub[1:])
        return size, k, proof.challenges.tolist()

    ways = [(size, sec, k) for size, sec in _sectors().items() for k in range(sec.cfg.partitions)]
    return every_reading(read, ways)


@functools.lru_cache(maxsize=None)
def seeds() -> list[bytes]:
    """Every partition proof of the seed sectors."""
    from cuzk.circuits.filecoin.snap.vanilla_bincode import encode_partition_proof

    return [encode_partition_proof(sec.partition_proof(k), sec.cfg)
            for sec in _sectors().values() for k in range(sec.cfg.partitions)]
