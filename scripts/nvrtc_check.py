"""Compile the CUDA module with NVRTC, as CuPy does on the device, on a machine without a GPU: a
check that a kernel change (or a study's -D variant) builds before a device call is spent on it.
Needs CuPy and NVRTC's wheel here (`pip install cupy-cuda13x nvidia-cuda-nvrtc`), no driver.

    python scripts/nvrtc_check.py [--curve bls12_381] [-DOPTION ...] [--ntt]

--ntt compiles ntt.cuh alone (the NTT variants' module); otherwise the whole module of module.py.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cuda_resources as cr  # noqa: E402
from cuda_resources import module_code  # noqa: E402


def main() -> int:
    args = sys.argv[1:]
    if {"-h", "--help"} & set(args):
        print(__doc__)
        return 0
    curve = "bls12_381"
    if "--curve" in args:
        k = args.index("--curve")
        curve = args[k + 1]
        del args[k:k + 2]
    from cupy.cuda import compiler  # the device's compiler path; NVRTC needs no GPU

    code = ("typedef unsigned int u32;\ntypedef unsigned long long u64;\n" + cr._consts(curve)
            + cr._expand("ntt.cuh", set())) if "--ntt" in args else module_code(curve)
    options = tuple(a for a in args if a.startswith("-D"))
    t = time.time()
    try:
        compiler._NVRTCProgram(code).compile(("-std=c++17", "--gpu-architecture=sm_90", "-ftz=true") + options)
    except compiler.CompileException as exc:
        print(f"NVRTC {compiler._get_nvrtc_version()}: {curve} {' '.join(options)} FAILED\n{exc}")
        return 1
    print(f"NVRTC {compiler._get_nvrtc_version()}: {curve} {' '.join(options) or '(default)'} builds "
          f"({time.time() - t:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
