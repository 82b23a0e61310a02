"""rust-fil-proofs' SnapDeals (EmptySectorUpdate) circuit: published counts, parameter names, the challenge
derivation against Rust's hardcoded vectors, and a generated 2 KiB partition through the gadget circuit."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest
from circuit_checks import sizes_and_witness_check

from cuzk.circuits.filecoin.snap import circuit as sc
from cuzk.circuits.filecoin.snap.config import SNAP_PROOFS, snap_config, snap_config_for
from cuzk.circuits.filecoin.snap.vanilla_gen import make_sector
from cuzk.circuits.filecoin.common.fr_bytes import fr, ints
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.neptune_constants import neptune_constants
from cuzk.gadgets.poseidon.neptune_native import hash_ints
from cuzk.r1cs import RecordingCS, TestCS, check_satisfied

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# the longest checks run with CUZK_LONG_FILECOIN=1 only: make test must stay within CI's 15 minutes on 2 cores
LONG = pytest.mark.skipif(os.environ.get("CUZK_LONG_FILECOIN") != "1", reason="long: set CUZK_LONG_FILECOIN=1")
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001

# rust-fil-proofs parameters.json: the five v28 EmptySectorUpdate parameter files (.params / .vk stems)
PUBLISHED_PARAMS = {
    0: "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
       "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194",
    1: "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
       "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63",
    2: "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
       "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c",
    3: "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
       "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
    4: "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
       "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
}


def test_counts_are_the_published_ones():
    """rust-fil-proofs storage-proofs-update/tests/circuit.rs (v28): `test_empty_sector_update_circuit_*`
    assert 1,248,389 (1 KiB), 1,705,039 (2 KiB), 2,165,109 (4 KiB), 2,620,359 (8 KiB), 6,300,021
    (16 KiB), 6,760,091 (32 KiB) constraints per partition, and `test_empty_sector_update_constraints_32gib`
    81,049,499 at 32 GiB (Curio extern/cuzk/cuzk-project.md: "SnapDeals (32 GiB) ~81M", 16 partitions).
    Public inputs (circuit.rs PublicInputs::to_vec): k_and_h_select, comm_r_old, comm_d_new, comm_r_new."""
    published = {1 * KIB: 1_248_389, 2 * KIB: 1_705_039, 4 * KIB: 2_165_109, 8 * KIB: 2_620_359,
                 16 * KIB: 6_300_021, 32 * KIB: 6_760_091, 32 * GIB: 81_049_499}
    for size, want in published.items():
        n = sc.counts(snap_config_for(size))
        assert (n.constraints, n.inputs) == (want, 5), size
    c32 = snap_config(3)
    assert (c32.partitions, c32.challenges, c32.h_default, c32.apex_leaves) == (16, 86, 10, 128)


def test_parameter_file_names_are_the_published_ones():
    for n, cfg in SNAP_PROOFS.items():
        assert cfg.parameter_stem() == PUBLISHED_PARAMS[n], n


def test_gadget_counts_are_the_published_ones():
    """storage-proofs-update gadgets.rs tests: gen_challenge_bits costs 568 constraints up to 16 MiB,
    4,544 at 512 MiB and 5,680 at 32 / 64 GiB; apex_por over 8 apex leaves and no partition bits
    (1 to 8 KiB) 317,654."""
    for size, want in ((2 * KIB, 568), (16 * MIB, 568), (512 * MIB, 4544), (32 * GIB, 5680), (64 * GIB, 5680)):
        cfg = snap_config_for(size)
        cs = RecordingCS("bls12_381")
        comm_r_new, k = (Num.alloc(cs, None) for _ in range(2))
        sc.gen_challenge_bits(cs, cfg, comm_r_new, k)
        assert cs.num_constraints == want, size
    cs = RecordingCS("bls12_381")
    leaves = [Num.alloc(cs, None) for _ in range(9)]
    sc.apex_por(cs, leaves[:8], [], [], leaves[8])
    assert cs.num_constraints == 317_654


class _XorShift:
    """rand_xorshift 0.3 XorShiftRng (from_seed: four LE u32; next_u64 = low u32 then high u32)."""

    def __init__(self, seed: bytes):
        self.s = [int.from_bytes(seed[i:i + 4], "little") for i in range(0, 16, 4)]

    def u32(self) -> int:
        x, y, z, w = self.s
        t = (x ^ (x << 11)) & 0xFFFFFFFF
        w2 = (w ^ (w >> 19) ^ t ^ (t >> 8)) & 0xFFFFFFFF
        self.s = [y, z, w, w2]
        return w2

    def u64(self) -> int:
        lo = self.u32()
        return lo | (self.u32() << 32)


def _blstrs_random(rng: _XorShift) -> int:
    """blstrs Scalar::random: four u64 limbs, top bit masked, rejected while >= r."""
    while True:
        limbs = [rng.u64() for _ in range(4)]
        limbs[3] &= (1 << 63) - 1
        v = sum(x << (64 * i) for i, x in enumerate(limbs))
        if v < R:
            return v


def test_challenges_are_rusts():
    """challenges.rs `test_challenges_against_hardcoded`: comm_r_new = TreeRDomain::random(XorShiftRng
    (TEST_SEED)), the first five challenges of (sector size, k). This pins Poseidon_genrand (domain
    tag 2^40) and the bit slicing to Rust's."""
    seed = bytes([0x59, 0x62, 0xBE, 0x5D, 0x76, 0x3D, 0x31, 0x8D, 0x17, 0xDB, 0x37, 0x32, 0x54, 0x06, 0xBC, 0xE5])
    comm_r_new = _blstrs_random(_XorShift(seed))
    vectors = {
        (1 * KIB, 0): [21, 7, 3, 31, 0], (2 * KIB, 0): [53, 51, 56, 3, 0], (4 * KIB, 0): [117, 25, 62, 0, 72],
        (16 * KIB, 1): [286, 308, 493, 510, 508], (32 * KIB, 1): [542, 666, 955, 927, 911],
        (8 * MIB, 1): [78878, 130797, 112892, 93994, 78379],
        (512 * MIB, 15): [16388544, 15794686, 16637142, 16319148, 16328348],
        (32 * GIB, 0): [1019125, 27985696, 15282860, 11586600, 44651330],
        (32 * GIB, 14): [990420169, 955146989, 968005601, 976863263, 944650706],
        (64 * GIB, 15): [2045262457, 2036941247, 2136653521, 2091356007, 2147167623],
    }
    for (size, k), want in vectors.items():
        got = sc.derive_challenges(snap_config_for(size), comm_r_new, k)
        assert got[:5].tolist() == want, (size, k)
        assert len(got) == snap_config_for(size).challenges


