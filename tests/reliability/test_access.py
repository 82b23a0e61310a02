"""Access (issue 9 item 6): owner-only unix socket, TCP only with a bearer token, wrong or
missing token UNAUTHENTICATED, optional TLS. The TLS certificate is self-signed, made in the
test with the `cryptography` package when installed, else with the `openssl` command."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

import grpc
import pytest
from reliability_helpers import free_port, make_engine

from cuzk.engine.config import ConfigError, loads
from cuzk.proto import proving_pb2 as pb
from cuzk.server.client import ProvingClient
from cuzk.server.server import AccessError, DaemonServer

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, param_dir):
    e = make_engine(tmp_path_factory.mktemp("access"), param_dir)
    yield e
    e.shutdown(drain=False)


def _make_cert(folder) -> tuple[str, str, str]:
    """(cert.pem, key.pem, how) for CN=localhost, SAN localhost and 127.0.0.1."""
    cert, key = str(folder / "cert.pem"), str(folder / "key.pem")
    try:
        import cryptography  # noqa: F401
    except ImportError:
        openssl = shutil.which("openssl")
        if openssl is None:
            pytest.skip("neither the cryptography package nor the openssl command is available")
        subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True)
        return cert, key, "openssl"
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    k = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    c = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(k.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
         .not_valid_after(now + datetime.timedelta(days=2))
         .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                     x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
         .sign(k, hashes.SHA256()))
    open(cert, "wb").write(c.public_bytes(serialization.Encoding.PEM))
    open(key, "wb").write(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return cert, key, "cryptography"


def _code(fn):
    with pytest.raises(grpc.RpcError) as e:
        fn()
    return e.value.code(), e.value.details()


def test_unix_socket_is_owner_only(engine, tmp_path):
    sock = tmp_path / "cuzk.sock"
    server = DaemonServer(engine, f"unix:{sock}").start()
    try:
        assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
        assert stat.S_ISSOCK(os.stat(sock).st_mode)
        assert os.listdir(tmp_path) == ["cuzk.sock"]  # the private bind directory is gone
        with ProvingClient(f"unix:{sock}") as c:
            assert c.status().memory_limit_bytes > 0
    finally:
        server.stop(0)


def test_tcp_needs_a_token(engine, tmp_path):
    with pytest.raises(AccessError, match="a TCP listener needs a bearer token"):
        DaemonServer(engine, f"127.0.0.1:{free_port()}")
    r = subprocess.run([sys.executable, "-m", "cuzk", "daemon", "--listen", f"127.0.0.1:{free_port()}",
                        "--state-dir", str(tmp_path / "st")], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert "needs a bearer token" in r.stderr and "Traceback" not in r.stderr


def test_token_from_config_file(tmp_path):
    (tmp_path / "tok").write_text(TOKEN + "\n")
    assert loads(f'[daemon]\nauth_token_file = "{tmp_path / "tok"}"').auth_token() == TOKEN
    with pytest.raises(ConfigError, match="daemon.auth_token_file: cannot read"):
        loads(f'[daemon]\nauth_token_file = "{tmp_path / "missing"}"')
    with pytest.raises(ConfigError, match="set one, not both"):
        loads(f'[daemon]\nauth_token = "x"\nauth_token_file = "{tmp_path / "tok"}"')
    with pytest.raises(ConfigError, match="TLS needs both"):
        loads('[daemon]\ntls_cert = "c.pem"')


def test_wrong_or_missing_token_is_unauthenticated(engine):
    addr = f"127.0.0.1:{free_port()}"
    server = DaemonServer(engine, addr, token=TOKEN).start()
    try:
        for token in ("", "wrong", TOKEN + "x", TOKEN[:-1]):
            with ProvingClient(addr, token=token) as c:
                code, details = _code(c.status)
                assert code == grpc.StatusCode.UNAUTHENTICATED
                assert ("missing" if not token else "wrong") in details
                code, _ = _code(lambda: c.submit(circuit_id="synthetic-tiny", vanilla_proof=b"x"))
                assert code == grpc.StatusCode.UNAUTHENTICATED
        assert engine.store.active() == [] and engine.store.counts() == {}  # nothing got through
        with ProvingClient(addr, token=TOKEN) as c:
            assert c.status().memory_limit_bytes > 0
    finally:
        server.stop(0)


def test_tls_with_token(engine, tmp_path):
    cert, key, how = _make_cert(tmp_path)
    print(f"certificate made with {how}")
    port = free_port()
    server = DaemonServer(engine, f"127.0.0.1:{port}", token=TOKEN, tls_cert=cert, tls_key=key).start()
    try:
        with ProvingClient(f"localhost:{port}", token=TOKEN, tls_ca=cert) as c:
            assert c.status().memory_limit_bytes > 0
        with ProvingClient(f"localhost:{port}", token="wrong", tls_ca=cert) as c:
            assert _code(c.status)[0] == grpc.StatusCode.UNAUTHENTICATED
        with ProvingClient(f"localhost:{port}", token=TOKEN) as plain:  # no TLS: the handshake fails
            code, _ = _code(lambda: plain.stub.GetStatus(pb.GetStatusRequest(), timeout=10))
            assert code == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0)
    with pytest.raises(AccessError, match="daemon.tls_key: cannot read"):
        DaemonServer(engine, f"127.0.0.1:{free_port()}", token=TOKEN, tls_cert=cert,
                     tls_key=str(tmp_path / "nope.pem")).start()
