"""Filecoin PoSt requests (2 KiB sectors, as Curio sends them) for the engine, daemon and cluster tests,
and what an outside verifier checks of a proof of one: py-arkworks (groth16_oracle) under the .vk that
`cuzk setup --kind` wrote by its Filecoin name (the `filecoin_params` session fixture), against the public
inputs a verifier derives with no cuzk code on the path (filecoin/post_oracle.py: from the randomness,
and the sector ids and comm_r in the proofs' own bytes).

    fields = request_fields("window", seed)       # SubmitProofRequest fields: vanilla_proofs, randomness, ...
    statement("window", fields)                   # the partition's public inputs, [int]
    assert_post_proves(params_dir, "window", fields, proof, reported_public_inputs)
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _d in ("filecoin", "engine"):
    if str(HERE / _d) not in sys.path:
        sys.path.insert(0, str(HERE / _d))

from groth16_oracle import PROOF_BYTES, R, read_vk, verify_job, verify_one  # noqa: E402
from post_oracle import post_public_inputs  # noqa: E402

from cuzk.circuits.filecoin.post import provable as post_kind
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for
from cuzk.circuits.filecoin.post.request import sample_request

CIRCUITS = {"window": "window-post-2KiB", "winning": "winning-post-2KiB"}
KIND_OF = {cid: kind for kind, cid in CIRCUITS.items()}


def config(kind: str):
    return post_config_for(kind, SECTOR_SIZES["2KiB"])


def request_fields(kind: str, seed=None, **over) -> dict:
    """A valid request's fields for `kind` ("window" or "winning"), changed by `over`."""
    fields = sample_request(config(kind), seed)
    fields.update(over)
    return fields


def statement(kind: str, fields: dict) -> list[int]:
    """The public inputs a verifier derives: from the randomness, the sector ids and comm_r in the
    proofs' own bytes (bincode: sector_id u64 then comm_r [32] lead each FallbackPoStSectorProof)."""
    cfg = config(kind)
    sectors = [(int.from_bytes(v[:8], "little"), bytes(v[8:40])) for v in fields["vanilla_proofs"]]
    return post_public_inputs(fields["randomness"], sectors, cfg.sectors_per_partition, cfg.challenges_per_sector,
                              cfg.nodes, api=cfg.api_version, unroll=66 if kind == "winning" else 0)


def vk_path(params_dir, kind: str) -> Path:
    return Path(params_dir) / f"{post_kind.parameter_stem(config(kind))}.vk"


def assert_post_proves(params_dir, circuit_id: str, fields: dict, proof: bytes, reported=None) -> None:
    """`proof` proves the statement of the request `fields` under the .vk in `params_dir` of the PoSt
    circuit `circuit_id`; `reported` (the public inputs the engine returned, if given) is that statement."""
    kind = KIND_OF[circuit_id]
    expected = statement(kind, fields)
    if reported is not None:
        assert [list(map(int, xs)) for xs in reported] == [expected], "the engine reports other public inputs"
    vk = read_vk(vk_path(params_dir, kind))
    assert len(proof) == PROOF_BYTES
    assert verify_job(vk, proof, [expected]), f"{circuit_id}: the proof does not verify"
    assert not verify_one(vk, proof, [(expected[0] + 1) % R] + expected[1:])  # the oracle itself can say no
