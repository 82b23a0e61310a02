"""Decoding Curio's bincode FallbackPoStSectorProof: the real 32 GiB proof, generated
proofs of every tree shape, and malformed inputs (FormatError naming the field, nothing else)."""

from __future__ import annotations

import base64
import struct

import numpy as np
import pytest

from cuzk.circuits.filecoin.post.vanilla_gen import make_sector_proof
from cuzk.circuits.filecoin.common.registered_proofs import post_config, post_config_for
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.post.vanilla_bincode import (
    decode_sector_proof, decode_sector_proofs, encode_sector_proof, sector_proof_size,
)

# multicodec table (multiformats/multicodec table.csv), as go-fil-commcid's ReplicaCommitmentV1ToCID uses them
FIL_COMMITMENT_SEALED = 0xF102
POSEIDON_BLS12_381_A2_FC1 = 0xB401


def uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return value, pos
        shift += 7


def comm_r_from_sealed_cid(cid: str) -> bytes:
    """CIDv1 in multibase 'b' (RFC 4648 base32, lower case, unpadded) -> the 32-byte commitment."""
    assert cid[0] == "b"
    body = cid[1:].upper()
    raw = base64.b32decode(body + "=" * (-len(body) % 8))
    version, pos = uvarint(raw, 0)
    codec, pos = uvarint(raw, pos)
    mh_code, pos = uvarint(raw, pos)
    length, pos = uvarint(raw, pos)
    assert (version, codec, mh_code, length) == (1, FIL_COMMITMENT_SEALED, POSEIDON_BLS12_381_A2_FC1, 32)
    assert len(raw) == pos + 32
    return raw[pos:]


def test_real_proof_decodes(curio_post):
    cfg = post_config(curio_post.post_proof)
    proof = decode_sector_proof(curio_post.vproof, cfg)
    assert proof.sector_id == curio_post.sector_number == 1
    assert bytes(proof.comm_r) == comm_r_from_sealed_cid(curio_post.sealed_cid)
    assert proof.leaves.shape == (10, 32) and proof.roots.shape == (10, 32)
    assert [s.shape for s in proof.siblings] == [(10, 7, 32)] * 10  # 9 base levels + 1 sub-tree level
    assert proof.indices.shape == (10, 10) and proof.indices.dtype == np.uint64
    assert (proof.roots == proof.comm_r_last).all()
    assert encode_sector_proof(proof, cfg) == curio_post.vproof


def test_real_proof_under_the_wrong_shape(curio_post):
    with pytest.raises(FormatError, match=r"sector 1: inclusion proof 0: merkle proof variant: expected 2 \(Top\)"):
        decode_sector_proof(curio_post.vproof, post_config(14))
    with pytest.raises(FormatError, match=r"sector 1: inclusion_proofs: expected 66 inclusion proofs .*, got 10"):
        decode_sector_proof(curio_post.vproof, post_config(3))
    with pytest.raises(FormatError, match=r"sector 1: inclusion proof 0: merkle proof variant: expected 0 \(Single\)"):
        decode_sector_proof(curio_post.vproof, post_config(12))


SHAPES = [post_config(10), post_config(0), post_config(14), post_config_for("window", 4 << 10),
          post_config_for("window", 32 << 10)]


@pytest.mark.parametrize("cfg", SHAPES, ids=lambda c: c.name)
def test_generated_round_trip(cfg):
    proof = make_sector_proof(cfg, 77, bytes(32), seed=5)
    data = encode_sector_proof(proof, cfg)
    assert len(data) == sector_proof_size(cfg)
    back = decode_sector_proof(data, cfg)
    assert back.sector_id == 77
    for name in ("comm_r", "comm_c", "comm_r_last", "leaves", "roots", "indices"):
        assert np.array_equal(getattr(back, name), getattr(proof, name)), name
    assert all(np.array_equal(a, b) for a, b in zip(back.siblings, proof.siblings))
    assert encode_sector_proof(back, cfg) == data


# ---- malformed inputs ----------------------------------------------------------------------

CFG = post_config(10)  # 2 KiB window: Single proofs, 2 path levels of 7 siblings
HEAD = 8 + 32 + 8 + 8
REC = 4 + 64 + 8 + 2 * (8 + 7 * 32 + 8)  # tag, root, leaf, path length, 2 elements


@pytest.fixture(scope="module")
def small() -> bytes:
    return encode_sector_proof(make_sector_proof(CFG, 3, bytes(32), seed=1), CFG)


