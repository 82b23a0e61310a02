"""SnarkPack: aggregation of Groth16 proofs of one circuit (docs/aggregate.md).

srs (reference string), transcript (Fiat-Shamir), commitments (pairing
commitments), gipa (TIPP/MIPP rounds), kzg (openings of the final keys),
prover, verifier, proof_format (byte layout and parser); gt and pairings
hold the GT arithmetic and the parallel pairing products they use.
"""
