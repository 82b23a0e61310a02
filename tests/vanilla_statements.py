"""The public inputs a request's vanilla proof states, read from its bytes by the circuits'
definitions, with no cuzk code on the path (for the tests' outside oracles):

    PoSt kinds (cuzk/circuits/post.py)   per sector, in order: comm_r, then its challenge indices
    synthetic (cuzk/engine/catalog)      per partition: y (the request carries it after the seed)

Layouts: the vanilla container as cuzk/formats/vanilla.py's docstring gives it (magic, u32 header
length, JSON header, 8-byte aligned arrays; field elements 32 bytes little-endian); the synthetic
circuit's bytes as its module docstring gives them.
"""

from __future__ import annotations

import json
import struct

import numpy as np

VANILLA_MAGIC = b"CUZKVAN1"
SYNTHETIC_MAGIC = b"CUZKSYNT"


def container_arrays(data: bytes) -> tuple[dict, dict]:
    """The vanilla container's JSON header and its arrays (layout: cuzk/formats/vanilla.py's docstring)."""
    magic, hlen = struct.unpack_from("<8sI", data)
    assert magic == VANILLA_MAGIC
    header = json.loads(data[12 : 12 + hlen])
    start = (12 + hlen + 7) // 8 * 8
    arrays = {}
    for m in header["arrays"]:
        dtype = np.dtype(np.uint8 if m["dtype"] == "u1" else "<u8")
        count = int(np.prod(m["shape"]))
        arrays[m["name"]] = np.frombuffer(data, dtype, count, start + m["offset"]).reshape(m["shape"])
    return header, arrays


def expected_public_inputs(vanilla) -> list[list[int]]:
    """Per partition, the public inputs (ONE excluded) of the statement the request makes: `vanilla`
    is the request's bytes, or a decoded vanilla proof (anything with the container's `arrays`)."""
    if not isinstance(vanilla, (bytes, bytearray, memoryview)):
        arrays = vanilla.arrays
    elif vanilla[:8] == SYNTHETIC_MAGIC:  # <8sHHIII header, then per partition: seed (32), y (32, LE)
        _, _, _, _, partitions, _ = struct.unpack_from("<8sHHIII", vanilla)
        return [[int.from_bytes(vanilla[24 + 64 * p + 32 : 24 + 64 * p + 64], "little")]
                for p in range(partitions)]
    else:
        header, arrays = container_arrays(vanilla)
        assert header["kind"] in ("winning-post-like", "window-post-like"), header["kind"]
    comm_r, challenges = arrays["comm_r"], arrays["challenges"]  # [P, S, 32] LE field elements, [P, S, K]
    out = []
    for p in range(comm_r.shape[0]):
        xs = []
        for s in range(comm_r.shape[1]):
            xs.append(int.from_bytes(comm_r[p, s].tobytes(), "little"))
            xs.extend(int(k) for k in challenges[p, s])
        out.append(xs)
    return out
