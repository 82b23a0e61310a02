"""Filecoin's sha254: SHA-256 with the two top bits of byte 31 cleared (Sha256Domain::trim_to_fr32)."""

import hashlib

import numpy as np
import pytest

from cuzk.gadgets.num import Num
from cuzk.gadgets.sha256.filecoin import (
    digest_to_int, hash2_circuit, hash_circuit, int_to_bytes, sha254, sha254_many,
)
from cuzk.gadgets.sha256.gadget import alloc_message_bits
from cuzk.r1cs import TestCS, check_satisfied

# Tree D of an all-zero (CC) sector: level k+1 = sha254(level k || level k), from level 0 = 32 zero
# bytes (supraseal's CC_TREE_D_NODE_VALUES, curio/extern/supraseal/c1/tree_d_cc_nodes.h; levels 1
# and 2 also in curio/lib/proof/treed_build_test.go, TestHashChunk2L / expectD8M)
CC_TREE_D = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b",
    "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333",
    "642a607ef886b004bf2c1978463ae1d4693ac0f410eb2d1b7a47fe205e5e750f",
    "57a2381a28652bf47f6bef7aca679be4aede5871ab5cf3eb2c08114488cb8526",
    "1f7ac9595510e09ea41c460b176430bb322cd6fb412ec57cb17d989a4310372f",
]
# curio/lib/proof/treed_build_test.go, TestHashChunk: the 64-byte chunk 01 00 .. 00 hashed into
# its tree D parent
CHUNK_01_PARENT = "16abab341fb7f370e27e4dadcf81766dd0dfd0ae64469477bb2cf6614938b22f"


def _truncate(d: bytes) -> bytes:
    return d[:31] + bytes([d[31] & 0x3F])


def test_sha254_is_sha256_with_two_top_bits_cleared():
    rng = np.random.default_rng(4)
    msgs = [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in (0, 1, 31, 32, 55, 64, 100, 200) for _ in range(3)]
    cleared = 0
    for m in msgs:
        d = hashlib.sha256(m).digest()
        assert sha254(m) == _truncate(d)
        cleared += d[31] >= 0x40
    assert cleared  # some digests had a top bit set
    assert sha254_many(msgs).tobytes() == b"".join(_truncate(hashlib.sha256(m).digest()) for m in msgs)
    same = np.stack([np.frombuffer(m, np.uint8) for m in msgs if len(m) == 64])
    assert sha254_many(same).tobytes() == b"".join(sha254(m.tobytes()) for m in same)
    assert all(digest_to_int(sha254(m)) < 1 << 254 for m in msgs)


def test_known_filecoin_values():
    for lower, upper in zip(CC_TREE_D, CC_TREE_D[1:]):
        assert sha254(bytes.fromhex(lower) * 2).hex() == upper
    assert sha254(b"\x01" + bytes(63)).hex() == CHUNK_01_PARENT


def test_hash2_circuit_computes_sha254_of_two_field_elements():
    cs = TestCS("bls12_381")
    a, b = Num.alloc(cs, 0), Num.alloc(cs, 0)
    out = hash2_circuit(cs, a, b)
    assert int_to_bytes(out.value).hex() == CC_TREE_D[1]
    rng = np.random.default_rng(5)
    x, y = (int.from_bytes(rng.bytes(32), "little") % cs.modulus for _ in range(2))
    out = hash2_circuit(cs, Num.alloc(cs, x), Num.alloc(cs, y))
    assert out.value == digest_to_int(sha254(int_to_bytes(x) + int_to_bytes(y)))
    assert cs.is_satisfied(), cs.which_is_unsatisfied()
    cc, w = cs.compile(), cs.witness()
    w[cc.num_inputs + ~out.single_var()] = cs.fr.from_int(out.value ^ 1)  # a wrong digest
    assert check_satisfied(cc, w) is not None


@pytest.mark.parametrize("length", [3, 64])
def test_hash_circuit_packs_the_truncated_digest(length):
    msg = b"\x01" + bytes(63) if length == 64 else b"abc"
    cs = TestCS("bls12_381")
    bits = alloc_message_bits(cs, msg, length)
    out = hash_circuit(cs, bits)
    assert int_to_bytes(out.value) == sha254(msg)
    if length == 64:
        assert int_to_bytes(out.value).hex() == CHUNK_01_PARENT
    assert cs.is_satisfied()
