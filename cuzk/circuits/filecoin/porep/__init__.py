"""Filecoin's StackedDRG PoRep (seal commit, C2), as rust-fil-proofs v28 proves it.

    config          RegisteredSealProof -> PorepConfig (shape, layers, challenges, partitions,
                    parameter file name)
    sdr/            the SDR graph: DRG and expander parents, parent cache
    challenges      interactive challenges and the replica id
    public          a proof's public inputs, every partition, from public data alone
    circuit         the partition circuit, gadget by gadget, and its counts
    stamped         the same partition from recorded templates, with vectorized witnesses
    vanilla_proof   one partition's vanilla proof as numpy arrays
    c1_layout       the C1 output's JSON layout (SealCommitPhase1Output) and its skeleton
    c1_read         C1 output bytes -> C1Output (structure only)
    c1_write        C1Output -> bytes
    c1_verify       the vanilla Proof::verify of a decoded C1 output (check_c1)
    request         sample requests and the replica id a miner's sector derives
    unsatisfied     which constraint a partition's proof breaks
    vanilla_gen     sealed synthetic sectors and their proofs for tests
    sparse_gen      a whole sector's proofs at any size (sparse trees)
    provable        the kind as the engine, the CLI and the benchmarks serve it
"""
