"""The SnapDeals vanilla proofs Curio sends (bincode PartitionProof): exact layout, byte-exact round
trips, path checks at decode, errors naming partition, challenge and field, and the fuzz target."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuzk.circuits.filecoin.snap.config import snap_config, snap_config_for
from cuzk.circuits.filecoin.snap.vanilla_gen import make_sector
from cuzk.errors import CuzkError
from cuzk.circuits.filecoin.snap import vanilla_bincode as sv

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fuzz import snap_vanilla_target as T  # noqa: E402

KIB, GIB = 1 << 10, 1 << 30
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def _merkle_bytes(levels_arities, variant: int) -> int:
    """serde/bincode size of one MerkleProof: u32 tag, root + leaf, per path block a u64 count and
    per level a u64 sibling count, the siblings and a u64 index."""
    blocks = {0: [levels_arities], 1: [levels_arities[:-1], levels_arities[-1:]],
              2: [levels_arities[:-2], levels_arities[-2:-1], levels_arities[-1:]]}[variant]
    return 4 + 64 + sum(8 + sum(8 + 32 * (a - 1) + 8 for a in b) for b in blocks)


def test_partition_proof_sizes():
    """From the Rust derives (vanilla.rs PartitionProof, merkle/proof.rs): comm_c, Vec apex_leafs,
    Vec of (proof_r_old, proof_d_new, proof_r_new)."""
    for cfg, r_arities, variant in ((snap_config(0), [8, 8], 0), (snap_config(3), [8] * 9 + [8], 1),
                                    (snap_config(4), [8] * 9 + [8, 2], 2)):
        d = _merkle_bytes([2] * cfg.challenge_bit_len, 0)
        r = _merkle_bytes(r_arities, variant)
        want = 32 + 8 + 32 * cfg.apex_leaves + 8 + cfg.challenges * (2 * r + d)
        assert sv.partition_proof_size(cfg) == want, cfg.name


@pytest.fixture(scope="module")
def proofs():
    out = {}
    for size in (2 * KIB, 4 * KIB, 32 * KIB):
        cfg = snap_config_for(size)
        sec = make_sector(cfg, seed=4)
        out[size] = (cfg, sec, [sec.partition_proof(k) for k in range(cfg.partitions)])
    return out


def test_round_trip_and_semantic_check(proofs):
    for size, (cfg, sec, parts) in proofs.items():
        for k, p in enumerate(parts):
            b = sv.encode_partition_proof(p, cfg)
            assert len(b) == sv.partition_proof_size(cfg)
            d = sv.decode_partition_proof(b, cfg, partition=k)
            assert sv.encode_partition_proof(d, cfg) == b
            pub = sec.public(k)
            sv.check_partition_proof(d, cfg, k, sec.h, *pub[1:])
            # the Rust verify's relations, re-derived here from the sector's trees
            assert d.challenges.tolist() == p.challenges.tolist()
            assert (d.r_old.roots == sec.r_old[-1][0]).all() and (d.d_new.roots == sec.d_new[-1][0]).all()


def _field_offset(cfg, challenge: int, tree: int) -> int:
    """Byte offset of challenge `challenge`'s MerkleProof `tree` (0 r_old, 1 d_new, 2 r_new)."""
    r = _merkle_bytes(list(cfg.arities), cfg.merkle_variant)
    d = _merkle_bytes([2] * cfg.challenge_bit_len, 0)
    return 32 + 8 + 32 * cfg.apex_leaves + 8 + challenge * (2 * r + d) + [0, r, r + d][tree]


def _err(data, cfg, k=0) -> str:
    with pytest.raises(ValueError) as e:
        sv.decode_partition_proof(bytes(data), cfg, partition=k)
    assert isinstance(e.value, CuzkError)
    return str(e.value)


