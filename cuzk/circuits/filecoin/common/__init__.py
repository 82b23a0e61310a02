"""What Filecoin's proof kinds share.

    registered_proofs   RegisteredPoStProof / RegisteredSealProof numbers, sector sizes, tree
                        shapes -> PostConfig; parameter-file names
    fr_bytes            the 32-byte little-endian node encoding of an Fr element, Montgomery
                        conversions, the rows that are not field elements
    prover_id           a miner id's 32-byte prover id
    tree_r_last         tree R-last / comm_r: Poseidon nodes, path roots, comm_r of (comm_c, root)
    sparse_tree         Merkle trees known only along the paths a proof opens, random elsewhere
    default_tree        Merkle trees known along some paths, every other node its level's default
    whole_tree          Merkle trees computed whole, for small test sectors
    tree_d              tree D's binary sha254 step: native, gadget-level and recorded
    templates           recording the stamped circuits' templates
    merkle_records      the bincode layout of Merkle inclusion proofs as numpy record arrays
    sha_blocks          SHA-256 message blocks laid out for the stamped circuits
    stamped_witness     witness pieces the stamped circuits share (tree D steps, cursors)
    partition_cache     a partition circuit compiled once, cached in memory and on disk
    circuit_description how `cuzk circuit info` describes a sector proof's partition circuit
"""
