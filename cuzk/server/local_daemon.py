"""Run `cuzk daemon` as a child process on a private unix socket.

Used where a real daemon is part of the job: `cuzk bench batch --compare`
(one daemon per configuration), `cuzk demo`, and the daemon tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from cuzk import progress

from .client import ProvingClient


class DaemonError(RuntimeError):
    pass


class LocalDaemon:
    def __init__(self, workdir, config_text: str = "", env: dict | None = None, log_to: Path | None = None,
                 progress: bool = False):
        """`config_text`: TOML appended after the [daemon] listen/state_dir lines this class writes.
        `progress`: the daemon's first-run notices ("cuzk: compiling ...", which it writes to its
        log) are echoed on this process's stderr while it runs."""
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.socket = self.workdir / "cuzk.sock"
        self.config = self.workdir / "cuzk.toml"
        self.log = log_to or self.workdir / "daemon.log"
        self.config.write_text(f'[daemon]\nlisten = "unix://{self.socket}"\nstate_dir = "{self.workdir}"\n'
                               + config_text)
        self.env = {**(env or {}), **({"CUZK_PROGRESS": "1"} if progress else {})}
        self.progress = progress
        self.proc: subprocess.Popen | None = None
        self._logfh = None
        self._relay: threading.Thread | None = None

    @property
    def address(self) -> str:
        return f"unix:{self.socket}"

    def start(self, ready_timeout: float = 600.0) -> "LocalDaemon":
        self._logfh = open(self.log, "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "cuzk", "daemon", "--config", str(self.config)],
                                     stdout=self._logfh, stderr=subprocess.STDOUT, env={**os.environ, **self.env})
        if self.progress:
            self._relay = threading.Thread(target=self._relay_notices, name="daemon-notices", daemon=True)
            self._relay.start()
        end = time.monotonic() + ready_timeout
        while True:
            if self.proc.poll() is not None:
                raise DaemonError(f"the daemon exited with status {self.proc.returncode}:\n{self.log_text()}")
            if self.socket.exists():
                try:
                    with self.client() as c:
                        c.wait_ready(5)
                        c.status()
                    return self
                except Exception:
                    pass
            if time.monotonic() > end:
                self.kill()
                raise DaemonError(f"the daemon was not ready within {ready_timeout:.0f} s:\n{self.log_text()}")
            time.sleep(0.1)

    def _relay_notices(self) -> None:
        """Echo the log's "cuzk: " notice lines to stderr, as "cuzk daemon: ...", until the daemon exits
        (each a whole line: cuzk.progress keeps them off a status line shown in place)."""
        with open(self.log, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            while True:
                line = fh.readline()
                if line.startswith(b"cuzk: ") and line.endswith(b"\n"):
                    progress.line("cuzk daemon: " + line[6:].decode(errors="replace").rstrip())
                elif line and not line.endswith(b"\n") and self.proc is not None and self.proc.poll() is None:
                    fh.seek(-len(line), os.SEEK_CUR)  # a line still being written: read it whole
                    time.sleep(0.05)
                elif not line:
                    if self.proc is None or self.proc.poll() is not None:
                        return
                    time.sleep(0.2)

    def client(self) -> ProvingClient:
        return ProvingClient(self.address)

    def log_text(self, tail: int = 6000) -> str:
        try:
            return self.log.read_text(errors="replace")[-tail:]
        except OSError:
            return ""

    def terminate(self, timeout: float = 600.0) -> int:
        """SIGTERM (drain) and wait for the exit status."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        finally:
            self._close_log()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._close_log()

    def stop(self) -> None:
        """Terminate politely, then forcibly (for cleanup paths)."""
        try:
            self.terminate(60)
        except subprocess.TimeoutExpired:
            self.kill()

    def _close_log(self) -> None:
        if self._logfh is not None:
            self._logfh.close()
            self._logfh = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
