"""rust-fil-proofs' StackedDRG PoRep circuit: published counts, structure and parameter names, and a
generated 2 KiB partition through the gadget-by-gadget circuit and the stamped one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from circuit_checks import sizes_and_witness_check

from cuzk.circuits.filecoin.porep import circuit as pc
from cuzk.circuits.filecoin.porep import stamped as ps
from cuzk.circuits.filecoin.porep.challenges import interactive_challenges, public_inputs
from cuzk.circuits.filecoin.porep.unsatisfied import first_unsatisfied
from cuzk.circuits.filecoin.porep.config import POREP_PROOFS, porep_config, porep_config_for
from cuzk.circuits.filecoin.porep.vanilla_gen import make_replica
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES
from cuzk.circuits.filecoin.common.fr_bytes import ints
from cuzk.circuits.filecoin.porep.sdr import SdrGraph
from cuzk.r1cs import RecordingCS, TestCS, WitnessCS, check_satisfied
from cuzk.r1cs.stamping import instantiate
from cuzk.r1cs.system import ConstraintSystem

# rust-fil-proofs parameters.json: the five v28 PoRep parameter files (.params / .vk / .meta stems)
PUBLISHED_POREP_PARAMS = {
    "2KiB": "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
    "8MiB": "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
    "512MiB": "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
              "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
    "32GiB": "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
             "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
    "64GiB": "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
             "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
}


def test_counts_are_the_published_ones():
    """rust-fil-proofs PR #1325 (circuitinfo, v28): 32 GiB PoRep 130,278,541 constraints, 328 public
    inputs, 10 partitions. Curio's cuzk PCE extraction of the same circuit (extern/cuzk/cuzk-project.md,
    Phase 5): num_aux 130,169,893."""
    cfg = porep_config_for(SECTOR_SIZES["32GiB"])
    n = ps.counts(cfg)
    assert (n.constraints, n.inputs, cfg.partitions) == (130_278_541, 328, 10)
    assert n.aux == 130_169_893
    c64 = porep_config_for(SECTOR_SIZES["64GiB"])
    assert (ps.counts(c64).inputs, c64.partitions, c64.challenges) == (328, 10, 18)
    ni = porep_config(18)  # StackedDrg32GiBV1_2_Feat_NiPoRep: 126 partitions of the same circuit
    assert (ni.partitions, ni.challenges, ps.counts(ni)) == (126, 18, n)


def test_parameter_file_names_are_the_published_ones():
    """Every registered seal proof of a size names that size's one published parameter file."""
    for n, cfg in POREP_PROOFS.items():
        size = {v: k for k, v in SECTOR_SIZES.items()}[cfg.sector_size]
        assert cfg.parameter_stem() == PUBLISHED_POREP_PARAMS[size], n


class _StatsCS(ConstraintSystem):
    """Recording that keeps only matrix term counts and which variables A and B use."""

    needs_values = False

    def __init__(self, curve, num_aux_hint):
        super().__init__(curve)
        self.nnz = [0, 0, 0]
        self.used = [np.zeros(num_aux_hint, dtype=bool), np.zeros(num_aux_hint, dtype=bool)]
        self.b_inputs = set()

    def _mark(self, k, codes):
        self.used[k][~codes[codes < 0]] = True
        if k == 1:
            self.b_inputs.update(codes[codes >= 0].tolist())

    def _record(self, a, b, c, name):
        for k, lc in enumerate((a, b, c)):
            codes = np.asarray(lc.vars, dtype=np.int64)
            self.nnz[k] += len(codes)
            if k < 2:
                self._mark(k, codes)

    def _record_stamp(self, template, count, inputs, aux_base):
        for k, m in enumerate(template.matrices):
            self.nnz[k] += count * m.nnz
            if k < 2:
                self._mark(k, instantiate(m, count, np.asarray(inputs), aux_base, template.num_aux).vars)


def test_structure_is_the_one_curio_extracted():
    """The 32 GiB partition's matrices as Curio's cuzk PCE extraction reports them (cuzk-project.md,
    Phase 5 Wave 1): nnz A 309,405,051 / B 130,327,340 / C 282,656,500 (the 328 input rows
    `input * 0 = 0` included, one A term each); aux used in A: 129,753,292, in B: 33,112,281;
    inputs used in B: 1 (ONE)."""
    cfg = porep_config_for(SECTOR_SIZES["32GiB"])
    cs = _StatsCS("bls12_381", ps.counts(cfg).aux)
    ps.synthesize(cs, cfg)
    assert (cs.num_constraints, cs.num_inputs, cs.num_aux) == (130_278_541, 328, 130_169_893)
    assert [cs.nnz[0] + cs.num_inputs, cs.nnz[1], cs.nnz[2]] == [309_405_051, 130_327_340, 282_656_500]
    assert [int(u.sum()) for u in cs.used] == [129_753_292, 33_112_281]
    assert cs.b_inputs == {0}


