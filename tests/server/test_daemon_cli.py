"""`cuzk daemon` command line: default config, bad config."""

import subprocess
import sys
import tomllib
import time

from cuzk.engine.config import EngineConfig, from_dict


def run(*args):
    return subprocess.run([sys.executable, "-m", "cuzk", *args], capture_output=True, text=True, timeout=120)


def test_print_default_config_round_trips():
    r = run("daemon", "--print-default-config")
    assert r.returncode == 0
    assert from_dict(tomllib.loads(r.stdout)) == EngineConfig()


def test_bad_config_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[scheduler]\nmax_batch_size = -3\n")
    r = run("daemon", "--config", str(bad))
    assert r.returncode == 2 and "scheduler.max_batch_size" in r.stderr and "Traceback" not in r.stderr
    r = run("daemon", "--config", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "no such config file" in r.stderr


def test_second_daemon_on_a_live_socket_is_refused(daemon):
    cfg = daemon.workdir / "second.toml"
    cfg.write_text(f'[daemon]\nlisten = "unix://{daemon.socket}"\nstate_dir = "{daemon.workdir / "second"}"\n'
                   '[gpus]\nbackend = "cpu"\n')
    with daemon.client() as c:
        before = c.status().uptime_seconds
    t0 = time.monotonic()
    r = run("daemon", "--config", str(cfg))
    elapsed = time.monotonic() - t0
    assert r.returncode == 2 and "already listening" in r.stderr
    # the first daemon is unaffected: the same process, its socket still there, still answering,
    # its uptime grown by the time the second one took (not restarted)
    assert daemon.proc.poll() is None and daemon.socket.exists()
    with daemon.client() as c:
        assert c.status().uptime_seconds >= before + int(elapsed)
