"""A .params file read through its mmap leaves none of its pages in this process's resident memory once
each vector is decoded: the kernel's own count (/proc/self/statm's shared pages), not ours. A daemon
holding a 32 GiB PoRep key counted the file's 47 GB there beside the decoded copy."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

from cuzk.bench.prove import random_key, stamped_sha256
from cuzk.formats import bellperson

VECTORS = ("h", "l", "a", "b_g1", "b_g2")


def shared_pages_bytes() -> int:
    import os

    fields = Path("/proc/self/statm").read_text().split()
    return int(fields[2]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux's /proc/self/statm")
def test_decoded_vectors_leave_no_file_pages_resident(tmp_path):
    cc, _, _ = stamped_sha256(17)
    pk = random_key(cc)
    path = tmp_path / "k.params"
    bellperson.write_params(path, pk)
    size = path.stat().st_size
    assert size > 32 << 20
    gc.collect()
    before = shared_pages_bytes()
    opened = bellperson.open_params(path, cc, checked=False)
    decoded = {name: opened.bases(name) for name in VECTORS}
    grown = shared_pages_bytes() - before
    assert grown < size // 8, f"{grown} bytes of the {size}-byte file stayed resident"
    for name in VECTORS:  # the values are the written ones, and read again after their pages went
        assert np.array_equal(decoded[name], pk.bases(name)), name
    opened.drop_decoded()
    assert np.array_equal(opened.bases("h"), pk.bases("h"))
