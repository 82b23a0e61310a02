"""Kernels loaded from numba's cache the lean way (cuzk.field.cached_loads) behave as numba's own loads:
the same results, an allocating kernel included (NRT's functions compiled once, then loaded from
cuzk's cache), the same symbols, and a kernel compiled afterwards can still call (link) one that was
loaded so."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = '''
import numpy as np
from numba import njit


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def helper(x):
    return x * 3 + 1


@njit(cache=True)
def kernel(a):
    out = np.empty_like(a)  # NRT allocation, an environment from numba.np.arrayobj
    for i in range(a.shape[0]):
        out[i] = helper(a[i])
    return out
'''

LISTEN = '''
compiled = []
class Listen(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        pass
'''  # the kernels numba compiles (not loads) while it listens

FIRST = '''
import numpy as np
import cached_mod
print(cached_mod.kernel(np.arange(5)).tolist())
'''

SECOND = '''
import json
import numpy as np
import llvmlite.binding as ll
from numba import njit
from numba.core import event
from cuzk.field import cached_loads

''' + LISTEN + '''
seen = {}
elf_symbols = cached_loads._elf_symbols
def spy(obj):
    seen[obj] = elf_symbols(obj)
    return seen[obj]
cached_loads._elf_symbols = spy

installed = cached_loads.install()
import cached_mod
with event.install_listener("numba:compile", Listen()):
    loaded = cached_mod.kernel(np.arange(5)).tolist()
    library = next(iter(cached_mod.kernel.overloads.values())).library
    ir = ll.parse_bitcode(library.__dict__[cached_loads._BITCODE])
    same_symbols = {g.name for gs in (ir.functions, ir.global_variables) for g in gs
                    if not g.is_declaration} in list(seen.values())  # the kernel's (and NRT's, when kept)

    @njit
    def user(a):  # compiled here: links the cached helper and kernel into itself
        return cached_mod.helper(a[0]) + cached_mod.kernel(a)[2]

    linked = int(user(np.arange(4) + 10))
print(json.dumps({"installed": installed, "loaded": loaded, "compiled": compiled, "same_symbols": same_symbols,
                  "linked": linked, "nrt_kept": [p.name for p in __import__("cuzk.field.codegen").field.codegen
                                                  .cache_dir().glob("numba-nrt-*.pickle")]}))
'''


def _run(code: str, folder: Path) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(Path(__file__).resolve().parents[2])]),
           "NUMBA_CACHE_DIR": str(folder / "numba-cache"), "CUZK_CACHE_DIR": str(folder / "cuzk-cache")}
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=folder, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip().splitlines()[-1]


def test_a_cached_kernel_loads_the_lean_way_and_still_links(tmp_path):
    (tmp_path / "cached_mod.py").write_text(MODULE)
    assert _run(FIRST, tmp_path) == "[1, 4, 7, 10, 13]"  # compiled and cached by numba's own way
    for run in range(2):  # NRT compiled and kept by the first, loaded by the second
        got = json.loads(_run(SECOND, tmp_path))
        assert got["installed"]
        assert got["loaded"] == [1, 4, 7, 10, 13]
        assert got["same_symbols"]
        assert got["compiled"] == ["user"]  # kernel and helper came from the cache
        assert got["linked"] == (10 * 3 + 1) + (12 * 3 + 1)
        assert len(got["nrt_kept"]) == 1


INSTALLED_COMPILE = '''
import numpy as np
from cuzk.field import cached_loads
assert cached_loads.install()
import cached_mod
print(cached_mod.kernel(np.arange(3)).tolist())
'''

PLAIN_LOAD = '''
import numpy as np
from numba.core import event
''' + LISTEN + '''import cached_mod
with event.install_listener("numba:compile", Listen()):
    print(cached_mod.kernel(np.arange(3)).tolist(), compiled)
'''


def test_what_a_compile_caches_while_installed_loads_without_cuzk(tmp_path):
    """An allocating kernel compiled (cache miss) where cached_loads is installed pickles its
    environment under numba's own function: a process without cuzk's loader (another cuzk version
    sharing the kernels' folder) loads it from the cache."""
    (tmp_path / "cached_mod.py").write_text(MODULE)
    assert _run(INSTALLED_COMPILE, tmp_path) == "[1, 4, 7]"
    cached = list((tmp_path / "numba-cache").rglob("*.nbc"))
    assert cached and not any(b"cuzk.field.cached_loads" in p.read_bytes() for p in cached)
    assert _run(PLAIN_LOAD, tmp_path) == "[1, 4, 7] []"


def test_elf_symbols_refuses_what_is_not_an_elf64_object():
    from cuzk.field.cached_loads import _elf_symbols

    assert _elf_symbols(b"") is None
    assert _elf_symbols(b"\xcf\xfa\xed\xfe" + bytes(100)) is None  # Mach-O
    assert _elf_symbols(b"\x7fELF\x01\x01" + bytes(100)) is None  # 32-bit
