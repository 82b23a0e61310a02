"""Filecoin's SnapDeals (EmptySectorUpdate) as the engine serves it, from the requests Curio sends.

A SNAP_DEALS_UPDATE request carries `vanilla_proofs` (one bincode PartitionProof per partition),
`registered_proof` (Go's abi.RegisteredUpdateProof: 0-4 = 2KiB, 8MiB, 512MiB, 32GiB, 64GiB) and the
32-byte `comm_r_old`, `comm_r_new`, `comm_d_new`. The registered proof (else the sector size; a
request naming neither is 0, the 2 KiB proof) picks the circuit, `snap-<size>` (snap-32GiB: sixteen
partitions of 81,049,499 constraints). At submit every partition proof is decoded and checked as
the verifier checks it (`circuits.filecoin.snap.request.decode_update`): a bad one is refused then,
in one line naming the partition, challenge and field, and never reaches a prover.

Parameters are Filecoin's files by their Filecoin names in the parameter directory, as for PoSt and
PoRep (catalog/filecoin_post.py): the official ones (paramfetch), or test ones `cuzk setup --kind
snap --sector-size S --params-dir D` writes.
"""

from __future__ import annotations

from pathlib import Path

from cuzk.circuits.filecoin.snap import provable as snap_kind
from cuzk.circuits.filecoin.snap.circuit import counts
from cuzk.circuits.filecoin.snap.config import snap_config, snap_config_for
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, SIZE_NAMES
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.snap.request import decode_update, sample_request

from ..errors import UnknownCircuit
from ..types import ProofKind, ProofRequest
from . import filecoin_sector
from .filecoin_sector import sector_spec
from .registry import CircuitSpec

SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")


def request_config(request: ProofRequest):
    """The SnapConfig a request names: by registered proof (a nonzero one), else by sector size,
    else registered proof 0 (StackedDrg2KiBV1)."""
    rp = int(request.registered_proof)
    size = int(request.sector_size)
    if rp or not size:
        try:
            cfg = snap_config(rp)
        except FormatError as exc:
            raise FormatError(f"registered_proof: {str(exc).removeprefix('update proof: ')}") from None
        if size and size != cfg.sector_size:
            raise FormatError(f"sector_size: {size} does not match registered_proof {rp} ({cfg.name}, "
                              f"{cfg.sector_size})")
        return cfg
    if SIZE_NAMES.get(size) not in SIZES:
        raise FormatError(f"sector_size: no Filecoin SnapDeals update for {size} bytes (have {', '.join(SIZES)})")
    return snap_config_for(size)


def preset_of(request: ProofRequest) -> str:
    """The size name a SnapDeals request selects."""
    try:
        return request_config(request).size_name
    except FormatError as exc:
        raise UnknownCircuit(str(exc)) from None


def make_spec(size: str, params_dir: Path) -> CircuitSpec:
    base = snap_config_for(SECTOR_SIZES[size])
    cid = snap_kind.circuit_id(base)

    def parse(req: ProofRequest):
        cfg = request_config(req)
        if cfg.sector_size != base.sector_size:
            raise FormatError(f"{cid}: the request is for {cfg.size_name} sectors ({cfg.name})")
        return decode_update(cfg, list(req.vanilla_proofs), req.comm_r_old, req.comm_r_new, req.comm_d_new)

    def partition(update, p: int, out=None):
        x = snap_kind.inputs(update.cfg, update.partitions[p], p, update.h, *update.commitments)
        return snap_kind.witness(update.cfg, x, out)

    def public_inputs(req: ProofRequest) -> list[list[int]]:
        update = parse(req)
        return [update.public_inputs(k) for k in range(len(update.partitions))]

    return sector_spec(circuit_kind=snap_kind, kind=ProofKind.SNAP_DEALS_UPDATE, family="snap", size=size, cfg=base,
                       params_dir=params_dir, counts=lambda: counts(base), parse=parse, partition=partition,
                       public_inputs=public_inputs, sample=sample_request)


def register(registry, params_dir: Path | None = None, sizes=SIZES) -> None:
    """The update circuit at every size; requests find it by registered proof or sector size."""
    filecoin_sector.register(registry, make_spec, ProofKind.SNAP_DEALS_UPDATE, preset_of, params_dir, sizes)