def test_errors_name_partition_challenge_and_field(proofs):
    cfg, sec, parts = proofs[4 * KIB]  # tree R 8-2-0: Sub proofs
    good = bytearray(sv.encode_partition_proof(parts[0], cfg))
    # a wrong variant tag of challenge 3's proof_r_new
    b = bytearray(good)
    b[_field_offset(cfg, 3, 2)] = 2
    assert "partition 0: challenge 3: proof_r_new: merkle proof variant" in _err(b, cfg)
    # a sibling count of challenge 1's proof_d_new path level 0 (tag 4, root 32, leaf 32, path len 8)
    b = bytearray(good)
    b[_field_offset(cfg, 1, 1) + 4 + 64 + 8] = 5
    assert "partition 0: challenge 1: proof_d_new: path level 0" in _err(b, cfg)
    # an index >= arity in challenge 2's proof_r_old, first base level (tag, base len, count, 7 sibs)
    b = bytearray(good)
    struct.pack_into("<Q", b, _field_offset(cfg, 2, 0) + 4 + 8 + 8 + 7 * 32, 8)
    assert "partition 0: challenge 2: proof_r_old: path level 0: index 8 is not below the arity 8" in _err(b, cfg)
    # a flipped sibling byte: the path no longer reaches the root
    b = bytearray(good)
    b[_field_offset(cfg, 5, 0) + 4 + 8 + 8 + 3] ^= 1
    assert "partition 0: challenge 5: proof_r_old: leaf and path hash to" in _err(b, cfg)
    # a node >= r (challenge 0's proof_r_new sibling 0 of level 0)
    b = bytearray(good)
    b[_field_offset(cfg, 0, 2) + 4 + 8 + 8:_field_offset(cfg, 0, 2) + 4 + 8 + 8 + 32] = (R + 1).to_bytes(32, "little")
    assert "partition 0: challenge 0: proof_r_new: path level 0: sibling 0: not a field element" in _err(b, cfg)
    # truncation, trailing bytes, wrong counts
    assert "partition 0: challenge_proofs" in _err(good[:-1], cfg) or "truncated" in _err(good[:-1], cfg)
    assert "trailing bytes" in _err(good + b"\0", cfg)
    b = bytearray(good)
    struct.pack_into("<Q", b, 32, 7)
    assert "partition 0: apex_leafs: expected 8" in _err(b, cfg)
    # a proof of another partition fails the semantic check, named
    cfg32, sec32, parts32 = proofs[32 * KIB]
    d = sv.decode_partition_proof(sv.encode_partition_proof(parts32[1], cfg32), cfg32, partition=1)
    pub = sec32.public(0)
    with pytest.raises(ValueError, match="partition 0: challenge 0: proof_r_old: path opens leaf"):
        sv.check_partition_proof(d, cfg32, 0, sec32.h, *pub[1:])
    pub = sec32.public(1)
    bad_old = (pub[1] + 1) % R
    with pytest.raises(ValueError, match="partition 1: comm_c: Poseidon"):
        sv.check_partition_proof(d, cfg32, 1, sec32.h, bad_old, *pub[2:])


def test_tampered_encoding_is_refused(proofs):
    """An h the sector size does not allow is refused; a new-replica leaf replaced (label_r_new =
    label_r_old) no longer reaches tree R new's root."""
    cfg, sec, parts = proofs[2 * KIB]
    pub = sec.public(0)
    d = sv.decode_partition_proof(sv.encode_partition_proof(parts[0], cfg), cfg, partition=0)
    with pytest.raises(ValueError, match="h: 7 is not allowed"):
        sv.check_partition_proof(d, cfg, 0, 7, *pub[1:])
    swapped = sv.decode_partition_proof(sv.encode_partition_proof(parts[0], cfg), cfg, partition=0)
    swapped.r_new.leaves[:] = swapped.r_old.leaves  # label_r_new = label_r_old: paths fail first
    with pytest.raises(ValueError, match="partition 0: challenge 0: proof_r_new: leaf and path hash"):
        sv.check_partition_proof(swapped, cfg, 0, sec.h, *pub[1:])


SMOKE = settings(max_examples=60, derandomize=True, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))


def test_fuzz_seeds_parse():
    assert all(T.snap_vanilla(s) for s in T.seeds())


@st.composite
def _mutated(draw) -> bytes:
    seeds = T.seeds()
    data = bytearray(seeds[draw(st.integers(0, len(seeds) - 1))])
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.integers(0, 3))
        pos = draw(st.integers(0, len(data) - 1))
        if op == 0:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == 1:
            data = data[:pos]
        elif op == 2 and pos + 8 <= len(data):
            struct.pack_into("<Q", data, pos, draw(st.sampled_from([0, 1, 7, 8, 2**32, 2**63, 2**64 - 1])))
        else:
            data[pos:pos] = bytes(draw(st.integers(1, 40)))
        if not data:
            break
    return bytes(data)


@SMOKE
@given(_mutated())
def test_fuzz_mutations_raise_only_our_errors(data):
    try:
        T.snap_vanilla(data)
    except CuzkError:
        pass


def test_non_canonical_comm_c(proofs):
    cfg, sec, parts = proofs[2 * KIB]
    b = bytearray(sv.encode_partition_proof(parts[0], cfg))
    b[:32] = (R + 5).to_bytes(32, "little")
    assert "partition 3: comm_c: not a field element" in _err(b, cfg, k=3)
    assert np.array_equal(parts[0].comm_c, sec.comm_c)
