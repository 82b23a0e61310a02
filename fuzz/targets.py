"""One fuzz target per reader of outside bytes: `fn(data: bytes)` parses the
input as deeply as the daemon or CLI would and returns normally or raises
the project's own error (CuzkError and subclasses). Anything else escaping a
target -- another exception type, a hang, an allocation sized by an
unchecked header field -- is a defect in the parser.

The atheris harnesses (fuzz/fuzz_<name>.py) and the CI smoke tests
(tests/reliability/test_fuzz_*.py) both drive these functions.
"""

from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from cuzk.errors import CuzkError

from . import aggregate_target as _aggregate
from . import c1_output_target as _c1_output
from . import post_vanilla_target as _post_vanilla
from . import snap_vanilla_target as _snap_vanilla
from . import seeds as S

ACCEPTED = (CuzkError,)


@dataclass(frozen=True)
class Target:
    name: str
    fn: Callable[[bytes], object]
    seeds: Callable[[], list[bytes]]
    modules: tuple[str, ...]  # what the atheris harness instruments for coverage


@functools.lru_cache(maxsize=None)
def _scratch() -> Path:
    """A private folder for readers that take a path (on tmpfs when there is one)."""
    import atexit
    import shutil

    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="cuzk-fuzz-", dir=base))
    atexit.register(shutil.rmtree, path, True)
    return path


def _as_file(data: bytes, suffix: str) -> Path:
    path = _scratch() / f"input{suffix}"
    path.write_bytes(data)
    return path


# ---- bellperson --------------------------------------------------------------------------


def bellperson_params(data: bytes):
    from cuzk.formats import bellperson

    layout = bellperson.scan_params(data, "params")
    return [bellperson.decode_section(data, layout, name, "params") for name, _ in bellperson.SECTIONS]


def bellperson_vk(data: bytes):
    from cuzk.formats import bellperson

    return bellperson.vk_from_bytes(data)


def filecoin_vk(data: bytes):
    from cuzk.formats.filecoin.verifying_key import vk_from_any

    return vk_from_any(data)


def bellperson_proof(data: bytes):
    from cuzk.formats import bellperson

    return bellperson.proofs_from_bytes(data)


# ---- snarkjs -----------------------------------------------------------------------------


def zkey(data: bytes):
    from cuzk.formats.zkey import ZKey

    with ZKey(_as_file(data, ".zkey")) as zk:
        pk = zk.proving_key
        bases = [pk.bases(name) for name in ("a", "b_g1", "b_g2", "l", "h")]
        zk.validate()
        return zk.vk, bases, zk.contributions


def snarkjs_proof(data: bytes):
    from cuzk.formats import snarkjs_json as sj

    return sj.proof_from_json(sj.parse_json(data, "proof.json"))


def snarkjs_vk(data: bytes):
    from cuzk.formats import snarkjs_json as sj

    return sj.vk_from_json(sj.parse_json(data, "verification_key.json"))


def snarkjs_public(data: bytes):
    from cuzk.curve import BN254
    from cuzk.formats import snarkjs_json as sj

    obj = sj.parse_json(data, "public.json")
    return sj.public_from_json(obj), sj.public_from_json(obj, curve=BN254) if isinstance(obj, list) else None


def r1cs(data: bytes):
    from cuzk.formats.circom_r1cs import r1cs_from_bytes

    return r1cs_from_bytes(data)


def wtns(data: bytes):
    from cuzk.formats.wtns import wtns_from_bytes

    return wtns_from_bytes(data)


# ---- vanilla proofs ------------------------------------------------------------------------


def vanilla(data: bytes):
    """The synthetic circuit's vanilla-proof decoder (Filecoin's decoders are post_vanilla, c1_output
    and snap_vanilla)."""
    from cuzk.engine.catalog import synthetic

    n, rounds = synthetic.instances("tiny"), synthetic.PRESETS["tiny"][1]
    return synthetic.decode_vanilla(data, n=n, partitions=synthetic.PARTITIONS, rounds=rounds,
                                    circuit="synthetic-tiny").ys


# ---- configuration -----------------------------------------------------------------------------


def config(data: bytes):
    """The daemon's TOML file, read as `cuzk daemon --config` reads it, and every derived value."""
    from cuzk.engine import config as cfgmod

    cfg = cfgmod.load(_as_file(data, ".toml"))
    return (cfg.total_budget_bytes(), cfg.pinned_budget_bytes(), cfg.shutdown_timeout_s(), cfg.job_retention_s(),
            cfg.max_message_bytes(), cfg.listen_address(), cfg.param_dir(), cfg.synthesis_threads())


# ---- gRPC -----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _registry():
    """The built-in circuits (Filecoin's PoSt, PoRep and SnapDeals at 2 KiB) and the synthetic one, as
    the daemon registers them."""
    from cuzk.engine.catalog import filecoin_post, filecoin_sector, synthetic
    from cuzk.engine.catalog.registry import CircuitRegistry

    reg = CircuitRegistry()
    for catalog in (filecoin_post, filecoin_sector):
        catalog.register(reg, _scratch() / "params", sizes=("2KiB",))
    synthetic.register(reg, _scratch() / "params")
    return reg


