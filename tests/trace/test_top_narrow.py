"""`cuzk top --once` at 80 columns: nothing cut, every circuit row told apart; --help names the socket."""

from __future__ import annotations

import pytest

from cuzk.cli.main import main
from cuzk.engine.catalog import synthetic
from cuzk.server.local_daemon import LocalDaemon

FAMILIES = ("window-post", "winning-post", "porep", "snap")
SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")  # Filecoin's circuits, served at every size


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    """Filecoin's 20 circuits and the synthetic ones (parameters are made or read only when used: none
    here)."""
    d = LocalDaemon(tmp_path_factory.mktemp("daemon"), f"""shutdown_timeout = "2m"
[gpus]
backend = "cpu"
gpu_threads = 1
[srs]
param_cache = "{tmp_path_factory.mktemp("params")}"
[circuits]
synthetic = true
""").start()
    yield d
    d.stop()


def test_top_once_fits_80_columns(daemon, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    with daemon.client() as c:
        c.pause(True)
        try:
            ids = [c.submit(circuit_id="synthetic-medium", vanilla_proof=synthetic.generate_vanilla("tiny"),
                            priority=3).job_id for _ in range(2)]
            assert main(["top", "--once", "--addr", daemon.address]) == 0
        finally:
            for job_id in ids:
                c.cancel(job_id)
            c.pause(False)
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert not any("…" in line for line in lines), "\n".join(lines)
    circuits = [f"{k}-{s}" for s in SIZES for k in FAMILIES]
    rows = {line.split()[0]: line for line in lines if line.split() and line.split()[0] in circuits}
    assert sorted(rows) == sorted(circuits)  # one row each, the whole id first
    assert all(row.split()[1] == "COLD" for row in rows.values())
    for job_id in ids:
        (line,) = [line for line in lines if job_id[:12] in line]
        assert line.split()[:3] == [job_id[:12], "synthetic-medium", "high"]
    for header in ("scheduled", "batching", "busy", "memory", "elapsed", "users"):
        assert any(header in line.split() for line in lines), header


def test_top_reads_cuzk_addr(daemon, monkeypatch, capsys):
    monkeypatch.setenv("CUZK_ADDR", daemon.address)
    assert main(["top", "--once"]) == 0
    assert f"cuzk top {daemon.address}" in capsys.readouterr().out


def test_top_help_names_the_default_socket(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as exc:
        main(["top", "--help"])
    assert exc.value.code == 0
    text = "".join(capsys.readouterr().out.split())  # argparse wraps long words (and at hyphens)
    assert f"unix:{tmp_path}/cuzk/cuzk.sock" in text
