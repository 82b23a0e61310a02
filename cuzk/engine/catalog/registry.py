"""The circuit registry: what the engine can prove, and how.

A circuit id names one circuit with fixed parameters (a proving key). Its
`CircuitSpec` says which proof kind it serves, its default priority,
whether jobs of it may be batched, how many partitions (independent
Groth16 proofs) one job has, where its parameters come from, and how a
request's vanilla proof turns into witnesses:

    parse(request)            -> parsed input (once per job; raises a CuzkError
                                 with a message naming what is wrong)
    witness(parsed, p)        -> Witness(w, public_inputs) for partition p; with
                                 `witness_vars` set, witness(parsed, p, out=array)
                                 writes w into the engine's reused array
    rows(w)                   -> (a, b, c) evaluations (SpMV of the compiled circuit),
                                 checked against each other where the spec can
    compiled()                -> the CompiledCircuit whose SpMV gives the rows (optional):
                                 a GPU prover evaluates it on the device instead
    public_inputs(request)    -> per-partition public inputs, for verifiers
    generate_vanilla(seed)    -> a valid test input (optional; `cuzk bench gen-vanilla`)
    generate_request(seed)    -> a valid test request's fields, for circuits whose requests carry
                                 more than one vanilla proof (optional; Filecoin PoSt)
    check(request)            -> parsed input, run at submit (optional): a request that
                                 cannot be proven is refused before it is accepted

Circuits of one family at several sizes (Filecoin's: family "window-post",
"porep", "snap", presets 2KiB ... 64GiB; the synthetic test circuit: presets
tiny ... large) are found by (family or proof kind, preset), the preset
coming from the kind's preset rule (Filecoin's: by registered_proof, else
sector_size) or else being the family's first (smallest).
A circuit registered as its kind's default (a circom circuit from config
that names a proof kind) serves that kind at every size.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cuzk.errors import FormatError, ValidationError
from cuzk.r1cs import evaluate

from ..errors import UnknownCircuit
from ..params.sources import ParamSource
from ..types import Priority, ProofKind, ProofRequest, parse_kind


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
    family: str = ""  # circuits of one shape at several presets share a family name
    preset: str = ""
    info: dict = field(default_factory=dict)
    generate_vanilla: Callable[..., bytes] | None = None  # (seed=None) -> test input, where available
    compiled: Callable[[], Any] | None = None  # () -> CompiledCircuit, for SpMV on the proving device
    witness_vars: Callable[[], int] | None = None  # () -> n: witness() takes out= (uint64[n, 4]), a reused array
    check: Callable[[ProofRequest], Any] | None = None  # at submit: parse or refuse (its result is kept)
    generate_request: Callable[..., dict] | None = None  # (seed=None) -> ProofRequest fields of a test input

    def sample_request(self, seed=None) -> dict:
        """A valid request's input fields (vanilla_proof, or vanilla_proofs with their randomness ...)."""
        if self.generate_request is not None:
            return self.generate_request(seed)
        if self.generate_vanilla is None:
            raise UnknownCircuit(f"circuit {self.circuit_id!r} has no built-in input generator")
        return {"vanilla_proof": self.generate_vanilla(seed)}


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


def satisfied_rows(cc, w: np.ndarray, what: str):
    """(a, b, c) of a built-in circuit's witness, or ValidationError naming `what` when the
    inputs do not satisfy it (a proof of them would not verify)."""
    a, b, c = evaluate(cc, w)
    bad = np.flatnonzero(~np.all(cc.fr.mul(a, b) == c, axis=1))
    if len(bad):
        raise ValidationError(f"{what}: the inputs do not satisfy the circuit "
                              f"({len(bad)} constraint(s) fail, the first is row {bad[0]})")
    return a, b, c


def working_bytes_estimate(num_vars: int, num_rows: int) -> int:
    """Witness + a, b, c + the prover's H temporaries (about 9 domain-sized vectors), 32 B each."""
    domain = 1 << max(0, (num_rows - 1).bit_length())
    return 32 * (num_vars + 3 * num_rows + 9 * domain)


def host_working_bytes(spec: "CircuitSpec", rows_on_device: bool) -> int:
    """Host bytes one partition holds from synthesis until its proof: with the rows and the
    prover's temporaries on a GPU, only the witness and its pinned staging copy (4.2 GB each
    at 32g, against ~55 GB for the host path's a, b, c and H vectors)."""
    if rows_on_device and spec.witness_vars is not None:
        return 2 * 32 * spec.witness_vars()
    return spec.working_bytes()


