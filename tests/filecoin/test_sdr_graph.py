"""Filecoin's StackedDRG graph (cuzk.circuits.filecoin.porep.sdr) against values published outside cuzk.

- parent_cache.json (rust-fil-proofs v28 storage-proofs-porep/parent_cache.json): the v28 parent-cache
  names (cache id -> sector size) of the porep ids of RegisteredSealProof 0-9 and the SHA-256 digest of
  each cache file. The digests cover every parent of every node: 2 KiB and 8 MiB are recomputed here for
  both api versions (V1: proofs 0, 1; V1_1: proofs 5, 6); 512 MiB (proofs 2, 7) is `slow` and runs only
  with CUZK_SDR_512MIB=1 (about 3 min per digest on 2 cores); 32 and 64 GiB are out of reach.
- Curio's supraseal demos (extern/supraseal/demos/main.cpp, demos/rust/src/main.rs) name the parent caches
  of the arbitrary porep id [99; 32] (supraseal demo: "use an arbitrary porep_id for other sizes").
- rand_chacha's own test vectors (rust-random/rand rand_chacha/src/chacha.rs tests, from the IETF
  ChaCha20 draft; test_chacha_set_rounds of earlier releases for 8 rounds); BLAKE2b against hashlib.
- The properties rust-fil-proofs' tests assert (feistel.rs, graph.rs, drgraph.rs).
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from cuzk.circuits.filecoin.porep.sdr import SdrGraph, SdrGraphError, api_version, porep_id
from cuzk.circuits.filecoin.porep.sdr.chacha import stream_u32, stream_u64
from cuzk.circuits.filecoin.porep.sdr.feistel import blake2b_16_first_word, permute_indices, precompute
from cuzk.errors import CuzkError

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# storage-proofs-porep/parent_cache.json (v28): cache id -> (sector size, digest)
PARENT_CACHE = {
    "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117":
        (34359738368, "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"),
    "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42":
        (536870912, "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"),
    "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899":
        (2048, "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"),
    "v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b":
        (68719476736, "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"),
    "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b":
        (2048, "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"),
    "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5":
        (8388608, "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"),
    "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34":
        (536870912, "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"),
    "v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6":
        (68719476736, "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"),
    "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc":
        (8388608, "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"),
    "v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13":
        (34359738368, "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"),
}
# the V1_1 caches Curio's lib/paths/proof_parents.go names for its batch sealer
CURIO_PARENTS = {5: "494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
                 7: "7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
                 8: "21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117"}
# supraseal demos, porep id [99; 32]
SUPRASEAL_99 = {2 * KIB: "652bae61e906c0732e9eb95b1217cfa6afcce221ff92a8aedf62fa778fa765bc",
                16 * KIB: "41059e359f8a8b479f9e29bdf20344fcd43d9c03ce4a7d01daf2c9a77909fd4f",
                8 * MIB: "1139cb33af3e3c24eb644da64ee8bc43a8df0f29fc96b5337bee369345884cdc",
                16 * MIB: "7fa3ff8ffb57106211c4be413eb15ea072ebb363fa5a1316fe341ac8d7a03d51",
                64 * GIB: "767ee5400732ee77b8762b9d0dd118e88845d28bfa7aee875dc751269f7d0b87"}


def _published(graph: SdrGraph) -> str:
    size, digest = PARENT_CACHE[graph.cache_id]
    assert size == graph.sector_size
    return digest


# ------------------------------------------------------------------ porep ids and cache names


def test_porep_id_layout():
    # proofs-api registry.rs: the proof number u64 LE, the nonce u64 LE (0), 16 zero bytes
    assert porep_id(8) == bytes([8]) + bytes(31)
    assert porep_id(18) == bytes([18]) + bytes(31)
    assert porep_id(3, nonce=0x0102) == bytes([3]) + bytes(7) + bytes([2, 1]) + bytes(22)
    assert [api_version(n) for n in (0, 4, 5, 9, 10, 14, 15, 19)] == \
        ["1.0.0"] * 2 + ["1.1.0"] * 2 + ["1.2.0"] * 4
    with pytest.raises(CuzkError, match="20"):
        porep_id(20)


def test_cache_ids_of_registered_proofs_0_to_9_are_parent_cache_json():
    ids = {n: SdrGraph.for_proof(n).cache_id for n in range(10)}
    assert set(ids.values()) == set(PARENT_CACHE)
    for n, cid in ids.items():
        assert PARENT_CACHE[cid][0] == SdrGraph.for_proof(n).sector_size
    for n, h in CURIO_PARENTS.items():
        assert ids[n] == f"v28-sdr-parent-{h}"


def test_cache_ids_of_supraseal_demo_porep_id():
    for size, h in SUPRASEAL_99.items():
        assert SdrGraph(size, bytes([99]) * 32).cache_id == f"v28-sdr-parent-{h}"


def test_synthetic_and_niporep_have_graphs_of_their_own():
    # their porep ids differ from V1_1's, so do their caches; none is published in parent_cache.json
    for n in (10, 15):
        g = SdrGraph.for_proof(n)
        assert g.api_version == "1.2.0" and g.cache_id not in PARENT_CACHE
        assert g.cache_id != SdrGraph.for_proof(5).cache_id


# ------------------------------------------------------------------ the published digests


@pytest.mark.parametrize("proof", [0, 5])
def test_2kib_parent_cache_digest(proof):
    g = SdrGraph.for_proof(proof)
    assert g.cache_digest() == _published(g)
    assert g.cache_digest(chunk_nodes=7) == _published(g)  # chunks of any size give the same bytes


@pytest.mark.parametrize("proof", [1, 6])
def test_8mib_parent_cache_digest(proof):
    g = SdrGraph.for_proof(proof)
    assert g.cache_digest(chunk_nodes=1 << 16) == _published(g)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CUZK_SDR_512MIB") != "1",
                    reason="about 3 min per digest on 2 cores: set CUZK_SDR_512MIB=1")
@pytest.mark.parametrize("proof", [2, 7])
def test_512mib_parent_cache_digest(proof):
    g = SdrGraph.for_proof(proof)
    assert g.cache_digest() == _published(g)


def test_parents_are_the_cache_rows_and_the_functions_agree():
    from cuzk.circuits.filecoin.porep.sdr import drg_parents, expander_parents, parents

    g = SdrGraph.for_proof(6)
    nodes = np.array([0, 1, 2, 3, 1000, g.nodes - 1], dtype=np.uint64)
    p = g.parents(nodes)
    assert p.dtype == np.uint32 and p.shape == (6, 14)
    assert np.array_equal(p[:, :6], drg_parents(g.sector_size, g.porep_id, nodes))
    assert np.array_equal(p[:, 6:], expander_parents(g.sector_size, g.porep_id, nodes))
    assert np.array_equal(p, parents(g.sector_size, g.porep_id, nodes))
    small = SdrGraph.for_proof(5)
    whole = np.concatenate(list(small.cache_chunks(chunk_nodes=9)))
    assert whole.shape == (64, 14)
    assert np.array_equal(small.parents(np.arange(64)[::-1]), whole[::-1])
    assert np.array_equal(small.parents(7), whole[7:8])


# ------------------------------------------------------------------ drgraph.rs properties


@pytest.mark.parametrize("api", ["1.0.0", "1.1.0", "1.2.0"])
@pytest.mark.parametrize("nodes", [4, 16, 256, 2048])
def test_bucket_graph_properties(nodes, api):
    """drgraph.rs graph_bucket: nodes 0 and 1 have only parent 0; no node is its own parent; v - 1 is the
    first parent (1.1.0, 1.2.0) or the last (1.0.0); every parent precedes the node."""
    g = SdrGraph(nodes * 32, bytes([5 if api != "1.0.0" else 0]) + bytes(31), api)
    v = np.arange(nodes, dtype=np.uint32)
    p = g.drg_parents(v).astype(np.int64)
    assert not p[:2].any()
    assert (p[2:] < v[2:, None]).all()
    assert (p[1:] != v[1:, None]).all()
    assert np.array_equal(p[1:, 5 if api == "1.0.0" else 0], v[1:] - 1)


def test_legacy_order_only_moves_the_predecessor():
    pid = bytes([7]) + bytes(31)
    new, old = SdrGraph(2 * MIB, pid, "1.1.0"), SdrGraph(2 * MIB, pid, "1.0.0")
    v = np.arange(2, 5000, dtype=np.uint32)
    a, b = new.drg_parents(v), old.drg_parents(v)
    assert np.array_equal(a[:, 1:], b[:, :5]) and np.array_equal(a[:, 0], b[:, 5])
    # below 32 GiB the expander parents of both versions agree (the u32 truncation never bites)
    assert np.array_equal(new.expander_parents(v), old.expander_parents(v))
    assert np.array_equal(SdrGraph(2 * MIB, pid, "1.2.0").parents(v), new.parents(v))


# ------------------------------------------------------------------ feistel.rs and graph.rs properties


@pytest.mark.parametrize("n", [4, 16, 64, 256, 5, 6, 8, 12, 17])
def test_feistel_permute_is_a_permutation(n):
    """feistel.rs test_feistel_power_of_4 / test_feistel_on_arbitrary_set, keys [1, 2, 3, 4]."""
    out = permute_indices(n, np.arange(n), [1, 2, 3, 4])
    assert sorted(out.tolist()) == list(range(n))


def test_feistel_shuffle_of_8192():
    """graph.rs test_shuffle: n = 2^10, d = 8, keys [1, 2, 3, 4]: every index of n*d is hit once."""
    out = permute_indices(8192, np.arange(8192), [1, 2, 3, 4])
    assert len(set(out.tolist())) == 8192 and out.max() < 8192


def test_feistel_precompute_and_round_function():
    assert precompute(4) == (0b10, 0b1, 1)
    assert precompute(5) == (0b1100, 0b11, 2)
    assert precompute(8 << 31) == (((1 << 17) - 1) << 17, (1 << 17) - 1, 17)  # 64 GiB: 2^34 exactly
    rng = np.random.default_rng(7)
    for r, k in rng.integers(0, 1 << 63, size=(8, 2), dtype=np.uint64):
        data = int(r).to_bytes(8, "big") + int(k).to_bytes(8, "big")
        want = int.from_bytes(hashlib.blake2b(data).digest()[:8], "little")
        m0 = int.from_bytes(int(r).to_bytes(8, "big"), "little")
        m1 = int.from_bytes(int(k).to_bytes(8, "big"), "little")
        assert int(np.uint64(blake2b_16_first_word(np.uint64(m0), np.uint64(m1)))) == want


def test_graph_distribution_pathology():
    """graph.rs: V1 graphs of 32 and 64 GiB (porep ids 3, 4) keep the expander parents of the first 1000
    nodes in the first half of the sector; V1_1 (porep ids 8, 9, api 1.1.0 or 1.2.0) do not."""
    v = np.arange(1000, dtype=np.uint32)
    for pid, size, api, pathological in [(3, 32 * GIB, "1.0.0", True), (4, 64 * GIB, "1.0.0", True),
                                         (8, 32 * GIB, "1.1.0", False), (9, 64 * GIB, "1.1.0", False),
                                         (8, 32 * GIB, "1.2.0", False), (9, 64 * GIB, "1.2.0", False)]:
        g = SdrGraph(size, bytes([pid]) + bytes(31), api)
        large = (g.expander_parents(v) >= g.nodes // 2).any()
        assert large != pathological


def test_high_parent_bits_and_histogram_at_64gib():
    """graph.rs test_high_parent_bits and test_exp_parent_histogram (porep id 5, 2^31 nodes, api 1.2.0)."""
    g = SdrGraph(64 * GIB, (5).to_bytes(8, "little") + bytes(24), "1.2.0")
    assert (g.expander_parents(np.arange(3)) >= 1 << 29).any()
    samples = (np.arange(10000, dtype=np.uint64) * g.nodes // 10000).astype(np.uint32)
    hist = np.bincount((g.expander_parents(samples) // (g.nodes // 32)).ravel(), minlength=32)
    uniform = 10000 * 8 // 32
    assert ((hist >= int(0.6 * uniform) + 1) & (hist <= int(1.4 * uniform) - 1)).all()


# ------------------------------------------------------------------ ChaCha as rand_chacha streams it


def test_chacha20_rand_chacha_vectors():
    a = stream_u32(bytes(32), 32, double_rounds=10)
    assert a[:4].tolist() == [0xADE0B876, 0x903DF1A0, 0xE56A5D40, 0x28BD8653]
    assert a[16:20].tolist() == [0xBEE7079F, 0x7A385155, 0x7C97BA98, 0x0D082D73]
    assert a[28:].tolist() == [0x281FED31, 0x45FB0A51, 0x1F0AE1AC, 0x6F4D794B]
    b = stream_u32(bytes(31) + b"\x01", 32, double_rounds=10)
    assert b[16:20].tolist() == [0x2452EB3A, 0x9249F8EC, 0x8D829D9B, 0xDDD4CEB1]
    c = stream_u32(b"\x00\xff" + bytes(30), 48, double_rounds=10)
    assert c[32:36].tolist() == [0xFB4DD572, 0x4BC42EF1, 0xDF922636, 0x327F1394]
    seed = b"".join(i.to_bytes(4, "little") for i in range(8))
    m = stream_u32(seed, 17 * 16, double_rounds=10)  # crosses rand_chacha's 4-block buffer refills
    assert m[::17].tolist() == [0xF225C81A, 0x6AB1BE57, 0x04D42951, 0x70858036, 0x49884684, 0x64EFEC72,
                                0x4BE2D186, 0x3615B384, 0x11CFA18E, 0xD3C50049, 0x75C775F6, 0x434C6530,
                                0x2C5BAD8F, 0x898881DC, 0x5F1C86D9, 0xC1F8E7F4]
    seed = b"".join(i.to_bytes(8, "little") for i in range(4))
    assert int(stream_u32(seed, 1, double_rounds=10)[0]) == 137206642


def test_chacha8_zero_seed_and_u64_order():
    w = stream_u32(bytes(32), 16)  # ChaCha8 (test_chacha_set_rounds, rounds 8)
    assert w[:4].tolist() == [0x2FEF003E, 0xD6405F89, 0xE8B85B7F, 0xA1A5091F]
    assert w[12:].tolist() == [0xA3424A31, 0x01B086DA, 0xB8FD7B38, 0x42FE0C0E]
    q = stream_u64(bytes(32), 2)  # next_u64: two words, the first the low half
    assert q.tolist() == [0xD6405F892FEF003E, 0xA1A5091FE8B85B7F]


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("kwargs, text", [
    (dict(sector_size=2000, porep_id=bytes(32)), "multiple of 32"),
    (dict(sector_size=32, porep_id=bytes(32)), "1 nodes"),
    (dict(sector_size=2048, porep_id=bytes(31)), "32 bytes"),
    (dict(sector_size=2048, porep_id=bytes(32), api_version="1.3.0"), "1.3.0"),
    (dict(sector_size=2048.0, porep_id=bytes(32)), "not an integer"),
])
def test_bad_graph_parameters(kwargs, text):
    with pytest.raises(SdrGraphError, match=text):
        SdrGraph(**kwargs)


def test_nodes_outside_the_graph_are_refused():
    g = SdrGraph.for_proof(5)
    with pytest.raises(SdrGraphError, match="node 64"):
        g.parents([0, 64])
    with pytest.raises(SdrGraphError, match="node -1"):
        g.drg_parents(np.array([-1, 3]))
    with pytest.raises(SdrGraphError, match="1-D"):
        g.expander_parents(np.zeros((2, 2), dtype=np.uint32))
    assert g.parents(np.array([], dtype=np.uint32)).shape == (0, 14)
