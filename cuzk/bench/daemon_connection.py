"""The daemon a command talks to: --addr (else the default socket), --token, --tls-ca (also `cuzk top`)."""

from __future__ import annotations

from cuzk.engine.config import EngineConfig
from cuzk.server.client import ProvingClient

from .errors import BenchError


def address(args) -> str:
    """--addr, else the address a default-configured daemon listens on."""
    return args.addr or EngineConfig().listen_address()


def client_for(args) -> ProvingClient:
    """A client of a daemon that answers within 10 s, else BenchError."""
    c = ProvingClient(address(args), token=getattr(args, "token", ""), tls_ca=getattr(args, "tls_ca", ""))
    try:
        c.wait_ready(10)
    except Exception:
        raise BenchError(f"no daemon answers at {c.address} (start one with `cuzk daemon`)") from None
    return c
