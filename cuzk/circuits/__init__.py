"""Filecoin's circuits and Filecoin-shaped workload models, with their vanilla-proof inputs.

`filecoin/` holds Filecoin's real circuits as rust-fil-proofs v28 synthesizes
them (WindowPoSt and WinningPoSt: `cuzk.circuits.filecoin`). The kinds below
are MODELS of PoRep C2 and SnapDeals partitions, faithful in structure and
scale, not bit-compatible Filecoin circuits (own Poseidon parameters, graph
and encodings; see README_SECTION.md for the shapes and counts and what
differs).

Engine API (everything the engine needs, per kind and preset):

    from cuzk.circuits import get_kind, preset_for, KINDS
    kind = get_kind("porep-c2-like")      # or get_kind("POREP_SEAL_COMMIT")
    kind.proof_kind          # gRPC ProofKind name: POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE
    kind.default_priority    # gRPC Priority name: NORMAL
    kind.batchable           # True
    kind.partitions          # Groth16 proofs per job: 10 / 16
    kind.curve               # "bls12_381"
    kind.circuit_id(preset)  # "porep-c2-like-medium"
    preset = preset_for(sector_size=..., registered_proof=...)   # tiny|small|medium|32g
    cc = kind.compile(preset)                # CompiledCircuit, cached in memory and on
                                             #   disk (<cuzk cache>/circuits/*.pce)
    parsed = cuzk.formats.vanilla.parse_vanilla(kind, preset, data)   # the container bytes,
                                             #   decoded + checked once per job (FormatError)
    w, public = kind.witness(preset, parsed, p)   # partition p: Montgomery w, public ints
    a, b, c = cuzk.r1cs.evaluate(cc, w)      # the SpMV half of synthesis
    kind.witnesses(preset, parsed)           # [(w, public)] for every partition
    kind.public_inputs(preset, parsed)       # [[int]] per partition, no witness work
    kind.make_vanilla(preset, seed)          # a valid Vanilla from random sector data
                                             #   (as bytes: formats.vanilla.generate_vanilla)
    kind.counts(preset)                      # sizes without building (also large, 32g)

Presets: tiny, small, medium, large, 32g (`PRESET_SHAPES`). Counts and
vanilla proofs are cheap at every preset (`cuzk circuit info --kind K
--preset 32g` answers in seconds without building); building is linear in
size: porep-c2-like large (16M constraints) compiles in ~13 s and 1.3 GB,
32g (131M) in ~2 min and ~8 GiB (2 cores; r1cs.assembly).

Modules: kinds (registry, presets, compile cache), porep / porep_vanilla,
snap (circuits and their inputs), counts (analytic sizes),
wiring (stamping in any constraint-system mode), bit_templates /
field_templates (the stamped building blocks), sdr (graph, labels),
trees / sparse_tree (Merkle trees for the generators), fr_bytes (node
encodings). The vanilla-proof container's byte layout is cuzk.formats.vanilla.
"""

from .kinds import CIRCUITS_VERSION, KINDS, PRESET_SHAPES, PRESETS, CircuitKind, UnknownKind, Vanilla, get_kind, preset_for

__all__ = ["CIRCUITS_VERSION", "KINDS", "PRESET_SHAPES", "PRESETS", "CircuitKind", "UnknownKind", "Vanilla",
           "get_kind", "preset_for"]
