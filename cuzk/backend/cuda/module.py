"""Compile the CUDA sources for one curve through CuPy (NVRTC), cached.

The .cuh files ship as package data. Includes are expanded here, so the
source text CuPy hashes for its on-disk kernel cache covers every line that
was compiled; the architecture is the running device's (sm_90 on H100/H200).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import cupy as cp

from cuzk.field import compile_notice

from .consts import curve_header

SOURCES = ("ntt.cuh", "msm.cuh", "spmv.cuh")
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


def source(curve: str) -> str:
    seen: set[str] = set()
    return header(curve) + "".join(expand(name, seen) for name in SOURCES)


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


@functools.cache
def kernels(curve: str) -> cp.RawModule:
    return compiled(source(curve), f"the CUDA kernels for {curve}", "35-80 s")


@functools.cache
def fn(curve: str, name: str) -> cp.RawKernel:
    """Kernel `name` of `curve`'s module, kept: get_function makes a new RawKernel each call, which
    looks the function up in the module again when first launched, host time that delays the
    first kernel of a short transform (a 2^20 NTT runs ~0.25 ms on an H200)."""
    return kernels(curve).get_function(name)
