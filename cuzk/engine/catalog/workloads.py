"""The built-in workload models: the Filecoin-shaped PoRep and SnapDeals circuits of `cuzk.circuits`.

Each (kind, preset) is one circuit id, `<kind>-<preset>` (porep-c2-like-tiny,
snap-like-medium, ...); Filecoin's real PoSt circuits are `filecoin_post`.
Requests select one by proof kind plus sector_size or registered_proof (the
registry maps those to a preset), or name it by id.
A request's `vanilla_proof` is the kind's container bytes (`cuzk bench
gen-vanilla`); a malformed one fails the job with the decoder's message, and
inputs that decode but do not satisfy the circuit fail before proving, so a
bad input never yields a proof that does not verify. Parameters are
generated once per circuit (params/generated.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cuzk.circuits import KINDS
from cuzk.errors import FormatError
from cuzk.formats.vanilla import generate_vanilla, parse_vanilla

from ..params.generated import GeneratedParams
from ..types import Priority, ProofKind, ProofRequest
from .registry import CircuitSpec, Witness, satisfied_rows, working_bytes_estimate


def vanilla_bytes(req: ProofRequest, circuit_id: str) -> bytes:
    """The request's one vanilla proof: `vanilla_proof`, or a single `vanilla_proofs` entry."""
    if req.vanilla_proof:
        return req.vanilla_proof
    if len(req.vanilla_proofs) == 1:
        return req.vanilla_proofs[0]
    if req.vanilla_proofs:
        raise FormatError(f"{circuit_id}: expected one vanilla proof container, got {len(req.vanilla_proofs)} "
                          "in vanilla_proofs")
    raise FormatError(f"{circuit_id}: the request carries no vanilla proof")


def make_spec(kind, preset: str, params_dir: Path) -> CircuitSpec:
    """The engine's view of one `cuzk.circuits` kind at one preset."""
    cid = kind.circuit_id(preset)
    kind.shape(preset)  # an unknown preset fails now

    def compiled():
        return kind.compile(preset)

    def parse(req: ProofRequest):
        return parse_vanilla(kind, preset, vanilla_bytes(req, cid))

    def witness(parsed, p: int, out=None) -> Witness:
        w, public = kind.witness(preset, parsed, p, out=out)
        return Witness(w, public)

    def rows(w: np.ndarray):
        return satisfied_rows(compiled(), w, f"vanilla proof for {cid}")

    def public_inputs(req: ProofRequest) -> list[list[int]]:
        return kind.public_inputs(preset, parse(req))

    n = kind.counts(preset)

    def working_bytes() -> int:  # from the counts: a submit never waits for the circuit to compile
        return working_bytes_estimate(n.aux + n.inputs, n.rows)

    return CircuitSpec(
        circuit_id=cid, proof_kind=ProofKind[kind.proof_kind], curve=kind.curve, num_partitions=kind.partitions,
        batchable=kind.batchable, default_priority=Priority[kind.default_priority],
        params=GeneratedParams(cid, compiled, params_dir), parse=parse, witness=witness, rows=rows,
        public_inputs=public_inputs, working_bytes=working_bytes, family=kind.name, preset=preset,
        description=f"{kind.description} ({n.constraints:,} constraints x {kind.partitions} partition(s))",
        generate_vanilla=lambda seed=None: generate_vanilla(kind, preset, seed), compiled=compiled,
        witness_vars=n.aux + n.inputs,
    )


def register(registry, params_dir: Path, presets=("tiny", "small", "medium")) -> None:
    """Every workload kind at each preset."""
    for preset in presets:
        for kind in KINDS.values():
            registry.register(make_spec(kind, preset, params_dir))