def _textbook_genrand(a: int, b: int) -> int:
    """neptune's textbook permutation (raw round constants and MDS) on [2^40, a, b]; output element 1."""
    C = neptune_constants(2)
    p, t, half = C.p, C.t, C.half_full_rounds
    state = [1 << 40, a, b]
    for r in range(C.R_F + C.R_P):
        state = [(s + k) % p for s, k in zip(state, C.round_keys(r))]
        for i in range(t if (r < half or r >= half + C.R_P) else 1):
            state[i] = pow(state[i], 5, p)
        state = [sum(state[i] * C.mds[i][j] for i in range(t)) % p for j in range(t)]
    return state[1]


def test_genrand_is_the_textbook_permutation():
    for a, b in ((1, 2), (R - 1, 12345), (7 << 200, 0)):
        assert sc.genrand_ints(a, b) == _textbook_genrand(a, b)
    assert sc.genrand_ints(1, 2) != hash_ints([1, 2])  # the Merkle tag differs


@pytest.fixture(scope="module")
def snap_2k():
    """A random 2 KiB update (h = hs[3]), partition 0, and the public inputs re-derived from the Rust
    definitions: k_and_h_select = k | 2^index(h) << log2(partitions); comm_r = Poseidon(comm_c, root)."""
    cfg = snap_config(0)
    sec = make_sector(cfg, seed=7)
    proof = sec.partition_proof(0)
    val = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    hs = [1] * 6  # constants.rs hs(): 2 KiB <= 32 KiB
    h = hs[3]
    public = [0 | (1 << hs.index(h)) << 0, hash_ints([val(sec.comm_c), val(sec.r_old[-1][0])]),
              val(sec.d_new[-1][0]), hash_ints([val(sec.comm_c), val(sec.r_new[-1][0])])]
    x = sc.SnapInputs.from_proof(cfg, proof, 0, h, *public[1:])
    return cfg, sec, proof, x, public


@LONG  # 13 s: test_stamped_partition_is_the_gadget_circuit compares the two row for row in every run
def test_partition_satisfies_the_gadget_circuit(snap_2k):
    """At 2 KiB the whole gadget-level partition (TestCS) is satisfied by the generated vanilla proof
    with the public inputs derived above; its sizes are the analytic (= published) counts."""
    cfg, sec, proof, x, public = snap_2k
    assert x.public_ints() == public
    cs = TestCS("bls12_381")
    sc.synthesize_gadgets(cs, cfg, x, public=public)
    n = sc.counts(cfg)
    assert (cs.num_constraints, cs.num_inputs, cs.num_aux) == (n.constraints, n.inputs, n.aux)
    assert check_satisfied(cs.compile(), cs.witness()) is None


