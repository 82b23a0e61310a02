"""Filecoin's SnapDeals (EmptySectorUpdate), as rust-fil-proofs v28 proves it.

    config          RegisteredUpdateProof -> SnapConfig (partitions, challenges, h, shapes)
    public          a whole update's public inputs, every partition
    circuit         the partition circuit, gadget by gadget
    stamped         the same partition from recorded pieces, vectorized witnesses
    vanilla_proof   one partition's vanilla proof as numpy arrays
    vanilla_bincode the bincode PartitionProof Curio sends, and its semantic check
    request         an update's decoded, checked partition proofs; sample requests
    vanilla_gen     whole small updated sectors and their proofs for tests
    sparse_gen      an update's partition proofs at any size (sparse trees)
    provable        the kind as the engine, the CLI and the benchmarks serve it
"""