def test_create_label_size():
    """rust-fil-proofs create_label.rs `test_create_label`: 532,025 constraints for a label whose
    replica id and 37 parents are allocated bytes and whose layer (3) and node (22) are constants."""
    from cuzk.gadgets.boolean import Boolean
    from cuzk.gadgets.sha256.gadget import sha256

    cs = RecordingCS("bls12_381")
    rid = [Boolean.alloc(cs) for _ in range(256)]
    parents = [[Boolean.alloc(cs) for _ in range(256)] for _ in range(37)]
    node = [Boolean.constant((22 >> i) & 1) for i in range(64)]
    msg = pc.label_message(rid, 3, node, parents[:6])[:512] + [b for p in parents for b in p]
    pc.pack_digest(cs, sha256(cs, msg))
    assert cs.num_constraints == 532_025


@pytest.fixture(scope="module")
def porep_2k():
    """A sealed random 2 KiB sector (V1_1), partition 0's vanilla proof and the public inputs a
    verifier derives (challenges from the seed, parents from the graph)."""
    cfg = porep_config_for(SECTOR_SIZES["2KiB"])
    rep = make_replica(cfg, seed=11)
    seed = bytes(range(32))
    proof = rep.partition_proof(seed, 0)
    ch = interactive_challenges(cfg, bytes(rep.replica_id), seed, 0)
    graph = SdrGraph.for_proof(cfg.registered_proof)
    val = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    public = public_inputs(val(rep.replica_id), val(rep.comm_d), val(rep.comm_r), ch,
                           graph.drg_parents(ch.astype(np.int64)), graph.expander_parents(ch.astype(np.int64)))
    return cfg, rep, proof, public


@pytest.mark.slow
def test_partition_is_the_gadget_circuit(porep_2k):
    """At 2 KiB: the gadget-by-gadget partition (TestCS) is satisfied for the public inputs a verifier
    derives, the stamped partition has the same witness and sizes, its compiled form is satisfied,
    and the analytic counts are the TestCS's."""
    cfg, rep, proof, public = porep_2k
    x = ps.PorepInputs.from_proof(proof)
    assert ints(x.public_values()) == public == proof.public_inputs()

    cs = TestCS("bls12_381")
    pc.synthesize_gadgets(cs, cfg, x, public=public)
    assert cs.is_satisfied(), cs.which_is_unsatisfied()
    n = ps.counts(cfg)
    assert (cs.num_constraints, cs.num_inputs, cs.num_aux) == (n.constraints, n.inputs, n.aux)

    ws = WitnessCS("bls12_381")
    ps.synthesize(ws, cfg, x)
    assert (ws.num_constraints, ws.num_inputs, ws.num_aux) == (n.constraints, n.inputs, n.aux)
    w = ws.witness()
    assert np.array_equal(w, cs.witness())
    rec = RecordingCS("bls12_381")
    ps.synthesize(rec, cfg)
    cc = rec.compile()
    assert check_satisfied(cc, w) is None
    # the gadget circuit's R1CS is the stamped one, row for row (canonical form)
    assert cs.compile().topology_hash == cc.topology_hash


@pytest.mark.slow
def test_a_tampered_column_is_named(porep_2k):
    """A parent's label changed in its column breaks that parent's tree C path, named by its
    namespace (gadget-level circuit, challenge 0 after the header)."""
    cfg, rep, proof, public = porep_2k
    cols = proof.parent_columns.copy()
    cols[0, 7, 0, 3] ^= 0x10  # challenge 0, expander parent 1, layer 1
    bad = ps.PorepInputs.from_proof(dataclasses.replace(proof, parent_columns=cols))
    where = first_unsatisfied(cfg, bad, public, challenges=[0])
    assert where.startswith("challenge_0/exp_parent_1_inclusion/enforce root is correct"), where


@pytest.mark.parametrize("cfg", [porep_config_for(SECTOR_SIZES["32KiB"]), porep_config(0)],
                         ids=["32KiB-8-8-2", "2KiB-V1"])
def test_other_shapes_and_graphs(cfg):
    """rust-fil-proofs' 32 KiB test shape (tree C / R-last with sub- and top-tree levels) and the V1
    graph (api 1.0.0, legacy DRG parent order): a generated partition satisfies the stamped circuit,
    whose sizes are the analytic ones."""
    from cuzk.circuits.filecoin.porep.vanilla_gen import make_partition_proof

    x = ps.PorepInputs.from_proof(make_partition_proof(cfg, seed=5))
    sizes_and_witness_check(ps.synthesize, cfg, x, ps.counts)


