"""Which circuit a daemon benchmark means, and its inputs (`cuzk bench gen-vanilla` writes them).

--kind is a circuit id, or a family (Filecoin's window-post, winning-post, porep, snap; synthetic)
or proof kind name (winning-post, POREP_SEAL_COMMIT, ...) combined with --preset: 2KiB, 8MiB,
512MiB, 32GiB, 64GiB for Filecoin's, tiny ... large for synthetic (default: the family's smallest).

An input is a request's fields, as `CircuitSpec.sample_request` gives them: for Filecoin's circuits
those of a request as Curio sends it (PoSt: vanilla_proofs, registered_proof, randomness, miner_id,
partition_index; PoRep: vanilla_proof, the C1 output in Curio's envelope, registered_proof,
sector_number, miner_id; SnapDeals: vanilla_proofs, registered_proof, comm_r_old, comm_r_new,
comm_d_new; with proof_kind); for the others {"vanilla_proof": bytes}. Inputs are generated locally
for built-in circuits, or read with --vanilla FILE: a JSON request as `gen-vanilla` writes it for
Filecoin's kinds (cuzk.formats.filecoin.request_json), or a JSON array of them; a JSON array of
base64 strings, as cuzk-bench and `gen-vanilla --count N` write for the other circuits; or one raw
input (a vanilla proof's bytes).
"""

from __future__ import annotations

import base64
import functools
import json
import sys
import time

from cuzk.engine.catalog.served import build_registry
from cuzk.engine.config import EngineConfig
from cuzk.engine.errors import UnknownCircuit
from cuzk.formats.filecoin import request_json

from .errors import BenchError


@functools.cache
def local_registry():
    """Every built-in circuit at every preset, to generate inputs and know public inputs
    (nothing is compiled or loaded until used)."""
    cfg = EngineConfig()
    cfg.circuits.synthetic = True
    return build_registry(cfg)


def resolve(kind: str, preset: str | None = None):
    """(circuit_id, local CircuitSpec, or None for a circuit only the daemon knows, e.g. circom).
    preset None: the family's first (smallest)."""
    reg = local_registry()
    try:
        spec = reg.lookup(kind, preset)
    except UnknownCircuit as exc:
        if kind in reg.families():
            raise BenchError(str(exc)) from None
        return kind, None
    return spec.circuit_id, spec


def spec_lookup(cid: str):
    return {s.circuit_id: s for s in local_registry().specs()}.get(cid)


def is_request(fields: dict) -> bool:
    """Fields beyond one vanilla proof (a Filecoin request: PoSt, PoRep), kept as a JSON request file."""
    return set(fields) != {"vanilla_proof"}


def read_inputs_file(path: str) -> list[dict]:
    """The inputs of a --vanilla file, as request fields (formats: the module docstring). A JSON
    object whose first key is not a request field (Curio's C1 envelope, a bare C1 output) is one
    raw vanilla proof: it is not parsed here (a bare C1 output is millions of numbers)."""
    try:
        data = open(path, "rb").read()
    except OSError as exc:
        raise BenchError(f"{path}: {exc.strerror}") from None
    head = data[:200].lstrip()
    if head[:1] == b"{":
        if request_json.looks_like_request(data):
            return [request_json.from_json(data, path)]
        return [{"vanilla_proof": data}]
    try:
        obj = json.loads(data) if head[:1] == b"[" else None
    except (ValueError, UnicodeDecodeError):
        obj = None
    if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        return [request_json.from_object(x, f"{path}[{i}]") for i, x in enumerate(obj)]
    if isinstance(obj, list) and obj and all(isinstance(x, str) for x in obj):
        return [{"vanilla_proof": base64.b64decode(x)} for x in obj]
    return [{"vanilla_proof": data}]


def inputs(args, spec, n: int) -> list[dict]:
    """`n` inputs (request fields): from --vanilla (repeated as needed), else generated."""
    if args.vanilla:
        items = read_inputs_file(args.vanilla)
        return [items[i % len(items)] for i in range(n)]
    if spec is None or not has_generator(spec):
        raise BenchError(f"circuit {args.kind!r} has no built-in input generator: pass --vanilla FILE")
    return [spec.sample_request() for _ in range(n)]


def has_generator(spec) -> bool:
    return spec.generate_request is not None or spec.generate_vanilla is not None


def gen_vanilla(args) -> int:
    """`cuzk bench gen-vanilla`: for Filecoin's kinds a JSON request (--count N: a JSON array of N);
    for the others, with --count 1 the raw bytes, else a JSON array of base64 strings."""
    cid, spec = resolve(args.kind, args.preset)
    if spec is None or not has_generator(spec):
        raise BenchError(f"circuit {cid!r} has no built-in input generator")
    if args.count < 1:
        raise BenchError("--count must be at least 1")
    t0 = time.perf_counter()
    items = [spec.sample_request(None if args.seed is None else args.seed + i) for i in range(args.count)]
    if is_request(items[0]):
        if args.count == 1:
            data, what = request_json.to_json(items[0]), "a JSON request as Curio's fields (bytes as base64)"
        else:
            data = json.dumps([json.loads(request_json.to_json(x)) for x in items], indent=1).encode()
            what = f"{args.count} JSON requests (a JSON array)"
    elif args.count == 1:
        data, what = items[0]["vanilla_proof"], "a raw vanilla proof"
    else:
        data = json.dumps([base64.b64encode(x["vanilla_proof"]).decode() for x in items]).encode()
        what = f"{args.count} vanilla proofs (JSON, base64)"
    try:
        with open(args.out, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise BenchError(f"{args.out}: {exc.strerror or exc}") from None
    print(f"wrote {args.out}: {what} for {cid} ({spec.num_partitions} partition(s)), {len(data):,} bytes in "
          f"{time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return 0
