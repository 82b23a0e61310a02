"""A strict reader of small JSON documents, position by position, for layouts whose bulk is parsed
elsewhere (the C1 output's proofs): no escapes (no producer writes any), unsigned integers only,
every error a FormatError naming the document, the field and the offset."""

from __future__ import annotations

import numpy as np

from cuzk.errors import FormatError

_U64 = (1 << 64) - 1


_BRACKET = np.zeros(256, dtype=np.int8)
_BRACKET[[91, 123]] = 1
_BRACKET[[93, 125]] = -1


class JsonReader:
    """A strict reader of the little JSON around the proofs (no escapes: no producer writes any)."""

    def __init__(self, data, where: str):
        self.buf = data
        self.pos = 0
        self.where = where

    def error(self, field_: str, problem: str) -> FormatError:
        return FormatError(f"{self.where}: {field_}: {problem}")

    def ws(self) -> None:
        b, n = self.buf, len(self.buf)
        while self.pos < n and b[self.pos] in b" \t\r\n":
            self.pos += 1

    def peek(self, field_: str) -> int:
        self.ws()
        if self.pos >= len(self.buf):
            raise self.error(field_, f"truncated: the document ends at offset {self.pos}")
        return self.buf[self.pos]

    def expect(self, ch: bytes, field_: str) -> None:
        c = self.peek(field_)
        if c != ch[0]:
            raise self.error(field_, f"expected {ch.decode()!r} at offset {self.pos}, got {chr(c)!r}")
        self.pos += 1

    def string(self, field_: str) -> str:
        raw = self.raw_string(field_)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.error(field_, "a string is not UTF-8") from None

    def raw_string(self, field_: str) -> bytes:
        """A string's bytes (no escapes)."""
        self.expect(b'"', field_)
        end = self.buf.find(b'"', self.pos)
        if end < 0:
            raise self.error(field_, f"unterminated string at offset {self.pos - 1}")
        raw = self.buf[self.pos:end]
        if b"\\" in raw:
            raise self.error(field_, f"escape sequences are not supported (offset {self.pos})")
        self.pos = end + 1
        return raw

    def uint(self, field_: str, limit: int = _U64) -> int:
        self.peek(field_)
        start = self.pos
        b, n = self.buf, len(self.buf)
        while self.pos < n and 48 <= b[self.pos] <= 57:
            self.pos += 1
        text = b[start:self.pos]
        if not text:
            raise self.error(field_, f"expected an unsigned integer at offset {start}")
        if len(text) > 1 and text[0] == 48:
            raise self.error(field_, f"a number with a leading zero at offset {start}")
        if self.pos < n and b[self.pos] in b".eE-+":
            raise self.error(field_, f"expected an unsigned integer at offset {start}")
        if len(text) > 20 or int(text) > limit:
            raise self.error(field_, f"{text[:24].decode()} is out of range (at most {limit})")
        return int(text)

    def bytes32(self, field_: str) -> np.ndarray:
        self.expect(b"[", field_)
        out = np.empty(32, dtype=np.uint8)
        for i in range(32):
            if i:
                self.expect(b",", field_)
            out[i] = self.uint(f"{field_}[{i}]", 255)
        if self.peek(field_) != ord("]"):
            raise self.error(field_, "expected 32 bytes")
        self.pos += 1
        return out

    def object_keys(self, field_: str, value):
        """Iterate over an object's keys, calling value(key) to read each value."""
        self.expect(b"{", field_)
        seen = []
        if self.peek(field_) == ord("}"):
            self.pos += 1
            return seen
        while True:
            key = self.string(f"{field_} key")
            if key in seen:
                raise self.error(key, "duplicate field")
            seen.append(key)
            self.expect(b":", key)
            value(key)
            c = self.peek(field_)
            self.pos += 1
            if c == ord("}"):
                return seen
            if c != ord(","):
                raise self.error(field_, f"expected ',' or '}}' at offset {self.pos - 1}, got {chr(c)!r}")

    def span(self, field_: str) -> tuple[int, int]:
        """The extent [start, end) of the array or object starting here, by bracket depth (brackets
        inside strings are not told apart: the skeleton check of the proofs refuses those anyway)."""
        c = self.peek(field_)
        if c not in b"[{":
            raise self.error(field_, f"expected an array or object at offset {self.pos}")
        start = self.pos
        a = np.frombuffer(self.buf, dtype=np.uint8)[start:]
        depth = np.cumsum(_BRACKET[a], dtype=np.int32)
        closed = np.flatnonzero(depth == 0)
        if not closed.size:
            raise self.error(field_, f"unterminated (truncated document?) from offset {start}")
        self.pos = start + int(closed[0]) + 1
        return start, self.pos

    def end(self) -> None:
        self.ws()
        if self.pos != len(self.buf):
            raise FormatError(f"{self.where}: {len(self.buf) - self.pos} trailing bytes after the document "
                              f"(offset {self.pos})")
