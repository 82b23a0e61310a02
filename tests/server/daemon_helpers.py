"""A test daemon: `cuzk daemon` as a subprocess on the synthetic circuit, and Filecoin's circuits when
given the session's test parameters (`filecoin_params`)."""

from __future__ import annotations

from pathlib import Path

from cuzk.server.local_daemon import LocalDaemon


class Daemon(LocalDaemon):
    def __init__(self, workdir: Path, param_dir: Path, settings: str = "", faults: str = "", daemon_settings: str = "",
                 filecoin_params: Path | None = None):
        super().__init__(workdir, f"""shutdown_timeout = "5m"
{daemon_settings}
[gpus]
backend = "cpu"
gpu_threads = 1
[srs]
param_cache = "{param_dir}"
[circuits]
synthetic = true
filecoin_params = "{filecoin_params or ''}"
{settings}
""", env={"CUZK_FAULTS": faults} if faults else None)
