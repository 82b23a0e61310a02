"""Filecoin's PoRep C2 (StackedDRG seal commit) as the engine serves it, from the requests Curio sends.

A POREP_SEAL_COMMIT request carries `vanilla_proof`: the C1 output, in Curio's envelope
({"SectorNum", "Phase1Out": base64 of the SealCommitPhase1Output JSON, "SectorSize"}) or bare,
with `registered_proof` (Go's abi.RegisteredSealProof), `sector_number` and `miner_id`. The
registered proof (else the sector size) picks the circuit, `porep-<size>` (porep-32GiB: ten
partitions of 130,278,541 constraints). At submit the C1 output is decoded and checked
(`decode_c1` / `check_c1`: every Merkle path to its root, challenges, parents, labels, comm_r)
and, where the request names its miner, its replica_id is checked to be the one that miner's
sector derives: a bad one is refused then, naming the partition, challenge and field.

Every registered seal proof of a size shares the circuit and its parameter file; the engine
serves the interactive (V1, V1_1) and synthetic ones (ten partitions at 32 / 64 GiB, one below).
Non-interactive PoRep (126 partitions) is refused at submit. Parameters are Filecoin's files by
their Filecoin names in the parameter directory, as for PoSt (catalog/filecoin_post.py).
"""

from __future__ import annotations

from pathlib import Path

from cuzk.circuits.filecoin.porep import provable as porep_kind
from cuzk.circuits.filecoin.porep.config import porep_config, porep_config_for
from cuzk.circuits.filecoin.porep.public import partition_public_inputs, replica_public_inputs
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, SIZE_NAMES
from cuzk.circuits.filecoin.porep.sdr import SdrGraph
from cuzk.errors import FormatError
from cuzk.circuits.filecoin.porep.c1_read import decode_c1
from cuzk.circuits.filecoin.porep.c1_verify import check_c1
from cuzk.circuits.filecoin.porep.request import check_sector, sample_request

from ..errors import UnknownCircuit
from ..types import ProofKind, ProofRequest
from . import filecoin_sector
from .filecoin_sector import sector_spec
from .registry import CircuitSpec, vanilla_bytes

SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")


def request_config(request: ProofRequest):
    """The PorepConfig a request names: by registered proof (a nonzero one; 0 is also 2 KiB V1,
    which the C1 output then confirms), else by sector size; None when it names neither."""
    rp = int(request.registered_proof)
    size = int(request.sector_size)
    if rp:
        cfg = porep_config(rp)
        if size and size != cfg.sector_size:
            raise FormatError(f"sector_size: {size} does not match registered_proof {cfg.name} ({cfg.sector_size})")
        return cfg
    if size:
        if size not in SIZE_NAMES or SIZE_NAMES[size] not in SIZES:
            raise FormatError(f"sector_size: no Filecoin PoRep for {size} bytes (have {', '.join(SIZES)})")
        return porep_config_for(size)
    return None


def preset_of(request: ProofRequest) -> str:
    """The size name a PoRep request selects (2KiB when it names no size)."""
    try:
        cfg = request_config(request)
    except FormatError as exc:
        raise UnknownCircuit(str(exc)) from None
    return SIZE_NAMES[cfg.sector_size] if cfg is not None else "2KiB"


def c1_public_inputs(c1) -> list[list[int]]:
    """A checked C1 output's public inputs per partition, derived as verify_seal derives them
    (porep_public): interactive challenges from its replica id and seed; synthetic PoRep's are the
    C1 output's own (check_c1 range-checked them), packed with the graph's parents alike."""
    cfg, graph = c1.config, SdrGraph.for_proof(c1.registered_proof)
    rid, comm_d, comm_r = bytes(c1.replica_id), bytes(c1.comm_d), bytes(c1.comm_r)
    if cfg.flavour == "interactive":
        return replica_public_inputs(cfg, graph, rid, bytes(c1.seed), comm_d, comm_r)
    return [partition_public_inputs(graph, rid, comm_d, comm_r, part.challenges) for part in c1.partitions]


def make_spec(size: str, params_dir: Path) -> CircuitSpec:
    base = porep_config_for(SECTOR_SIZES[size])
    cid = porep_kind.circuit_id(base)

    def parse(req: ProofRequest):
        named = request_config(req)
        c1 = decode_c1(vanilla_bytes(req, cid), registered_proof=int(req.registered_proof) or None)
        check_c1(c1)
        cfg = c1.config
        if cfg.sector_size != base.sector_size:
            raise FormatError(f"{cid}: the C1 output is a {SIZE_NAMES[cfg.sector_size]} sector's ({c1.proof_name})")
        if named is not None and named.sector_size != cfg.sector_size:
            raise FormatError(f"{cid}: the request names {SIZE_NAMES[named.sector_size]} sectors, the C1 output "
                              f"is {c1.proof_name}")
        if cfg.partitions != base.partitions:
            raise FormatError(f"{cid}: {c1.proof_name} has {cfg.partitions} partitions; cuzk serves the "
                              f"interactive and synthetic PoRep ({base.partitions}), not non-interactive PoRep")
        number = int(req.sector_number)
        if number and c1.sector_number is not None and number != c1.sector_number:
            raise FormatError(f"sector_number: the request says {number}, the C1 envelope {c1.sector_number}")
        number = number or c1.sector_number
        if req.miner_id and number is not None:
            check_sector(c1, int(req.miner_id), number)
        return c1

    def partition(c1, p: int, out=None):
        return porep_kind.witness(c1.config, c1.partitions[p], out)

    def public_inputs(req: ProofRequest) -> list[list[int]]:
        return c1_public_inputs(parse(req))

    return sector_spec(circuit_kind=porep_kind, kind=ProofKind.POREP_SEAL_COMMIT, family="porep", size=size,
                       cfg=base, params_dir=params_dir, counts=lambda: porep_kind.counts(base), parse=parse,
                       partition=partition, public_inputs=public_inputs, sample=sample_request)


def register(registry, params_dir: Path | None = None, sizes=SIZES) -> None:
    """The PoRep circuit at every size; requests find it by registered proof or sector size."""
    filecoin_sector.register(registry, make_spec, ProofKind.POREP_SEAL_COMMIT, preset_of, params_dir, sizes)
