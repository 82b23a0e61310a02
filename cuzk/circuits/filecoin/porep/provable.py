"""Filecoin's StackedDRG PoRep partition as a provable thing: id, compiled circuit, witness, parameter name.

One circuit per sector size: every registered seal proof of a size (V1, V1_1, synthetic,
non-interactive) synthesizes the same R1CS (the graph and the challenges are public inputs), so
they share one circuit and one parameter file, as in rust-fil-proofs (parameters.json names five).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from cuzk.errors import FormatError

from cuzk.circuits.filecoin.common import circuit_description, partition_cache
from . import stamped as porep_circuit
from .config import PorepConfig, porep_config_for
from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES

from .c1_read import decode_c1
from .c1_verify import check_c1
from .config import porep_config
from .public import partition_public_inputs, replica_public_inputs
from .request import check_sector, sample_request  # noqa: F401  (the kind's sample request)
from .sdr import SdrGraph

FAMILY = "porep"
SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")
config_for = porep_config_for
ALLOWED_SIZES = None  # every registered sector size
# circuitinfo's figures for v28 (constraints, public inputs with ONE): rust-fil-proofs PR #1325
PUBLISHED = {32 << 30: (130_278_541, 328, "rust-fil-proofs PR #1325 (circuitinfo, v28)")}
CIRCUIT_VERSION = 1  # bump when the circuit's wiring changes (invalidates cached .pce files)


def circuit_id(cfg: PorepConfig) -> str:
    return f"porep-{SIZE_NAMES[cfg.sector_size]}"


def parameter_stem(cfg: PorepConfig) -> str:
    return cfg.parameter_stem()


def inputs(part) -> porep_circuit.PorepInputs:
    """A `porep_proof.PorepPartitionProof` as the circuit's arrays; FormatError on a node >= r."""
    try:
        return porep_circuit.PorepInputs.from_proof(part)
    except ValueError as exc:
        raise FormatError(f"vanilla proof: {exc}") from None


def witness(cfg: PorepConfig, part, out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """(w = [1, inputs..., aux...] Montgomery, public inputs) of one partition's vanilla proof."""
    x = inputs(part)
    return partition_cache.witness(lambda cs: porep_circuit.synthesize(cs, cfg, x), out)


def cache_path(cfg: PorepConfig) -> Path:
    return partition_cache.cache_path(circuit_id(cfg), CIRCUIT_VERSION)


compiled = partition_cache.compiler(porep_config_for, circuit_id, CIRCUIT_VERSION, porep_circuit.synthesize)


def counts(cfg: PorepConfig) -> porep_circuit.PorepCounts:
    """porep_circuit.counts(cfg), kept on disk beside the compiled circuit (partition_cache.kept_counts)."""
    return porep_circuit.PorepCounts(*partition_cache.kept_counts(
        circuit_id(cfg), CIRCUIT_VERSION, lambda: dataclasses.astuple(porep_circuit.counts(cfg))))


def request_config(request):
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


def parse(req, base: PorepConfig, vanilla_bytes):
    """A request for the circuit of `base`: its C1 output (`vanilla_bytes(req, circuit id)`) decoded and
    checked (c1_read, c1_verify), its sector size, partitions, sector number and replica id against the
    request's; FormatError naming what differs."""
    cid = circuit_id(base)
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
    """(w, public inputs) of partition p of a parsed C1 output."""
    return witness(c1.config, c1.partitions[p], out)


def public_inputs(c1) -> list[list[int]]:
    """A checked C1 output's public inputs per partition, derived as verify_seal derives them
    (porep_public): interactive challenges from its replica id and seed; synthetic PoRep's are the
    C1 output's own (check_c1 range-checked them), packed with the graph's parents alike."""
    cfg, graph = c1.config, SdrGraph.for_proof(c1.registered_proof)
    rid, comm_d, comm_r = bytes(c1.replica_id), bytes(c1.comm_d), bytes(c1.comm_r)
    if cfg.flavour == "interactive":
        return replica_public_inputs(cfg, graph, rid, bytes(c1.seed), comm_d, comm_r)
    return [partition_public_inputs(graph, rid, comm_d, comm_r, part.challenges) for part in c1.partitions]


def describe(cfg: PorepConfig) -> tuple[str, list[str]]:
    """The circuit's title and its trees, as `cuzk circuit info` prints them."""
    return circuit_description.describe(
        cfg, "StackedDRG", [f"{cfg.layers} layers", f"{cfg.challenges} challenge(s) per partition",
                            f"{cfg.partitions} partition(s) per sector"],
        f"depth {cfg.tree_d_depth}", "C and R-last")
