"""The gRPC server: listens on a unix socket (default) or TCP, serves an Engine.

A unix socket's stale file is removed and its directory created; the socket
is made owner-only (0600), since anyone who can connect can submit work.
"""

from __future__ import annotations

import logging
import os
import socket
from concurrent import futures

import grpc

from cuzk.engine import Engine
from cuzk.proto import proving_pb2_grpc as pbg

from . import address as addr
from .service import ProvingEngineService

log = logging.getLogger("cuzk.server")


def channel_options(max_message_bytes: int) -> list[tuple[str, int]]:
    return [("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes)]


def _socket_alive(path: str) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(path)
            return True
        except OSError:
            return False


class DaemonServer:
    def __init__(self, engine: Engine, listen: str, max_message_bytes: int = 128 << 20, threads: int = 64):
        self.engine = engine
        self.address = addr.parse(listen)
        self.max_message_bytes = max_message_bytes
        self.threads = threads
        self._server: grpc.Server | None = None

    def start(self) -> "DaemonServer":
        a = self.address
        if a.kind == "unix":
            os.makedirs(os.path.dirname(a.path), exist_ok=True)
            if os.path.exists(a.path):
                if _socket_alive(a.path):
                    raise addr.AddressError(f"{a}: another daemon is already listening there")
                os.unlink(a.path)  # stale socket of an earlier run
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="cuzk-rpc"),
                             options=channel_options(self.max_message_bytes))
        pbg.add_ProvingEngineServicer_to_server(ProvingEngineService(self.engine), server)
        try:
            bound = server.add_insecure_port(a.target)
        except RuntimeError as exc:
            raise addr.AddressError(f"cannot listen on {a}: {exc}") from None
        if not bound:
            raise addr.AddressError(f"cannot listen on {a}")
        server.start()
        if a.kind == "unix":
            os.chmod(a.path, 0o600)
        self._server = server
        log.info("listening on %s", a)
        return self

    def stop(self, grace: float | None = 5.0) -> None:
        if self._server is not None:
            self._server.stop(grace).wait()
            self._server = None
            if self.address.kind == "unix" and os.path.exists(self.address.path):
                os.unlink(self.address.path)
