"""Backend selection: `cpu`, `cuda`, or `auto` (cuda when usable, else cpu)."""

from __future__ import annotations

import functools

from cuzk.errors import BackendUnavailable

from .base import Backend

NAMES = ("auto", "cpu", "cuda")


def cuda_unavailable_reason() -> str | None:
    """None when a CUDA device can be used, else a sentence saying why not."""
    try:
        import cupy  # noqa: F401
    except ImportError:
        return "CuPy is not installed (install the 'gpu' extra: pip install 'cuzk[gpu]')"
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDA driver errors come in several types
        return f"no usable CUDA driver ({exc})"
    if count == 0:
        return "no CUDA device found"
    try:
        from . import cuda  # noqa: F401
    except ImportError as exc:
        return f"the CUDA backend cannot load: {exc}"
    return None


@functools.cache
def get_backend(name: str = "auto") -> Backend:
    name = name.lower()
    if name not in NAMES:
        raise BackendUnavailable(f"unknown backend {name!r}; choose one of {', '.join(NAMES)}")
    if name == "cpu" or (name == "auto" and cuda_unavailable_reason() is not None):
        from .cpu import CpuBackend  # a backend loads when asked for: its kernel modules (and CuPy)

        return CpuBackend()
    reason = cuda_unavailable_reason()
    if reason:
        raise BackendUnavailable(f"backend 'cuda' requested but {reason}")
    from .cuda import CudaBackend

    return CudaBackend()


__all__ = ["Backend", "get_backend", "cuda_unavailable_reason", "NAMES"]
