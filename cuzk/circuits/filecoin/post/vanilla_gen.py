"""Consistent synthetic PoSt vanilla proofs, for tests and benchmarks of the Filecoin PoSt circuit.

A sector's tree_r_last is built only along the challenged paths
(cuzk.circuits.filecoin.common.sparse_tree): random leaves at the leaves the challenge
derivation picks, random off-path siblings, real neptune Poseidon parents,
base levels over the whole forest of base trees, then the sub- and top-tree
levels over their roots. comm_c is random and comm_r = Poseidon(comm_c,
comm_r_last), so the proof passes every check the verifier makes; any sector
size is cheap (a 32 GiB sector costs about a hundred hashes).

Encode with cuzk.circuits.filecoin.post.vanilla_bincode.encode_sector_proof to get the
bytes Curio would send.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cuzk.circuits.filecoin.common import sparse_tree
from cuzk.circuits.filecoin.common.fr_bytes import from_mont, random_fr, to_mont

from .challenges import vanilla_challenges
from cuzk.circuits.filecoin.common.registered_proofs import PostConfig
from .vanilla_proof import PostSectorProof
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children


def make_sector_proof(config: PostConfig, sector_id: int, randomness, seed: int,
                      sector_index: int = 0) -> PostSectorProof:
    """A valid vanilla proof of a random sector `sector_id` for `randomness`.

    sector_index: the sector's place in the PoSt's sector list (matters for api 1.0.0
    WindowPoSt only; see post_challenges.vanilla_challenges)."""
    rng = np.random.default_rng([seed, sector_id])
    challenged = vanilla_challenges(config, randomness, [sector_id], [sector_index])[0].astype(np.int64)
    uniq, inverse = np.unique(challenged, return_inverse=True)
    leaves_mont = to_mont(random_fr(rng, len(uniq)))

    def random_nodes(m):
        return to_mont(random_fr(rng, m))

    stages = [(config.base_arity, config.base_levels)]
    stages += [(a, 1) for a in (config.sub_arity, config.top_arity) if a]
    index, nodes = uniq, leaves_mont
    siblings, digits = [], []
    position = challenged.copy()
    for arity, depth in stages:
        tree = sparse_tree.build(index, nodes, arity, depth, hash_children, random_nodes)
        paths = tree.paths(position)  # [K, depth, arity - 1, 4]
        for d in range(depth):
            siblings.append(from_mont(np.ascontiguousarray(paths[:, d])))
            digits.append(position % arity)
            position = position // arity
        index, nodes = tree.top_index, tree.top_nodes
    if len(index) != 1:
        raise ValueError(f"{config.name}: challenges above the tree (indices reach {index})")
    root = from_mont(nodes[0])
    comm_c = random_fr(rng, 1)[0]
    k = len(challenged)
    return PostSectorProof(
        sector_id=int(sector_id), comm_r=comm_r_of(comm_c, root)[0], comm_c=comm_c, comm_r_last=root,
        leaves=from_mont(leaves_mont)[inverse], roots=np.repeat(root[None], k, axis=0),
        siblings=tuple(siblings), indices=np.stack(digits, axis=1).astype(np.uint64),
    )


def make_sector_proofs(config: PostConfig, sector_ids: Sequence[int], randomness, seed: int,
                       partition_index: int = 0) -> list[PostSectorProof]:
    """One proof per sector of a request for partition `partition_index`, in request order."""
    if config.kind == "winning":
        return [make_sector_proof(config, s, randomness, seed, 0) for s in sector_ids]
    base = partition_index * config.sectors_per_partition
    return [make_sector_proof(config, s, randomness, seed, base + i) for i, s in enumerate(sector_ids)]
