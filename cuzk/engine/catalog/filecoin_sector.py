"""What the catalog's two sector proofs, Filecoin's PoRep C2 and SnapDeals, share.

A job proves one sector's partitions (10 or 16 at 32 GiB, one Groth16 proof each, returned
concatenated as rust-fil-proofs does); jobs of one circuit may be batched; the default priority
is NORMAL (Curio's cuzk); parameters are Filecoin's files by their Filecoin names
(filecoin_post.FilecoinParams); working memory comes from the circuit's counts, so a submit never
waits for the circuit to compile; the request is decoded and checked at submit (`parse` is the
spec's check); requests find a size through the kind's preset rule.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable

import numpy as np

from ..types import Priority, ProofKind
from .filecoin_post import FilecoinParams, default_params_dir
from .registry import CircuitSpec, Witness, satisfied_rows, working_bytes_estimate


def sector_spec(*, circuit_kind, kind: ProofKind, family: str, size: str, cfg, params_dir: Path,
                counts: Callable, parse: Callable, partition: Callable, public_inputs: Callable,
                sample: Callable) -> CircuitSpec:
    """The spec of one sector proof's circuit at one size. `circuit_kind` (porep_kind, snap_kind) names and
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


def register(registry, make_spec: Callable, kind: ProofKind, preset_of: Callable, params_dir: Path | None,
             sizes) -> None:
    """`make_spec(size, params_dir)` at every size; requests of `kind` find theirs by `preset_of`."""
    params_dir = Path(params_dir) if params_dir else default_params_dir()
    for size in sizes:
        registry.register(make_spec(size, params_dir))
    registry.preset_rule(kind, preset_of)
