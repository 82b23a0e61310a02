"""rust-fil-proofs' FallbackPoSt circuit: published counts and parameter names, the real WindowPoSt proof,
and the stamped partition against the gadget-by-gadget one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cuzk.circuits.filecoin.post import circuit as pc
from cuzk.circuits.filecoin.post import provable as post_kind
from cuzk.circuits.filecoin.post.unsatisfied import first_unsatisfied
from cuzk.circuits.filecoin.post.partition import partition_slots
from cuzk.circuits.filecoin.post.vanilla_gen import make_sector_proofs
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config, post_config_for
from cuzk.circuits.filecoin.post.vanilla_bincode import decode_sector_proofs
from cuzk.r1cs import RecordingCS, TestCS, WitnessCS, check_satisfied

from post_oracle import PUBLISHED_POST_PARAMS, post_public_inputs

RANDOMNESS = bytes(range(31)) + b"\x1f"


def test_counts_are_the_published_ones():
    """rust-fil-proofs PR #1325 (circuitinfo, v28): 32 GiB WinningPoSt 370,590 constraints, 133 public
    inputs; 32 GiB WindowPoSt 125,279,217 and 25,840 per partition. filecoin-proofs/src/constants.rs:
    64 GiB WindowPoSt 129,887,900 constraints."""
    win = pc.counts(post_config_for("winning", SECTOR_SIZES["32GiB"]))
    assert (win.constraints, win.inputs) == (370_590, 133)
    w32 = pc.counts(post_config_for("window", SECTOR_SIZES["32GiB"]))
    assert (w32.constraints, w32.inputs) == (125_279_217, 25_840)
    assert pc.counts(post_config_for("window", SECTOR_SIZES["64GiB"])).constraints == 129_887_900


@pytest.mark.parametrize("size", sorted(PUBLISHED_POST_PARAMS))
def test_parameter_file_names_are_the_published_ones(size):
    names = {post_kind.parameter_stem(post_config_for(kind, size)) for kind in ("window", "winning")}
    assert names == set(PUBLISHED_POST_PARAMS[size])


@pytest.mark.parametrize("kind,sectors", [("window", [5, 9]), ("winning", [7])])
def test_partition_is_the_gadget_circuit(kind, sectors):
    """At 2 KiB: the gadget-by-gadget slots (TestCS) are satisfied for the public inputs a verifier derives,
    the stamped partition has the same witness, its compiled form is satisfied, and the counts agree."""
    cfg = post_config_for(kind, SECTOR_SIZES["2KiB"])
    slots = partition_slots(cfg, make_sector_proofs(cfg, sectors, RANDOMNESS, seed=3), 0)
    x = pc.PostInputs.from_slots(slots)
    public = post_public_inputs(RANDOMNESS, [(s, bytes(p)) for s, p in zip(sectors, slots.comm_r)],
                                cfg.sectors_per_partition, cfg.challenges_per_sector, cfg.nodes,
                                api=cfg.api_version, unroll=cfg.sectors_per_partition if kind == "winning" else 0)
    assert x.public_values().shape[0] == len(public)
    assert [int(v) for v in np.asarray(slots.public_values())] == public

    cs = TestCS("bls12_381")
    P, k = x.challenges.shape
    pub = cs.alloc_input_many(P * (1 + k), x.public_values()).reshape(P, 1 + k)
    for s in range(P):
        pc.slot(cs, cfg, int(pub[s, 0]), [int(v) for v in pub[s, 1:]], pc.slot_values(x, s))
    assert cs.is_satisfied(), cs.which_is_unsatisfied()

    ws = WitnessCS("bls12_381")
    pc.synthesize(ws, cfg, x)
    w = ws.witness()
    assert np.array_equal(w, cs.witness())
    n = pc.counts(cfg)
    assert (cs.num_constraints, cs.num_inputs, cs.num_aux) == (n.constraints, n.inputs, n.aux)
    rec = RecordingCS("bls12_381")
    pc.synthesize(rec, cfg)
    assert check_satisfied(rec.compile(), w) is None

    bad = slots.siblings[0].copy()
    bad[0, 0, 3] = slots.siblings[0][0, 0, 2]  # one sibling replaced by its neighbour
    changed = dataclasses.replace(slots, siblings=(bad,) + slots.siblings[1:])
    assert "computation of commitment hash" in first_unsatisfied(cfg, changed, public) or \
        "enforce root is correct" in first_unsatisfied(cfg, changed, public)


def test_real_window_post_satisfies_the_circuit(curio_post):
    """Curio's golden WindowPoSt vanilla proof of a real 32 GiB sector: the challenges derived from its
    randomness, comm_r from its sealed CID; every constraint of its sector holds. A flipped byte anywhere
    in a leaf, a sibling, comm_c or comm_r_last breaks one."""
    from test_post_vanilla_decode import comm_r_from_sealed_cid

    cfg = post_config(curio_post.post_proof)
    assert cfg.sector_size == 32 << 30
    comm_r = comm_r_from_sealed_cid(curio_post.sealed_cid)
    public = post_public_inputs(curio_post.randomness, [(curio_post.sector_number, comm_r)], cfg.sectors_per_partition,
                                cfg.challenges_per_sector, cfg.nodes, api=cfg.api_version)
    slots = partition_slots(cfg, decode_sector_proofs([curio_post.vproof], cfg), 0)
    assert first_unsatisfied(cfg, slots, public) is None
    rng = np.random.default_rng(1)
    data = bytearray(curio_post.vproof)
    for offset in (rng.integers(80, 400), rng.integers(2000, 20000), len(data) - 40, len(data) - 10):
        flipped = bytearray(data)
        flipped[int(offset)] ^= 0x04
        try:
            proofs = decode_sector_proofs([bytes(flipped)], cfg)
        except ValueError:
            continue  # no longer a field element: refused by the decoder
        assert first_unsatisfied(cfg, partition_slots(cfg, proofs, 0), public) is not None, offset
