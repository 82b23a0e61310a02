"""The engine's vocabulary: proof kinds, priorities, job states, SRS tiers, a request, a job's timings,
and an aggregation's reference string and answers.

Numeric values equal the cuzk.v1 proto enums, so the gRPC layer converts by
value and existing clients keep working.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import IntEnum


class ProofKind(IntEnum):
    UNSPECIFIED = 0
    POREP_SEAL_COMMIT = 1
    SNAP_DEALS_UPDATE = 2
    WINDOW_POST_PARTITION = 3
    WINNING_POST = 4

    @property
    def label(self) -> str:
        """The Prometheus label value cuzk uses for this kind."""
        return _KIND_LABELS[self]


_KIND_LABELS = {
    ProofKind.UNSPECIFIED: "unspecified",
    ProofKind.POREP_SEAL_COMMIT: "porep_c2",
    ProofKind.SNAP_DEALS_UPDATE: "snap_update",
    ProofKind.WINDOW_POST_PARTITION: "window_post",
    ProofKind.WINNING_POST: "winning_post",
}

# names accepted on the command line and in config (cuzk-bench's spellings too)
KIND_ALIASES = {
    "porep": ProofKind.POREP_SEAL_COMMIT,
    "porep-c2": ProofKind.POREP_SEAL_COMMIT,
    "seal-commit": ProofKind.POREP_SEAL_COMMIT,
    "snap": ProofKind.SNAP_DEALS_UPDATE,
    "snap-deals": ProofKind.SNAP_DEALS_UPDATE,
    "update": ProofKind.SNAP_DEALS_UPDATE,
    "wpost": ProofKind.WINDOW_POST_PARTITION,
    "window-post": ProofKind.WINDOW_POST_PARTITION,
    "windowpost": ProofKind.WINDOW_POST_PARTITION,
    "winning": ProofKind.WINNING_POST,
    "winning-post": ProofKind.WINNING_POST,
    "winningpost": ProofKind.WINNING_POST,
}


def parse_kind(name: str) -> ProofKind:
    key = name.strip().lower().replace("_", "-")
    if key in KIND_ALIASES:
        return KIND_ALIASES[key]
    for k in ProofKind:
        if k.name.lower().replace("_", "-") == key and k != ProofKind.UNSPECIFIED:
            return k
    raise ValueError(f"unknown proof kind {name!r}; expected one of {', '.join(sorted(KIND_ALIASES))}")


class Priority(IntEnum):
    UNSPECIFIED = 0
    LOW = 1
    NORMAL = 2
    HIGH = 3
    CRITICAL = 4


def parse_priority(name: str) -> Priority:
    try:
        p = Priority[name.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown priority {name!r}; expected low, normal, high or critical") from None
    if p == Priority.UNSPECIFIED:
        raise ValueError("priority must be low, normal, high or critical")
    return p


def effective_priority(requested: int, default: Priority) -> Priority:
    """0 means the kind's default; other values outside 1..4 mean NORMAL (cuzk's rule)."""
    if requested == Priority.UNSPECIFIED:
        return default
    if requested in (Priority.LOW, Priority.HIGH, Priority.CRITICAL, Priority.NORMAL):
        return Priority(requested)
    return Priority.NORMAL


class JobState(IntEnum):
    UNSPECIFIED = 0
    QUEUED = 1
    SYNTHESIZING = 2
    PROVING = 3
    COMPLETED = 4
    FAILED = 5
    CANCELLED = 6

    @property
    def terminal(self) -> bool:
        return self in (JobState.COMPLETED, JobState.FAILED, JobState.CANCELLED)

    @property
    def running(self) -> bool:
        return self in (JobState.SYNTHESIZING, JobState.PROVING)


class Tier(IntEnum):
    """Where a circuit's parameters live (proto SRSStatus.Tier)."""

    HOT = 0  # decoded in memory (pinned when a GPU is present), ready to prove
    WARM = 1  # opened: file mapped, vectors decoded on demand
    COLD = 2  # known but not opened


@dataclass
class ProofRequest:
    """One proof request as the engine sees it (the gRPC SubmitProofRequest, decoded).

    `circuit_id` selects a registered circuit directly; otherwise the registry
    resolves (proof_kind, sector_size). `vanilla_proof`/`vanilla_proofs` are
    opaque to the engine: the circuit's witness builder parses them.
    """

    proof_kind: ProofKind = ProofKind.UNSPECIFIED
    circuit_id: str = ""
    request_id: str = ""
    priority: int = 0
    vanilla_proof: bytes = b""
    vanilla_proofs: list[bytes] = field(default_factory=list)
    sector_size: int = 0
    registered_proof: int = 0
    sector_number: int = 0
    miner_id: int = 0
    randomness: bytes = b""
    partition_index: int = 0
    comm_r_old: bytes = b""
    comm_r_new: bytes = b""
    comm_d_new: bytes = b""

    def __post_init__(self):
        if isinstance(self.proof_kind, str):  # a name, as request fields (CircuitSpec.sample_request) give it
            try:
                self.proof_kind = ProofKind[self.proof_kind]
            except KeyError:
                self.proof_kind = parse_kind(self.proof_kind)

    def fingerprint(self) -> bytes:
        """A digest of the request's content: a reused request_id must carry the same request."""
        h = hashlib.sha256()
        for part in (
            int(self.proof_kind).to_bytes(4, "little"),
            self.circuit_id.encode(),
            int(self.sector_size).to_bytes(8, "little"),
            int(self.registered_proof).to_bytes(8, "little"),
            int(self.sector_number).to_bytes(8, "little"),
            int(self.miner_id).to_bytes(8, "little"),
            int(self.partition_index).to_bytes(8, "little"),
            self.randomness,
            self.comm_r_old,
            self.comm_r_new,
            self.comm_d_new,
            self.vanilla_proof,
            *self.vanilla_proofs,
        ):
            h.update(len(part).to_bytes(8, "little"))
            h.update(part)
        return h.digest()


@dataclass
class JobTimings:
    """Milliseconds. synthesis and prove are summed over partitions."""

    queue_wait_ms: float = 0.0
    srs_load_ms: float = 0.0
    synthesis_ms: float = 0.0
    prove_ms: float = 0.0
    total_ms: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            "queue_wait_ms": self.queue_wait_ms,
            "srs_load_ms": self.srs_load_ms,
            "synthesis_ms": self.synthesis_ms,
            "prove_ms": self.prove_ms,
            "total_ms": self.total_ms,
        }


@dataclass(frozen=True)
class SrsSource:
    """Where an aggregation's reference string (`cuzk aggregate-srs`) comes from: the path of a file
    on the engine's host, or the file's bytes (exactly one). Engines keep the last few they read."""

    path: str = ""
    data: bytes = b""


@dataclass
class AggregateResult:
    """One SnarkPack proof of n Groth16 proofs of one circuit. `public_inputs` (ints, one row per
    aggregated proof, in order) is what a verifier needs along with the bytes; `phases` holds
    milliseconds per phase in execution order (docs/api.md, PhaseTiming)."""

    aggregate: bytes  # docs/aggregate.md layout
    num_proofs: int  # before padding
    padded_proofs: int  # the power of two the aggregate is of
    circuit_id: str
    curve: str
    public_inputs: list[list[int]]
    phases: dict[str, float]
    total_ms: float  # from the call to the answer, waiting for the aggregator included


@dataclass
class AggregateVerdict:
    """Whether an aggregate holds; `reason` says why not (a malformed aggregate is not valid, not an error)."""

    valid: bool
    reason: str
    phases: dict[str, float]
    total_ms: float
