"""Filecoin's circuits, exactly as rust-fil-proofs v28 synthesizes them, with their vanilla-proof inputs.

`filecoin/` holds them, one package per proof kind: WindowPoSt and WinningPoSt (post/), the
StackedDRG PoRep (porep/) and SnapDeals' EmptySectorUpdate (snap/), beside what they share
(common/), each at every Filecoin sector size, constraint for constraint, so that Filecoin's own
parameters prove them and the chain's verifying keys accept the proofs (`cuzk.circuits.filecoin`'s
docstring is the map). `textbook_cubic` is the textbook y = x^3 + x + 5 circuit the aggregation
benchmark, the fuzzers' seeds and the tests prove.

The engine serves them through `cuzk.engine.catalog`, by circuit id `<kind>-<size>`
(window-post-32GiB, porep-32GiB, snap-32GiB).
"""
