"""Loading numba kernels from the disk cache without the setup only compiling needs.

A one-shot `cuzk prove` of a 9,260-constraint circom circuit loads ~29 kernels from numba's cache,
and two costs of numba's cache loading are there for compiling, not for loading:

* numba's `Cache.load_overload` first calls `target_context.refresh()`: on its first call in a
  process that imports numba.np.*, numba.cpython.*, numba.typed, ... and installs every typing and
  lowering registry (~100 ms on the 2-core VM). A cached kernel needs none of it: it is machine
  code, an environment and a function descriptor. What loading needs is NRT's runtime symbols,
  which `rtsys.initialize` provides (cached code may allocate arrays). Compiling refreshes the
  context itself (numba's CompilerBase), so a kernel that misses the cache still compiles as before.
* every llvmlite call takes llvmlite's lock, and numba hooks that lock to broadcast a
  "numba:llvm_lock" event on each acquire and release; a load makes thousands of such calls (the
  module's symbols scanned one call at a time), so ~2 events per call. The events feed only the
  lock timers numba installs while compiling, and compiling cannot run meanwhile: the dispatcher
  holds numba's global compiler lock over a cache load. So the hook is off during a load.

`install()` replaces `numba.core.caching.Cache.load_overload` with a function doing the above, once
per process, where the numba at hand has the internals it relies on (else it leaves numba alone).
Commands that precompile their kernel lists install it (cuzk/cli/first_run.py): their kernels all come
from the cache. Measured in lab/JOURNAL.md (2026-12-07).
"""

from __future__ import annotations

import threading

_installed = False
_lock = threading.Lock()


def _load_overload(self, sig, target_context):
    import llvmlite.binding as ll
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)  # NRT's symbols: cached code may allocate
    llvm_lock = ll.ffi.lib._lock
    hooks, llvm_lock._cblist = llvm_lock._cblist, []  # a new list: a thread iterating the old one keeps it
    try:
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        # None when the guard swallowed an error, as in numba's own load_overload
    finally:
        llvm_lock._cblist = hooks


def _supported() -> bool:
    """Whether this numba and llvmlite have what _load_overload uses."""
    try:
        import llvmlite.binding as ll
        from numba.core import caching
        from numba.core.runtime import rtsys
    except ImportError:
        return False
    return (hasattr(caching.Cache, "_load_overload") and hasattr(caching.Cache, "_guard_against_spurious_io_errors")
            and callable(getattr(rtsys, "initialize", None))
            and isinstance(getattr(getattr(ll.ffi.lib, "_lock", None), "_cblist", None), list))


def install() -> bool:
    """Load cached kernels the lean way in this process from now on; False where numba lacks what it needs."""
    global _installed
    with _lock:
        if not _installed and _supported():
            from numba.core import caching

            caching.Cache.load_overload = _load_overload
            _installed = True
        return _installed
