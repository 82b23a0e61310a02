"""The atheris (libFuzzer) driver shared by the fuzz/fuzz_<parser>.py harnesses.

    .venv/bin/python fuzz/fuzz_zkey.py -max_total_time=180          # seeds made on the fly
    .venv/bin/python fuzz/fuzz_zkey.py -runs=2000 CORPUS_DIR        # your own corpus folder

The parser's modules are instrumented function by function (numba-compiled
kernels are left alone: numba cannot compile instrumented bytecode). The
address space is capped (CUZK_FUZZ_AS_GIB, default 8) so an allocation
sized by an unchecked header field fails as MemoryError, which -- like any
exception other than the project's own errors -- libFuzzer reports as a
crash and saves as crash-<sha1>. libFuzzer's -timeout flags hangs.
"""

from __future__ import annotations

import functools
import importlib
import os
import resource
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _instrument_module(atheris, module) -> int:
    """Instrument the plain Python functions and methods defined in `module`; returns how many."""
    done = 0

    def visit(fn):
        nonlocal done
        if isinstance(fn, types.FunctionType) and fn.__module__ == module.__name__:
            atheris.instrument_func(fn)
            done += 1

    for value in list(vars(module).values()):
        visit(value)
        if isinstance(value, type) and value.__module__ == module.__name__:
            for attr in vars(value).values():
                if isinstance(attr, (staticmethod, classmethod)):
                    visit(attr.__func__)
                elif isinstance(attr, property):
                    visit(attr.fget)
                elif isinstance(attr, functools.cached_property):
                    visit(attr.func)
                else:
                    visit(attr)
    return done


def main(name: str) -> None:
    import atheris

    from fuzz.targets import ACCEPTED, TARGETS, write_corpus

    target = TARGETS[name]
    seeds = target.seeds()
    for data in seeds:  # warm up (numba caches, lazily built registries) before the clock starts
        try:
            target.fn(data)
        except ACCEPTED:
            pass
    count = sum(_instrument_module(atheris, importlib.import_module(m)) for m in target.modules)
    limit = int(float(os.environ.get("CUZK_FUZZ_AS_GIB", "8")) * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))

    def test_one(data: bytes) -> None:
        try:
            target.fn(data)
        except ACCEPTED:
            pass

    args = sys.argv[1:]
    if not any(not a.startswith("-") for a in args):  # no corpus folder given: seed a temporary one
        corpus = write_corpus(name, Path(tempfile.mkdtemp(prefix=f"cuzk-corpus-{name}-")), extra=True)
        args.append(str(corpus))
    if not any(a.startswith("-timeout=") for a in args):
        args.insert(0, "-timeout=20")
    if not any(a.startswith("-rss_limit_mb=") for a in args):
        # memory is guarded by the address-space cap; libFuzzer's own limit (2048 MB) reads the peak RSS,
        # which Linux carries across exec from the parent: a harness started by a 2.1 GB pytest
        # process was reported out of memory before its first input
        args.insert(0, f"-rss_limit_mb={limit >> 20}")
    if not any(a.startswith("-artifact_prefix=") for a in args):  # crash-<sha1> files go here, not to the cwd
        args.insert(0, f"-artifact_prefix={tempfile.mkdtemp(prefix=f'cuzk-crashes-{name}-')}/")
    print(f"fuzz {name}: {count} functions instrumented in {', '.join(target.modules)}; "
          f"{len(seeds)} seeds; address space capped at {limit >> 30} GiB", flush=True)
    atheris.Setup([sys.argv[0], *args], test_one)
    atheris.Fuzz()