def grpc_request(data: bytes):
    """A SubmitProofRequest as the daemon handles it up to queueing: field
    checks, the request fingerprint, circuit routing and the vanilla proof's
    decoder. Bytes protobuf itself refuses never reach our code."""
    from google.protobuf.message import DecodeError

    from cuzk.proto import proving_pb2 as pb
    from cuzk.server import convert

    try:
        msg = pb.SubmitProofRequest.FromString(data)
    except DecodeError:
        return None
    req = convert.request_from_proto(msg)
    req.fingerprint()
    spec = _registry().resolve(req)
    return spec.public_inputs(req)


def grpc_vk(data: bytes):
    """A GetVerifyingKeyResponse as the client decodes it, then prepared for verification."""
    from google.protobuf.message import DecodeError

    from cuzk.groth16.verifier import PreparedVerifyingKey
    from cuzk.proto import proving_pb2 as pb
    from cuzk.server import convert

    try:
        msg = pb.GetVerifyingKeyResponse.FromString(data)
    except DecodeError:
        return None
    return PreparedVerifyingKey(convert.vk_from_proto(msg))


_CURVE = ("cuzk.curve.encoding", "cuzk.formats.json_coords")
TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("bellperson_params", bellperson_params, S.bellperson_params, ("cuzk.formats.bellperson",) + _CURVE),
    Target("bellperson_vk", bellperson_vk, S.bellperson_vk, ("cuzk.formats.bellperson",) + _CURVE),
    Target("bellperson_proof", bellperson_proof, S.bellperson_proof, ("cuzk.formats.bellperson",) + _CURVE),
    Target("filecoin_vk", filecoin_vk, S.filecoin_vk, ("cuzk.formats.filecoin.verifying_key",
                                                      "cuzk.formats.bellperson") + _CURVE),
    Target("zkey", zkey, S.zkey, ("cuzk.formats.zkey", "cuzk.formats.iden3_sections", "cuzk.formats.snarkjs_domain")),
    Target("snarkjs_proof", snarkjs_proof, S.snarkjs_proof, ("cuzk.formats.snarkjs_json",) + _CURVE),
    Target("snarkjs_vk", snarkjs_vk, S.snarkjs_vk, ("cuzk.formats.snarkjs_json",) + _CURVE),
    Target("snarkjs_public", snarkjs_public, S.snarkjs_public, ("cuzk.formats.snarkjs_json",)),
    Target("r1cs", r1cs, S.r1cs, ("cuzk.formats.circom_r1cs", "cuzk.formats.iden3_sections", "cuzk.r1cs.compiled")),
    Target("wtns", wtns, S.wtns, ("cuzk.formats.wtns", "cuzk.formats.iden3_sections")),
    Target("vanilla", vanilla, S.vanilla, ("cuzk.engine.catalog.synthetic",)),
    Target("config", config, S.config, ("cuzk.engine.config", "cuzk.engine.resources.memory")),
    Target("grpc_request", grpc_request, S.grpc_request, ("cuzk.server.convert", "cuzk.engine.catalog.registry",
                                                          "cuzk.engine.catalog.filecoin_post",
                                                          "cuzk.engine.catalog.filecoin_sector",
                                                          "cuzk.circuits.filecoin.porep.provable",
                                                          "cuzk.circuits.filecoin.snap.provable", "cuzk.engine.types")),
    Target("aggregate_proof", _aggregate.aggregate_proof, _aggregate.seeds,
           ("cuzk.aggregate.proof_format", "cuzk.aggregate.gt", "cuzk.aggregate.encoding")),
    Target("grpc_vk", grpc_vk, S.grpc_vk, ("cuzk.server.convert", "cuzk.groth16.verifier") + _CURVE),
    Target("post_vanilla", _post_vanilla.post_vanilla, _post_vanilla.seeds,
           ("cuzk.circuits.filecoin.post.vanilla_bincode", "cuzk.codec.bincode",
            "cuzk.circuits.filecoin.post.partition", "cuzk.circuits.filecoin.post.challenges",
            "cuzk.circuits.filecoin.post.vanilla_proof")),
    Target("c1_output", _c1_output.c1_output, _c1_output.seeds,
           ("cuzk.circuits.filecoin.porep.c1_read", "cuzk.circuits.filecoin.porep.c1_layout",
            "cuzk.circuits.filecoin.porep.c1_verify", "cuzk.codec.json_reader",
            "cuzk.circuits.filecoin.porep.challenges", "cuzk.circuits.filecoin.common.tree_r_last")),
    Target("snap_vanilla", _snap_vanilla.snap_vanilla, _snap_vanilla.seeds,
           ("cuzk.circuits.filecoin.snap.vanilla_bincode", "cuzk.codec.bincode",
            "cuzk.circuits.filecoin.snap.circuit", "cuzk.circuits.filecoin.snap.vanilla_proof")),
)}


def run_one(name: str, data: bytes) -> bool:
    """True when target `name` parsed `data`, False when it raised our error; anything else propagates."""
    try:
        TARGETS[name].fn(bytes(data))
    except ACCEPTED:
        return False
    return True


def write_corpus(name: str, folder: Path, extra: bool = False) -> Path:
    """Seeds of parser `name` as files in `folder` (created)."""
    folder.mkdir(parents=True, exist_ok=True)
    seeds = list(TARGETS[name].seeds())
    if extra and name == "r1cs":
        seeds += S.fixture_r1cs()
    for i, data in enumerate(seeds):
        (folder / f"seed-{i}").write_bytes(data)
    return folder