def put_u64(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + struct.pack("<Q", value) + data[offset + 8:]


def level_offset(k: int, level: int) -> int:
    """Offset of inclusion proof k's path element `level` (its sibling count)."""
    return HEAD + k * REC + 4 + 64 + 8 + level * (8 + 7 * 32 + 8)


def test_layout_offsets(small):
    assert len(small) == HEAD + 10 * REC + 64
    assert struct.unpack_from("<Q", small, level_offset(3, 1))[0] == 7


@pytest.mark.parametrize("edit,words", [
    (lambda d: put_u64(d, level_offset(3, 1), 3),
     "sector 3: inclusion proof 3: path level 1: expected 7 siblings, got 3"),
    (lambda d: put_u64(d, level_offset(0, 0), 2**64 - 1),
     "sector 3: inclusion proof 0: path level 0: expected 7 siblings, got 18446744073709551615"),
    (lambda d: put_u64(d, level_offset(9, 1) + 8 + 7 * 32, 8),
     "inclusion proof 9: path level 1: index 8 is not below the arity 8"),
    (lambda d: put_u64(d, level_offset(2, 0) - 8, 3), "inclusion proof 2: base path: expected 2 levels, got 3"),
    (lambda d: d[:HEAD + 5 * REC] + b"\x01\x00\x00\x00" + d[HEAD + 5 * REC + 4:],
     r"inclusion proof 5: merkle proof variant: expected 0 \(Single\) for this sector size, got 1 \(Sub\)"),
    (lambda d: d[:HEAD + REC] + b"\x07\x00\x00\x00" + d[HEAD + REC + 4:], r"got 7 \(unknown\)"),
    (lambda d: put_u64(d, 40, 2), "sector 3: vanilla_proof.sectors: expected 1 sector proof, got 2"),
    (lambda d: put_u64(d, 48, 2**40), "sector 3: inclusion_proofs: expected 10 inclusion proofs"),
    (lambda d: d + b"\x00", "sector 3: 1 trailing bytes after the last field"),
    (lambda d: d[:-1], "sector 3: comm_r_last: truncated: needs 32 bytes"),
    (lambda d: d[:HEAD + 4 * REC + 30], "sector 3: inclusion proof 4: root and leaf: truncated"),
    (lambda d: d[:5], "sector proof: sector_id: truncated: needs 8 bytes at offset 0, 5 left"),
    (lambda d: b"", "sector proof: sector_id: truncated"),
    (lambda d: d[:8] + b"\xff" * 32 + d[40:], "sector 3: comm_r: not a field element"),
    (lambda d: d[:-1] + b"\xff", "sector 3: comm_r_last: not a field element"),
    (lambda d: d[:level_offset(6, 1) + 8 + 3 * 32 + 31] + b"\xff" + d[level_offset(6, 1) + 8 + 3 * 32 + 32:],
     "sector 3: inclusion proof 6: path level 1: sibling 3: not a field element"),
    (lambda d: d[:HEAD + 4 + 32 + 31] + b"\xf0" + d[HEAD + 4 + 64:],
     "sector 3: inclusion proof 0: leaf: not a field element"),
])
def test_malformed_inputs_name_the_field(small, edit, words):
    with pytest.raises(FormatError, match=words):
        decode_sector_proof(edit(small), CFG)


def test_request_position_is_named(small):
    with pytest.raises(FormatError, match=r"^vanilla_proofs\[1\] \(sector 3\): 1 trailing bytes"):
        decode_sector_proofs([small, small + b"\x00"], CFG)
    with pytest.raises(FormatError, match=r"^vanilla_proofs\[0\]: sector_id: truncated"):
        decode_sector_proofs([b"\x01"], CFG)


def test_not_bytes():
    with pytest.raises(FormatError, match="expected bytes, got str"):
        decode_sector_proof("abc", CFG)


BOUNDARY = [0, 1, 7, 8, 10, 66, 2**32, 2**63, 2**64 - 1]


def test_random_mutations_raise_only_format_errors(small):
    """A seeded mutation loop over generated proofs of three shapes: every input either
    decodes or raises FormatError; never another exception, never a huge allocation."""
    seeds = [(CFG, small), (post_config(0), encode_sector_proof(make_sector_proof(post_config(0), 4, bytes(32), 2),
                                                                  post_config(0))),
             (post_config(14), encode_sector_proof(make_sector_proof(post_config(14), 5, bytes(32), 3),
                                                   post_config(14)))]
    rng = np.random.default_rng(2024)
    decoded = failed = 0
    for it in range(600):
        cfg, seed = seeds[it % len(seeds)]
        data = bytearray(seed)
        for _ in range(int(rng.integers(1, 4))):
            op = rng.integers(0, 6)
            pos = int(rng.integers(0, max(1, len(data))))
            if op == 0 and data:
                data[pos] ^= 1 << int(rng.integers(0, 8))
            elif op == 1:
                del data[pos:]
            elif op == 2:
                data[pos:pos] = rng.bytes(int(rng.integers(1, 40)))
            elif op == 3:
                del data[pos:pos + int(rng.integers(1, 300))]
            elif op == 4 and len(data) >= pos + 8:
                data[pos:pos + 8] = struct.pack("<Q", BOUNDARY[int(rng.integers(0, len(BOUNDARY)))])
            else:
                data = bytearray(rng.bytes(int(rng.integers(0, 200))))
        try:
            decode_sector_proof(bytes(data), cfg)
            decoded += 1
        except FormatError as exc:
            assert "\n" not in str(exc)
            failed += 1
    assert failed > 300 and decoded > 10  # bit flips inside nodes still decode
