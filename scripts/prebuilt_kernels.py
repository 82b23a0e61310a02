"""Kernels compiled here, before a device call, so the device spends none of its minutes in NVRTC.

A fresh device machine compiles every CUDA module it loads: ~80 s for the main modules, ~60 s for
each `-D` variant a benchmark compares, and as much again for the A/B's old tree; the CuPy cache
carried from the last call is stale after any source change, and its names cannot be made here
(CuPy's key holds the machine's include paths). NVRTC needs no GPU, so `build` runs it here as
CuPy's RawModule does on the device (the same source text and options, with the include, arch and
`-ftz=true` options CuPy adds) and stores each cubin with its source and options. On the device,
`seed` hands each cubin to CuPy's own RawModule path and files it in the disk cache under the name
CuPy asks for, so every RawModule there, this tree's or an old tree's, loads it without a change
to the package; a spec whose source changed since `build` simply compiles there as before.

    python scripts/prebuilt_kernels.py build OUT[.tgz] [--jobs J] SPEC ... [--tree DIR SPEC ...]
    python scripts/prebuilt_kernels.py seed DIR|FILE.tgz ...

SPEC: `module:CURVE` (every compile unit of cuzk.backend.cuda.module, each `unit:CURVE:NAME`),
`pairing:CURVE`, `msm:CURVE:-DOPTION` (the units' source whole with an option, as
`lab/msm_variants.py --variant` builds it). Specs after `--tree DIR` take their sources from that
checkout (`.ab/old`). The production set, what every device call loads:

    python scripts/prebuilt_kernels.py build .gpu-cache/prebuilt.tgz module:bls12_381 module:bn254 \
        pairing:bls12_381 pairing:bn254

OUT.tgz: built in $TMPDIR/cuzk-prebuilt (entries reused), packed into OUT.tgz, which the device
scripts (scripts/device/common.sh) seed from `.gpu-cache/prebuilt.tgz`. `build` needs CuPy and
NVRTC's wheel here (`pip install cupy-cuda13x nvidia-cuda-nvrtc`; where CuPy does not find
libnvrtc.so.13, LD_LIBRARY_PATH=SITE/nvidia/cu13/lib), no GPU; it compiles J (2) specs at a time. Run it again after any change to a .cuh file or to the constants they are built
with: an entry whose source differs from the device's is not used there.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ARCH = "90"  # sm_90: the H100/H200
BASE_OPTIONS = ("-std=c++17", f"--gpu-architecture=sm_{ARCH}")  # what cuzk's call sites pass (module.arch_option)


def spec_code(spec: str) -> tuple[str, tuple[str, ...]]:
    """(source, options) that cuzk's own call site passes to cp.RawModule for `spec`, from the
    cuzk package first on sys.path."""
    kind, _, rest = spec.partition(":")
    curve, _, option = rest.partition(":")
    extra = (option,) if option else ()
    if kind == "unit":
        from cuzk.backend.cuda.module import unit_source
        return unit_source(curve, option), BASE_OPTIONS
    if kind in ("msm", "module"):  # module: a tree from before the units compiled its module whole
        from cuzk.backend.cuda.module import source
        return source(curve), BASE_OPTIONS + extra
    if kind == "pairing":
        from cuzk.backend.cuda.pairing import source
        return source(curve), BASE_OPTIONS
    raise SystemExit(f"unknown spec {spec!r}: module|pairing:CURVE, unit:CURVE:NAME or msm:CURVE:-DOPTION")


def expand_spec(spec: str) -> list[str]:
    """`module:CURVE` as the unit specs cuzk compiles it in (from the cuzk first on sys.path)."""
    kind, _, curve = spec.partition(":")
    if kind != "module":
        return [spec]
    from cuzk.backend.cuda import module
    if not hasattr(module, "unit_names"):  # an older tree: one module
        return [spec]
    return [f"unit:{curve}:{u}" for u in module.unit_names()]


def cupy_compiler():
    """cupy.cuda.compiler, able to build without a GPU: NVRTC needs none, but CuPy memoizes its
    choice of arch option per device; where there is none it is made here by CuPy's own rule."""
    from cupy.cuda import compiler
    try:
        compiler._get_arch_for_options_for_nvrtc(ARCH)
    except Exception:  # no device or driver
        ptx = compiler._use_ptx or int(ARCH) > int(compiler._get_max_compute_capability())
        choice = (f"-arch=compute_{ARCH}", "ptx") if ptx else (f"-arch=sm_{ARCH}", "cubin")
        compiler._get_arch_for_options_for_nvrtc = lambda arch=None: choice
        compiler._get_arch = lambda: ARCH
    return compiler


def entry_name(code: str, options: tuple[str, ...]) -> str:
    return hashlib.sha256((code + "\0" + "\0".join(options)).encode()).hexdigest()[:24]


def build_one(spec: str, out: Path) -> tuple[str, str]:
    """Compile `spec` (source from the cuzk first on sys.path) as CuPy would, into out/NAME.*:
    (NAME, a line saying so)."""
    compiler = cupy_compiler()
    code, options = spec_code(spec)
    name = entry_name(code, options)
    if (out / f"{name}.cubin").exists():
        return name, f"{spec}: {name} already built"
    t = time.time()
    # _compile_with_cache_cuda's steps: the include options RawModule's compile_with_cache adds,
    # -ftz=true, then NVRTC with the arch option and --device-as-default-execution-space
    from cupy._core import core
    cubin, _ = compiler._compile_using_nvrtc_no_warning(
        code, core.assemble_cupy_compiler_options(options) + ("-ftz=true",), ARCH)
    (out / f"{name}.cu").write_text(code)
    (out / f"{name}.json").write_text(json.dumps({"spec": spec, "options": list(options),
                                                  "nvrtc": list(compiler._get_nvrtc_version())}))
    (out / f"{name}.cubin").write_bytes(cubin)
    return name, f"{spec}: {name} ({len(cubin) >> 10} KiB, {time.time() - t:.0f} s)"


