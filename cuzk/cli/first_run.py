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
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

LISTS = Path(__file__).with_name("kernel_lists")


# the generated numba modules by kind: "module:function" building a curve's (function(curve)); a trailing *
# marks a builder of BLS12-381's only (Filecoin's encodings, subgroup checks, Poseidon, GLV/GLS)
BUILDERS = {
    "field": "cuzk.field.fields:field_kernels", "tower": "cuzk.field.tower_source:tower_kernels",
    "curve": "cuzk.curve.curves:curve_kernels", "pairing": "cuzk.curve.pairing:pairing_kernels",
    "ntt": "cuzk.backend.cpu.ntt:ntt_kernels", "msm": "cuzk.backend.cpu.msm:msm_kernels",
    "msm_tables": "cuzk.backend.cpu.msm:table_kernels",
    "spmv": "cuzk.backend.cpu.spmv:spmv_kernel", "fixed_base": "cuzk.backend.cpu.fixed_base:fixed_base_kernels",
    "miller": "cuzk.backend.cpu.miller:miller_kernels", "setup": "cuzk.groth16.setup_kernels:setup_kernels",
    "poseidon": "cuzk.gadgets.poseidon.native:poseidon_kernels",
    "aggregate_gt": "cuzk.aggregate.gt:gt_kernels", "aggregate_g1_sums": "cuzk.aggregate.g1_sums:g1_sums_kernels",
    "aggregate_kzg": "cuzk.aggregate.kzg:kzg_kernels",
    "encoding": "cuzk.curve.encoding_kernels:kernels*", "subgroup": "cuzk.curve.subgroup:subgroup_kernels*",
    "neptune_poseidon": "cuzk.gadgets.poseidon.neptune_native:neptune_kernels*",
    "endo_mul": "cuzk.curve.endo_mul:endo_mul_kernels*",
}


def import_numba() -> None:
    """numba's first import in this process (~150 ms on the 2-core VM), less what it imports and reads for
    what cuzk's one-shot commands never do (~40 ms, lab/JOURNAL.md 2026-12-07):
    - PyYAML, with which numba reads a .numba_config.yaml, is kept from it when there is no such file
      in the working folder (numba then does what it does without PyYAML, and with no file that is
      nothing);
    - numba's extensions (other packages' `numba_extensions` entry points, which numba reads with
      importlib.metadata on a kernel's first call: ~15 ms) are not loaded: cuzk's kernels use none,
      and importlib.metadata runs its code on first use (importlib's LazyLoader; `from importlib
      import metadata`, as numba imports it, does not use it).
    Call it before anything imports numba."""
    if "numba" in sys.modules:
        return
    _on_first_use("importlib.metadata")
    hide = "yaml" not in sys.modules and not os.path.isfile(".numba_config.yaml")
    if hide:
        sys.modules["yaml"] = None  # `import yaml` raises ImportError
    try:
        import numba  # noqa: F401
        from numba.core import entrypoints
    finally:
        if hide and "yaml" in sys.modules and sys.modules["yaml"] is None:
            del sys.modules["yaml"]
    if isinstance(getattr(entrypoints, "_already_initialized", None), bool):
        entrypoints._already_initialized = True  # what init_all() checks: extensions are not read


def _on_first_use(name: str) -> None:
    """Module `name`, unless imported or missing, as one that runs its code when first used. Only for a
    module reached by `from PARENT import NAME` or by attribute: a plain `import NAME` reads its
    __spec__, which runs it (Python 3.11)."""
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


def _generated(kind: str, curve: str) -> ModuleType | None:
    spec = BUILDERS.get(kind)
    if spec is None:
        return None
    path, fn = spec.split(":")
    build = getattr(importlib.import_module(path), fn.rstrip("*"))
    built = build() if fn.endswith("*") else build(curve)
    return built if isinstance(built, ModuleType) else sys.modules[built.__module__]  # spmv: its kernel


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


def before(label: str, what: str, size: int | None = None, alongside=None):
    """Compile list `label`'s kernels (those its runs up to log2 size `size` called) now, on every
    core, unless done before (or there is no such list, or CUZK_PRECOMPILE=0): precompile.Outcome
    when it did, else None. `alongside`: (what, work) done in a thread meanwhile (precompile.ensure)."""
    from cuzk.field import cached_loads, precompile

    path = list_path(label)
    if not precompile.enabled() or not path.is_file():
        return None
    cached_loads.install()  # the command's kernels come from the cache (cached_loads.py)
    text = path.read_text()
    return precompile.ensure(label, text, modules_of(precompile.parse(text)), what, size, alongside)
