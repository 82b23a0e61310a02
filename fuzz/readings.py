"""What the fuzz targets that read one input several ways share (an aggregate on either curve, a
vanilla proof as each registered proof or shape): the readings that succeed, or our error."""

from __future__ import annotations

from typing import Callable, Iterable


def every_reading(read: Callable, ways: Iterable) -> list:
    """[read(way) for each way that accepts the input]; the last CuzkError when none does."""
    from cuzk.errors import CuzkError

    out, last = [], None
    for way in ways:
        try:
            out.append(read(way))
        except CuzkError as exc:
            last = exc
    if not out:
        raise last
    return out
