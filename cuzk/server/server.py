"""The gRPC server: listens on a unix socket (default) or TCP, serves a ProvingEngine.

Access rules (anyone who can connect can submit work):
- a unix socket is owner-only (0600) from the moment it exists: it is bound
  inside a private (0700) directory, made 0600, then renamed into place;
- a TCP listener starts only with a bearer token configured; with a token,
  every call must carry "authorization: Bearer <token>" (compared in
  constant time) or it gets UNAUTHENTICATED, on any listener;
- TLS (server certificate and key) is optional on either.
"""

from __future__ import annotations

import hmac
import logging
import os
import socket
import tempfile
from concurrent import futures
from pathlib import Path

import grpc

from cuzk.engine import ProvingEngine
from cuzk.errors import CuzkError
from cuzk.proto import proving_pb2_grpc as pbg

from . import address as addr
from .service import ProvingEngineService

log = logging.getLogger("cuzk.server")

AUTH_HEADER = "authorization"


class AccessError(CuzkError, ValueError):
    """The listener's access settings cannot be used (daemon.auth_token*, daemon.tls_*)."""


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


class TokenInterceptor(grpc.ServerInterceptor):
    """Refuses every call whose bearer token is missing or wrong (UNAUTHENTICATED)."""

    def __init__(self, token: str):
        self._expected = f"Bearer {token}".encode()

    def intercept_service(self, continuation, handler_call_details):
        sent = ""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == AUTH_HEADER:
                sent = value if isinstance(value, str) else value.decode("latin-1")
                break
        if hmac.compare_digest(sent.encode("utf-8", "replace"), self._expected):
            return continuation(handler_call_details)
        why = "missing bearer token" if not sent else "wrong bearer token"
        return grpc.unary_unary_rpc_method_handler(
            lambda request, context: context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                                   f"{why} (send metadata 'authorization: Bearer <token>')"))


def _read_pem(path: str, what: str) -> bytes:
    try:
        data = Path(os.path.expanduser(path)).read_bytes()
    except OSError as exc:
        raise AccessError(f"{what}: cannot read {path} ({exc.strerror})") from None
    if b"-----BEGIN" not in data:
        raise AccessError(f"{what}: {path} is not a PEM file")
    return data


class DaemonServer:
    def __init__(self, engine: ProvingEngine, listen: str, max_message_bytes: int = 128 << 20, threads: int = 64,
                 token: str = "", tls_cert: str = "", tls_key: str = ""):
        self.engine = engine
        self.address = addr.parse(listen)
        self.max_message_bytes = max_message_bytes
        self.threads = threads
        self.token = token
        self.tls = (tls_cert, tls_key) if tls_cert or tls_key else None
        self._server: grpc.Server | None = None
        if self.address.kind == "tcp" and not token:
            raise AccessError(f"{self.address}: a TCP listener needs a bearer token (set daemon.auth_token_file or "
                              "daemon.auth_token), or listen on a unix socket")
        if self.tls is not None and not all(self.tls):
            raise AccessError("daemon.tls_cert and daemon.tls_key: TLS needs both")

    def _credentials(self):
        if self.tls is None:
            return None
        cert = _read_pem(self.tls[0], "daemon.tls_cert")
        key = _read_pem(self.tls[1], "daemon.tls_key")
        return grpc.ssl_server_credentials([(key, cert)])

    def _bind(self, server: grpc.Server, target: str, creds) -> int:
        try:
            return server.add_secure_port(target, creds) if creds else server.add_insecure_port(target)
        except RuntimeError as exc:
            raise addr.AddressError(f"cannot listen on {self.address}: {exc}") from None

    def start(self) -> "DaemonServer":
        a = self.address
        creds = self._credentials()
        if a.kind == "unix":
            os.makedirs(os.path.dirname(a.path), exist_ok=True)
            if os.path.exists(a.path):
                if _socket_alive(a.path):
                    raise addr.AddressError(f"{a}: another daemon is already listening there")
                os.unlink(a.path)  # stale socket of an earlier run
        interceptors = [TokenInterceptor(self.token)] if self.token else []
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="cuzk-rpc"),
                             options=channel_options(self.max_message_bytes), interceptors=interceptors)
        pbg.add_ProvingEngineServicer_to_server(ProvingEngineService(self.engine), server)
        if a.kind == "unix":
            private = tempfile.mkdtemp(prefix=".cuzk-bind-", dir=os.path.dirname(a.path))  # 0700
            try:
                tmp = os.path.join(private, "s")
                if not self._bind(server, f"unix:{tmp}", creds):
                    raise addr.AddressError(f"cannot listen on {a}")
                os.chmod(tmp, 0o600)
                os.rename(tmp, a.path)
            finally:
                if os.path.exists(os.path.join(private, "s")):
                    os.unlink(os.path.join(private, "s"))
                os.rmdir(private)
        elif not self._bind(server, a.target, creds):
            raise addr.AddressError(f"cannot listen on {a}")
        server.start()
        self._server = server
        log.info("listening on %s%s%s", a, " (TLS)" if creds else "", " (bearer token required)" if self.token else "")
        return self

    def stop(self, grace: float | None = 5.0) -> None:
        if self._server is not None:
            self._server.stop(grace).wait()
            self._server = None
            if self.address.kind == "unix" and os.path.exists(self.address.path):
                os.unlink(self.address.path)