def seed(paths: list[str]) -> int:
    """File each built cubin in CuPy's disk cache under the name CuPy gives its source and options
    on this machine: a RawModule of that source is compiled with a cache backend that hands CuPy
    the cubin and notes the name CuPy asks for (no NVRTC but its empty-file version probe), then
    the cubin is saved under that name in the real cache. Loading it there also checks it."""
    import cupy as cp
    from cupy.cuda import compiler

    class HandOver(compiler._KernelCacheBackend):
        def __init__(self, cubin: bytes):
            self.cubin, self.names = cubin, []

        def load(self, name):
            self.names.append(name)
            return self.cubin

        def save(self, name, cubin, source):
            raise RuntimeError(f"CuPy compiled {name} instead of loading the cubin handed over")

    real = compiler._kernel_cache_backend
    failed, dirs = 0, []
    for p in map(Path, paths):
        if p.suffix == ".tgz":  # unpacked beside the cache
            d = Path(tempfile.mkdtemp(prefix="cuzk-prebuilt-"))
            subprocess.run(["tar", "-xzf", str(p), "-C", str(d)], check=True)
            dirs.append(d)
        else:
            dirs.append(p)
    for d in dirs:
        for meta_path in sorted(d.glob("*.json")):
            meta = json.loads(meta_path.read_text())
            stem = meta_path.with_suffix("")
            code, cubin = stem.with_suffix(".cu").read_text(), stem.with_suffix(".cubin").read_bytes()
            hand = HandOver(cubin)
            compiler._set_kernel_cache_backend(hand)
            try:
                cp.RawModule(code=code, options=tuple(meta["options"])).compile()
            except Exception as exc:  # a cubin the driver refuses: that module compiles as usual
                print(f"not seeded {meta['spec']}: {type(exc).__name__}: {exc}")
                failed += 1
                continue
            finally:
                compiler._set_kernel_cache_backend(real)
            real.save(hand.names[-1], cubin, code)
            print(f"seeded {meta['spec']} as {hand.names[-1]} (built by NVRTC "
                  f"{'.'.join(map(str, meta['nvrtc']))}; this machine's: "
                  f"{'.'.join(map(str, compiler._get_nvrtc_version()))})")
    return 1 if failed else 0


def build(args: list[str]) -> int:
    """build OUT SPEC ... [--tree DIR SPEC ...]: specs after --tree DIR take that checkout's
    sources. OUT is a folder, or FILE.tgz: built in the temporary folder's cuzk-prebuilt (kept:
    entries are named by their source and options, and reused), then the entries of these specs
    packed into FILE.tgz."""
    target = Path(args.pop(0)).resolve()
    out = Path(tempfile.gettempdir()) / "cuzk-prebuilt" if target.suffix == ".tgz" else target
    out.mkdir(parents=True, exist_ok=True)
    tree, jobs, work = Path(__file__).resolve().parent.parent, 2, []
    while args:
        a = args.pop(0)
        if a == "--tree":
            tree = Path(args.pop(0)).resolve()
        elif a == "--jobs":
            jobs = int(args.pop(0))
        else:
            work += [(tree, spec) for spec in _expanded(tree, a)]
    me = str(Path(__file__).resolve())

    def run(job: tuple[Path, str]) -> tuple[int, str]:
        # a process of its own whose sys.path starts at the tree: an old tree's cuzk must not
        # meet this one's in one interpreter
        tree, spec = job
        r = subprocess.run([sys.executable, me, "one", str(out), spec], capture_output=True, text=True,
                           cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)))
        return r.returncode, (r.stdout if r.returncode == 0 else r.stderr[-3000:]).strip()

    names, failed = [], 0
    work.sort(key=lambda job: "g1_" not in job[1])  # the longest first (BLS12-381's G1 units: 2-9 s each)
    with ThreadPoolExecutor(jobs) as pool:
        for (tree, spec), (rc, text) in zip(work, pool.map(run, work)):
            if rc:
                print(f"{tree.name}: {spec}: FAILED\n{text}", flush=True)
                failed += 1
                continue
            name, line = json.loads(text)
            names.append(name)
            print(f"{tree.name}: {line}", flush=True)
    if target.suffix == ".tgz":
        files = [f"{n}{ext}" for n in sorted(set(names)) for ext in (".cu", ".cubin", ".json")]
        subprocess.run(["tar", "-czf", str(target), "-C", str(out), *files], check=True)
        print(f"{target}: {len(set(names))} modules, {target.stat().st_size >> 20} MiB")
    return 1 if failed else 0


def _expanded(tree: Path, spec: str) -> list[str]:
    if not spec.startswith("module:"):
        return [spec]
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "expand", spec], capture_output=True,
                       text=True, check=True, cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)))
    return r.stdout.split()


def main() -> int:
    args = sys.argv[1:]
    if not args or {"-h", "--help"} & set(args):
        print(__doc__)
        return 0
    verb = args.pop(0)
    if verb == "build":
        return build(args)
    if verb == "seed":
        return seed(args)
    if verb == "expand":  # build's helper: a tree's unit specs
        print("\n".join(expand_spec(args[0])))
        return 0
    if verb == "one":  # build's worker: one spec, from the cuzk first on sys.path
        print(json.dumps(build_one(args[1], Path(args[0]))))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
