"""The byte-level mutations the parser fuzz tests share (hypothesis draws, in a fixed order): a seed,
then a few operations at drawn positions."""

from __future__ import annotations

from hypothesis import strategies as st


def splice(draw, data: bytearray, op: str, pos: int, insert_max: int, cut_max: int,
           dup_max: int | None = None) -> None:
    """Apply `op` at `pos`: "flip" one bit there (non-empty data), "truncate" there, "insert"
    1..insert_max random bytes, "delete" 1..cut_max bytes, "dup" (non-empty data) repeat the next
    1..dup_max bytes (default cut_max); any other op changes nothing."""
    if op == "flip" and data:
        data[pos] ^= 1 << draw(st.integers(0, 7))
    elif op == "truncate":
        del data[pos:]
    elif op == "insert":
        data[pos:pos] = draw(st.binary(min_size=1, max_size=insert_max))
    elif op == "delete":
        del data[pos:pos + draw(st.integers(1, cut_max))]
    elif op == "dup" and data:
        data[pos:pos] = data[pos:pos + draw(st.integers(1, dup_max or cut_max))]


def mutate(draw, seeds, rounds: int, ops, own=None, **sizes) -> bytes:
    """One of `seeds`, then 1..rounds operations drawn from `ops`, each at a drawn position:
    own(draw, data, op, pos) applies a test's own ones (True when it did), splice(**sizes) the rest."""
    data = bytearray(seeds[draw(st.integers(0, len(seeds) - 1))])
    for _ in range(draw(st.integers(1, rounds))):
        n = len(data)
        op = draw(st.sampled_from(ops))
        pos = draw(st.integers(0, max(0, n - 1)))
        if not (own and own(draw, data, op, pos)):
            splice(draw, data, op, pos, **sizes)
    return bytes(data)
