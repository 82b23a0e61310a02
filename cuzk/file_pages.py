"""Pages of a file mapping read once leave the process's resident memory.

A key's .params vectors and a compiled circuit's matrices are read through read-only mappings of their
files. Once read (decoded into pinned memory, uploaded to a GPU) the mapped pages would stay counted in
the process's resident set until the mapping closes, beside the copy made from them: 47 GB for a 32 GiB
PoRep key. `drop` tells the kernel this process no longer needs them (MADV_DONTNEED). They stay in the page
cache; a later read faults them in again from there or from the file, with the same bytes.
"""

from __future__ import annotations

import mmap

import numpy as np


def _mapping(a: np.ndarray):
    """(the mmap.mmap under `a`, `a`'s byte offset in it), or (None, 0) where `a` views no file mapping."""
    base = a
    while base is not None:
        if isinstance(base, mmap.mmap):
            try:
                start = np.frombuffer(base, dtype=np.uint8, count=0).ctypes.data
            except (TypeError, ValueError, BufferError):
                return None, 0
            return base, a.ctypes.data - start
        m = getattr(base, "_mmap", None)  # np.memmap keeps its mmap.mmap here
        if isinstance(m, mmap.mmap):
            base = m
            continue
        base = getattr(base, "base", None)
    return None, 0


def drop(source, off: int = 0, length: int | None = None) -> None:
    """Unmap from this process the resident pages of `source`: an mmap.mmap (bytes off .. off + length,
    default to its end), or a contiguous numpy array viewing one (np.memmap or a view of it: all its
    bytes). Nothing for other memory, or where the platform has no MADV_DONTNEED."""
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is None:
        return
    if isinstance(source, np.ndarray):
        if not source.flags.c_contiguous or source.nbytes == 0:
            return
        length = source.nbytes
        source, off = _mapping(source)
        if source is None:
            return
    length = len(source) - off if length is None else length
    if length <= 0 or off < 0:
        return
    start = off - off % mmap.PAGESIZE
    source.madvise(advice, start, min(len(source), off + length) - start)
