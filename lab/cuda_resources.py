"""Compile the CUDA module offline with nvcc and print per-kernel registers,
spills and stack: a check of the device code on a machine without a GPU.

    python lab/cuda_resources.py [--pairing] [bls12_381|bn254] [-DNAME[=V] ...] [kernel-substring ...]

--pairing compiles the aggregate's pairing module (pairing_source.py) instead; -D options
compile a variant (as msm_variants' --variant does).
"""

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.field.fields import CURVE_FIELDS  # noqa: E402

CUDA = Path(__file__).resolve().parents[1] / "cuzk" / "backend" / "cuda"
_INC = re.compile(r'^#include "([\w.]+)"\s*$', re.M)


def consts_module() -> dict:
    """consts.py's names, without importing the cupy-dependent package."""
    ns: dict = {}
    src = (CUDA / "consts.py").read_text().replace("from cuzk.field.fields import CURVE_FIELDS", "")
    ns["CURVE_FIELDS"] = CURVE_FIELDS
    exec(compile(src, "consts.py", "exec"), ns)
    return ns


def _consts(curve: str) -> str:
    return consts_module()["curve_header"](curve)


def _expand(name: str, seen: set) -> str:
    if name in seen:
        return ""
    seen.add(name)
    text = (CUDA / name).read_text().replace("#pragma once", "")
    return _INC.sub(lambda m: _expand(m.group(1), seen), text)


def module_code(curve: str) -> str:
    """The source module.py hands NVRTC for `curve`: the consts header, then SOURCES expanded."""
    mod = (CUDA / "module.py").read_text()
    sources = re.findall(r'"([\w.]+)"', re.search(r"SOURCES = \(([^)]*)\)", mod).group(1))
    seen: set = set()
    return "typedef unsigned int u32;\ntypedef unsigned long long u64;\n" + _consts(curve) + "".join(
        _expand(n, seen) for n in sources)


def main() -> None:
    args = sys.argv[1:]
    pairing = "--pairing" in args
    defines = [a for a in args if a.startswith("-D")]
    args = [a for a in args if a != "--pairing" and not a.startswith("-D")]
    curve = args[0] if args else "bls12_381"
    want = args[1:]
    head = "typedef unsigned int u32;\ntypedef unsigned long long u64;\n" + _consts(curve)
    if pairing:  # pairing_source.py loaded by path: the package imports cupy
        import importlib.util

        spec = importlib.util.spec_from_file_location("pairing_source", CUDA / "pairing_source.py")
        ps = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ps)
        code = ps.module_source(curve, head, _expand)
    else:
        code = module_code(curve)
    with tempfile.TemporaryDirectory() as tmp:
        keep = __import__("os").environ.get("CUBIN_OUT")
        cu = Path(tmp) / "m.cu"
        cu.write_text(code)
        t = time.time()
        r = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-cubin", "-Xptxas", "-v", *defines, str(cu), "-o",
                            str(Path(tmp) / "m.cubin")], capture_output=True, text=True)
        dt = time.time() - t
        if keep and not r.returncode:
            Path(keep).write_bytes((Path(tmp) / "m.cubin").read_bytes())
    if r.returncode:
        print(r.stderr)
        sys.exit(1)
    fn = None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'|Function properties for (\w+)", line)
        if m:
            fn = m.group(1) or m.group(2)
        if fn and (not want or any(w in fn for w in want)) and ("registers" in line or "stack frame" in line):
            print(f"{fn:40s} {line.split(':', 1)[-1].strip()}")
    print(f"nvcc sm_90 {curve}: {dt:.1f} s")


if __name__ == "__main__":
    main()
