"""The sparse SnapDeals generator: every partition of an update at every registered size passes the
verifier's checks (rust-fil-proofs' EmptySectorUpdate::verify as snap_vanilla states it: paths to
their roots, roots to the commitments, challenges from comm_r_new, the encoding, the apex leaves),
and at 2 KiB, where it knows every node, its trees are a whole sector's."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.circuits.filecoin.snap.config import snap_config
from cuzk.circuits.filecoin.snap.sparse_gen import DATA_NODES, make_update_proofs
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of
from cuzk.circuits.filecoin.snap import vanilla_bincode as sv


@pytest.mark.parametrize("number", [0, 1, 2, 3, 4], ids=["2KiB", "8MiB", "512MiB", "32GiB", "64GiB"])
def test_every_partition_passes_the_verifiers_checks(number):
    cfg = snap_config(number)
    up = make_update_proofs(cfg, seed=number)
    assert len(up.partitions) == cfg.partitions and up.h == cfg.h_default
    for k in sorted({0, cfg.partitions - 1}):  # the first and the last (partition bits all set)
        data = sv.encode_partition_proof(up.partitions[k], cfg)
        assert len(data) == sv.partition_proof_size(cfg)
        proof = sv.decode_partition_proof(data, cfg, partition=k)
        sv.check_partition_proof(proof, cfg, k, up.h, up.comm_r_old, up.comm_d_new, up.comm_r_new)


def test_a_small_sector_is_known_everywhere():
    """2 KiB (64 nodes < DATA_NODES): every node holds data, so the sparse trees are the whole sector's:
    the apex leaves hash up to comm_d_new and comm_r_old / comm_r_new are Poseidon(comm_c, root)."""
    cfg = snap_config(0)
    assert cfg.nodes <= DATA_NODES
    up = make_update_proofs(cfg, seed=3)
    (p,) = up.partitions
    assert (comm_r_of(p.comm_c, p.r_old.roots[0])[0] == up.comm_r_old).all()
    assert (comm_r_of(p.comm_c, p.r_new.roots[0])[0] == up.comm_r_new).all()
    from cuzk.gadgets.sha256.filecoin import sha254_many

    row = p.apex_leaves
    while len(row) > 1:
        row = sha254_many(row.reshape(-1, 64))
    assert (row[0] == up.comm_d_new).all() and np.unique(p.d_new.leaves, axis=0).shape[0] > 1
