"""A miner's prover id: the 32 bytes that stand for the miner in the proofs' inputs (PoRep's
replica_id, WinningPoSt's sector selection)."""

from __future__ import annotations

from cuzk.errors import FormatError


def prover_id(miner_id: int) -> bytes:
    """The 32-byte prover id of an ID-address miner: its LEB128 varint, zero padded
    (Curio cuzk-core prover.rs `make_prover_id`; Go's address payload)."""
    if not 0 <= int(miner_id) < 1 << 64:
        raise FormatError(f"miner_id: must be a u64, got {miner_id}")
    out, v = bytearray(), int(miner_id)
    while True:
        byte, v = v & 0x7F, v >> 7
        out.append(byte | (0x80 if v else 0))
        if not v:
            break
    return bytes(out) + bytes(32 - len(out))