class CircuitRegistry:
    def __init__(self):
        self._specs: dict[str, CircuitSpec] = {}
        self._families: dict[str, dict[str, str]] = {}  # family -> preset -> circuit id
        self._by_kind: dict[ProofKind, dict[str, str]] = {}  # proof kind -> preset -> circuit id
        self._defaults: dict[ProofKind, str] = {}
        self._preset_rules: dict[ProofKind, Callable[[ProofRequest], str]] = {}
        self._lock = threading.Lock()

    def preset_rule(self, kind: ProofKind, rule: Callable[[ProofRequest], str]) -> None:
        """How requests of `kind` name their preset (Filecoin's: by registered proof or sector
        size, e.g. window-post at "32GiB"); a kind without one is served at its first preset."""
        self._preset_rules[kind] = rule

    def register(self, spec: CircuitSpec, default_for_kind: bool = False) -> None:
        with self._lock:
            if spec.circuit_id in self._specs:
                raise ValueError(f"circuit {spec.circuit_id!r} is already registered")
            if spec.num_partitions < 1:
                raise ValueError(f"circuit {spec.circuit_id!r}: num_partitions must be >= 1")
            self._specs[spec.circuit_id] = spec
            if spec.family:
                self._families.setdefault(spec.family, {})[spec.preset] = spec.circuit_id
            if spec.proof_kind != ProofKind.UNSPECIFIED:
                if spec.preset:
                    self._by_kind.setdefault(spec.proof_kind, {})[spec.preset] = spec.circuit_id
                if default_for_kind:
                    self._defaults[spec.proof_kind] = spec.circuit_id

    def get(self, circuit_id: str) -> CircuitSpec:
        spec = self._specs.get(circuit_id)
        if spec is None:
            known = ", ".join(sorted(self._specs)) or "none"
            raise UnknownCircuit(f"unknown circuit {circuit_id!r} (registered: {known})")
        return spec

    def resolve(self, request: ProofRequest) -> CircuitSpec:
        """The circuit a request is for: its circuit_id (or family name at the request's
        preset), else its proof kind's default, else its proof kind at the request's preset."""
        name = request.circuit_id
        if name:
            if name in self._families and name not in self._specs:
                family = self._families[name]
                rule = self._preset_rules.get(self._specs[next(iter(family.values()))].proof_kind)
                spec = self._at_preset(family, name, rule(request) if rule else next(iter(family)))
            else:
                spec = self.get(name)
            if request.proof_kind not in (ProofKind.UNSPECIFIED, spec.proof_kind):
                raise UnknownCircuit(f"circuit {spec.circuit_id!r} proves {spec.proof_kind.name}, "
                                     f"not {_kind_name(request.proof_kind)}")
            return spec
        kind = request.proof_kind
        if kind == ProofKind.UNSPECIFIED:
            raise UnknownCircuit("the request names neither a proof kind nor a circuit id")
        try:
            kind = ProofKind(kind)
        except ValueError:
            raise UnknownCircuit(f"unknown proof kind {int(kind)}") from None
        rule = self._preset_rules.get(kind)
        return self._for_kind(kind, rule(request) if rule and kind not in self._defaults else None)

    def _for_kind(self, kind: ProofKind, preset: str | None) -> CircuitSpec:
        """The kind's default circuit, else the kind at `preset` (None: its first)."""
        if kind in self._defaults:
            return self._specs[self._defaults[kind]]
        if kind not in self._by_kind:
            raise UnknownCircuit(f"no circuit is registered for proof kind {kind.name}")
        presets = self._by_kind[kind]
        return self._at_preset(presets, kind.name, preset or next(iter(presets)))

    def _at_preset(self, presets: dict[str, str], what: str, preset: str) -> CircuitSpec:
        cid = presets.get(preset)
        if cid is None:
            raise UnknownCircuit(f"no circuit is registered for {what} at preset {preset!r} "
                                 f"(registered presets: {', '.join(presets)})")
        return self._specs[cid]

    def lookup(self, name: str, preset: str | None = None) -> CircuitSpec:
        """A circuit id; a family ('window-post', 'snap') or proof kind name ('porep',
        'POREP_SEAL_COMMIT') at `preset` (default: its first, the smallest)."""
        if name in self._specs:
            return self._specs[name]
        if name in self._families:
            family = self._families[name]
            return self._at_preset(family, name, preset or next(iter(family)))
        try:
            kind = parse_kind(name)
        except ValueError:
            return self.get(name)  # raises UnknownCircuit listing the ids
        return self._for_kind(kind, preset)

    def presets(self, name: str) -> list[str]:
        """The presets a family or proof kind name is registered at, in registration order
        ([] for a circuit id or an unknown name)."""
        if name in self._specs:
            return []
        if name in self._families:
            return list(self._families[name])
        try:
            kind = parse_kind(name)
        except ValueError:
            return []
        return list(self._by_kind.get(kind, {}))

    def specs(self) -> list[CircuitSpec]:
        return list(self._specs.values())

    def families(self) -> list[str]:
        return list(self._families)


def _kind_name(value: int) -> str:
    try:
        return ProofKind(value).name
    except ValueError:
        return f"proof kind {int(value)}"
