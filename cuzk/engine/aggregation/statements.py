"""What an aggregation is of: proofs of one circuit with their public inputs, taken from completed
jobs or as given, each checked before any work starts so a bad request costs no SRS reading and gets
one clear error (InvalidRequest; JobNotFound, JobNotCompleted for jobs).

`engine` below is a ProvingEngine; only its verifying_key, job and result are used, so the single
engine and the cluster front gather statements alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cuzk.curve.subgroup import validate_points
from cuzk.errors import FormatError, ValidationError
from cuzk.formats import proof_bytes

from ..errors import InvalidRequest, JobNotCompleted
from ..types import JobState

if TYPE_CHECKING:
    from cuzk.groth16.keys import VerifyingKey

    from ..catalog.registry import CircuitSpec


@dataclass
class Statement:
    spec: CircuitSpec
    vk: VerifyingKey
    proofs: list[bytes]  # one proof's bytes each (bellperson layout)
    public_inputs: list[list[int]]  # one row per proof, in order


def of_jobs(engine, job_ids, circuit_id: str = "") -> Statement:
    """Every partition's proof of each job, jobs in the order given; the jobs must be of one circuit
    (circuit_id's, when given)."""
    if not job_ids:
        raise InvalidRequest("job_ids: name at least one completed job")
    spec = vk = None
    if circuit_id:
        spec, vk = engine.verifying_key(circuit_id)
    proofs, rows = [], []
    for jid in job_ids:
        r = engine.result(engine.job(jid))
        if spec is None:
            spec, vk = engine.verifying_key(r.circuit_id)
        if r.circuit_id != spec.circuit_id:
            raise InvalidRequest(f"job {jid!r} is of circuit {r.circuit_id}, not {spec.circuit_id}: "
                                 "an aggregate is of proofs of one circuit")
        if r.state != JobState.COMPLETED:
            raise JobNotCompleted(f"job {jid!r} is {r.state.name.lower()}, not completed")
        mine = proof_bytes.split(vk.curve.name, r.proof)
        if len(mine) != len(r.public_inputs):
            raise JobNotCompleted(f"job {jid!r}: {len(mine)} proofs but {len(r.public_inputs)} sets of "
                                  "public inputs")
        proofs += mine
        rows += [list(map(int, xs)) for xs in r.public_inputs]
    return _checked(Statement(spec, vk, proofs, rows))


def of_proofs(engine, circuit_id: str, proofs, public_inputs) -> Statement:
    """Given proofs (each item one or more proofs' bytes back to back, as a job's proof is) with one
    row of public inputs per proof. The circuit is required: its verifying key binds the aggregate."""
    if not circuit_id:
        raise InvalidRequest("circuit_id is required with proofs (its verifying key binds the aggregate)")
    spec, vk = engine.verifying_key(circuit_id)
    try:
        parts = [p for data in proofs for p in proof_bytes.split(vk.curve.name, bytes(data))]
    except FormatError as exc:
        raise InvalidRequest(f"proofs: {exc}") from None
    if not parts:
        raise InvalidRequest("proofs: empty")
    if len(parts) != len(public_inputs):
        raise InvalidRequest(f"{len(parts)} proofs but {len(public_inputs)} public_inputs (one per proof, in order)")
    return _checked(Statement(spec, vk, parts, field_rows(public_inputs, vk.curve, "public_inputs")))


def _checked(st: Statement) -> Statement:
    k = {len(row) for row in st.public_inputs}
    if k != {st.vk.num_public}:
        raise InvalidRequest(f"the key of {st.spec.circuit_id} expects {st.vk.num_public} public inputs per proof, "
                             f"got {', '.join(map(str, sorted(k)))}")
    return st


def field_rows(rows, curve, what: str) -> list[list[int]]:
    """Rows of public inputs as ints, each checked to be an element of the curve's scalar field."""
    out = []
    for i, row in enumerate(rows):
        for j, x in enumerate(row):
            if not 0 <= int(x) < curve.fr.p:
                raise InvalidRequest(f"{what}[{i}].values[{j}]: not a field element (>= the modulus)")
        out.append([int(x) for x in row])
    return out


def canonical(rows: list[list[int]], curve, what: str) -> np.ndarray:
    """uint64[n, k, 4] of the rows (canonical, not Montgomery), all rows of one length."""
    if not rows:
        raise InvalidRequest(f"{what}: at least one set of public inputs is required")
    k = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != k:
            raise InvalidRequest(f"{what}[{i}]: {len(row)} public inputs, but [0] has {k}")
    if k == 0:
        return np.zeros((len(rows), 0, 4), np.uint64)
    return curve.fr.canonical_from_ints([x for row in rows for x in row]).reshape(len(rows), k, 4)


def proof_arrays(curve, parts: list[bytes], what: str):
    """A, B, C arrays of proof bytes: canonical, on the curve and in the prime-order subgroups (the
    prover's folds use endomorphism-split scalar multiplication, which is only right there)."""
    try:
        decoded = [proof_bytes.decode(curve.name, p) for p in parts]
        a, b, c = (np.stack([getattr(q, f) for q in decoded]) for f in "abc")
        validate_points(curve.g1, a, what=f"{what} A")
        validate_points(curve.g2, b, what=f"{what} B")
        validate_points(curve.g1, c, what=f"{what} C")
    except (FormatError, ValidationError) as exc:
        raise InvalidRequest(f"{what}: {exc}") from None
    return a, b, c
