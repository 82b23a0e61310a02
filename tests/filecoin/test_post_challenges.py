"""PoSt challenge derivation and public inputs.

Oracles from outside our code: hashlib with the formula of rust-fil-proofs'
generate_leaf_challenge_inner / get_challenge_index written out here, and the
leaf indices recorded in Curio's real 32 GiB vanilla proof.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cuzk.circuits.filecoin.post.challenges import (
    challenge_index, leaf_challenges, public_inputs, slot_challenges, vanilla_challenges,
)
from cuzk.circuits.filecoin.common.prover_id import prover_id
from cuzk.circuits.filecoin.common.registered_proofs import post_config, post_config_for
from cuzk.circuits.filecoin.common.fr_bytes import fr
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.post.vanilla_bincode import decode_sector_proof

R = fr().p


def leaf_ref(randomness: bytes, sector_id: int, challenge_index: int, nodes: int) -> int:
    h = hashlib.sha256(randomness + sector_id.to_bytes(8, "little") + challenge_index.to_bytes(8, "little")).digest()
    return int.from_bytes(h[:8], "little") % nodes


def index_ref(api: str, sector_index: int, count: int, n: int) -> int:
    return n if api == "1.2.0" else sector_index * count + n


def rand32(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    return (int.from_bytes(rng.bytes(32), "little") % R).to_bytes(32, "little")


@pytest.mark.parametrize("number", [10, 13, 14, 3])
def test_leaf_challenges_match_hashlib(number):
    cfg = post_config(number)
    rng = np.random.default_rng(number)
    rand = rand32(number)
    ids = rng.integers(0, 2**63, size=7, dtype=np.uint64)
    idx = rng.integers(0, 2**40, size=7, dtype=np.uint64)
    got = leaf_challenges(cfg, rand, ids, idx)
    assert [int(g) for g in got] == [leaf_ref(rand, int(i), int(c), cfg.sector_size // 32) for i, c in zip(ids, idx)]


def test_challenge_index_per_api_version():
    assert int(challenge_index("1.0.0", 3, 10, 4)) == 34
    assert int(challenge_index("1.1.0", 3, 10, 4)) == 34
    assert int(challenge_index("1.2.0", 3, 10, 4)) == 4


def test_real_proof_paths_open_the_derived_challenges(curio_post):
    """The real-data oracle: Curio's proof of sector 1 opens exactly the derived leaves."""
    for number in (curio_post.post_proof, 13):  # sector index 0: V1 and V1_1 derive the same challenges
        cfg = post_config(number)
        proof = decode_sector_proof(curio_post.vproof, cfg)
        want = vanilla_challenges(cfg, curio_post.randomness, [curio_post.sector_number], [0])[0]
        assert proof.num_inclusion_proofs == 10
        assert proof.leaf_index().tolist() == want.tolist()
        assert want.tolist() == [leaf_ref(curio_post.randomness, 1, n, cfg.nodes) for n in range(10)]


def test_public_inputs_of_the_real_sector(curio_post):
    cfg = post_config(13)
    proof = decode_sector_proof(curio_post.vproof, cfg)
    inputs = public_inputs(cfg, curio_post.randomness, ([1], [proof.comm_r]), 0)
    row = [int.from_bytes(bytes(proof.comm_r), "little")] + proof.leaf_index().tolist()
    assert len(inputs) == 2349 * 11 == cfg.num_public_inputs
    assert inputs == row * 2349  # one real sector, its inputs repeated into every padded slot


def test_window_public_inputs_order_and_padding():
    cfg = post_config(5)  # 2 KiB window, api 1.0.0: challenge indices depend on the slot
    rand = rand32(1)
    comm = [(5).to_bytes(32, "little"), (6).to_bytes(32, "little")]
    nodes = cfg.nodes
    for part in (0, 3):
        got = public_inputs(cfg, rand, ([11, 12], comm), part)
        want = []
        for i, (sid, c) in enumerate(zip([11, 12], [5, 6])):
            want += [c] + [leaf_ref(rand, sid, index_ref("1.0.0", part * 2 + i, 10, n), nodes) for n in range(10)]
        assert got == want
    one = public_inputs(cfg, rand, ([11], comm[:1]), 1)
    first = [5] + [leaf_ref(rand, 11, index_ref("1.0.0", 2, 10, n), nodes) for n in range(10)]
    assert one == first + first  # padding repeats the last real sector's inputs unchanged
    v12 = post_config(10)
    assert public_inputs(v12, rand, ([11], comm[:1]), 0) == public_inputs(v12, rand, ([11], comm[:1]), 4)


def test_winning_public_inputs():
    cfg = post_config(0)
    rand = rand32(2)
    c = 123456789
    got = public_inputs(cfg, rand, ([42], [c.to_bytes(32, "little")]), 0)
    want = []
    for i in range(66):  # verify_winning_post lists the sector 66 times, one challenge each
        want += [c, leaf_ref(rand, 42, index_ref("1.0.0", i, 1, 0), cfg.nodes)]
    assert got == want
    # ... which are the 66 leaves the single vanilla proof was made for
    assert [got[2 * i + 1] for i in range(66)] == vanilla_challenges(cfg, rand, [42], [0])[0].tolist()
    assert slot_challenges(cfg, rand, [42] * 66, 0).ravel().tolist() == [got[2 * i + 1] for i in range(66)]


def test_public_inputs_refusals():
    cfg = post_config(10)
    comm = [(1).to_bytes(32, "little")]
    with pytest.raises(FormatError, match="randomness: expected 32 bytes, got 31"):
        public_inputs(cfg, bytes(31), ([1], comm))
    with pytest.raises(FormatError, match="randomness: not a field element"):
        public_inputs(cfg, R.to_bytes(32, "little"), ([1], comm))
    with pytest.raises(FormatError, match="sector 1: comm_r is not a field element"):
        public_inputs(cfg, bytes(32), ([1], [b"\xff" * 32]))
    with pytest.raises(FormatError, match="holds at most 2 sectors, got 3"):
        public_inputs(cfg, bytes(32), ([1, 2, 3], comm * 3))
    with pytest.raises(FormatError, match="WinningPoSt proves 1 sector, got 2"):
        public_inputs(post_config(0), bytes(32), ([1, 2], comm * 2))
    with pytest.raises(FormatError, match="comm_r must be uint8"):
        public_inputs(cfg, bytes(32), ([1, 2], np.zeros((1, 32), np.uint8)))
    with pytest.raises(FormatError, match="every comm_r must be 32 bytes"):
        public_inputs(cfg, bytes(32), ([1], [b"\x01"]))


def test_prover_id():
    # Curio make_prover_id: LEB128 of the miner id, zero padded to 32 bytes (Go address payload)
    assert prover_id(1000) == bytes([0xE8, 0x07]) + bytes(30)
    assert prover_id(0) == bytes(32)
    assert prover_id(127) == bytes([0x7F]) + bytes(31)


def test_test_shape_challenges_cover_the_sector():
    cfg = post_config_for("window", 32 << 10)
    got = leaf_challenges(cfg, rand32(3), np.arange(50, dtype=np.uint64), 0)
    assert got.max() < 1024
