"""The SDR-like graph and labeling of porep-c2-like, outside the circuit.

Graph (a model of Filecoin's DRG + expander graph, a fixed function of
(nodes_log2, base_degree, expansion_degree) computable for any node
without materializing the graph): from SHA-256(seed || node || counter)
words w_j, node i >= 1 has base parents i-1 and floor(w_j * i / 2^32) for
j < base_degree - 1 (earlier nodes), and expander parents w_j mod 2^n
(nodes of the previous layer). Node 0 has base parents 0; it is never
challenged.

label_l(i) = SHA-256(replica_id || l as u32 BE || i as u64 BE || 20 zero
bytes || the parents' labels, cyclically repeated to hashed_parents), top
two bits cleared; layer 1 hashes the base parents' layer-1 labels, layer
l > 1 the base parents' layer-l and expander parents' layer-(l-1) labels.

The generator computes labels only for challenged nodes (`labels_for`):
the circuit checks a challenged node's labels against its parents' labels
but never a parent's own labeling, so parents that are not challenged get
random labels. Challenged nodes are labeled layer by layer in waves
(vectorized SHA-256), a node after any challenged base parent of it.
"""

from __future__ import annotations

import hashlib

import numpy as np

from cuzk.gadgets.sha256.native import sha256

from .fr_bytes import random_nodes, truncate

GRAPH_SEED = b"cuzk porep-c2-like graph v1"


def parents(shape, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(base int64[K, Db], expander int64[K, De]) parents of nodes int64[K]."""
    nodes = np.asarray(nodes, dtype=np.int64).ravel()
    k = len(nodes)
    db, de = shape.base_degree, shape.expansion_degree
    seed = hashlib.sha256(GRAPH_SEED + f"{shape.nodes_log2}/{db}/{de}".encode()).digest()
    msgs = np.zeros((2, k, 44), dtype=np.uint8)
    msgs[:, :, :32] = np.frombuffer(seed, np.uint8)
    msgs[:, :, 32:40] = nodes.astype("<u8").view(np.uint8).reshape(k, 8)
    msgs[1, :, 40] = 1
    words = sha256(msgs.reshape(2 * k, 44)).reshape(2, k, 32).transpose(1, 0, 2).reshape(k, 64)
    words = words.view(">u4").astype(np.uint64)  # [k, 16]
    if db - 1 + de > words.shape[1]:
        raise ValueError("at most 17 parents")
    base = np.zeros((k, db), dtype=np.int64)
    base[:, 0] = np.maximum(nodes - 1, 0)
    base[:, 1:] = ((words[:, : db - 1] * nodes[:, None].astype(np.uint64)) >> np.uint64(32)).astype(np.int64)
    exp = (words[:, db - 1 : db - 1 + de] & np.uint64(shape.num_nodes - 1)).astype(np.int64)
    return base, exp


def label_messages(shape, replica_id: np.ndarray, layer: int, nodes: np.ndarray, parent_labels: np.ndarray) -> np.ndarray:
    """Messages uint8[K, 64 + 32 * hashed_parents]; parent_labels [K, P, 32] in hashing order."""
    k = len(nodes)
    hp = shape.hashed_parents
    msg = np.zeros((k, 64 + 32 * hp), dtype=np.uint8)
    msg[:, :32] = replica_id
    msg[:, 32:36] = np.frombuffer(int(layer).to_bytes(4, "big"), np.uint8)
    msg[:, 36:44] = np.asarray(nodes, dtype=">u8").view(np.uint8).reshape(k, 8)
    seq = np.arange(hp) % parent_labels.shape[1]
    msg[:, 64:] = parent_labels[:, seq].reshape(k, 32 * hp)
    return msg


def labels_for(shape, rng, replica_id: np.ndarray, challenged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels of every node the proof opens: returns (nodes int64[R] sorted:
    the challenged nodes and their parents, labels uint8[R, layers, 32])."""
    challenged = np.unique(np.asarray(challenged, dtype=np.int64))
    base, exp = parents(shape, challenged)
    nodes = np.unique(np.concatenate([challenged, base.ravel(), exp.ravel()]))
    labels = random_nodes(rng, (len(nodes), shape.layers))
    rows = np.searchsorted(nodes, challenged)
    brow, erow = np.searchsorted(nodes, base), np.searchsorted(nodes, exp)
    for l in range(shape.layers):
        pending = np.zeros(len(nodes), dtype=bool)
        pending[rows] = True
        while pending[rows].any():
            todo = pending[rows]
            ready = todo & ~pending[brow].any(axis=1)
            if not ready.any():
                raise AssertionError("labeling made no progress (a base parent is not earlier)")
            sel = np.flatnonzero(ready)
            plabels = labels[brow[sel], l]
            if l > 0 and shape.expansion_degree:
                plabels = np.concatenate([plabels, labels[erow[sel], l - 1]], axis=1)
            msg = label_messages(shape, replica_id, l + 1, challenged[sel], plabels)
            labels[rows[sel], l] = truncate(sha256(msg))
            pending[rows[sel]] = False
    return nodes, labels
