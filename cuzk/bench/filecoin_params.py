"""TEST parameters of Filecoin's circuits (PoSt, PoRep, SnapDeals) for the daemons a benchmark starts (`cuzk demo`,
`cuzk bench batch --compare`).

Written once into a cache folder by the code `cuzk setup --kind` runs
(cuzk.engine.params.filecoin_test), under the file names rust-fil-proofs gives
them, so a daemon whose circuits.filecoin_params is that folder finds them. A
stamp beside each set records the compiled circuit's topology hash: parameters
made for an older wiring of the circuit are made again. They come from a
single-party setup, so proofs made with them do not verify on the network.
"""

from __future__ import annotations

import fcntl
import time
from pathlib import Path

from cuzk.circuits.filecoin import kinds as provable
from cuzk.circuits.filecoin.porep.config import porep_config_for
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for
from cuzk.circuits.filecoin.snap.config import snap_config_for
from cuzk.engine.catalog.filecoin_post import PROOF_KINDS
from cuzk.engine.params import filecoin_test

# window-post, winning-post, porep, snap
FAMILIES = {f"{kind}-post": kind for kind in PROOF_KINDS} | {"porep": "porep", "snap": "snap"}


def is_filecoin(spec) -> bool:
    return spec is not None and spec.family in FAMILIES


def config_of(spec):
    """The config (PostConfig, PorepConfig, SnapConfig) of a registered window-post-, winning-post-, porep- or
    snap-<size> circuit."""
    size = SECTOR_SIZES[spec.preset]
    if spec.family == "porep":
        return porep_config_for(size)
    if spec.family == "snap":
        return snap_config_for(size)
    return post_config_for(FAMILIES[spec.family], size)


def ensure(directory: Path, specs, log=print) -> Path:
    """Test parameters of each Filecoin spec in `directory`, made where missing or stale; the directory."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        cfg = config_of(spec)
        stem = filecoin_test.stem(cfg, directory)
        stamp = Path(f"{stem}.cuzk-topology")
        want = filecoin_test.circuit(cfg).topology_hash.hex()
        with open(f"{stem}.lock", "a+b") as lock:  # one writer per set (two demos may share the folder)
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _current(stem, stamp, want):
                continue
            log(f"making TEST parameters of {provable.circuit_id(cfg)} (a single-party setup, once; kept in "
                f"{directory}) ...", flush=True)
            t0 = time.monotonic()
            filecoin_test.write(cfg, directory, progress=False)
            stamp.write_text(want)
            log(f"  done in {time.monotonic() - t0:.1f} s", flush=True)
    return directory


def _current(stem: Path, stamp: Path, want: str) -> bool:
    try:
        return (Path(f"{stem}.params").exists() and Path(f"{stem}.vk").exists()
                and stamp.read_text().strip() == want)
    except OSError:
        return False
