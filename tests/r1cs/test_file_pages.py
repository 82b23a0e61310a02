"""cuzk.file_pages.drop: a compiled circuit's matrices, read through the .pce file's mapping, leave this
process's resident memory once dropped (the kernel's count: /proc/self/statm's shared pages) and read the
same values afterwards; memory that is no file mapping is left alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cuzk import file_pages
from cuzk.bench.prove import stamped_sha256
from cuzk.r1cs import pce_file

pytestmark = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux's /proc/self/statm")


def shared_bytes() -> int:
    import os

    return int(Path("/proc/self/statm").read_text().split()[2]) * os.sysconf("SC_PAGE_SIZE")


def test_a_compiled_circuits_matrices_leave_resident_memory(tmp_path):
    cc, _, _ = stamped_sha256(18)
    path = tmp_path / "c.pce"
    pce_file.save(cc, path)
    mapped = pce_file.load(path)
    arrays = [a for m in mapped.matrices for a in (m.indptr, m.cols, m.coeff_idx)]
    total = sum(a.nbytes for a in arrays)
    assert total > 4 << 20
    before = shared_bytes()
    sums = [int(a.astype(np.uint64).sum()) for a in arrays]  # every page read
    read = shared_bytes() - before
    assert read > total // 2, (read, total)
    for a in arrays:
        file_pages.drop(a)
    assert shared_bytes() - before < total // 8
    assert [int(a.astype(np.uint64).sum()) for a in arrays] == sums
    for m, orig in zip(mapped.matrices, cc.matrices):  # the values are the saved ones
        assert np.array_equal(m.cols, orig.cols) and np.array_equal(m.indptr, orig.indptr)


def test_memory_that_maps_no_file_is_left_alone():
    a = np.arange(1 << 20, dtype=np.uint64)
    file_pages.drop(a)
    assert int(a[-1]) == (1 << 20) - 1 and int(a.sum()) == ((1 << 20) - 1) * (1 << 19)
