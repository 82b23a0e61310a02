"""Listen/dial addresses: "unix:PATH", "unix:///abs/path", "host:port", "http://host:port"."""

from __future__ import annotations

import os
from dataclasses import dataclass

from cuzk.errors import CuzkError


class AddressError(CuzkError, ValueError):
    pass


@dataclass(frozen=True)
class Address:
    kind: str  # "unix" | "tcp"
    target: str  # what grpc expects
    path: str = ""  # socket path (unix)

    def __str__(self) -> str:
        return f"unix://{self.path}" if self.kind == "unix" else self.target


def parse(text: str) -> Address:
    t = text.strip()
    if not t:
        raise AddressError("empty address; expected unix:PATH or host:port")
    if t.startswith("unix:"):
        rest = t[len("unix:"):]
        path = rest[2:] if rest.startswith("//") else rest
        if not path:
            raise AddressError(f"{text!r}: no socket path")
        path = os.path.abspath(os.path.expanduser(path))
        return Address("unix", f"unix:{path}", path)
    for scheme in ("http://", "https://", "grpc://", "tcp://"):
        if t.startswith(scheme):
            t = t[len(scheme):]
    t = t.rstrip("/")
    host, sep, port = t.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise AddressError(f"{text!r}: expected unix:PATH or host:port")
    return Address("tcp", f"{host}:{port}")
