"""Registered proof numbers -> PoSt configs, against the facts as rust-fil-proofs /
filecoin-proofs-api / Curio state them (numbers restated here, not read from our tables)."""

from __future__ import annotations

import math

import pytest

from cuzk.circuits.filecoin.common.registered_proofs import (
    POST_PROOFS, SECTOR_SIZES, UnknownRegisteredProof, post_config, post_config_for, seal_proof,
)
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.post.vanilla_bincode import sector_proof_size

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# Curio cuzk-core prover.rs registered_post_proof_from_u64; proofs-api registry.rs version()
EXPECTED = {
    0: ("winning", 2 * KIB, "1.0.0"), 1: ("winning", 8 * MIB, "1.0.0"), 2: ("winning", 512 * MIB, "1.0.0"),
    3: ("winning", 32 * GIB, "1.0.0"), 4: ("winning", 64 * GIB, "1.0.0"),
    5: ("window", 2 * KIB, "1.0.0"), 6: ("window", 8 * MIB, "1.0.0"), 7: ("window", 512 * MIB, "1.0.0"),
    8: ("window", 32 * GIB, "1.0.0"), 9: ("window", 64 * GIB, "1.0.0"),
    10: ("window", 2 * KIB, "1.2.0"), 11: ("window", 8 * MIB, "1.2.0"), 12: ("window", 512 * MIB, "1.2.0"),
    13: ("window", 32 * GIB, "1.2.0"), 14: ("window", 64 * GIB, "1.2.0"),
}


def test_numbers_kinds_sizes_versions():
    assert sorted(POST_PROOFS) == list(range(15))
    for number, (kind, size, api) in EXPECTED.items():
        cfg = post_config(number)
        assert (cfg.registered_proof, cfg.kind, cfg.sector_size, cfg.api_version) == (number, kind, size, api)
    assert post_config(13).name == "StackedDrgWindow32GiBV1_1" and post_config(8).name == "StackedDrgWindow32GiBV1"


def test_circuit_view_counts():
    # window: 10 challenges x WINDOW_POST_SECTOR_COUNT; winning: 66 sectors x 1 challenge
    assert (post_config(13).challenges_per_sector, post_config(13).sectors_per_partition) == (10, 2349)
    assert (post_config(14).challenges_per_sector, post_config(14).sectors_per_partition) == (10, 2300)
    assert (post_config(10).challenges_per_sector, post_config(10).sectors_per_partition) == (10, 2)
    for n in range(5):
        cfg = post_config(n)
        assert (cfg.challenges_per_sector, cfg.sectors_per_partition) == (1, 66)
        assert (cfg.vanilla_challenges, cfg.vanilla_sectors) == (66, 1)
        assert cfg.num_public_inputs == 132


def test_tree_shapes():
    assert post_config(10).arities == (8, 8)  # 2 KiB: 64 leaves
    assert post_config(11).arities == (8,) * 6  # 8 MiB: 2^18 leaves
    assert post_config(12).arities == (8,) * 8
    assert post_config(13).arities == (8,) * 9 + (8,)  # 32 GiB: 8 base trees of 2^27 leaves
    assert post_config(14).arities == (8,) * 9 + (8, 2)  # 64 GiB: 2 x 8 base trees
    assert [post_config(n).merkle_variant for n in (10, 13, 14)] == [0, 1, 2]
    for size in SECTOR_SIZES.values():  # every shape covers exactly the sector's leaves
        for kind in ("window", "winning"):
            assert math.prod(post_config_for(kind, size).arities) == size // 32


def test_real_proof_size_matches_the_layout():
    assert sector_proof_size(post_config(8)) == 24960  # the size of Curio's testgolden post.vproof


def test_post_config_for_defaults_and_test_shapes():
    assert post_config_for("window", 32 * GIB).registered_proof == 13
    assert post_config_for("window", 32 * GIB, "1.0.0").registered_proof == 8
    assert post_config_for("winning", 2 * KIB).registered_proof == 0
    cfg = post_config_for("window", 32 * KIB)
    assert cfg.registered_proof is None and cfg.arities == (8, 8, 8, 2)
    assert post_config_for("window", 4 * KIB).arities == (8, 8, 2)


@pytest.mark.parametrize("bad", [15, -1, 2**64, "x", None])
def test_unknown_numbers_are_clear_errors(bad):
    with pytest.raises(UnknownRegisteredProof, match="registered_proof: unknown RegisteredPoStProof"):
        post_config(bad)
    assert issubclass(UnknownRegisteredProof, FormatError)


def test_unknown_kind_and_size():
    with pytest.raises(FormatError, match="kind: expected 'window' or 'winning'"):
        post_config_for("porep", 2 * KIB)
    with pytest.raises(FormatError, match="sector_size: no Filecoin sector shape for 12345"):
        post_config_for("window", 12345)


def test_seal_proofs():
    # Curio lib/proof/porep_vproof_types.go: 8 = StackedDrg32GiBV1_1 (postpub.json's SealProof)
    assert seal_proof(8).name == "StackedDrg32GiBV1_1" and seal_proof(8).sector_size == 32 * GIB
    assert seal_proof(3).name == "StackedDrg32GiBV1"
    assert seal_proof(13).name == "StackedDrg32GiBV1_1_Feat_SyntheticPoRep"
    assert seal_proof(19).name == "StackedDrg64GiBV1_2_Feat_NiPoRep"
    with pytest.raises(FormatError, match="unknown RegisteredSealProof 20"):
        seal_proof(20)
