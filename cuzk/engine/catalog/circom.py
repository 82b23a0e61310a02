"""circom circuits registered from config: a snarkjs .zkey and witnesses as .wtns bytes.

    [[circuits.circom]]
    id = "my-circuit"          # the circuit id requests use
    zkey = "/path/circuit.zkey"
    proof_kind = "winning-post"  # optional: serve this kind (default: none, by id only)
    priority = "normal"          # optional default priority
    batchable = false
    r1cs = "/path/circuit.r1cs"  # optional: each witness is checked against the circuit

A request's `vanilla_proof` is the content of a circom `.wtns` file for the
circuit (computing witnesses from JSON inputs with the circuit's .wasm is
not supported yet). The key's matrices give a/b/c; proofs are BN254 or
BLS12-381 per the key, encoded as `cuzk.formats.proof_bytes` says. With an
`r1cs`, synthesis checks a * b == C.w on the circuit's rows (the key has no C;
cuzk.formats.witness_check), so a witness that does not satisfy the circuit fails
its job naming the first failing constraint instead of giving a proof no verifier
accepts. by_path.py registers such circuits on first use from a client's paths.
"""

from __future__ import annotations

import os
from pathlib import Path

from cuzk.backend import get_backend
from cuzk.errors import FormatError, ValidationError
from cuzk.formats.wtns import wtns_from_bytes
from cuzk.formats.zkey import ZKey

from ..config import ConfigError
from ..params.sources import ParamSource
from ..types import ProofKind, ProofRequest, parse_kind, parse_priority
from .registry import CircuitSpec, Witness, working_bytes_estimate


class ZkeyParams(ParamSource):
    def __init__(self, path: Path):
        self.path = Path(path)
        self.description = str(path)
        self._zkey = None

    def zkey(self):
        if self._zkey is None:
            self._zkey = ZKey(self.path)
        return self._zkey

    def open(self):
        return self.zkey().proving_key


def make_spec(entry: dict) -> CircuitSpec:
    cid = str(entry["id"])
    path = Path(os.path.expanduser(str(entry["zkey"])))
    if not path.is_file():
        raise ConfigError(f"circuits.circom {cid}: zkey {path} does not exist")
    try:
        kind = parse_kind(entry["proof_kind"]) if entry.get("proof_kind") else ProofKind.UNSPECIFIED
        priority = parse_priority(entry.get("priority", "normal"))
    except ValueError as exc:
        raise ConfigError(f"circuits.circom {cid}: {exc}") from None
    params = ZkeyParams(path)
    zk = params.zkey()  # reads the header now: a bad file fails at start
    curve = zk.curve.name
    r1cs = Path(os.path.expanduser(str(entry["r1cs"]))) if entry.get("r1cs") else None
    if r1cs is not None and not r1cs.is_file():
        raise ConfigError(f"circuits.circom {cid}: r1cs {r1cs} does not exist")
    circuit = _CircuitC(r1cs, zk) if r1cs is not None else None

    def parse(req: ProofRequest):
        data = req.vanilla_proof or (req.vanilla_proofs[0] if len(req.vanilla_proofs) == 1 else b"")
        if not data:
            raise FormatError(f"{cid}: the request carries no witness (.wtns bytes in vanilla_proof)")
        wtns = wtns_from_bytes(data, f"{cid}: vanilla_proof")  # straight from the request's bytes
        zk.check_witness(wtns.curve, len(wtns), f"{cid}: vanilla_proof")
        return wtns.values

    def witness(w, p: int) -> Witness:
        return Witness(w, zk.public_signals(w))

    def rows(w):
        a, b, c = zk.row_evaluations(w, get_backend("cpu"))
        if circuit is not None:
            circuit.check(w, c)
        return a, b, c

    def public_inputs(req: ProofRequest):
        return [zk.public_signals(parse(req))]

    def working_bytes() -> int:
        return working_bytes_estimate(zk.num_inputs + zk.num_private, zk.domain_size)

    return CircuitSpec(
        circuit_id=cid, proof_kind=kind, curve=curve, num_partitions=1, batchable=bool(entry.get("batchable", False)),
        default_priority=priority, params=params, parse=parse, witness=witness, rows=rows,
        public_inputs=public_inputs, working_bytes=working_bytes,
        info={"zkey": str(path), **({"r1cs": str(r1cs)} if r1cs else {})},
    )


class _CircuitC:
    """The circuit's C matrix, read from its .r1cs on the first check and kept."""

    def __init__(self, path: Path, zk):
        self.path, self.zk, self._c = path, zk, None

    def check(self, w, ab) -> None:
        from cuzk.formats.circom_r1cs import read_r1cs_c
        from cuzk.formats.witness_check import check_matches, first_unsatisfied

        if self._c is None:
            circ = read_r1cs_c(self.path)
            check_matches(self.zk, circ, len(w), "the witness", circ.curve, str(self.path))
            self._c = circ
        bad = first_unsatisfied(self.zk, self._c, w, ab)
        if bad is not None:
            raise ValidationError(f"the witness does not satisfy the circuit {self.path.name} "
                                  f"(first failing: constraint {bad}); no proof made")
