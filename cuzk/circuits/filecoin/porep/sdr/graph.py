"""Filecoin's StackedDRG graph (rust-fil-proofs v28), bit-exact, and its parent cache.

Every node of an SDR layer has 14 parents: 6 DRG ("base") parents in the same
layer, then 8 expander parents in the previous layer. The parent cache stores
them in that order, as 14 little-endian u32 per node, node after node; its
digest is the SHA-256 of those bytes and its name is
`v28-sdr-parent-<sha256 of the graph's description>`.

Facts followed, with their sources in rust-fil-proofs v28 (and
rust-filecoin-proofs-api 19.0.0 for the porep id):

porep id (filecoin-proofs-api src/registry.rs `porep_id`, REGISTERED_PROOF_IDS)
    32 bytes: the registered seal proof's number as a u64 little-endian, then
    the nonce (0 for every proof) as a u64 little-endian, then 16 zero bytes.
    The number is Go's abi.RegisteredSealProof: 0-4 V1 (api 1.0.0), 5-9 V1_1
    (api 1.1.0), 10-14 V1_1_Feat_SyntheticPoRep and 15-19 V1_2_Feat_NiPoRep
    (api 1.2.0), each group 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB. The
    features do not enter the graph, but their own numbers do, through the
    porep id: each is a graph of its own (not in parent_cache.json).

seeds (storage-proofs-core crypto/mod.rs `derive_porep_domain_seed`)
    SHA-256(tag || porep_id), tag "Filecoin_DRSample" for the DRG (its first
    28 bytes: drgraph.rs `derive_drg_seed`), "Filecoin_Feistel" for the
    expander (four little-endian u64 keys: graph.rs `derive_feistel_keys`).

DRG parents (storage-proofs-core drgraph.rs `BucketGraph::parents`, BASE_DEGREE 6)
    Nodes 0 and 1: all six parents are 0. Node v >= 2: a ChaCha8 generator
    seeded with drg_seed || v (u32 little-endian); m' = 5, M = 5 v,
    B = ceil(log2 M). Five times: bucket = (gen_u64 % B) + 1; hi = min(M,
    2^bucket); lo = max(2, hi >> 1); distance = lo + gen_u64 % (hi - lo + 1);
    parent = (M - distance) / 5, replaced by v - 1 when it equals v.
    Api 1.1.0 and 1.2.0: parent 0 is v - 1 and the five drawn ones follow;
    api 1.0.0: the five drawn ones come first and v - 1 is the last. (Plain
    `% n` of `Rng::gen::<u64>()`, no `gen_range`: no rejection sampling.)

expander parents (storage-proofs-porep stacked/vanilla/graph.rs, EXP_DEGREE 8)
    parent i of v = feistel::permute(8 N, 8 v + i, keys, precompute(8 N)) / 8
    (N = nodes). Api 1.0.0 truncates the permuted value to u32 before
    dividing (the "pathology" of the first graphs; it matters from 32 GiB).

the cache (storage-proofs-porep stacked/vanilla/cache.rs)
    `generate`: for every node, base parents then expander parents, written
    as u32 little-endian, 14 * 4 bytes per node; the digest is SHA-256 of the
    whole file, in lowercase hex. `cache_path`: SHA-256 of "poseidon_hasher"
    (the tree hasher's name), the StackedGraph identifier, the four Feistel
    keys as u64 little-endian and the node count as u32 little-endian;
    file stem "v28-sdr-parent-<hex>". The published (cache id -> sector size,
    digest) pairs are storage-proofs-porep/parent_cache.json; its porep ids are
    those of proofs 0-9 (fil-proofs-tooling gen_graph_cache).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from cuzk.circuits.filecoin.common.registered_proofs import seal_proof
from cuzk.errors import CuzkError
from cuzk.field.threads import run_spans

from .chacha import chacha_block, key_words
from .feistel import permute, precompute, swapped_keys

NODE_SIZE = 32
BASE_DEGREE = 6
EXP_DEGREE = 8
DEGREE = BASE_DEGREE + EXP_DEGREE
CACHE_VERSION = 28
TREE_HASHER = "poseidon_hasher"
DRSAMPLE_DST = b"Filecoin_DRSample"
FEISTEL_DST = b"Filecoin_Feistel"

API_VERSIONS = ("1.0.0", "1.1.0", "1.2.0")


class SdrGraphError(CuzkError, ValueError):
    """Bad graph parameters or node indices; the message names the value."""


def api_version(registered_seal_proof: int) -> str:
    """The ApiVersion proofs-api gives a registered seal proof: "1.0.0" (V1), "1.1.0" (V1_1) or
    "1.2.0" (SyntheticPoRep, NiPoRep). Unknown numbers raise UnknownRegisteredProof."""
    n = seal_proof(registered_seal_proof).registered_proof
    return API_VERSIONS[min(n // 5, 2)]


def porep_id(registered_seal_proof: int, nonce: int = 0) -> bytes:
    """The 32-byte porep id of a registered seal proof (filecoin-proofs-api `porep_id`)."""
    n = seal_proof(registered_seal_proof).registered_proof
    if not 0 <= nonce < 1 << 64:
        raise SdrGraphError(f"porep nonce {nonce} is not a u64")
    return n.to_bytes(8, "little") + int(nonce).to_bytes(8, "little") + bytes(16)


def domain_seed(tag: bytes, porep: bytes) -> bytes:
    return hashlib.sha256(tag + porep).digest()


# ---------------------------------------------------------------- kernels

_U1, _U2, _U5, _U32 = np.uint64(1), np.uint64(2), np.uint64(5), np.uint64(32)
_M32 = np.uint64(0xFFFFFFFF)
_CHUNK = 4096  # nodes per parallel work item


@njit(nogil=True, cache=True, inline="always")
def _ceil_log2(x):
    """ceil(log2 x) for 1 <= x < 2^63 (as drgraph's f64 log2().ceil(), exact for x < 2^53)."""
    b = np.uint64(0)
    y = x - _U1
    while y > 0:
        y >>= _U1
        b += _U1
    return b


@njit(nogil=True, cache=True)
def _drg_kernel_span(s0, s1, nodes, seed_words, legacy, out):
    n = nodes.shape[0]
    for c in range(s0, s1):
        key = seed_words.copy()
        words = np.empty(32, dtype=np.uint64)
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            v = np.uint64(nodes[i])
            if v < _U2:
                for j in range(BASE_DEGREE):
                    out[i, j] = 0
                continue
            key[7] = v
            chacha_block(key, 0, 4, words, 0)   # 20 of the 32 words are used
            chacha_block(key, 1, 4, words, 16)
            meta = v * _U5
            n_buckets = _ceil_log2(meta)
            first = 0 if legacy else 1
            for j in range(BASE_DEGREE - 1):
                r1 = words[4 * j] | (words[4 * j + 1] << _U32)
                r2 = words[4 * j + 2] | (words[4 * j + 3] << _U32)
                bucket = r1 % n_buckets + _U1
                hi = min(meta, _U1 << bucket)
                lo = max(_U2, hi >> _U1)
                distance = lo + r2 % (hi - lo + _U1)
                p = (meta - distance) // _U5
                out[i, first + j] = v - _U1 if p == v else p
            out[i, BASE_DEGREE - 1 if legacy else 0] = v - _U1


def _drg_kernel(nodes, seed_words, legacy, out):
    run_spans(_drg_kernel_span, (nodes.shape[0] + _CHUNK - 1) // _CHUNK, nodes, seed_words, legacy, out)


@njit(nogil=True, cache=True)
def _expander_kernel_span(s0, s1, nodes, n_elements, keys, left_mask, right_mask, half_bits, legacy, out):
    n = nodes.shape[0]
    d = np.uint64(EXP_DEGREE)
    for i in range(s0, s1):
        base = np.uint64(nodes[i]) * d
        for j in range(EXP_DEGREE):
            t = permute(n_elements, base + np.uint64(j), keys, left_mask, right_mask, half_bits)
            out[i, j] = (t & _M32) // d if legacy else t // d


def _expander_kernel(nodes, n_elements, keys, left_mask, right_mask, half_bits, legacy, out):
    run_spans(_expander_kernel_span, nodes.shape[0], nodes, n_elements, keys, left_mask, right_mask, half_bits,
              legacy, out)


# ---------------------------------------------------------------- the graph


@dataclass(frozen=True)
class SdrGraph:
    """One StackedDRG graph: sector size, porep id and api version fix it."""
    sector_size: int
    porep_id: bytes
    api_version: str = "1.1.0"
    drg_seed: bytes = field(init=False, repr=False)
    feistel_keys: tuple = field(init=False, repr=False)

    def __post_init__(self):
        if isinstance(self.sector_size, bool) or not isinstance(self.sector_size, (int, np.integer)):
            raise SdrGraphError(f"sector size {self.sector_size!r} is not an integer")
        size = int(self.sector_size)
        if size <= 0 or size % NODE_SIZE:
            raise SdrGraphError(f"sector size {size} is not a positive multiple of {NODE_SIZE} bytes")
        nodes = size // NODE_SIZE
        if not 2 <= nodes <= 0xFFFFFFFF:
            raise SdrGraphError(f"sector size {size} gives {nodes} nodes (need 2 .. 2^32-1)")
        pid = bytes(self.porep_id)
        if len(pid) != 32:
            raise SdrGraphError(f"a porep id is 32 bytes, got {len(pid)}")
        if self.api_version not in API_VERSIONS:
            raise SdrGraphError(f"api version {self.api_version!r} is not one of {', '.join(API_VERSIONS)}")
        object.__setattr__(self, "sector_size", size)
        object.__setattr__(self, "porep_id", pid)
        object.__setattr__(self, "drg_seed", domain_seed(DRSAMPLE_DST, pid)[:28])
        k = domain_seed(FEISTEL_DST, pid)
        object.__setattr__(self, "feistel_keys",
                           tuple(int.from_bytes(k[8 * i:8 * i + 8], "little") for i in range(4)))

    @classmethod
    def for_proof(cls, registered_seal_proof: int) -> SdrGraph:
        sp = seal_proof(registered_seal_proof)
        return cls(sp.sector_size, porep_id(sp.registered_proof), api_version(sp.registered_proof))

    @property
    def nodes(self) -> int:
        return self.sector_size // NODE_SIZE

    @property
    def legacy(self) -> bool:
        return self.api_version == "1.0.0"

    def _nodes(self, nodes) -> np.ndarray:
        arr = np.asarray(nodes)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim != 1 or not (arr.dtype.kind in "iu" or arr.size == 0):
            raise SdrGraphError("nodes must be a 1-D array of integers")
        if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= self.nodes):
            bad = int(arr.min()) if int(arr.min()) < 0 else int(arr.max())
            raise SdrGraphError(f"node {bad} is outside the graph (0 .. {self.nodes - 1})")
        return np.ascontiguousarray(arr, dtype=np.uint32)

    def drg_parents(self, nodes) -> np.ndarray:
        """uint32[n, 6]: the base (DRG) parents of each node."""
        v = self._nodes(nodes)
        out = np.empty((v.shape[0], BASE_DEGREE), dtype=np.uint32)
        seed = key_words(self.drg_seed + bytes(4))
        _drg_kernel(v, seed, self.legacy, out)
        return out

    def expander_parents(self, nodes) -> np.ndarray:
        """uint32[n, 8]: the expander parents of each node (in the previous layer)."""
        v = self._nodes(nodes)
        out = np.empty((v.shape[0], EXP_DEGREE), dtype=np.uint32)
        n_elements = self.nodes * EXP_DEGREE
        lm, rm, hb = precompute(n_elements)
        _expander_kernel(v, np.uint64(n_elements), swapped_keys(self.feistel_keys), np.uint64(lm),
                         np.uint64(rm), np.uint64(hb), self.legacy, out)
        return out

    def parents(self, nodes) -> np.ndarray:
        """uint32[n, 14]: DRG then expander parents, the parent cache's order."""
        v = self._nodes(nodes)
        out = np.empty((v.shape[0], DEGREE), dtype=np.uint32)
        out[:, :BASE_DEGREE] = self.drg_parents(v)
        out[:, BASE_DEGREE:] = self.expander_parents(v)
        return out

    @property
    def identifier(self) -> str:
        """StackedGraph's ParameterSetMetadata::identifier (hasher: the tree's, Poseidon)."""
        return (f"stacked_graph::StackedGraph{{expansion_degree: {EXP_DEGREE} base_graph: "
                f"drgraph::BucketGraph{{size: {self.nodes}; degree: {BASE_DEGREE}; hasher: {TREE_HASHER}}} }}")

    @property
    def cache_id(self) -> str:
        """The parent cache's file stem, e.g. v28-sdr-parent-494d91dc...554b (cache.rs `cache_path`)."""
        h = hashlib.sha256()
        h.update(TREE_HASHER.encode())
        h.update(self.identifier.encode())
        for k in self.feistel_keys:
            h.update(k.to_bytes(8, "little"))
        h.update(self.nodes.to_bytes(4, "little"))
        return f"v{CACHE_VERSION}-sdr-parent-{h.hexdigest()}"

    def cache_chunks(self, chunk_nodes: int = 1 << 20):
        """The parent cache's bytes, as successive uint32[k, 14] arrays of at most chunk_nodes nodes."""
        for lo in range(0, self.nodes, chunk_nodes):
            yield self.parents(np.arange(lo, min(self.nodes, lo + chunk_nodes), dtype=np.uint32))

    def cache_digest(self, chunk_nodes: int = 1 << 20) -> str:
        """SHA-256 (hex) of the whole parent cache, computed chunk by chunk (memory: one chunk)."""
        h = hashlib.sha256()
        for chunk in self.cache_chunks(chunk_nodes):
            h.update(chunk.astype("<u4", copy=False).tobytes())
        return h.hexdigest()


# ---------------------------------------------------------------- functional API


def _graph(sector_size, porep, api_version) -> SdrGraph:
    return SdrGraph(sector_size, porep, api_version)


def drg_parents(sector_size: int, porep: bytes, nodes, api_version: str = "1.1.0") -> np.ndarray:
    return _graph(sector_size, porep, api_version).drg_parents(nodes)


def expander_parents(sector_size: int, porep: bytes, nodes, api_version: str = "1.1.0") -> np.ndarray:
    return _graph(sector_size, porep, api_version).expander_parents(nodes)


def parents(sector_size: int, porep: bytes, nodes, api_version: str = "1.1.0") -> np.ndarray:
    return _graph(sector_size, porep, api_version).parents(nodes)


def parent_cache_id(sector_size: int, porep: bytes) -> str:
    # the api version does not enter the name (nor the feistel keys)
    return _graph(sector_size, porep, "1.1.0").cache_id


def parent_cache_digest(sector_size: int, porep: bytes, api_version: str = "1.1.0",
                        chunk_nodes: int = 1 << 20) -> str:
    return _graph(sector_size, porep, api_version).cache_digest(chunk_nodes)
