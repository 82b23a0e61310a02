"""Filecoin's FallbackPoSt (WindowPoSt and WinningPoSt), as rust-fil-proofs v28 proves it.

    challenges      leaf-challenge derivation and the circuit's public inputs, in
                    generate_public_inputs' order
    public          a whole proof's public inputs, every partition, from public data alone
    circuit         the FallbackPoSt partition circuit
    vanilla_proof   PostSectorProof: one sector's decoded vanilla proof as numpy arrays
    vanilla_bincode the bincode FallbackPoStSectorProof Curio sends, and its semantic check
    partition       a request's per-sector proofs -> the circuit's per-slot arrays
    request         sample requests
    unsatisfied     which constraint a partition's proofs break
    vanilla_gen     consistent synthetic vanilla proofs for tests
    provable        the kinds as the engine, the CLI and the benchmarks serve them
"""
