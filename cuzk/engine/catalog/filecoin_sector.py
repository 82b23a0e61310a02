"""Filecoin's sector proofs, PoRep C2 and SnapDeals, as the engine serves them from the requests Curio sends.

A job proves one sector's partitions (10 or 16 at 32 GiB, one Groth16 proof each, returned
concatenated as rust-fil-proofs does); jobs of one circuit may be batched; the default priority
is NORMAL (Curio's cuzk); parameters are Filecoin's files by their Filecoin names
(filecoin_post.FilecoinParams); working memory comes from the circuit's counts, so a submit never
waits for the circuit to compile; the request is decoded and checked at submit (`parse` is the
spec's check); requests find a size through the kind's preset rule.

The kinds are their `provable` objects (cuzk.circuits.filecoin.porep.provable, snap.provable):
each names its sizes, reads a request's config, parses and checks its vanilla proofs, gives a
partition's witness and the public inputs; this module makes them the engine's specs.

PoRep C2: a POREP_SEAL_COMMIT request carries `vanilla_proof`: the C1 output, in Curio's envelope
({"SectorNum", "Phase1Out": base64 of the SealCommitPhase1Output JSON, "SectorSize"}) or bare,
with `registered_proof` (Go's abi.RegisteredSealProof), `sector_number` and `miner_id`. The
registered proof (else the sector size) picks the circuit, `porep-<size>` (porep-32GiB: ten
partitions of 130,278,541 constraints). At submit the C1 output is decoded and checked
(`decode_c1` / `check_c1`: every Merkle path to its root, challenges, parents, labels, comm_r)
and, where the request names its miner, its replica_id is checked to be the one that miner's
sector derives: a bad one is refused then, naming the partition, challenge and field.

Every registered seal proof of a size shares the circuit and its parameter file; the engine
serves the interactive (V1, V1_1) and synthetic ones (ten partitions at 32 / 64 GiB, one below).
Non-interactive PoRep (126 partitions) is refused at submit. Parameters are Filecoin's files by
their Filecoin names in the parameter directory, as for PoSt (catalog/filecoin_post.py).

SnapDeals: a SNAP_DEALS_UPDATE request carries `vanilla_proofs` (one bincode PartitionProof per partition),
`registered_proof` (Go's abi.RegisteredUpdateProof: 0-4 = 2KiB, 8MiB, 512MiB, 32GiB, 64GiB) and the
32-byte `comm_r_old`, `comm_r_new`, `comm_d_new`. The registered proof (else the sector size; a
request naming neither is 0, the 2 KiB proof) picks the circuit, `snap-<size>` (snap-32GiB: sixteen
partitions of 81,049,499 constraints). At submit every partition proof is decoded and checked as
the verifier checks it (`circuits.filecoin.snap.request.decode_update`): a bad one is refused then,
in one line naming the partition, challenge and field, and never reaches a prover.

Parameters are Filecoin's files by their Filecoin names in the parameter directory, as for PoSt and
PoRep (catalog/filecoin_post.py): the official ones (paramfetch), or test ones `cuzk setup --kind
snap --sector-size S --params-dir D` writes.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable

import numpy as np

from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, SIZE_NAMES
from cuzk.circuits.filecoin.porep import provable as porep
from cuzk.circuits.filecoin.snap import provable as snap
from cuzk.errors import FormatError

from ..errors import UnknownCircuit
from ..types import Priority, ProofKind, ProofRequest
from .filecoin_post import FilecoinParams, default_params_dir
from .registry import CircuitSpec, Witness, satisfied_rows, vanilla_bytes, working_bytes_estimate

KINDS = (porep, snap)  # the sector proofs' kinds, each served at every size it names
PROOF_KINDS = {porep: ProofKind.POREP_SEAL_COMMIT, snap: ProofKind.SNAP_DEALS_UPDATE}


def sector_spec(*, circuit_kind, kind: ProofKind, family: str, size: str, cfg, params_dir: Path,
                counts: Callable, parse: Callable, partition: Callable, public_inputs: Callable,
                sample: Callable) -> CircuitSpec:
    """The spec of one sector proof's circuit at one size. `circuit_kind` (a kind's provable) names and
    compiles the circuit of `cfg`; `counts()` its constraint counts, asked for when first needed (PoRep's
    record its SHA-256 templates: 3.3 s at five sizes on a fresh machine, for every registry built);
    `partition(parsed, p, out)` is partition p's (witness, public inputs) of what `parse` made;
    `sample(cfg, seed)` a request."""
    n = functools.cache(counts)
    cid = circuit_kind.circuit_id(cfg)

    def compiled():
        return circuit_kind.compiled(cfg)

    def witness(parsed, p: int, out=None) -> Witness:
        if not 0 <= p < len(parsed.partitions):
            raise ValueError(f"{cid} has {len(parsed.partitions)} partition(s), not {p + 1}")
        return Witness(*partition(parsed, p, out))

    def rows(w: np.ndarray):
        return satisfied_rows(compiled(), w, f"vanilla proofs for {cid}")

    return CircuitSpec(
        circuit_id=cid, proof_kind=kind, curve="bls12_381", num_partitions=cfg.partitions, batchable=True,
        default_priority=Priority.NORMAL, params=FilecoinParams(params_dir, cfg, compiled), parse=parse,
        witness=witness, rows=rows, public_inputs=public_inputs,
        working_bytes=lambda: working_bytes_estimate(n().aux + n().inputs, n().constraints + n().inputs),
        family=family, preset=size, compiled=compiled, witness_vars=lambda: n().aux + n().inputs, check=parse,
        generate_request=lambda seed=None: sample(cfg, seed),
    )


def preset_rule(kind) -> Callable:
    """The size name a request of `kind` selects (by registered proof, else sector size; the smallest
    when it names neither); a request naming no such size is an UnknownCircuit."""

    def preset_of(request: ProofRequest) -> str:
        try:
            cfg = kind.request_config(request)
        except FormatError as exc:
            raise UnknownCircuit(str(exc)) from None
        return SIZE_NAMES[cfg.sector_size] if cfg is not None else kind.SIZES[0]

    return preset_of


def make_spec(kind, size: str, params_dir: Path) -> CircuitSpec:
    """The spec of `kind`'s circuit at `size`."""
    base = kind.config_for(SECTOR_SIZES[size])

    def parse(req: ProofRequest):
        return kind.parse(req, base, vanilla_bytes)

    return sector_spec(circuit_kind=kind, kind=PROOF_KINDS[kind], family=kind.FAMILY, size=size, cfg=base,
                       params_dir=params_dir, counts=lambda: kind.counts(base), parse=parse,
                       partition=kind.partition, public_inputs=lambda req: kind.public_inputs(parse(req)),
                       sample=kind.sample_request)


def register(registry, params_dir: Path | None = None, sizes=None, kinds=KINDS) -> None:
    """Every kind's circuit at every size (or at `sizes`); requests find theirs by the kind's preset rule."""
    params_dir = Path(params_dir) if params_dir else default_params_dir()
    for kind in kinds:
        for size in sizes or kind.SIZES:
            registry.register(make_spec(kind, size, params_dir))
        registry.preset_rule(PROOF_KINDS[kind], preset_rule(kind))
