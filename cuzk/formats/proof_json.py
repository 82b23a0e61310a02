"""A job's BN254 proof bytes as snarkjs proof.json, in plain Python.

The `cuzk prove --daemon` client turns the daemon's answer into the files a
one-shot `cuzk prove` writes, and imports nothing heavy to do it (no numpy, no
numba): BN254's wire encoding (proof_bytes.py) is already the affine
coordinates, big-endian, A.x A.y B.x.c1 B.x.c0 B.y.c1 B.y.c0 C.x C.y, so this is
a reordering into decimal strings as snarkjs writes them (json_coords.py: c0
first, z = 1; infinity as snarkjs writes it). snarkjs_json.write_json's layout.
BLS12-381's 192 bytes are compressed: those go through proof_bytes.decode.
"""

from __future__ import annotations

import json
from pathlib import Path

BN254_SIZE = 256


def bn254_proof_json(data: bytes) -> dict:
    if len(data) != BN254_SIZE:
        raise ValueError(f"a BN254 proof is {BN254_SIZE} bytes, got {len(data)}")
    v = [str(int.from_bytes(data[i : i + 32], "big")) for i in range(0, BN254_SIZE, 32)]

    def g1(x, y):
        return ["0", "1", "0"] if x == y == "0" else [x, y, "1"]

    if all(c == "0" for c in v[2:6]):
        b = [["0", "0"], ["1", "0"], ["0", "0"]]
    else:
        b = [[v[3], v[2]], [v[5], v[4]], ["1", "0"]]
    return {"pi_a": g1(v[0], v[1]), "pi_b": b, "pi_c": g1(v[6], v[7]), "protocol": "groth16", "curve": "bn128"}


def write(path, obj) -> None:
    """As snarkjs writes JSON (JSON.stringify(obj, null, 1)); snarkjs_json.write_json's layout."""
    Path(path).write_text(json.dumps(obj, indent=1), encoding="utf-8")
