"""A bounds-checked reader for the bincode bytes Rust's serde writes (bincode 1.x defaults).

The Filecoin payloads use fixed-width little-endian integers: u32 enum
variant tags, u64 sequence lengths and usize values, and byte arrays
([u8; 32] domains) written raw. Every read checks the bytes that remain, so a
lying length prefix fails before anything is allocated; every failure is a
FormatError whose one line names where it happened (`where`, then the
field).
"""

from __future__ import annotations

import struct

from cuzk.errors import FormatError

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


class Reader:
    def __init__(self, data, where: str):
        try:
            self.data = memoryview(data).cast("B")
        except TypeError:
            raise FormatError(f"{where}: expected bytes, got {type(data).__name__}") from None
        self.pos = 0
        self.where = where

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def error(self, field: str, problem: str) -> FormatError:
        return FormatError(f"{self.where}: {field}: {problem}")

    def _need(self, n: int, field: str) -> None:
        if n > self.remaining:
            raise self.error(field, f"truncated: needs {n} bytes at offset {self.pos}, {self.remaining} left")

    def take(self, n: int, field: str) -> bytes:
        self._need(n, field)
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out

    def skip(self, n: int, field: str) -> None:
        self._need(n, field)
        self.pos += n

    def u32(self, field: str) -> int:
        self._need(4, field)
        (v,) = _U32.unpack_from(self.data, self.pos)
        self.pos += 4
        return v

    def u64(self, field: str) -> int:
        self._need(8, field)
        (v,) = _U64.unpack_from(self.data, self.pos)
        self.pos += 8
        return v

    def length(self, field: str, element_bytes: int) -> int:
        """A sequence length, refused when its elements (element_bytes each, at least) cannot fit."""
        n = self.u64(f"{field} length")
        if n * max(element_bytes, 1) > self.remaining:
            raise self.error(field, f"length {n} cannot fit the {self.remaining} bytes left "
                                    f"({element_bytes} bytes each)")
        return n

    def expect(self, value: int, expected: int, field: str, what: str) -> None:
        if value != expected:
            raise self.error(field, f"expected {expected} {what}, got {value}")

    def end(self) -> None:
        if self.remaining:
            raise FormatError(f"{self.where}: {self.remaining} trailing bytes after the last field "
                              f"(offset {self.pos})")


class Writer:
    """The inverse, for encoders and tests."""

    def __init__(self):
        self.parts: list[bytes] = []

    def u32(self, v: int) -> "Writer":
        self.parts.append(_U32.pack(v))
        return self

    def u64(self, v: int) -> "Writer":
        self.parts.append(_U64.pack(v))
        return self

    def raw(self, b) -> "Writer":
        self.parts.append(bytes(b))
        return self

    def getvalue(self) -> bytes:
        return b"".join(self.parts)
