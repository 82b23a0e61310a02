"""The input generators' shared pieces against plain references: the node encoding against Python ints,
sparse trees' paths folded back to their roots with Filecoin's Poseidon (tree_r_last.fold_paths) and a
tampered path missing it."""

import numpy as np

from cuzk.circuits.filecoin.common import fr_bytes
from cuzk.circuits.filecoin.common import sparse_tree
from cuzk.circuits.filecoin.common.tree_r_last import fold_paths, hash_children


def test_node_bits_roundtrip_and_weights():
    rng = np.random.default_rng(1)
    nodes = fr_bytes.random_nodes(rng, 5)
    bits = fr_bytes.node_bits(nodes)
    assert bits.shape == (5, 254)
    assert (fr_bytes.bits_to_nodes(bits) == nodes).all()
    values = [int.from_bytes(n.tobytes(), "little") for n in nodes]
    packed = [sum(w for w, b in zip(fr_bytes.SHA_WEIGHTS, row) if b) for row in bits.tolist()]
    assert packed == values
    assert fr_bytes.ints(fr_bytes.to_mont(nodes)) == values
    assert (fr_bytes.from_mont(fr_bytes.to_mont(nodes)) == nodes).all()


def _random(rng):
    return lambda m: fr_bytes.to_mont(fr_bytes.random_fr(rng, m))


def _digits(index: np.ndarray, arity: int, depth: int) -> np.ndarray:
    return np.stack([(index // arity**d) % arity for d in range(depth)], axis=1)


def test_sparse_poseidon_paths_reach_the_root():
    rng = np.random.default_rng(3)
    idx = np.array([7, 100, 511, 7, 0])
    leaves = fr_bytes.to_mont(fr_bytes.random_fr(rng, len(idx)))
    leaves[3] = leaves[0]  # the same leaf opened twice
    t = sparse_tree.build(idx, leaves, 8, 3, hash_children, _random(rng))
    assert t.top_nodes.shape == (1, 4)
    paths = t.paths(idx)  # [K, depth, 7, 4]
    roots = fold_paths(leaves, [paths[:, d] for d in range(3)], _digits(idx, 8, 3))
    assert (roots == t.top_nodes[0]).all()
    paths[1, 2, 3, 0] ^= np.uint64(1)
    roots = fold_paths(leaves, [paths[:, d] for d in range(3)], _digits(idx, 8, 3))
    assert not (roots[1] == t.top_nodes[0]).all()


def test_sparse_forest_keeps_trees_apart():
    rng = np.random.default_rng(4)
    idx = np.array([3, 64 + 9, 128 + 63])  # three trees of 64 leaves
    leaves = fr_bytes.to_mont(fr_bytes.random_fr(rng, 3))
    f = sparse_tree.build(idx, leaves, 8, 2, hash_children, _random(rng))
    assert f.top_index.tolist() == [0, 1, 2]
    paths = f.paths(idx)
    roots = fold_paths(leaves, [paths[:, d] for d in range(2)], _digits(idx % 64, 8, 2))
    assert (roots == f.node([0, 1, 2])).all()
