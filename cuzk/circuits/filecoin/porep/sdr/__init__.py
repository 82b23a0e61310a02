"""Filecoin's StackedDRG (SDR) graph as rust-fil-proofs v28 builds it, bit-exact.

    graph     porep ids of registered seal proofs; SdrGraph: DRG parents (bucket
              sampling on ChaCha8), expander parents (Feistel), the 14-parent
              order of the parent cache, its v28 name and its SHA-256 digest
    chacha    rand_chacha's ChaCha stream (numba)
    feistel   storage-proofs-core's Feistel permutation on BLAKE2b (numba)

Everything that scales with the sector is a numpy uint32 array computed by
numba kernels over arrays of node indices.
"""

from .graph import (
    API_VERSIONS, BASE_DEGREE, DEGREE, EXP_DEGREE, SdrGraph, SdrGraphError, api_version, drg_parents,
    expander_parents, parent_cache_digest, parent_cache_id, parents, porep_id,
)

__all__ = [
    "API_VERSIONS", "BASE_DEGREE", "DEGREE", "EXP_DEGREE", "SdrGraph", "SdrGraphError", "api_version",
    "drg_parents", "expander_parents", "parent_cache_digest", "parent_cache_id", "parents", "porep_id",
]
