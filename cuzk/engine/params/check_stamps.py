"""Which parameter files have had every point checked, so that a restart does not check them again.

A daemon checks every point of a parameter file it reads by its Filecoin name (on the curve, in the
prime-order subgroup): the files come from outside. That is most of loading: 16.6 s for the 2 KiB
WinningPoSt and WindowPoSt files on the 2-core VM (426k G1 and 83k G2 points), again on every restart.
Once a section of a file has been checked, a stamp under the build cache (`checked-params/`) records it
for the file's identity: its path, size, inode, device, and modification and change times. Writing
the file, or replacing it, changes its change time, which no user can set back, so a stamp never
vouches for other bytes than those checked; anything unknown is checked again. Files cuzk writes from
points it computed itself (the TEST parameters of `cuzk setup --kind` and `cuzk demo`) are stamped
when written. A stamp that cannot be written (a read-only cache) only means the next load checks.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cuzk.formats.bellperson import SECTIONS
from cuzk.user_dirs import build_cache_dir


class CheckStamps:
    def __init__(self, root: Path | None = None):
        self.root = root or build_cache_dir() / "checked-params"

    def _stamp(self, path, st: os.stat_result, section: str) -> Path:
        ident = (f"{os.path.realpath(path)}\0{st.st_size}\0{st.st_ino}\0{st.st_dev}\0{st.st_mtime_ns}\0"
                 f"{st.st_ctime_ns}")
        return self.root / f"{hashlib.sha256(ident.encode()).hexdigest()[:32]}.{section}"

    def done(self, path, st: os.stat_result, section: str) -> bool:
        """Whether `section` of the file at `path`, as `st` describes it, was checked."""
        return self._stamp(path, st, section).exists()

    def mark(self, path, st: os.stat_result, section: str) -> None:
        try:
            stamp = self._stamp(path, st, section)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.touch()
        except OSError:
            pass

    def mark_written(self, path) -> None:
        """Every section of a .params file cuzk has just written from its own points."""
        st = os.stat(path)
        for section, _ in SECTIONS:
            self.mark(path, st, section)
