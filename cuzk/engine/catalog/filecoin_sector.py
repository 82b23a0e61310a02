"""What the catalog's two sector proofs, Filecoin's PoRep C2 and SnapDeals, share.

A job proves one sector's partitions (10 or 16 at 32 GiB, one Groth16 proof each, returned
concatenated as rust-fil-proofs does); jobs of one circuit may be batched; the default priority
is NORMAL (Curio's cuzk); parameters are Filecoin's files by their Filecoin names
(filecoin_post.FilecoinParams); working memory comes from the circuit's counts, so a submit never
waits for the circuit to compile; the request is decoded and checked at submit (`parse` is the
spec's check); requests find a size through the kind's preset rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from ..types import Priority, ProofKind
from .filecoin_post import FilecoinParams, default_params_dir
from .registry import CircuitSpec, satisfied_rows, working_bytes_estimate


def sector_spec(*, cid: str, kind: ProofKind, family: str, size: str, cfg, params_dir: Path, compiled: Callable,
                counts, parse: Callable, witness: Callable, public_inputs: Callable, what: str,
                generate: Callable) -> CircuitSpec:
    """The spec of one sector proof's circuit at one size; `what` names it in the description."""
    n = counts

    def rows(w: np.ndarray):
        return satisfied_rows(compiled(), w, f"vanilla proofs for {cid}")

    return CircuitSpec(
        circuit_id=cid, proof_kind=kind, curve="bls12_381", num_partitions=cfg.partitions, batchable=True,
        default_priority=Priority.NORMAL, params=FilecoinParams(params_dir, cfg, compiled), parse=parse,
        witness=witness, rows=rows, public_inputs=public_inputs,
        working_bytes=lambda: working_bytes_estimate(n.aux + n.inputs, n.constraints + n.inputs),
        family=family, preset=size,
        description=f"Filecoin {what}, {size} sectors ({n.constraints:,} constraints x {cfg.partitions} partition(s))",
        compiled=compiled, witness_vars=n.aux + n.inputs, check=parse, generate_request=generate,
    )


def register(registry, make_spec: Callable, kind: ProofKind, preset_of: Callable, params_dir: Path | None,
             sizes) -> None:
    """`make_spec(size, params_dir)` at every size; requests of `kind` find theirs by `preset_of`."""
    params_dir = Path(params_dir) if params_dir else default_params_dir()
    for size in sizes:
        registry.register(make_spec(size, params_dir))
    registry.preset_rule(kind, preset_of)
