"""`cuzk filecoin poseidon`: the neptune known answers, and one-line usage errors (exit 2).

Expected hashes: neptune v11.0.0 src/poseidon.rs, test `hash_values` (Standard strength,
inputs 0..arity-1), written here in decimal.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from cuzk.cli.filecoin import POSEIDON_ARITIES
from cuzk.cli.main import main
from cuzk.gadgets.poseidon.neptune_constants import ARITIES

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
NEPTUNE_ARITY_2 = 0x396508D75E76A56B739E0FD902EFE161A6FBA9339D05A69D2E203C369A02E7FF
NEPTUNE_ARITY_8 = 0x2394611DA3A5DE5512010042116770774B682E9D9CC4AED92A9934F56D38A5E6


def test_poseidon_known_answers(capsys):
    assert POSEIDON_ARITIES == ARITIES
    assert main(["filecoin", "poseidon", "--arity", "2", "0", "1"]) == 0
    assert capsys.readouterr().out == f"{NEPTUNE_ARITY_2}\n"
    assert main(["filecoin", "poseidon", "--arity", "8", "0", "0x1", *map(str, range(2, 7)), "0X7"]) == 0
    assert capsys.readouterr().out == f"{NEPTUNE_ARITY_8}\n"


@pytest.mark.parametrize("args, names", [
    (["--arity", "2", "0"], "needs 2 values, got 1"),
    (["--arity", "2", "0", "1", "2"], "needs 2 values, got 3"),
    (["--arity", "2", "0", hex(R)], hex(R)),
    (["--arity", "2", "-1", "0"], "-1"),
    (["--arity", "2", "0", "12z"], "12z"),
])
def test_poseidon_bad_values_exit_2_with_one_line(args, names, capsys):
    assert main(["filecoin", "poseidon", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("cuzk: error:") and names in err, err


def test_filecoin_group_as_a_process():
    res = subprocess.run([sys.executable, "-m", "cuzk", "filecoin", "poseidon", "--arity", "2", "0", "1"],
                         capture_output=True, text=True, timeout=120)
    assert (res.returncode, res.stdout, res.stderr) == (0, f"{NEPTUNE_ARITY_2}\n", "")
    res = subprocess.run([sys.executable, "-m", "cuzk", "filecoin"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "poseidon" in res.stderr


def test_sha254_is_the_tree_d_parent_of_two_zero_nodes(capsys):
    """curio/extern/supraseal/c1/tree_d_cc_nodes.h (and curio lib/proof/treed_build_test.go): the tree-D node
    over two all-zero 32-byte nodes of an empty sector is f5a5fd42...fb0b."""
    assert main(["filecoin", "sha254", "00" * 64]) == 0
    hex_line, int_line = capsys.readouterr().out.splitlines()
    assert hex_line == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b"
    assert int(int_line) == int.from_bytes(bytes.fromhex(hex_line), "little") < R


@pytest.mark.parametrize("arg", ["zz", "abc", "0x1g"])
def test_sha254_refuses_non_hex_in_one_line(arg, capsys):
    assert main(["filecoin", "sha254", arg]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and arg in err


# ---- cuzk filecoin parents: the StackedDRG graph (cuzk.circuits.filecoin.porep.sdr)

# rust-fil-proofs v28 storage-proofs-porep/parent_cache.json: SHA-256 of the 2 KiB parent caches
# (14 little-endian u32 per node, nodes 0..63) of RegisteredSealProof 5 (V1_1) and 0 (V1)
CACHE_2KIB_V1_1 = "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"
CACHE_2KIB_V1 = "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"


def _cache_digest_via_cli(capsys, graph_args):
    import hashlib
    import struct

    h = hashlib.sha256()
    for node in range(64):
        assert main(["filecoin", "parents", *graph_args, str(node)]) == 0
        drg, exp = capsys.readouterr().out.splitlines()
        assert drg.split()[0] == "drg" and exp.split()[0] == "exp"
        values = [int(x) for x in drg.split()[1:] + exp.split()[1:]]
        assert len(values) == 14
        h.update(struct.pack("<14I", *values))
    return h.hexdigest()


def test_parents_of_every_2kib_node_hash_to_the_published_cache_digests(capsys):
    assert _cache_digest_via_cli(capsys, ["--registered-proof", "5"]) == CACHE_2KIB_V1_1
    porep_v1 = "00" * 32
    assert _cache_digest_via_cli(capsys, ["--sector-size", "2KiB", "--porep-id", porep_v1,
                                          "--api-version", "1.0.0"]) == CACHE_2KIB_V1


def test_parents_porep_id_and_registered_proof_agree(capsys):
    assert main(["filecoin", "parents", "--registered-proof", "6", "123456"]) == 0
    by_proof = capsys.readouterr().out
    assert main(["filecoin", "parents", "--sector-size", "8388608", "--porep-id", "0x06" + "00" * 31,
                 "123456"]) == 0
    assert capsys.readouterr().out == by_proof
    assert main(["filecoin", "parents", "--registered-proof", "6", "--sector-size", "8MiB", "123456"]) == 0
    assert capsys.readouterr().out == by_proof


@pytest.mark.parametrize("args, names", [
    (["5"], "exactly one of --porep-id and --registered-proof"),
    (["--registered-proof", "5", "--porep-id", "00" * 32, "5"], "exactly one of"),
    (["--registered-proof", "20", "5"], "20"),
    (["--registered-proof", "x5", "5"], "x5"),
    (["--registered-proof", "5", "--api-version", "1.0.0", "5"], "--api-version"),
    (["--registered-proof", "5", "--sector-size", "8MiB", "5"], "does not match"),
    (["--registered-proof", "5", "64"], "64 is outside"),
    (["--registered-proof", "5", "-1"], "'-1'"),
    (["--porep-id", "00" * 32, "5"], "needs --sector-size"),
    (["--porep-id", "00" * 31, "--sector-size", "2KiB", "5"], "32 bytes"),
    (["--porep-id", "zz" * 32, "--sector-size", "2KiB", "5"], "not hex"),
    (["--porep-id", "00" * 32, "--sector-size", "3KiB", "5"], "3KiB"),
    (["--porep-id", "00" * 32, "--sector-size", "2000", "5"], "multiple of 32"),
])
def test_parents_bad_input_exits_2_with_one_line(args, names, capsys):
    assert main(["filecoin", "parents", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("cuzk: error:") and names in err, err
