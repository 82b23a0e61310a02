"""Loading numba kernels from the disk cache, and their first calls, without what only compiling needs.

A one-shot `cuzk prove` of a 9,260-constraint circom circuit loads ~29 kernels from numba's cache,
and much of what numba does around a cache load is there for compiling, not for loading (each
item's cost as measured on the 2-core VM, lab/JOURNAL.md 2026-12-07):

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
* a cached kernel is its object code plus its LLVM module as bitcode, kept so that a kernel compiled
  later can link it in. numba parses that bitcode on every load, only to list the symbols the
  kernel defines (~half of the load time: 62 of 129 ms over the 29 kernels). The object code's own
  ELF symbol table lists them, at a fraction of the cost; the bitcode is parsed when something
  links the kernel (a kernel compiled later that calls it), as numba would have had it parsed.
* a kernel that allocates (np.empty) carries the environment of numba's allocator, which numba
  rebuilds from its module's globals, importing numba.np.arrayobj with numba.cpython.unicode,
  charseq and hashing (~18 ms) though the machine code never reads those globals (only object-mode
  code does). A numba module not yet imported gets an environment with its name alone, kept by its
  kernel only: a later compile that needs the module imports it and makes its own. (The function
  that does so carries numba's name: a compile's cache entries name numba's function.)
* loading needs NRT, numba's runtime, whose few LLVM functions (reference counts, atomics) numba
  compiles in every process on its first cache load or compile (~20 ms: optimization passes and
  code generation). Their object code is kept in the kernels' folder, named by a digest of their IR,
  numba's and llvmlite's versions and the host CPU, and loaded as a cached kernel is.
* the first call of a kernel with a new kind of array types it in Python, and numba's typeof of an
  array first checks `isinstance(val, np.ma.MaskedArray)`, which imports numpy.ma (~30 ms with what
  it brings, on the VM). While numpy.ma is not imported no masked array can exist: the check is
  skipped until it is.
* every cached function's dispatcher checks that its cache folder is writable by creating a
  temporary file in it, ~200 times for the prover's generated modules, all in a handful of folders:
  the test file is written once per folder.

`install()` replaces `numba.core.caching.Cache.load_overload`, `CPUCodeLibrary._unserialize`,
`CPUCodeLibrary._get_module_for_linking`, `numba.core.runtime.nrtdynmod.compile_nrt_functions`,
`numba.core.environment._rebuild_env`, numba's typeof of np.ndarray and
`_CacheLocator.ensure_cache_path` with functions doing the above, once per process, where the
numba at hand has the internals they rely on (else it leaves numba alone); an object that is not a
64-bit little-endian ELF file is loaded numba's way. Commands that precompile their kernel lists
install it (cuzk/cli/first_run.py): their kernels all come from the cache; one that misses it
compiles as before, and what it writes to the cache is what numba would write.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
import sys
import tempfile
import threading

_installed = False
_lock = threading.Lock()
_original: dict[str, object] = {}
_BITCODE = "_cuzk_linking_bitcode"  # a loaded library's bitcode, until something links it


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


def _elf_symbols(obj: bytes) -> set[str] | None:
    """The names an ELF64 little-endian object file defines (its .symtab's entries with a section,
    sections' and files' own entries left out), or None for anything else."""
    if len(obj) < 64 or obj[:6] != b"\x7fELF\x02\x01":
        return None
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    if shentsize < 64 or shoff + shnum * shentsize > len(obj):
        return None
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for _, kind, _, _, off, size, link, _, _, entsize in sections:
        if kind != 2 or entsize < 24 or link >= shnum:  # SHT_SYMTAB
            continue
        str_off, str_size = sections[link][4], sections[link][5]
        for at in range(off, off + size - entsize + 1, entsize):
            name, info, _, shndx = struct.unpack_from("<IBBH", obj, at)
            if shndx != 0 and info & 0xF not in (3, 4) and 0 < name < str_size:  # defined; not STT_SECTION/FILE
                end = obj.find(b"\0", str_off + name, str_off + str_size)
                names.add(obj[str_off + name:end].decode())
    return names


def _unserialize(cls, codegen, state):
    name, kind, data = state
    symbols = _elf_symbols(data[0]) if kind == "object" else None
    if symbols is None:
        return _original["_unserialize"].__func__(cls, codegen, state)
    object_code, bitcode = data
    self = codegen.create_library(name)
    self.enable_object_caching()
    self._set_compiled_object(object_code)
    setattr(self, _BITCODE, bitcode)
    self._finalize_final_module()
    codegen._engine._defined_symbols |= symbols
    return self


def _get_module_for_linking(self):
    bitcode = self.__dict__.pop(_BITCODE, None)
    if bitcode is not None and self._shared_module is None:
        import llvmlite.binding as ll

        self._shared_module = ll.parse_bitcode(bitcode)
    return _original["_get_module_for_linking"](self)


def _compile_nrt_functions(ctx):
    import llvmlite
    import numba
    from numba.core.runtime import nrtdynmod

    from .codegen import cache_dir

    ir_mod, library = nrtdynmod.create_nrt_module(ctx)
    codegen = ctx.codegen()
    key = hashlib.sha256("\0".join(map(str, (ir_mod, numba.__version__, llvmlite.__version__,
                                               codegen.magic_tuple()))).encode()).hexdigest()[:16]
    path = cache_dir() / f"numba-nrt-{key}.pickle"
    try:
        with open(path, "rb") as fh:
            return codegen.unserialize_library(pickle.load(fh))
    except Exception:  # noqa: BLE001 -- missing or unreadable: compiled as numba does, and kept
        pass
    library.enable_object_caching()
    library.add_ir_module(ir_mod)
    library.finalize()
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(library.serialize_using_object_code(), fh)
        os.replace(tmp, path)
    except OSError:  # a read-only cache: compiled again next time, as before
        pass
    return library


def _rebuild_env(modname, consts, env_name):
    from numba.core import environment

    env = environment.lookup_environment(env_name)
    if env is not None or "_rebuild_env" not in _original or not (
            isinstance(modname, str) and modname.startswith("numba.") and modname not in sys.modules):
        # not installed: a cache entry that names this function (see below) is loaded numba's way
        rebuild = _original.get("_rebuild_env", environment._rebuild_env)
        return env if env is not None else rebuild(modname, consts, env_name)
    env = environment.Environment({"__name__": modname})  # not memoized: see the module docstring
    env.consts[:] = consts
    env.env_name = env_name
    return env


# Environments pickle as a call of numba.core.environment._rebuild_env, looked up when pickled: numba's
# name for this one, so that what a compile writes to the cache while it is installed names numba's
# function (a process without it, or another cuzk version, loads the entry as numba would).
_rebuild_env.__module__, _rebuild_env.__qualname__ = "numba.core.environment", "_rebuild_env"


def _typeof_ndarray(val, c):
    if "numpy.ma" in sys.modules:
        return _original["_typeof_ndarray"](val, c)
    from numba.core import errors, types
    from numba.np import numpy_support

    try:  # numba's own _typeof_ndarray, less its masked-array check
        dtype = numpy_support.from_dtype(val.dtype)
    except errors.NumbaNotImplementedError:
        raise errors.NumbaValueError(f"Unsupported array dtype: {val.dtype}") from None
    return types.Array(dtype, val.ndim, numpy_support.map_layout(val), readonly=not val.flags.writeable)


_writable: set[str] = set()


def _ensure_cache_path(self):
    path = self.get_cache_path()
    if path in _writable:
        os.makedirs(path, exist_ok=True)  # still made again if removed meanwhile
        return
    _original["ensure_cache_path"](self)
    _writable.add(path)


def _supported() -> bool:
    """Whether this numba and llvmlite have what _load_overload uses."""
    try:
        import llvmlite.binding as ll
        from numba.core import caching
        from numba.core.runtime import rtsys
    except ImportError:
        return False
    import numpy as np
    from numba.core import environment, errors
    from numba.core.codegen import CPUCodeLibrary, JitEngine
    from numba.core.runtime import nrtdynmod
    from numba.core.typing.typeof import typeof_impl
    from numba.np import numpy_support

    return (hasattr(caching.Cache, "_load_overload") and hasattr(caching.Cache, "_guard_against_spurious_io_errors")
            and callable(getattr(rtsys, "initialize", None))
            and isinstance(CPUCodeLibrary.__dict__.get("_unserialize"), classmethod)
            and callable(CPUCodeLibrary.__dict__.get("_get_module_for_linking"))
            and isinstance(getattr(JitEngine(None), "_defined_symbols", None), set)
            and callable(getattr(environment, "_rebuild_env", None)) and hasattr(environment, "lookup_environment")
            and callable(getattr(caching._CacheLocator, "ensure_cache_path", None))
            and callable(getattr(nrtdynmod, "create_nrt_module", None))
            and callable(getattr(nrtdynmod, "compile_nrt_functions", None))
            and callable(getattr(CPUCodeLibrary, "serialize_using_object_code", None))
            and callable(typeof_impl.registry.get(np.ndarray)) and hasattr(errors, "NumbaNotImplementedError")
            and callable(getattr(numpy_support, "from_dtype", None)) and callable(getattr(numpy_support, "map_layout", None))
            and isinstance(getattr(getattr(ll.ffi.lib, "_lock", None), "_cblist", None), list))


def install() -> bool:
    """Load cached kernels the lean way in this process from now on; False where numba lacks what it needs."""
    global _installed
    with _lock:
        if not _installed and _supported():
            from numba.core import caching, environment
            from numba.core.codegen import CPUCodeLibrary

            _original["_unserialize"] = CPUCodeLibrary.__dict__["_unserialize"]
            _original["_get_module_for_linking"] = CPUCodeLibrary._get_module_for_linking
            caching.Cache.load_overload = _load_overload
            CPUCodeLibrary._unserialize = classmethod(_unserialize)
            CPUCodeLibrary._get_module_for_linking = _get_module_for_linking
            from numba.core.runtime import nrtdynmod

            nrtdynmod.compile_nrt_functions = _compile_nrt_functions
            _original["_rebuild_env"] = environment._rebuild_env
            environment._rebuild_env = _rebuild_env
            import numpy as np
            from numba.core.typing.typeof import typeof_impl

            _original["_typeof_ndarray"] = typeof_impl.registry[np.ndarray]
            typeof_impl.register(np.ndarray)(_typeof_ndarray)
            _original["ensure_cache_path"] = caching._CacheLocator.ensure_cache_path
            caching._CacheLocator.ensure_cache_path = _ensure_cache_path
            _installed = True
        return _installed
