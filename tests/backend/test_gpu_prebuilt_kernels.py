"""scripts/prebuilt_kernels.py on a GPU machine: a module built ahead (`build`) and filed in CuPy's
cache (`seed`) is what a later process's RawModule loads, with no compile, and its kernels run
right (BN254's production module, the smaller of the two: its Fr product against Python's integers)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "prebuilt_kernels.py"
ROOT = SCRIPT.parents[1]

CHECK = """
import numpy as np, cupy as cp
from cupy.cuda import compiler
from cuzk.backend.cuda.module import fn
from cuzk.field.fields import CURVE_FIELDS

class Refuse(compiler._KernelCacheBackend):  # the seeded cache must serve: a compile would save
    def __init__(self, disk): self.disk = disk
    def load(self, name): return self.disk.load(name)
    def save(self, name, cubin, source): raise SystemExit("compiled: not served by the seeded cache")
compiler._set_kernel_cache_backend(Refuse(compiler._kernel_cache_backend))
r = CURVE_FIELDS["bn254"][0].p
rng = np.random.default_rng(3)
n = 256
xs = [int.from_bytes(rng.bytes(32), "little") % r for _ in range(2 * n)]
limbs = cp.asarray(np.array([[(v >> (64 * i)) & (2**64 - 1) for i in range(4)] for v in xs], dtype=np.uint64))
out = cp.empty((n, 4), dtype=cp.uint64)
fn("bn254", "fr_vmul")((1,), (n,), (limbs[:n], limbs[n:], out, np.uint64(n)))  # Montgomery product: x y / 2^256
got = cp.asnumpy(out)
for i in range(n):
    value = sum(int(got[i, k]) << (64 * k) for k in range(4))
    assert value < 2 * r and value % r == xs[i] * xs[n + i] * pow(1 << 256, -1, r) % r, i
print("served and right")
"""


def test_a_seeded_module_is_loaded_without_compiling(tmp_path):
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    build = subprocess.run([sys.executable, str(SCRIPT), "build", str(tmp_path / "pre.tgz"), "module:bn254"],
                           env=env, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    seed = subprocess.run([sys.executable, str(SCRIPT), "seed", str(tmp_path / "pre.tgz")], env=env,
                          capture_output=True, text=True, timeout=600)
    from cuzk.backend.cuda.module import unit_names  # CuPy: imported where a GPU test runs

    units = len(unit_names())  # module:bn254 is built as its compile units
    seeded = [line for line in seed.stdout.splitlines() if line.startswith("seeded unit:bn254:")]
    assert seed.returncode == 0 and len(seeded) == units, seed.stdout + seed.stderr
    assert len(list((tmp_path / "cache").glob("*.cubin"))) == units
    check = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=600,
                           cwd=ROOT)
    assert check.returncode == 0 and "served and right" in check.stdout, check.stdout + check.stderr
