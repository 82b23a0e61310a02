"""Filecoin's circuits, exactly as rust-fil-proofs v28 synthesizes them, with their vanilla-proof inputs.

`filecoin/` holds them: WindowPoSt and WinningPoSt (FallbackPoSt), the StackedDRG PoRep (C2) and
SnapDeals' EmptySectorUpdate, each at every Filecoin sector size, constraint for constraint, so
that Filecoin's own parameters prove them and the chain's verifying keys accept the proofs
(`cuzk.circuits.filecoin`'s docstring is the map). Beside it, what their input generators share:
`fr_bytes` (the 32-byte little-endian node encoding of an Fr element, Montgomery conversions) and
`sparse_tree` (Merkle trees known only along the paths a proof opens). `cube` is the textbook
y = x^3 + x + 5 circuit the aggregation benchmark, the fuzzers' seeds and the tests prove.

The engine serves them through `cuzk.engine.catalog` (filecoin_post, filecoin_porep,
filecoin_snap), by circuit id `<kind>-<size>` (window-post-32GiB, porep-32GiB, snap-32GiB).
"""
