"""Filecoin's own statements, bit-compatible with rust-fil-proofs v28.

Everything here follows Filecoin exactly, so that a proof made from these
inputs verifies against Filecoin's verifying keys:

    registered_proofs   RegisteredPoStProof / RegisteredSealProof numbers ->
                        PostConfig (sector size, tree shape, the circuit's
                        sectors x challenges per partition, api version)
    post_challenges     leaf-challenge derivation and the circuit's public
                        inputs, in generate_public_inputs' order
    post_public, porep_public, snap_public
                        a whole proof's public inputs, every partition, from
                        public data alone (what filecoin-proofs' verifiers
                        derive; the engine's catalog uses them too)
    partition_proofs    a proof's partitions checked under a verifying key
    sector_proof        PostSectorProof: one sector's decoded vanilla proof
                        as numpy arrays
    post_partition      a Curio request's per-sector proofs -> the circuit's
                        per-slot arrays (lookup by sector id, WinningPoSt's
                        unrolling, padding by repeating the last sector)
    post_vanilla_gen    consistent synthetic vanilla proofs for tests
    post_circuit        the FallbackPoSt circuit (WindowPoSt, WinningPoSt)
    sdr/                the SDR graph: DRG and expander parents, parent cache
    porep_config        RegisteredSealProof -> PorepConfig (shape, layers,
                        challenges, partitions, parameter file name)
    porep_circuit       the StackedDRG PoRep (C2) partition circuit
    porep_challenges    interactive challenges and the partition's inputs
    porep_proof         one partition's vanilla proof as numpy arrays
    porep_check         which constraint a partition's proof breaks
    porep_vanilla_gen   sealed synthetic sectors and their proofs for tests
    porep_sparse_gen    a whole sector's PoRep proofs at any size (sparse trees)
    snap_config         RegisteredUpdateProof -> SnapConfig (partitions, challenges, h, shapes)
    snap_circuit        the SnapDeals (EmptySectorUpdate) partition circuit, gadget by gadget
    snap_stamped        the same partition from recorded pieces, vectorized witnesses
    snap_proof          one SnapDeals partition's vanilla proof as numpy arrays
    snap_vanilla_gen    whole small updated sectors and their proofs for tests
    snap_sparse_gen     an update's partition proofs at any size (sparse trees)
    stamp_witness       witness pieces both stamped circuits share (tree D steps, cursors)
    porep_kind, snap_kind, post_kind, provable
                        the circuits as the engine names, compiles and witnesses them

The bincode bytes Curio sends live in cuzk.formats.filecoin.
"""
