"""The semantic check of PoSt vanilla proofs (Poseidon paths, comm_r, challenges) and the
arrangement of a request into circuit slots."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.circuits.filecoin.post.challenges import public_inputs, vanilla_challenges
from cuzk.circuits.filecoin.post.partition import partition_slots
from cuzk.circuits.filecoin.post.vanilla_gen import make_sector_proof, make_sector_proofs
from cuzk.circuits.filecoin.common.registered_proofs import post_config, post_config_for
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.post.vanilla_bincode import (
    check_sector_proof, check_sector_proofs, decode_sector_proof, encode_sector_proof, load_partition,
)


def copy_proof(p):
    return decode_sector_proof(encode_sector_proof(p, CFG32), CFG32)


CFG32 = post_config(13)


@pytest.fixture(scope="module")
def real(curio_post):
    return decode_sector_proof(curio_post.vproof, CFG32), curio_post.randomness


def test_real_proof_passes(real, curio_post):
    proof, rand = real
    check_sector_proof(proof, CFG32, rand, sector_index=0)
    check_sector_proof(proof, post_config(curio_post.post_proof), rand, comm_r=bytes(proof.comm_r))


def flipped(proof, field, k=0, level=0, sibling=0, byte=0):
    """A copy of the real proof with one byte flipped (byte 0: stays a field element)."""
    p = copy_proof(proof)
    if field == "leaf":
        p.leaves[k, byte] ^= 1
    elif field == "root":
        p.roots[k, byte] ^= 1
    elif field == "sibling":
        p.siblings[level][k, sibling, byte] ^= 1
    else:
        getattr(p, field)[byte] ^= 1
    return p


@pytest.mark.parametrize("field,k,level,words", [
    ("leaf", 0, 0, "sector 1: inclusion proof 0: leaf and path siblings hash to 0x"),
    ("leaf", 7, 0, "inclusion proof 7: leaf and path siblings hash to .* not to the proof's root"),
    ("sibling", 4, 0, "inclusion proof 4: leaf and path siblings hash"),
    ("sibling", 9, 9, "inclusion proof 9: leaf and path siblings hash"),  # the sub-tree level
    ("root", 3, 0, "inclusion proof 3: leaf and path siblings hash .* not to the proof's root"),
    ("comm_r_last", 0, 0, "sector 1: comm_r_last: 0x.* is not the root of inclusion proof 0"),
    ("comm_c", 0, 0, r"sector 1: comm_c: Poseidon\(comm_c, comm_r_last\) = 0x.* is not comm_r"),
    ("comm_r", 0, 0, r"sector 1: comm_c: Poseidon\(comm_c, comm_r_last\) = 0x.* is not comm_r"),
])
def test_one_flipped_byte_fails_naming_the_field(real, field, k, level, words):
    proof, rand = real
    with pytest.raises(FormatError, match=words):
        check_sector_proof(flipped(proof, field, k=k, level=level, sibling=k % 7), CFG32, rand)


@pytest.mark.parametrize("field", ["leaf", "sibling", "comm_c", "comm_r_last", "root"])
def test_every_byte_position_is_caught(real, field):
    """Each byte of the field, flipped in the encoded bytes: decode + check fail naming it
    (a high byte may make the node exceed r: the decoder names it then)."""
    proof, rand = real
    names = {"leaf": "leaf", "sibling": "sibling|siblings", "comm_c": "comm_c", "comm_r_last": "comm_r_last",
             "root": "root"}
    for byte in range(0, 32, 3):
        for bit in (0, 7):
            p = copy_proof(proof)
            target = {"leaf": p.leaves[2], "sibling": p.siblings[5][2, 3], "root": p.roots[2],
                      "comm_c": p.comm_c, "comm_r_last": p.comm_r_last}[field]
            target[byte] ^= 1 << bit
            data = encode_sector_proof(p, CFG32)
            with pytest.raises(FormatError, match=names[field]):
                check_sector_proof(decode_sector_proof(data, CFG32), CFG32, rand)


def test_wrong_randomness_and_wrong_slot(real):
    proof, rand = real
    other = bytes([1]) + rand[1:]
    with pytest.raises(FormatError, match=r"sector 1: inclusion proof 0: path indices open leaf 707914199, "
                                          r"but the challenged leaf is \d+"):
        check_sector_proof(proof, CFG32, other)
    # api 1.0.0 derives per slot: the same proof at slot 1 of the partition is refused
    with pytest.raises(FormatError, match="path indices open leaf"):
        check_sector_proof(proof, post_config(8), rand, sector_index=1)
    check_sector_proof(proof, post_config(13), rand, sector_index=1)  # api 1.2.0: slot-independent


def test_expected_comm_r(real):
    proof, rand = real
    with pytest.raises(FormatError, match="sector 1: comm_r: the proof's 0x.* is not the sector's sealed commitment"):
        check_sector_proof(proof, CFG32, rand, comm_r=bytes(32))


def test_wrong_counts_and_shapes(real):
    proof, rand = real
    with pytest.raises(FormatError, match="inclusion_proofs: expected 10, got 3"):
        check_sector_proof(proof.select([0, 1, 2]), CFG32, rand)
    with pytest.raises(FormatError, match=r"path: arities \(8, 8, 8, 8, 8, 8, 8, 8, 8, 8\), expected"):
        check_sector_proof(proof, post_config(14), rand)


def test_non_canonical_nodes_in_hand_made_proofs(real):
    proof, rand = real
    p = copy_proof(proof)
    p.siblings[2][1, 4, 31] = 0xFF
    with pytest.raises(FormatError, match="sector 1: inclusion proof 1: path level 2: sibling 4: not a field element"):
        check_sector_proof(p, CFG32, rand)


def test_batched_check_names_the_first_bad_sector():
    cfg = post_config(10)
    rand = bytes(32)
    proofs = make_sector_proofs(cfg, [3, 4], rand, seed=9)
    check_sector_proofs(proofs, cfg, rand, [0, 1], positions=[0, 1])
    proofs[1].leaves[5, 0] ^= 1
    with pytest.raises(FormatError, match=r"^vanilla_proofs\[1\] \(sector 4\): inclusion proof 5: leaf and path"):
        check_sector_proofs(proofs, cfg, rand, [0, 1], positions=[0, 1])


# ---- request -> slots ----------------------------------------------------------------------


def test_window_request_to_slots():
    cfg = post_config(5)  # 2 KiB window, api 1.0.0, two slots per partition
    rand = bytes(range(31)) + b"\x00"
    proofs = make_sector_proofs(cfg, [21, 22], rand, seed=4, partition_index=3)
    data = [encode_sector_proof(p, cfg) for p in proofs]
    slots = load_partition(cfg.registered_proof, data, rand, partition_index=3)
    assert slots.sector_ids.tolist() == [21, 22] and slots.real_slots == 2
    assert slots.leaves.shape == (2, 10, 32) and slots.indices.shape == (2, 10, 2)
    assert [s.shape for s in slots.siblings] == [(2, 10, 7, 32)] * 2
    assert slots.public_values() == public_inputs(cfg, rand, ([21, 22], [p.comm_r for p in proofs]), 3)
    with pytest.raises(FormatError, match=r"vanilla_proofs\[0\] \(sector 21\): inclusion proof 0: path indices"):
        load_partition(cfg, data, rand, partition_index=0)  # made for partition 3


def test_window_padding_and_lookup_by_sector_id():
    cfg = post_config(10)
    rand = bytes(32)
    a, b = make_sector_proofs(cfg, [8, 9], rand, seed=1)
    one = load_partition(cfg, [encode_sector_proof(a, cfg)], rand)
    assert one.real_slots == 1 and one.sector_ids.tolist() == [8, 8]
    assert np.array_equal(one.leaves[0], one.leaves[1])
    b_as_8 = make_sector_proof(cfg, 8, rand, seed=2)  # another proof carrying id 8: the first one is used
    slots = partition_slots(cfg, [a, b_as_8])
    assert np.array_equal(slots.leaves[1], a.leaves)
    with pytest.raises(FormatError, match="holds at most 2 sectors, got 3"):
        partition_slots(cfg, [a, b, a])
    with pytest.raises(FormatError, match="vanilla_proofs: empty"):
        partition_slots(cfg, [])


def test_winning_request_unrolls_66_challenges():
    cfg = post_config(0)
    rand = bytes(32)
    (proof,) = make_sector_proofs(cfg, [17], rand, seed=3)
    slots = load_partition(cfg, [encode_sector_proof(proof, cfg)], rand)
    assert slots.real_slots == 66 and slots.sector_ids.tolist() == [17] * 66
    assert slots.leaves.shape == (66, 1, 32) and slots.challenges.shape == (66, 1)
    assert np.array_equal(slots.leaves[:, 0], proof.leaves)
    assert (slots.comm_r == proof.comm_r).all() and (slots.comm_c == proof.comm_c).all()
    assert slots.challenges.ravel().tolist() == vanilla_challenges(cfg, rand, [17], [0])[0].tolist()
    assert slots.public_values() == public_inputs(cfg, rand, ([17], [proof.comm_r]), 0)
    with pytest.raises(FormatError, match="WinningPoSt takes 1 sector proof, got 2"):
        partition_slots(cfg, [proof, proof])
    with pytest.raises(FormatError, match="WinningPoSt has one partition, got 1"):
        partition_slots(cfg, [proof], partition_index=1)


@pytest.mark.parametrize("cfg", [post_config_for("window", 4 << 10), post_config_for("window", 32 << 10),
                                 post_config(14), post_config(3)], ids=lambda c: c.name)
def test_generated_proofs_pass_for_every_shape(cfg):
    rand = bytes(32)
    proof = make_sector_proof(cfg, 1234, rand, seed=8)
    check_sector_proof(proof, cfg, rand)
    proof.siblings[-1][0, 0, 0] ^= 1  # the top-most level (sub or top tree)
    with pytest.raises(FormatError, match="inclusion proof 0: leaf and path siblings hash"):
        check_sector_proof(proof, cfg, rand)
