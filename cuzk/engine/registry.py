"""The circuit registry: what the engine can prove, and how.

A circuit id names one circuit with fixed parameters (a proving key). Its
`CircuitSpec` says which proof kind it serves, its default priority,
whether jobs of it may be batched, how many partitions (independent
Groth16 proofs) one job has, where its parameters come from, and how a
request's vanilla proof turns into witnesses:

    parse(request)            -> parsed input (once per job; raises a CuzkError
                                 with a message naming what is wrong)
    witness(parsed, p)        -> Witness(w, public_inputs) for partition p
    rows(w)                   -> (a, b, c) evaluations (SpMV of the compiled circuit)
    public_inputs(request)    -> per-partition public inputs, for verifiers
    generate_vanilla()        -> a valid test input (optional; `cuzk bench gen-vanilla`)

Requests name a circuit id directly, or a proof kind that the registry maps
to its default circuit (as the Filecoin proof kinds map to their circuits).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .errors import UnknownCircuit
from .srs import ParamSource
from .types import Priority, ProofKind, ProofRequest


@dataclass
class Witness:
    w: np.ndarray  # Montgomery uint64[num_vars, 4], w[0] = 1
    public_inputs: list[int]  # excluding ONE


@dataclass(eq=False)
class CircuitSpec:
    circuit_id: str
    proof_kind: ProofKind
    curve: str
    num_partitions: int
    batchable: bool
    default_priority: Priority
    params: ParamSource
    parse: Callable[[ProofRequest], Any]
    witness: Callable[[Any, int], Witness]
    rows: Callable[[np.ndarray], tuple]
    public_inputs: Callable[[ProofRequest], list[list[int]]]
    working_bytes: Callable[[], int]  # per partition: witness, a/b/c and prover temporaries
    description: str = ""
    info: dict = field(default_factory=dict)
    generate_vanilla: Callable[[], bytes] | None = None  # test inputs (bench gen-vanilla), where available


def working_bytes_estimate(num_vars: int, num_rows: int) -> int:
    """Witness + a, b, c + the prover's H temporaries (about 9 domain-sized vectors), 32 B each."""
    domain = 1 << max(0, (num_rows - 1).bit_length())
    return 32 * (num_vars + 3 * num_rows + 9 * domain)


class CircuitRegistry:
    def __init__(self):
        self._specs: dict[str, CircuitSpec] = {}
        self._defaults: dict[ProofKind, str] = {}
        self._lock = threading.Lock()

    def register(self, spec: CircuitSpec, default_for_kind: bool = False) -> None:
        with self._lock:
            if spec.circuit_id in self._specs:
                raise ValueError(f"circuit {spec.circuit_id!r} is already registered")
            if spec.num_partitions < 1:
                raise ValueError(f"circuit {spec.circuit_id!r}: num_partitions must be >= 1")
            self._specs[spec.circuit_id] = spec
            if default_for_kind or spec.proof_kind not in self._defaults:
                if spec.proof_kind != ProofKind.UNSPECIFIED:
                    self._defaults[spec.proof_kind] = spec.circuit_id

    def set_default(self, kind: ProofKind, circuit_id: str) -> None:
        self.get(circuit_id)
        with self._lock:
            self._defaults[kind] = circuit_id

    def get(self, circuit_id: str) -> CircuitSpec:
        spec = self._specs.get(circuit_id)
        if spec is None:
            known = ", ".join(sorted(self._specs)) or "none"
            raise UnknownCircuit(f"unknown circuit {circuit_id!r} (registered: {known})")
        return spec

    def resolve(self, request: ProofRequest) -> CircuitSpec:
        """The circuit a request is for: its circuit_id, else its proof kind's default."""
        if request.circuit_id:
            spec = self.get(request.circuit_id)
            if request.proof_kind not in (ProofKind.UNSPECIFIED, spec.proof_kind):
                raise UnknownCircuit(f"circuit {spec.circuit_id!r} proves {spec.proof_kind.name}, "
                                     f"not {ProofKind(request.proof_kind).name}")
            return spec
        kind = request.proof_kind
        if kind == ProofKind.UNSPECIFIED:
            raise UnknownCircuit("the request names neither a proof kind nor a circuit id")
        try:
            kind = ProofKind(kind)
        except ValueError:
            raise UnknownCircuit(f"unknown proof kind {int(kind)}") from None
        cid = self._defaults.get(kind)
        if cid is None:
            raise UnknownCircuit(f"no circuit is registered for proof kind {kind.name}")
        return self._specs[cid]

    def lookup(self, name: str) -> CircuitSpec:
        """A circuit id, or a proof kind name (e.g. 'winning-post') meaning its default circuit."""
        if name in self._specs:
            return self._specs[name]
        from .types import parse_kind

        try:
            kind = parse_kind(name)
        except ValueError:
            return self.get(name)  # raises UnknownCircuit listing the ids
        return self.resolve(ProofRequest(proof_kind=kind))

    def specs(self) -> list[CircuitSpec]:
        return list(self._specs.values())

    def defaults(self) -> dict[ProofKind, str]:
        return dict(self._defaults)
