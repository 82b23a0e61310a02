"""Filecoin's own PoSt statements, bit-compatible with rust-fil-proofs v28.

Unlike the look-alike workload models one level up (cuzk.circuits.post and
friends), everything here follows Filecoin exactly, so that a proof made
from these inputs verifies against Filecoin's verifying keys:

    registered_proofs   RegisteredPoStProof / RegisteredSealProof numbers ->
                        PostConfig (sector size, tree shape, the circuit's
                        sectors x challenges per partition, api version)
    post_challenges     leaf-challenge derivation and the circuit's public
                        inputs, in generate_public_inputs' order
    sector_proof        PostSectorProof: one sector's decoded vanilla proof
                        as numpy arrays
    post_partition      a Curio request's per-sector proofs -> the circuit's
                        per-slot arrays (lookup by sector id, WinningPoSt's
                        unrolling, padding by repeating the last sector)
    post_vanilla_gen    consistent synthetic vanilla proofs for tests

The bincode bytes Curio sends live in cuzk.formats.filecoin.
"""
