"""Compile the CUDA sources for one curve through CuPy (NVRTC), cached.

The .cuh files ship as package data. Includes are expanded here, so the
source text CuPy hashes for its on-disk kernel cache covers every line that
was compiled; the architecture is the running device's (sm_90 on H100/H200).
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from importlib import resources

import cupy as cp

from cuzk import progress
from cuzk.field import compile_notice

from .consts import curve_header

# Compile units: NVRTC takes about as long per kernel as the field arithmetic it inlines, and the
# curve's MSM kernels are most of it (BN254's module whole 16.8 s, its MSM 14.1 s on the 2-core VM),
# so each group kernel is a unit of its own and the units compile in parallel threads (NVRTC releases
# the GIL): the first proof waits for the longest unit, not for their sum.
FILE_UNITS = {"fr": "ntt.cuh", "msm": "msm_scalars.cuh", "spmv": "spmv.cuh"}  # unit -> file (its kernels' prefix)
GROUPS = {"g1": "fq_t", "g2": "fq2_t"}  # msm.cuh's group kernels are instantiated per group
GROUP_KERNELS = ("msm_accumulate", "msm_combine_parts", "sum_runs", "table_step", "fixed_base",
                 "msm_reduce_segments", "sum_groups", "batch_add", "scale_windows")
_INCLUDE = re.compile(r'^#include "([\w.]+)"\s*$', re.M)


def _read(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text()


def expand(name: str, seen: set[str]) -> str:
    if name in seen:
        return ""
    seen.add(name)
    text = _read(name).replace("#pragma once", "")
    return _INCLUDE.sub(lambda m: expand(m.group(1), seen), text)


def header(curve: str) -> str:
    """What every module's source begins with: the word types and the curve's constants."""
    return "typedef unsigned int u32;\ntypedef unsigned long long u64;\n" + curve_header(curve)


def unit_names() -> list[str]:
    return [*FILE_UNITS, *(f"{g}_{k}" for g in GROUPS for k in GROUP_KERNELS)]


def unit_of(kernel: str) -> str:
    """The unit that defines `kernel`: a group kernel's own (g1_msm_accumulate), else the unit its
    prefix names (fr_vmul -> fr)."""
    prefix = kernel.split("_", 1)[0]
    if prefix in GROUPS:
        return kernel
    if prefix in FILE_UNITS:
        return prefix
    raise KeyError(f"no CUDA kernel {kernel!r}")


def _instance(unit: str) -> str:
    group, kernel = unit.split("_", 1)
    return f"\nKERNEL_{kernel}({group}, {GROUPS[group]})\n"


def unit_source(curve: str, unit: str) -> str:
    if unit in FILE_UNITS:
        return header(curve) + expand(FILE_UNITS[unit], set())
    return header(curve) + expand("msm.cuh", set()) + _instance(unit)


def source(curve: str) -> str:
    """Every unit's kernels in one source (lab/msm_variants.py compiles it whole, with -D options)."""
    seen: set[str] = set()
    return (header(curve) + "".join(expand(name, seen) for name in (*FILE_UNITS.values(), "msm.cuh"))
            + "".join(_instance(u) for u in unit_names() if u not in FILE_UNITS))


def arch_option() -> str:
    return f"--gpu-architecture=sm_{cp.cuda.Device().compute_capability}"


def compiled(code: str, what: str, how_long: str) -> cp.RawModule:
    """`code` compiled for this device by NVRTC, saying so when it takes a while (CuPy caches it)."""
    mod = cp.RawModule(code=code, options=("-std=c++17", arch_option()))
    notice = compile_notice.after(2.0, f"cuzk: compiling {what} with NVRTC: once, {how_long}; "
                                       f"CuPy caches them (CUPY_CACHE_DIR)")
    try:
        mod.compile()
    finally:
        notice.cancel()
    return mod


_modules: dict[str, dict[str, cp.RawModule]] = {}
_modules_lock = threading.Lock()  # a second thread asking waits for the first one's compile


def kernels(curve: str, quiet: bool = False) -> dict[str, cp.RawModule]:
    """`curve`'s units by name, compiled (or loaded from CuPy's cache) once per process. quiet: no
    progress lines, for a caller that shows its own (cuzk/cli/first_run.py)."""
    with _modules_lock:
        if curve not in _modules:
            _modules[curve] = _compile_units(curve, quiet)
        return _modules[curve]


def _compile_units(curve: str, quiet: bool) -> dict[str, cp.RawModule]:
    """Every unit compiled in parallel threads on this thread's device; progress on stderr once it
    takes over 2 s (unless quiet)."""
    device = cp.cuda.Device().id
    report = progress.enabled() and not quiet
    options = ("-std=c++17", arch_option())
    mods = {u: cp.RawModule(code=unit_source(curve, u), options=options) for u in unit_names()}

    def build(mod: cp.RawModule) -> None:
        with cp.cuda.Device(device):
            mod.compile()

    status, threads = None, min(len(mods), os.cpu_count() or 1)
    with ThreadPoolExecutor(threads) as pool:
        pending = {pool.submit(build, m) for m in mods.values()}
        t0 = time.monotonic()
        while pending:
            done, pending = wait(pending, timeout=0.5)
            for f in done:
                f.result()  # a compile error is raised here, naming the unit's source line
            if status is None and report and time.monotonic() - t0 >= 2.0:
                progress.notice(f"cuzk: compiling the CUDA kernels for {curve} with NVRTC on {threads} "
                                f"threads, once (CuPy caches them: CUPY_CACHE_DIR)")
                status = progress.Status(f"cuzk: compiling CUDA kernels for {curve}", total=len(mods),
                                         unit="units", every_s=5.0)
            if status is not None:
                status.update(len(mods) - len(pending))
    if status is not None:
        status.close()
    return mods


@functools.cache
def fn(curve: str, name: str) -> cp.RawKernel:
    """Kernel `name` of `curve`'s module, kept: get_function makes a new RawKernel each call, which
    looks the function up in the module again when first launched, host time that delays the
    first kernel of a short transform (a 2^20 NTT runs ~0.25 ms on an H200)."""
    return kernels(curve)[unit_of(name)].get_function(name)
