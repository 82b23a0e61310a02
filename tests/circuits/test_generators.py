"""The input generators' pieces against plain references: sparse trees against
dense ones and path recomputation, labels against hashlib, the graph's rules,
the vanilla container's checks."""

import hashlib

import numpy as np
import pytest

from cuzk.circuits import fr_bytes, sdr, sparse_tree, trees
from cuzk.circuits.porep import PorepShape
from cuzk.errors import FormatError
from cuzk.formats import vanilla


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


def test_sparse_sha_tree_matches_dense():
    rng = np.random.default_rng(2)
    leaves = fr_bytes.random_nodes(rng, 16)
    dense = trees.sha_tree(leaves)
    sparse = trees.sha_sparse(rng, np.arange(16), leaves, 4)
    assert (sparse.top_nodes[0] == dense[-1][0]).all()
    idx = np.array([0, 5, 5, 15])
    sib = sparse.paths(idx)[:, :, 0]
    assert (sib == trees.paths(dense, idx, 2)[:, :, 0]).all()
    assert (trees.sha_root(leaves[idx], sib, idx) == dense[-1][0]).all()
    # the reference hash: sha256(left || right) with the two top bits cleared
    d = bytearray(hashlib.sha256(leaves[0].tobytes() + leaves[1].tobytes()).digest())
    d[31] &= 0x3F
    assert dense[1][0].tobytes() == bytes(d)


def test_sparse_poseidon_paths_reach_the_root():
    rng = np.random.default_rng(3)
    idx = np.array([7, 100, 511, 7, 0])
    leaves = fr_bytes.to_mont(fr_bytes.random_fr(rng, len(idx)))
    leaves[3] = leaves[0]  # the same leaf opened twice
    t = trees.poseidon8_sparse(rng, idx, leaves, 3)
    assert t.top_nodes.shape == (1, 4)
    roots = trees.poseidon8_root(leaves, t.paths(idx), idx)
    assert (roots == t.top_nodes[0]).all()
    wrong = t.paths(idx)
    wrong[1, 2, 3, 0] ^= 1
    assert not (trees.poseidon8_root(leaves, wrong, idx)[1] == t.top_nodes[0]).all()


def test_sparse_forest_keeps_trees_apart():
    rng = np.random.default_rng(4)
    idx = np.array([3, 64 + 9, 128 + 63])  # three trees of 64 leaves
    leaves = fr_bytes.to_mont(fr_bytes.random_fr(rng, 3))
    f = sparse_tree.build(idx, leaves, 8, 2, trees.poseidon_children,
                          lambda m: fr_bytes.to_mont(fr_bytes.random_fr(rng, m)))
    assert f.top_index.tolist() == [0, 1, 2]
    assert (trees.poseidon8_root(leaves, f.paths(idx), idx % 64) == f.node([0, 1, 2])).all()


def test_graph_rules():
    shape = PorepShape(nodes_log2=9, layers=2, challenges=1, base_degree=6, expansion_degree=8, hashed_parents=37)
    nodes = np.arange(1, 512)
    base, exp = sdr.parents(shape, nodes)
    assert (base[:, 0] == nodes - 1).all()
    assert (base < nodes[:, None]).all() and (base >= 0).all()
    assert (exp >= 0).all() and (exp < 512).all()
    b2, e2 = sdr.parents(shape, nodes[::-1])  # a function of the node alone
    assert (b2[::-1] == base).all() and (e2[::-1] == exp).all()


def test_labels_match_hashlib():
    shape = PorepShape(nodes_log2=6, layers=4, challenges=1, base_degree=3, expansion_degree=2, hashed_parents=7)
    rng = np.random.default_rng(5)
    rid = fr_bytes.random_nodes(rng, ())
    challenged = np.array([1, 2, 3, 40, 41, 63])  # chains of challenged base parents
    nodes, labels = sdr.labels_for(shape, rng, rid, challenged)
    row = {int(n): i for i, n in enumerate(nodes)}
    base, exp = sdr.parents(shape, challenged)
    for c, bp, ep in zip(challenged.tolist(), base.tolist(), exp.tolist()):
        for layer in range(1, 5):
            ps = [labels[row[p], layer - 1].tobytes() for p in bp]
            if layer > 1:
                ps += [labels[row[p], layer - 2].tobytes() for p in ep]
            msg = rid.tobytes() + layer.to_bytes(4, "big") + c.to_bytes(8, "big") + bytes(20)
            msg += b"".join(ps[q % len(ps)] for q in range(7))
            d = bytearray(hashlib.sha256(msg).digest())
            d[31] &= 0x3F
            assert labels[row[c], layer - 1].tobytes() == bytes(d)


def test_container_roundtrip_and_checks():
    arrays = {"a": np.arange(64, dtype=np.uint8).reshape(2, 32), "b": np.array([5, 7], dtype=np.uint64)}
    data = vanilla.encode("k", "p", {"x": 1}, arrays)
    out = vanilla.decode(data, "k", "p", {"x": 1}, {"a": (2, 32), "b": ((2,), "<u8")})
    assert (out["a"] == arrays["a"]).all() and out["b"].tolist() == [5, 7]
    with pytest.raises(FormatError, match="kind"):
        vanilla.decode(data, "other", "p", {"x": 1}, {"a": (2, 32)})
    with pytest.raises(FormatError, match="shape"):
        vanilla.decode(data, "k", "p", {"x": 2}, {"a": (2, 32)})
    with pytest.raises(FormatError, match="expected"):
        vanilla.decode(data, "k", "p", {"x": 1}, {"a": (3, 32)})
    with pytest.raises(FormatError, match="missing"):
        vanilla.decode(data, "k", "p", {"x": 1}, {"c": (2, 32)})
    with pytest.raises(FormatError, match="outside"):
        vanilla.decode(data[:-8], "k", "p", {"x": 1}, {"b": ((2,), "<u8")})
    with pytest.raises(FormatError, match="magic"):
        vanilla.decode(b"X" + data[1:], "k", "p", {"x": 1}, {})
