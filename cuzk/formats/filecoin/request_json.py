"""A Filecoin request (SubmitProofRequest's fields) as a JSON file, bytes as base64.

`cuzk bench gen-vanilla` writes one for Filecoin's circuits and `--vanilla FILE` / `cuzk circuit
check --request FILE` read it back: {"proof_kind": "POREP_SEAL_COMMIT", "vanilla_proof": "<base64 of
Curio's C1 envelope>", "registered_proof": 8, "sector_number": 7, "miner_id": 1000} for a PoRep;
{"proof_kind": "WINDOW_POST_PARTITION", "vanilla_proofs": ["<base64 bincode>", ...], "randomness":
"<base64>", "registered_proof": 13, "miner_id": ..., "partition_index": 0} for a PoSt.
"""

from __future__ import annotations

import base64
import json
import re

from cuzk.errors import FormatError

PROOF_KINDS = ("POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION", "WINNING_POST")
BYTES_FIELDS = ("vanilla_proof", "randomness", "comm_r_old", "comm_r_new", "comm_d_new")
INT_FIELDS = ("registered_proof", "miner_id", "partition_index", "sector_size", "sector_number")
FIELDS = ("proof_kind", "vanilla_proofs") + BYTES_FIELDS + INT_FIELDS


def to_json(fields: dict) -> bytes:
    out = {}
    for k, v in fields.items():
        if k == "vanilla_proofs":
            out[k] = [base64.b64encode(bytes(x)).decode() for x in v]
        elif k in BYTES_FIELDS:
            out[k] = base64.b64encode(bytes(v)).decode()
        else:
            out[k] = v
    return json.dumps(out, indent=1).encode()


def looks_like_request(data: bytes) -> bool:
    """Whether a file's bytes are a request object, not a document that is one vanilla proof (Curio's
    C1 envelope, a bare SealCommitPhase1Output: its registered_proof is a name, its vanilla_proofs an
    object), judged from the first key and value without parsing the whole file."""
    m = re.match(rb'\s*\{\s*"([A-Za-z_]+)"\s*:\s*(\S)', data[:400])
    if not m or m.group(1).decode() not in FIELDS:
        return False
    key, first = m.group(1), m.group(2)
    return not ((key == b"registered_proof" and first == b'"') or (key == b"vanilla_proofs" and first == b"{"))


def is_request(obj) -> bool:
    """A decoded JSON value that is a request object (it carries vanilla_proof or vanilla_proofs)."""
    return isinstance(obj, dict) and ("vanilla_proofs" in obj or "vanilla_proof" in obj)


def from_json(data: bytes, what: str = "request") -> dict:
    """The fields of a request file written by `to_json`; FormatError naming the field otherwise."""
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FormatError(f"{what}: not a JSON request ({exc})") from None
    return from_object(obj, what)


def from_object(obj, what: str = "request") -> dict:
    """`from_json` of an already decoded JSON value."""
    if not is_request(obj):
        raise FormatError(f"{what}: expected an object with vanilla_proof or a vanilla_proofs list")
    fields: dict = {}
    for k, v in obj.items():
        try:
            if k == "vanilla_proofs":
                if not isinstance(v, list):
                    raise ValueError("expected a list of base64 strings")
                fields[k] = [base64.b64decode(x, validate=True) for x in v]
            elif k in BYTES_FIELDS:
                fields[k] = base64.b64decode(v, validate=True)
            elif k in INT_FIELDS:
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise ValueError("expected a non-negative integer")
                fields[k] = v
            elif k == "proof_kind":
                if v not in PROOF_KINDS:
                    raise ValueError(f"expected one of {', '.join(PROOF_KINDS)}")
                fields[k] = v
            else:
                raise ValueError("unknown field")
        except (ValueError, TypeError) as exc:
            raise FormatError(f"{what}: {k}: {exc}") from None
    return fields
