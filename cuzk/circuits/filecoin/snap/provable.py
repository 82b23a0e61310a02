"""Filecoin's SnapDeals (EmptySectorUpdate) partition as a provable thing: id, compiled circuit,
witness, parameter name.

One circuit per sector size, `snap-<size>` (snap-32GiB: sixteen partitions of 81,049,499
constraints); every partition of an update is the same circuit (the partition index k is a
public input), so a size has one parameter file, named as rust-fil-proofs names it
(`snap_config.parameter_stem`: v28-empty-sector-update-merkletree-poseidon_hasher-...). The
compiled circuit and the witnesses come from the stamped partition (`snap_stamped`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cuzk.errors import FormatError

from cuzk.circuits.filecoin.common import circuit_description, partition_cache
from . import circuit as snap_circuit
from . import stamped as snap_stamped
from .config import ALLOWED_SIZES, SnapConfig, snap_config, snap_config_for
from .request import decode_update, sample_request  # noqa: F401  (the kind's sample request)
from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES

FAMILY = "snap"
SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")
config_for = snap_config_for
# storage-proofs-update tests/circuit.rs (v28): constraints per partition, public inputs with ONE
PUBLISHED = {2 << 10: (1_705_039, 5, "storage-proofs-update tests/circuit.rs, v28"),
             32 << 30: (81_049_499, 5, "storage-proofs-update test_empty_sector_update_constraints_32gib, v28")}
CIRCUIT_VERSION = 1  # bump when the circuit's wiring changes (invalidates cached .pce files)


def circuit_id(cfg: SnapConfig) -> str:
    return f"snap-{cfg.size_name}"


def parameter_stem(cfg: SnapConfig) -> str:
    return cfg.parameter_stem()


def inputs(cfg: SnapConfig, proof, k: int, h: int, comm_r_old, comm_d_new, comm_r_new) -> snap_circuit.SnapInputs:
    """A decoded `snap_proof.SnapPartitionProof` of partition k and the update's public values as the
    circuit's arrays; FormatError on a node >= r."""
    try:
        return snap_circuit.SnapInputs.from_proof(cfg, proof, k, h, comm_r_old, comm_d_new, comm_r_new)
    except ValueError as exc:
        raise FormatError(f"partition {k}: {exc}") from None


def witness(cfg: SnapConfig, x: snap_circuit.SnapInputs, out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """(w = [1, inputs..., aux...] Montgomery, public inputs) of one partition."""
    return partition_cache.witness(lambda cs: snap_stamped.synthesize(cs, cfg, x), out)


def cache_path(cfg: SnapConfig) -> Path:
    return partition_cache.cache_path(circuit_id(cfg), CIRCUIT_VERSION)


counts = snap_circuit.counts  # one partition's sizes from its gadgets' sizes (nothing built)
compiled = partition_cache.compiler(snap_config_for, circuit_id, CIRCUIT_VERSION, snap_stamped.synthesize)


def request_config(request):
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


def parse(req, base: SnapConfig, vanilla_bytes=None):
    """A request for the circuit of `base`: its partition proofs decoded and checked as the verifier
    checks them (request.decode_update)."""
    cid = circuit_id(base)
    cfg = request_config(req)
    if cfg.sector_size != base.sector_size:
        raise FormatError(f"{cid}: the request is for {cfg.size_name} sectors ({cfg.name})")
    return decode_update(cfg, list(req.vanilla_proofs), req.comm_r_old, req.comm_r_new, req.comm_d_new)


def partition(update, p: int, out=None):
    """(w, public inputs) of partition p of a parsed update."""
    x = inputs(update.cfg, update.partitions[p], p, update.h, *update.commitments)
    return witness(update.cfg, x, out)


def public_inputs(update) -> list[list[int]]:
    return [update.public_inputs(k) for k in range(len(update.partitions))]


def describe(cfg: SnapConfig) -> tuple[str, list[str]]:
    """The circuit's title and its trees, as `cuzk circuit info` prints them."""
    return circuit_description.describe(
        cfg, "EmptySectorUpdate", [f"{cfg.challenges} challenge(s) per partition",
                                   f"{cfg.partitions} partition(s) per update", f"h = {cfg.h_default}"],
        f"depth {cfg.challenge_bit_len}, {cfg.apex_leaves} apex leaves per partition", "R old and new")
