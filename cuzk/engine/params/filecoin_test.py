"""Test parameters of Filecoin's circuits, under the file names rust-fil-proofs gives them.

`cuzk setup --kind window-post|winning-post|porep|snap --sector-size 2KiB --params-dir D` and `cuzk demo`
write them here: a single-party Groth16 setup of the circuit, kept as bellperson .params/.vk files
(and the .meta rust-fil-proofs keeps beside them) named as rust-fil-proofs names them
(`v28-proof-of-spacetime-fallback-...`, `v28-stacked-proof-of-replication-...`,
`v28-empty-sector-update-...`), where an engine whose circuits.filecoin_params is D reads them
(catalog/filecoin_post.py, filecoin_sector.py). They are test
keys: the network's are the ceremony's (paramfetch), and proofs made with these do not verify
there.
"""

from __future__ import annotations

import json
from pathlib import Path

from cuzk.circuits.filecoin import kinds as provable
from cuzk.formats.bellperson import write_params, write_vk
from cuzk.groth16 import setup

from .check_stamps import CheckStamps


def stem(cfg, directory) -> Path:
    """The .params/.vk/.meta files' common path for the circuit of `cfg` (a PostConfig, PorepConfig or
    SnapConfig)."""
    return Path(directory) / provable.parameter_stem(cfg)


def circuit(cfg):
    """The compiled circuit the parameters are for (built once, then cached on disk)."""
    return provable.compiled(cfg)


def write(cfg, directory, backend=None, progress: bool | None = None) -> tuple[Path, Path, int]:
    """Fresh random parameters for `cfg`'s circuit in `directory` (created); (params, vk, domain size).
    The .params file is written last: its presence means the set is complete. OSError as it comes."""
    s = stem(cfg, directory)
    s.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{s}.meta").write_text(json.dumps({"sector_size": cfg.sector_size}))
    pk = setup.generate(circuit(cfg), backend=backend, progress=progress)
    params, vk = Path(f"{s}.params"), Path(f"{s}.vk")
    write_vk(vk, pk.vk)
    write_params(params, pk)
    CheckStamps().mark_written(params)  # our own points: a daemon that reads them need not check them
    return params, vk, pk.domain_size
