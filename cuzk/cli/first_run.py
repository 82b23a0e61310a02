"""A command's first run on a fresh machine: its CPU kernels compiled on every core before it starts.

`cuzk prove` calls `before("prove-bn254-cpu", "cuzk prove", 12)` once it knows the key's
curve, domain (2^12) and backend. The kernel list kernel_lists/prove-bn254-cpu.txt names every
numba kernel that command compiles from empty caches (recorded by
scripts/kernel_lists.py); cuzk.field.precompile compiles them in one forked process
per core, once, and the command then loads them all from the cache. Measured on the
2-core VM (lab/JOURNAL.md, 2026-12-06): the first `cuzk prove` of examples/bits_mix
took 45 s before (38 kernels one at a time, on one core), 33.5 s compiling only the
28 the prover needs, 20.8 s with them compiled on both cores (load 1.7: another
session had most of a core).

The modules a list names are built here from their names: a generated module by its
base name (`bn254_msm` -> msm_kernels("bn254")), any other by importing it, so one
function serves every command's list.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

LISTS = Path(__file__).with_name("kernel_lists")


def _generated(kind: str, curve: str) -> ModuleType | None:
    from cuzk.backend.cpu.fixed_base import fixed_base_kernels
    from cuzk.backend.cpu.msm import msm_kernels
    from cuzk.backend.cpu.ntt import ntt_kernels
    from cuzk.backend.cpu.spmv import spmv_kernel
    from cuzk.curve import curve_kernels, encoding_kernels
    from cuzk.curve.pairing import pairing_kernels
    from cuzk.curve.subgroup import subgroup_kernels
    from cuzk.field.fields import field_kernels
    from cuzk.gadgets.poseidon.neptune_native import neptune_kernels
    from cuzk.groth16.setup_kernels import setup_kernels

    builders = {
        "field": field_kernels, "curve": curve_kernels, "ntt": ntt_kernels, "msm": msm_kernels,
        "spmv": lambda c: sys.modules[spmv_kernel(c).__module__], "fixed_base": fixed_base_kernels,
        "setup": setup_kernels, "pairing": pairing_kernels,
        # BLS12-381 only: Filecoin's point encodings, subgroup checks and Poseidon
        "encoding": lambda c: encoding_kernels.kernels(), "subgroup": lambda c: subgroup_kernels(),
        "neptune_poseidon": lambda c: neptune_kernels(),
    }
    build = builders.get(kind)
    return build(curve) if build else None


def modules_of(kernels) -> list[ModuleType]:
    """The modules the kernels live in, built or imported; names this version lacks are left out."""
    out = {}
    for name in {k.module for k in kernels}:
        m = re.fullmatch(r"(bls12_381|bn254)_(\w+)", name)
        try:
            module = _generated(m.group(2), m.group(1)) if m else (
                importlib.import_module(name) if name.startswith("cuzk.") else None)
        except ImportError:
            module = None
        if module is not None:
            out[name] = module
    return list(out.values())


def list_path(label: str) -> Path:
    return LISTS / f"{label}.txt"


def before(label: str, what: str, size: int | None = None):
    """Compile list `label`'s kernels (those its runs up to log2 size `size` called) now, on every
    core, unless done before (or there is no such list, or CUZK_PRECOMPILE=0): precompile.Outcome
    when it did, else None."""
    from cuzk.field import precompile

    path = list_path(label)
    if not precompile.enabled() or not path.is_file():
        return None
    text = path.read_text()
    return precompile.ensure(label, text, modules_of(precompile.parse(text)), what, size)
