"""Filecoin's WindowPoSt and WinningPoSt as the engine serves them, from the requests Curio sends.

A request (`SubmitProofRequest` of kind WINDOW_POST_PARTITION or
WINNING_POST) carries `vanilla_proofs` (one bincode FallbackPoStSectorProof
per sector), `registered_proof` (Go's abi.RegisteredPoStProof), `randomness`
(32 bytes), `miner_id` and `partition_index`. The registered proof picks the
circuit (`<kind>-post-<size>`, e.g. window-post-32GiB); a request without one
is read by its sector_size (or is a 2 KiB one) at the network's current
version. The vanilla proofs are decoded and checked at submit (paths hash to
comm_r_last, challenges derived from the randomness, Poseidon(comm_c,
comm_r_last) = comm_r): a bad one is refused then, naming the sector and the
field, and never reaches a prover.

Parameters are Filecoin's files by their Filecoin names in the parameter
directory (`[filecoin] params_dir`, by default $FIL_PROOFS_PARAMETER_CACHE or
/var/tmp/filecoin-proof-parameters): the official ones for the network, or
test ones `cuzk setup --kind window-post --sector-size 2KiB --params-dir DIR`
writes. A request whose file is missing is refused at submit, naming the file.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from cuzk.circuits.filecoin.post import provable as post_kind
from cuzk.circuits.filecoin import kinds as provable
from cuzk.circuits.filecoin.post.challenges import PublicSectors
from cuzk.circuits.filecoin.post.challenges import public_inputs as post_public_inputs
from cuzk.circuits.filecoin.post.circuit import counts
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, SIZE_NAMES, post_config, post_config_for
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.post.request import sample_request
from cuzk.circuits.filecoin.post.vanilla_bincode import load_partition

from ..errors import UnknownCircuit
from ..params.sources import BellpersonParams
from ..types import Priority, ProofKind, ProofRequest
from .registry import CircuitSpec, Witness, satisfied_rows, working_bytes_estimate

SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")
PROOF_KINDS = {"window": ProofKind.WINDOW_POST_PARTITION, "winning": ProofKind.WINNING_POST}
PRIORITIES = {"window": Priority.HIGH, "winning": Priority.CRITICAL}
DEFAULT_PARAMS_DIR = "/var/tmp/filecoin-proof-parameters"


def default_params_dir() -> Path:
    """Where rust-fil-proofs and paramfetch keep parameters."""
    return Path(os.environ.get("FIL_PROOFS_PARAMETER_CACHE") or DEFAULT_PARAMS_DIR)


class MissingParams(FormatError):
    pass


class FilecoinParams(BellpersonParams):
    """A circuit's parameters by their Filecoin file name, checked against the circuit on open."""

    def __init__(self, directory: Path, cfg, compiled):
        super().__init__(Path(directory) / f"{provable.parameter_stem(cfg)}.params", compiled, checked=True)

    def missing(self) -> str | None:
        if self.path.is_file():
            return None
        return (f"parameters not found: {self.path} (official ones: paramfetch; test ones: "
                f"cuzk setup --kind ... --sector-size ... --params-dir {self.path.parent})")

    def open(self):
        reason = self.missing()
        if reason:
            raise MissingParams(reason)
        return super().open()


def request_config(kind: str, request: ProofRequest):
    """The PostConfig a request asks for: its registered proof, else its sector size, else 2 KiB."""
    rp = int(request.registered_proof)
    if rp or (kind == "winning" and not request.sector_size):  # 0 is also Winning 2 KiB V1
        cfg = post_config(rp)
        if cfg.kind != kind:
            raise FormatError(f"registered_proof: {cfg.name} is a {cfg.kind} PoSt, the request is a {kind} PoSt")
        if request.sector_size and request.sector_size != cfg.sector_size:
            raise FormatError(f"sector_size: {request.sector_size} does not match registered_proof {cfg.name} "
                              f"({cfg.sector_size})")
        return cfg
    size = int(request.sector_size) or SECTOR_SIZES["2KiB"]
    if size not in SIZE_NAMES or SIZE_NAMES[size] not in SIZES:
        raise FormatError(f"sector_size: no Filecoin PoSt for {size} bytes (have {', '.join(SIZES)})")
    return post_config_for(kind, size)


def preset_of(kind: str, request: ProofRequest) -> str:
    """The size name a PoSt request selects (the registry's preset for these kinds)."""
    try:
        return SIZE_NAMES[request_config(kind, request).sector_size]
    except FormatError as exc:
        raise UnknownCircuit(str(exc)) from None


def make_spec(kind: str, size: str, params_dir: Path) -> CircuitSpec:
    base = post_config_for(kind, SECTOR_SIZES[size])
    cid = post_kind.circuit_id(base)
    n = functools.cache(lambda: counts(base))  # when first needed: building a registry stays cheap

    def compiled():
        return post_kind.compiled(base)

    def parse(req: ProofRequest):
        cfg = request_config(kind, req)
        if cfg.sector_size != base.sector_size:
            raise FormatError(f"{cid}: the request is for {SIZE_NAMES[cfg.sector_size]} sectors")
        return load_partition(cfg, list(req.vanilla_proofs), req.randomness, int(req.partition_index))

    def witness(slots, p: int, out=None) -> Witness:
        if p != 0:
            raise ValueError(f"{cid} has one partition, not {p + 1}")
        w, public = post_kind.witness(slots.config, slots, out)
        return Witness(w, public)

    def rows(w: np.ndarray):
        return satisfied_rows(compiled(), w, f"vanilla proofs for {cid}")

    def public_inputs(req: ProofRequest) -> list[list[int]]:
        # derived from the public data as a verifier derives them (post_challenges.public_inputs; the
        # slots' own challenges are the same once load_partition checked them): the partition's
        # sectors in request order, WinningPoSt's one sector once
        slots = parse(req)
        n = 1 if slots.config.kind == "winning" else slots.real_slots
        sectors = PublicSectors(slots.sector_ids[:n], slots.comm_r[:n])
        return [post_public_inputs(slots.config, req.randomness, sectors, slots.partition_index)]

    def generate(seed=None) -> dict:
        return sample_request(base, seed)

    return CircuitSpec(
        circuit_id=cid, proof_kind=PROOF_KINDS[kind], curve="bls12_381", num_partitions=1, batchable=False,
        default_priority=PRIORITIES[kind], params=FilecoinParams(params_dir, base, compiled), parse=parse,
        witness=witness, rows=rows, public_inputs=public_inputs,
        working_bytes=lambda: working_bytes_estimate(n().aux + n().inputs, n().constraints + n().inputs),
        family=f"{kind}-post", preset=size, compiled=compiled, witness_vars=lambda: n().aux + n().inputs, check=parse,
        generate_request=generate,
    )


def register(registry, params_dir: Path | None = None, sizes=SIZES) -> None:
    """Both PoSt kinds at every size; requests find them by registered proof or sector size."""
    params_dir = Path(params_dir) if params_dir else default_params_dir()
    for kind in PROOF_KINDS:
        for size in sizes:
            registry.register(make_spec(kind, size, params_dir))
        registry.preset_rule(PROOF_KINDS[kind], lambda req, kind=kind: preset_of(kind, req))