def _first_failure(cfg, x, public):
    cs = TestCS("bls12_381")
    sc.synthesize_gadgets(cs, cfg, x, challenges=[0], public=public)
    row = check_satisfied(cs.compile(), cs.witness())
    return None if row is None else cs.constraint_name(row)


def test_tampering_is_named(snap_2k):
    """A changed new-data leaf breaks tree R new's path (its leaf is recomputed from it); a wrong
    comm_d_new breaks the apex tree's root."""
    cfg, sec, proof, x, public = snap_2k
    leaf = x.leaf_d_new.copy()
    leaf[0, 0] ^= np.uint64(1 << 20)
    where = _first_failure(cfg, dataclasses.replace(x, leaf_d_new=leaf), public)
    assert where is not None and where.startswith("por tree_r_new (c_index=0)/calculated root"), where
    bad = list(public)
    bad[2] = (bad[2] + 1) % R
    where = _first_failure(cfg, dataclasses.replace(x, comm_d_new=fr().from_ints([bad[2]])[0]), bad)
    assert where is not None and "apex_gadget/partition-tree por/calculated root" in where, where


@pytest.mark.parametrize("size,k", [pytest.param(4 * KIB, 0, id="4KiB-8-2-0"),
                                     pytest.param(32 * KIB, 1, id="32KiB-8-8-2-k1", marks=[pytest.mark.slow, LONG])])
def test_other_partitions_and_shapes(size, k):
    """Tree R with a sub-tree level (4 KiB: 8-2-0) and with sub and top levels and two partitions
    (32 KiB: 8-8-2, partition 1, ~1 min): the header and two challenges of the gadget circuit are
    satisfied by the generated proof."""
    cfg = snap_config_for(size)
    sec = make_sector(cfg, seed=2)
    pub = sec.public(k)
    x = sc.SnapInputs.from_proof(cfg, sec.partition_proof(k), k, sec.h, *pub[1:])
    cs = TestCS("bls12_381")
    sc.synthesize_gadgets(cs, cfg, x, challenges=[0, cfg.challenges - 1], public=pub)
    assert check_satisfied(cs.compile(), cs.witness()) is None


@pytest.mark.slow
def test_stamped_partition_is_the_gadget_circuit(snap_2k):
    """At 2 KiB the stamped partition (what the engine compiles and witnesses) has the gadget circuit's
    witness, value for value, and its R1CS, row for row (canonical form); its sizes are the published
    counts."""
    from cuzk.circuits.filecoin.snap import stamped as snap_stamped
    from cuzk.r1cs import WitnessCS

    cfg, sec, proof, x, public = snap_2k
    ws = WitnessCS("bls12_381")
    snap_stamped.synthesize(ws, cfg, x)
    rec = RecordingCS("bls12_381")
    snap_stamped.synthesize(rec, cfg)
    n = sc.counts(cfg)
    assert (rec.num_constraints, rec.num_inputs, rec.num_aux) == (n.constraints, n.inputs, n.aux) == (
        ws.num_constraints, ws.num_inputs, ws.num_aux)
    g = WitnessCS("bls12_381")
    sc.synthesize_gadgets(g, cfg, x)
    assert np.array_equal(ws.witness(), g.witness())
    gr = RecordingCS("bls12_381")
    sc.synthesize_gadgets(gr, cfg)
    assert rec.compile().topology_hash == gr.compile().topology_hash


@pytest.mark.parametrize("size,k", [pytest.param(4 * KIB, 0, id="4KiB-8-2-0"),
                                     pytest.param(32 * KIB, 1, id="32KiB-8-8-2-k1"),
                                     pytest.param(8 * MIB, 3, id="8MiB-h10-k3", marks=pytest.mark.slow)])
def test_stamped_partition_is_satisfied(size, k):
    """Other tree shapes, partition bits and h (8 MiB: four partitions, hs = [7..12], h = 10): a
    generated partition proof satisfies the stamped circuit, whose sizes are the analytic counts
    (the published ones at 4 and 32 KiB, test_counts_are_the_published_ones)."""
    from cuzk.circuits.filecoin.snap import stamped as snap_stamped
    from cuzk.circuits.filecoin.snap.sparse_gen import make_update_proofs

    cfg = snap_config_for(size)
    up = make_update_proofs(cfg, seed=2)
    pub = up.public(k)
    x = sc.SnapInputs.from_proof(cfg, up.partitions[k], k, up.h, *pub[1:])
    w = sizes_and_witness_check(snap_stamped.synthesize, cfg, x, sc.counts)
    assert ints(w[1:5]) == pub
