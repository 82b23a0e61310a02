"""The Prometheus endpoint (daemon.metrics_listen): localhost unless a host is named, and the
daemon's bearer token when one is set (401 without it). Real HTTP requests on 127.0.0.1."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import pytest
from prometheus_client import CollectorRegistry, Counter

from cuzk.engine.observe.metrics import metrics_address, serve_registry
from cuzk.server.client import ProvingClient
from cuzk.server.local_daemon import LocalDaemon

TOKEN = "metrics-token-for-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, token: str | None = None) -> tuple[int, str, dict]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode(), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


@pytest.fixture
def registry():
    r = CollectorRegistry()
    Counter("cuzk_test_things", "Things counted by the test", registry=r).inc(3)
    return r


@pytest.mark.parametrize("addr", [":0", "0"])
def test_no_host_means_localhost(registry, addr):
    assert metrics_address(addr) == ("127.0.0.1", 0)
    server = serve_registry(registry, addr)
    try:
        assert server.server_address[0] == "127.0.0.1"
        status, body, _ = get(f"http://127.0.0.1:{server.port}/metrics")
        assert status == 200 and "cuzk_test_things_total 3.0" in body
    finally:
        server.shutdown()


def test_a_named_host_is_used():
    assert metrics_address("0.0.0.0:9100") == ("0.0.0.0", 9100)
    assert metrics_address("[::1]:9100") == ("::1", 9100)
    for bad in ("localhost", "host:port", "h:70000"):
        with pytest.raises(ValueError, match="expected host:port"):
            metrics_address(bad)


def test_the_token_is_required_when_set(registry):
    server = serve_registry(registry, "127.0.0.1:0", token=TOKEN)
    url = f"http://127.0.0.1:{server.port}/metrics"
    try:
        status, body, headers = get(url)
        assert status == 401 and "missing bearer token" in body and headers["WWW-Authenticate"].startswith("Bearer")
        assert "cuzk_test_things" not in body
        status, body, _ = get(url, "wrong")
        assert status == 401 and "wrong bearer token" in body
        status, body, _ = get(url, TOKEN)
        assert status == 200 and "cuzk_test_things_total 3.0" in body
        assert get(f"http://127.0.0.1:{server.port}/elsewhere", TOKEN)[0] == 404
        assert get(f"http://127.0.0.1:{server.port}/elsewhere")[0] == 401  # nothing said before the token
    finally:
        server.shutdown()


class TokenDaemon(LocalDaemon):
    def client(self) -> ProvingClient:
        return ProvingClient(self.address, token=TOKEN)


def test_daemon_metrics_on_localhost_with_its_token(tmp_path, param_dir):
    port = free_port()
    d = TokenDaemon(tmp_path / "daemon", f"""auth_token = "{TOKEN}"
metrics_listen = ":{port}"
shutdown_timeout = "1m"
[gpus]
backend = "cpu"
gpu_threads = 1
[srs]
param_cache = "{param_dir}"
""")
    with d:
        url = f"http://127.0.0.1:{port}/metrics"
        assert get(url)[0] == 401
        status, body, _ = get(url, TOKEN)
        assert status == 200 and "cuzk_uptime_seconds" in body
        assert f"metrics over HTTP at http://127.0.0.1:{port}/metrics (bearer token required)" in d.log_text()