def test_interactive_challenges():
    """challenges.rs: sha256(replica_id || seed || u32_le(j)) read little-endian, mod (nodes - 1), + 1;
    j counts on across partitions."""
    import hashlib

    cfg = porep_config_for(SECTOR_SIZES["32GiB"])
    rid, seed = bytes(range(32)), bytes(range(100, 132))
    got = interactive_challenges(cfg, rid, seed, 3)
    want = [int.from_bytes(hashlib.sha256(rid + seed + (18 * 3 + i).to_bytes(4, "little")).digest(), "little")
            % (cfg.nodes - 1) + 1 for i in range(18)]
    assert got.tolist() == want


def test_circuit_info_porep_prints_the_published_counts(capsys):
    """`cuzk circuit info --kind porep`: PR #1325's 32 GiB figures, the parameter file parameters.json
    names, answered without building; a bad size is one line, exit 2."""
    from cuzk.cli.main import main

    assert main(["circuit", "info", "--kind", "porep", "--sector-size", "32GiB"]) == 0
    out = capsys.readouterr().out
    assert "constraints 130278541\n" in out and "public inputs 328\n" in out and ": equal" in out
    assert PUBLISHED_POREP_PARAMS["32GiB"] + ".params" in out and "not built" in out
    assert main(["circuit", "info", "--kind", "porep", "--sector-size", "3GiB"]) == 2
    assert "--sector-size: expected one of" in capsys.readouterr().err


def test_circuit_check_porep_cli(tmp_path, capsys):
    """`cuzk circuit check --kind porep`: a gen-vanilla request is decoded, checked (its replica_id the
    request's miner's sector's) and its partition satisfies the compiled circuit; another miner is
    refused naming replica_id; a bare C1 output (no envelope) checks too."""
    import base64
    import json

    from cuzk.cli.main import main

    req = tmp_path / "porep.json"
    assert main(["bench", "gen-vanilla", "--kind", "porep", "--preset", "2KiB", "-o", str(req), "--seed", "4"]) == 0
    capsys.readouterr()
    assert main(["circuit", "check", "--kind", "porep", "--vanilla", str(req)]) == 0
    out = capsys.readouterr().out
    fields = json.loads(req.read_text())
    assert "StackedDrg2KiBV1_1: 1 partition(s) x 2 challenge(s)" in out and "satisfied: every constraint" in out
    assert f"sector {fields['sector_number']} of miner f0{fields['miner_id']}" in out
    assert main(["circuit", "check", "--kind", "porep", "--vanilla", str(req), "--miner-id", "7"]) == 2
    assert "replica_id is not the one sector" in capsys.readouterr().err
    bare = tmp_path / "c1.json"
    bare.write_bytes(base64.b64decode(json.loads(base64.b64decode(fields["vanilla_proof"]))["Phase1Out"]))
    assert main(["circuit", "check", "--kind", "porep", "--vanilla", str(bare), "--partition", "0"]) == 0
    assert "replica_id" not in capsys.readouterr().out  # no miner named: not checked
    assert main(["circuit", "check", "--kind", "porep", "--vanilla", str(bare), "--partition", "1"]) == 2
    assert "--partition: StackedDrg2KiBV1_1 has partitions 0-0" in capsys.readouterr().err


def test_unsatisfied_rows_are_owned_by_their_challenge(porep_2k):
    """A value of challenge 1's aux block changed breaks only rows that challenge_of_row gives to
    challenge 1 (the header's aux, then each challenge's, in synthesis order), the row's owner."""
    from cuzk.circuits.filecoin.common.fr_bytes import fr
    from cuzk.r1cs.evaluation import unsatisfied_rows

    cfg, rep, proof, public = porep_2k
    x = ps.PorepInputs.from_proof(proof)
    ws = WitnessCS("bls12_381")
    ps.synthesize(ws, cfg, x)
    w = ws.witness()
    n = ps.counts(cfg)
    head_aux = 1 + ps.NUM_BITS + 4 + ps.hash_size(2)
    per_aux = (n.aux - head_aux) // cfg.challenges
    k = n.inputs + head_aux + per_aux + 5  # an aux value of challenge 1, plus one
    w[k] = fr().add(w[k : k + 1], w[0:1])[0]
    rec = RecordingCS("bls12_381")
    ps.synthesize(rec, cfg)
    bad = unsatisfied_rows(rec.compile(), w)
    assert len(bad) and {ps.challenge_of_row(cfg, int(r)) for r in bad} == {1}
    assert ps.challenge_of_row(cfg, 0) is None
