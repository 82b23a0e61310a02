"""Which circuit a daemon benchmark means, and its inputs (`cuzk bench gen-vanilla` writes them).

--kind is a circuit id, or a built-in kind (porep-c2-like, winning-post-like,
window-post-like, snap-like, synthetic) or proof kind name (winning-post,
porep, ...) combined with --preset. Inputs are generated locally for built-in
circuits, or read with --vanilla FILE (a JSON array of base64 strings, as
cuzk-bench and `gen-vanilla --count N` write, or one raw input).
"""

from __future__ import annotations

import base64
import functools
import json
import sys
import time

from cuzk.circuits import PRESETS
from cuzk.engine.catalog.served import build_registry
from cuzk.engine.config import EngineConfig
from cuzk.engine.errors import UnknownCircuit

from .errors import BenchError


@functools.cache
def local_registry():
    """Every built-in circuit at every preset, to generate inputs and know public inputs
    (nothing is compiled or loaded until used)."""
    cfg = EngineConfig()
    cfg.circuits.presets = list(PRESETS)
    cfg.circuits.synthetic = True
    return build_registry(cfg)


def resolve(kind: str, preset: str):
    """(circuit_id, local CircuitSpec, or None for a circuit only the daemon knows, e.g. circom)."""
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


def read_vanilla_file(path: str) -> list[bytes]:
    try:
        data = open(path, "rb").read()
    except OSError as exc:
        raise BenchError(f"{path}: {exc.strerror}") from None
    try:
        items = json.loads(data)
        if isinstance(items, list) and all(isinstance(x, str) for x in items):
            return [base64.b64decode(x) for x in items]
    except (ValueError, UnicodeDecodeError):
        pass
    return [data]


def inputs(args, spec, n: int) -> list[bytes]:
    if args.vanilla:
        items = read_vanilla_file(args.vanilla)
        return [items[i % len(items)] for i in range(n)]
    if spec is None or spec.generate_vanilla is None:
        raise BenchError(f"circuit {args.kind!r} has no built-in input generator: pass --vanilla FILE")
    return [spec.generate_vanilla() for _ in range(n)]


def gen_vanilla(args) -> int:
    """`cuzk bench gen-vanilla`: with --count 1 the raw bytes, else a JSON array of base64 strings."""
    cid, spec = resolve(args.kind, args.preset)
    if spec is None or spec.generate_vanilla is None:
        raise BenchError(f"circuit {cid!r} has no built-in input generator")
    if args.count < 1:
        raise BenchError("--count must be at least 1")
    t0 = time.perf_counter()
    items = [spec.generate_vanilla(None if args.seed is None else args.seed + i) for i in range(args.count)]
    data = items[0] if args.count == 1 else json.dumps([base64.b64encode(x).decode() for x in items]).encode()
    try:
        with open(args.out, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise BenchError(f"{args.out}: {exc.strerror or exc}") from None
    what = "a raw vanilla proof" if args.count == 1 else f"{args.count} vanilla proofs (JSON, base64)"
    print(f"wrote {args.out}: {what} for {cid} ({spec.num_partitions} partition(s)), {len(data):,} bytes in "
          f"{time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return 0
