"""Stamped building blocks: vectorized witnesses satisfy the templates and
compute the native hashes, for every position a path can take."""

import numpy as np

from cuzk.circuits import bit_templates as bt
from cuzk.circuits import field_templates as ft
from cuzk.circuits import fr_bytes, trees
from cuzk.circuits.wiring import Synth
from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.poseidon.native import poseidon_hash
from cuzk.gadgets.sha256.gadget import sha256
from cuzk.r1cs import RecordingCS, WitnessCS, check_satisfied

import circuit_sizes as sizes

CURVE = "bls12_381"


def _both(build):
    rec = RecordingCS(CURVE)
    build(rec)
    ws = WitnessCS(CURVE)
    out = build(ws)
    return rec.compile(), ws.witness(), out


def test_poseidon_level_every_position():
    rng = np.random.default_rng(1)
    n = 8
    cur = fr_bytes.to_mont(fr_bytes.random_fr(rng, n))
    sibs = fr_bytes.to_mont(fr_bytes.random_fr(rng, n * 7)).reshape(n, 1, 7, 4)
    pos = np.arange(8)  # each instance at another position

    def build(cs):
        s = Synth(cs)
        leaves = s.alloc(cur if s.values else n)
        posw = s.decompose_indices(s.inputs(_small(pos) if s.values else n), 3, pos)
        return s.poseidon_paths(leaves, posw, sibs if s.values else None)

    cc, w, roots = _both(build)
    assert check_satisfied(cc, w) is None
    assert (roots.vals == trees.poseidon8_root(cur, sibs, pos)).all()
    for k in range(8):  # the native reference: cur at position k among the siblings
        ch = np.concatenate([sibs[k, 0, :k], cur[k : k + 1], sibs[k, 0, k:]])
        assert (poseidon_hash(CURVE, ch[None])[0] == roots.vals[k]).all()
    assert ft.poseidon_level(CURVE, 8).gadget.num_constraints == sizes.poseidon_level(8)  # 24 selections + hash


def test_sha_level_and_pair_match_native():
    rng = np.random.default_rng(2)
    leaves = fr_bytes.random_nodes(rng, 4)
    dense = trees.sha_tree(leaves)
    idx = np.array([0, 1, 2, 3])
    sib = trees.paths(dense, idx, 2)[:, :, 0]

    def build(cs):
        s = Synth(cs)
        leaf = s.free_node_bits(4, fr_bytes.node_bits(leaves) if s.values else None)
        pos = s.decompose_indices(s.inputs(_small(idx) if s.values else 4), 2, idx)
        root = s.sha_path(leaf, pos, fr_bytes.node_bits(sib) if s.values else None)
        pair = s.sha_pairs(leaf[0:4:2], leaf[1:4:2])
        return root, pair

    cc, w, (root, pair) = _both(build)
    assert check_satisfied(cc, w) is None
    assert (fr_bytes.bits_to_nodes(root.vals) == dense[2][0]).all()
    assert (fr_bytes.bits_to_nodes(pair.vals) == dense[1]).all()
    flip_bit(w, cc.num_inputs + int(~root.vars[0, 100]))
    assert check_satisfied(cc, w) is not None


def test_apex_select_and_templates_sizes():
    rng = np.random.default_rng(3)
    apex = fr_bytes.random_nodes(rng, 8)
    which = np.array([0, 3, 7, 5])

    def build(cs):
        s = Synth(cs)
        av = s.alloc(fr_bytes.to_mont(apex) if s.values else 8)
        node = s.free_node_bits(4, fr_bytes.node_bits(apex[which]) if s.values else None)
        ib = s.decompose_indices(s.inputs(_small(which) if s.values else 4), 3, which)
        t = ft.apex_select(CURVE, 3)
        iface = np.concatenate([np.repeat(av.vars[None], 4, 0), ib.vars, node.vars], axis=1)
        aux = ft.apex_select_witness(t, np.repeat(av.vals[None], 4, 0), ib.vals) if s.values else None
        s.stamp(t.gadget, iface, aux)
        return ib

    cc, w, ib = _both(build)
    assert check_satisfied(cc, w) is None
    # select the wrong apex leaf: instance 1 points at leaf 3, claim leaf 2
    flip_bit(w, cc.num_inputs + int(~ib.vars[1, 0]))
    assert check_satisfied(cc, w) is not None
    # sizes from the templates' definitions: sha_level = the sibling's bits, the swap of the pair by
    # the position bit (one Ch per kept bit of each child), then SHA-256 of the two 256-bit nodes; sha_pair
    # the hash alone; decompose_node 254 bits and their packing
    sha = sha256_of_two_nodes()
    assert bt.sha_level(CURVE).num_constraints == sizes.NODE_BITS + 2 * sizes.NODE_BITS + sha
    assert bt.sha_pair(CURVE).num_constraints == sha
    assert bt.decompose_node(CURVE).num_constraints == sizes.decompose(sizes.NODE_BITS)


def sha256_of_two_nodes() -> int:
    """Constraints of the SHA-256 gadget on two nodes: 256 bits each, SHA order, of which the two
    dropped ones (the last byte's two top bits, positions 248 and 249) are constant zeros."""
    cs = RecordingCS(CURVE)
    node = [[Boolean.constant(False) if i in (248, 249) else Boolean.alloc(cs) for i in range(256)] for _ in "lr"]
    before = cs.num_constraints
    sha256(cs, node[0] + node[1])
    return cs.num_constraints - before


def _small(values):
    return fr_bytes.small_to_mont(values)


def flip_bit(w, i):
    """0 <-> 1 for a bit variable of the Montgomery witness."""
    one = fr_bytes.fr().ones(1)[0]
    w[i] = np.zeros(4, np.uint64) if (w[i] == one).all() else one
