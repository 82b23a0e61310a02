"""Filecoin's own statements, bit-compatible with rust-fil-proofs v28, one package per proof kind
as rust-fil-proofs lays them out:

    porep/      the StackedDRG PoRep (C2) with its SDR graph and the C1 output Curio sends
    post/       FallbackPoSt: WindowPoSt and WinningPoSt
    snap/       SnapDeals (EmptySectorUpdate)
    common/     what they share: registered proofs and parameter names, Merkle trees and
                tree R-last, the stamped witness, SHA blocks, field-element bytes
    kinds       the kinds as one list, and a circuit's name, parameters and compiled form
                whichever the kind

Each kind holds its config, challenges, public inputs, circuit and stamped form, vanilla-proof
types with their verification, its generators, and `provable`: the one object the engine's
catalog, the CLI and the benchmarks use. Everything here follows Filecoin exactly, so that a
proof made from these inputs verifies against Filecoin's verifying keys.
"""
