"""This process's resident memory, as GetStatus reports it (rss_bytes, peak_rss_bytes)."""

from __future__ import annotations

import os
import resource


def resident_split() -> tuple[int, int]:
    """(resident, of which file-backed or shared) bytes of this process now, from /proc/self/statm
    ((0, 0) where unreadable): what the kernel counts, against what the engine's budget counts."""
    try:
        with open("/proc/self/statm") as fh:
            fields = fh.read().split()
        page = os.sysconf("SC_PAGE_SIZE")
        return int(fields[1]) * page, int(fields[2]) * page
    except (OSError, ValueError, IndexError):
        return 0, 0


def rss_bytes() -> tuple[int, int]:
    """(current, peak) resident set size of this process in bytes (current 0 where unreadable). Linux
    updates the high-water mark getrusage reads lazily, so it can lag the current figure: the peak is
    never less than the current."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    current = resident_split()[0]
    return current, max(peak, current)
