"""The synthetic circuit: a test and benchmark workload, not a Filecoin model.

What it is for: a batchable two-partition circuit whose parameters take
milliseconds to generate, so the engine tests exercise batching, partition
scheduling and shutdown in seconds; and a synthesis cost set independently
of the proving cost, to measure pipelining on a workload where the two take
similar time (`cuzk bench batch --compare --kind synthetic`). Registered only
when `circuits.synthetic` is set, by circuit id only (`synthetic-<preset>`):
it serves no proof kind. Filecoin's circuits are filecoin_post and filecoin_sector.

Circuit (BLS12-381): N instances of x -> x^5 (x*x = x2, x2*x2 = x4, x4*x = x5),
stamped from one recorded template, and one public input y = sum of the x5.
The private x_i are expanded from a per-partition seed by `rounds` rounds of
a 64-bit mixing function (a nogil numba kernel): that expansion is the
synthesis work, and `rounds` sets its cost.

Vanilla proof bytes (little-endian):
    magic b"CUZKSYNT", u16 version = 1, u16 0, u32 instances, u32 partitions,
    u32 rounds, then per partition: seed (32 bytes), y (32 bytes, canonical).
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import struct
from pathlib import Path

import numpy as np
from numba import njit

from cuzk.errors import FormatError, ValidationError
from cuzk.field import fields_of
from cuzk.r1cs import LC, ONE, RecordingCS, WitnessCS, evaluate

from ..params.generated import GeneratedParams
from ..types import Priority, ProofKind, ProofRequest
from .registry import CircuitSpec, Witness, vanilla_bytes, working_bytes_estimate

CURVE = "bls12_381"
MAGIC = b"CUZKSYNT"
VERSION = 1
HEADER = struct.Struct("<8sHHIII")

# preset -> (log2 of the domain, derivation rounds); instances = (2^k - 3) // 3
PRESETS = {
    "tiny": (6, 2_000),
    "small": (10, 30_000),
    "medium": (14, 30_000),
}

FAMILY = "synthetic"
PARTITIONS = 2  # enough to interleave partitions of several jobs, few enough for fast tests


def circuit_id(preset: str) -> str:
    return f"{FAMILY}-{preset}"


def instances(preset: str) -> int:
    return ((1 << PRESETS[preset][0]) - 3) // 3


# ---- the circuit ---------------------------------------------------------------


@functools.cache
def _template():
    cs = RecordingCS(CURVE)
    x = cs.alloc_input()
    x2, x4, x5 = cs.alloc(), cs.alloc(), cs.alloc()
    cs.enforce(x, x, x2)
    cs.enforce(x2, x2, x4)
    cs.enforce(x4, x, x5)
    return cs.template()


def synthesize(cs, n: int, xs: np.ndarray | None = None, y: int | None = None) -> None:
    """The circuit, for any constraint-system mode (values only in witness modes)."""
    yv = cs.alloc_input(y)
    xv = cs.alloc_many(n, xs)
    aux = None
    if xs is not None:
        aux = np.stack(_powers(xs), axis=1)
    out = cs.stamp(_template(), n, xv.reshape(n, 1), aux)
    cs.enforce(LC.from_arrays(out[:, 2]), ONE, yv)


def _powers(xs: np.ndarray):
    fr = fields_of(CURVE)[0]
    x2 = fr.mul(xs, xs)
    x4 = fr.mul(x2, x2)
    return x2, x4, fr.mul(x4, xs)


@functools.cache
def compiled(n: int):
    cs = RecordingCS(CURVE)
    synthesize(cs, n)
    return cs.compile()


# ---- the private-input expansion (the synthesis work) -----------------------------

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MASK = np.uint64((1 << 61) - 1)  # top limb < 2^61: every x < 2^253 < r


@njit(nogil=True, cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # numba-only: no wrappers
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(nogil=True, cache=True)
def _expand(seed, partition, rounds, out):
    for i in range(out.shape[0]):
        a = seed[0] ^ (np.uint64(i) * _GOLDEN)
        b = seed[1] ^ np.uint64(partition)
        c = seed[2]
        d = seed[3]
        for _ in range(rounds + 1):
            a = _mix(a + d)
            b = _mix(b ^ a)
            c = _mix(c + b)
            d = _mix(d ^ c)
        out[i, 0] = a
        out[i, 1] = b
        out[i, 2] = c
        out[i, 3] = d & _MASK


def private_inputs(seed: bytes, partition: int, n: int, rounds: int) -> np.ndarray:
    """The x_i of one partition, Montgomery uint64[n, 4]."""
    out = np.empty((n, 4), dtype=np.uint64)
    _expand(np.frombuffer(seed, dtype="<u8").astype(np.uint64), partition, rounds, out)
    return fields_of(CURVE)[0].to_mont(out)


def public_input(xs: np.ndarray) -> int:
    fr = fields_of(CURVE)[0]
    return sum(fr.to_ints(_powers(xs)[2])) % fr.p


# ---- vanilla proofs ------------------------------------------------------------------


class SyntheticInput:
    def __init__(self, n: int, partitions: int, rounds: int, seeds: list[bytes], ys: list[int]):
        self.n, self.partitions, self.rounds, self.seeds, self.ys = n, partitions, rounds, seeds, ys


def encode_vanilla(n: int, rounds: int, seeds: list[bytes], ys: list[int]) -> bytes:
    body = b"".join(s + y.to_bytes(32, "little") for s, y in zip(seeds, ys))
    return HEADER.pack(MAGIC, VERSION, 0, n, len(seeds), rounds) + body


def decode_vanilla(data: bytes, *, n: int, partitions: int, rounds: int, circuit: str) -> SyntheticInput:
    where = f"vanilla proof for {circuit}"
    if len(data) < HEADER.size:
        raise FormatError(f"{where}: {len(data)} bytes is shorter than the {HEADER.size}-byte header")
    magic, version, _, got_n, got_p, got_r = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise FormatError(f"{where}: bad magic {magic!r} (expected {MAGIC!r}; make inputs with `cuzk bench gen-vanilla`)")
    if version != VERSION:
        raise FormatError(f"{where}: unsupported version {version} (expected {VERSION})")
    if (got_n, got_p, got_r) != (n, partitions, rounds):
        raise FormatError(f"{where}: made for {got_n} instances x {got_p} partitions x {got_r} rounds, "
                          f"the circuit has {n} x {partitions} x {rounds}")
    want = HEADER.size + 64 * partitions
    if len(data) != want:
        raise FormatError(f"{where}: expected {want} bytes, got {len(data)}")
    p = fields_of(CURVE)[0].p
    seeds, ys = [], []
    for k in range(partitions):
        off = HEADER.size + 64 * k
        seeds.append(bytes(data[off:off + 32]))
        y = int.from_bytes(data[off + 32:off + 64], "little")
        if y >= p:
            raise FormatError(f"{where}: partition {k}: public input is not a field element")
        ys.append(y)
    return SyntheticInput(n, partitions, rounds, seeds, ys)


def generate_vanilla(preset: str, seed: int | None = None) -> bytes:
    """A valid vanilla proof for `synthetic-<preset>` (does the expansion work once)."""
    n, rounds = instances(preset), PRESETS[preset][1]
    base = secrets.token_bytes(32) if seed is None else int(seed).to_bytes(16, "little", signed=True)
    seeds = [hashlib.sha256(base + bytes([k])).digest() for k in range(PARTITIONS)]
    ys = [public_input(private_inputs(s, k, n, rounds)) for k, s in enumerate(seeds)]
    return encode_vanilla(n, rounds, seeds, ys)


# ---- registration ------------------------------------------------------------------------


def make_spec(preset: str, params_dir: Path) -> CircuitSpec:
    n, rounds = instances(preset), PRESETS[preset][1]
    cid = circuit_id(preset)

    def parse(req: ProofRequest) -> SyntheticInput:
        return decode_vanilla(vanilla_bytes(req, cid), n=n, partitions=PARTITIONS, rounds=rounds, circuit=cid)

    def witness(parsed: SyntheticInput, p: int) -> Witness:
        xs = private_inputs(parsed.seeds[p], p, n, rounds)
        if public_input(xs) != parsed.ys[p]:
            raise ValidationError(f"vanilla proof for {cid}: partition {p}: the public input does not match the seed")
        cs = WitnessCS(CURVE)
        synthesize(cs, n, xs, parsed.ys[p])
        return Witness(cs.witness(), [parsed.ys[p]])

    def rows(w: np.ndarray):
        return evaluate(compiled(n), w)

    def public_inputs(req: ProofRequest) -> list[list[int]]:
        return [[y] for y in parse(req).ys]

    def working_bytes() -> int:
        cc = compiled(n)
        return working_bytes_estimate(cc.num_vars, cc.num_rows)

    return CircuitSpec(
        circuit_id=cid, proof_kind=ProofKind.UNSPECIFIED, curve=CURVE, num_partitions=PARTITIONS, batchable=True,
        default_priority=Priority.NORMAL, params=GeneratedParams(cid, lambda: compiled(n), params_dir), parse=parse,
        witness=witness, rows=rows, public_inputs=public_inputs, working_bytes=working_bytes, family=FAMILY,
        preset=preset,
        generate_vanilla=lambda seed=None: generate_vanilla(preset, seed), compiled=lambda: compiled(n),
    )


def register(registry, params_dir: Path) -> None:
    for preset in PRESETS:
        registry.register(make_spec(preset, params_dir))
