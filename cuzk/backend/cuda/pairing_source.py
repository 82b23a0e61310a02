"""CUDA C++ source of the aggregate's multi-Miller loops, generated per curve.

The formulas are the CPU's, written once over Fq2 operations
(cuzk.field.tower_formulas for Fq12, cuzk.curve.pairing for the doubling and
addition steps, the loop digits, the twist and its constants); `CudaFq2Code`
records them as C++ statements over field.cuh's Fp2 instead of numba source.
Each emitted function writes its flattened result to `F2* r` after reading
all of its inputs, so a result may overwrite an operand (f = f * line).
"""

from __future__ import annotations

from cuzk.curve.pairing import pairing_params, raw_steps, twist_frobenius_code, twist_frobenius_constants
from cuzk.field import fields_of
from cuzk.field.tower_formulas import Fq2Code, f12_mul, f12_sqr


class CudaFq2Code(Fq2Code):
    """Fq2Code emitting `const F2 tN = fq2_op(...);` lines (the fq2_* helpers of PRELUDE)."""

    def let(self, expr: str) -> str:
        name = f"{self.prefix}{self.count}"
        self.count += 1
        self(f"const F2 {name} = {expr};")
        return name

    def real_part(self, name: str) -> str:
        return f"{name}.c0"


def _leaves(v) -> list:
    if v is None or isinstance(v, str):
        return [v]
    return [x for item in v for x in _leaves(item)]


def emit(name: str, params: list[tuple[str, str]], body, doc: str) -> str:
    """`__device__ void name(F2* r, params...)`: body(CudaFq2Code, *params) flattened into r.
    Shapes: fq12 and g2 (three Fq2: projective X, Y, Z) come as `const F2*`, fq2 as F2, fq as F1."""
    e = CudaFq2Code(depth=1)
    sig, args = ["F2* r"], []
    for p, shape in params:
        if shape in ("fq12", "g2"):
            n = 6 if shape == "fq12" else 3
            sig.append(f"const F2* {p}")
            e(*(f"const F2 {p}_{i} = {p}[{i}];" for i in range(n)))
            flat = tuple(f"{p}_{i}" for i in range(n))
            args.append((flat[:3], flat[3:]) if shape == "fq12" else flat)
        else:
            sig.append(f"const {'F2' if shape == 'fq2' else 'F1'} {p}")
            args.append(p)
    out = _leaves(body(e, *args))
    e(*(f"r[{i}] = {'F2::zero()' if v is None else v};" for i, v in enumerate(out)))
    return f"// {doc}\n__device__ __noinline__ void {name}({', '.join(sig)}) {{\n" + e.text() + "}\n\n"


def _u32_limbs(x: int, n: int) -> str:
    return ", ".join(f"{(x >> (32 * i)) & 0xFFFFFFFF:#x}u" for i in range(n))


def _constant(name: str, values: tuple[int, ...], P) -> str:
    """A Montgomery-form Fq (one value) or Fq2 (two) constant in constant memory."""
    n = 2 * P.limbs
    words = ", ".join(_u32_limbs(v % P.p * P.R % P.p, n) for v in values)
    kind = "F1" if len(values) == 1 else "F2"
    return (f"__constant__ __align__(16) u32 C_{name}[{n * len(values)}] = {{{words}}};\n"
            f"#define {name} ({kind}::load(C_{name}))\n")


def generated(curve: str) -> tuple[str, str]:
    """(constants and loop digits, step and Fq12 functions): miller.cuh goes between
    them (it defines the fq2_* helpers and declares the functions)."""
    pp = pairing_params(curve)
    fq = fields_of(curve)[1]
    P, p = fq.params, pp["p"]
    xi0 = pp["xi"][0]
    assert pp["xi"][1] == 1 and 0 < xi0 < 16, "the Fq2 helpers assume xi = xi0 + u with xi0 small"
    b3 = tuple(3 * v % p for v in pp["b2"])
    parts = [
        f"#define XI0 {xi0}\n#define LOOP_LEN {len(pp['loop'])}\n#define CONJ_AT_END {int(pp['s'] < 0)}\n"
        f"#define BN_TAIL {int(pp['family'] == 'bn')}\n#define M_TWIST {int(pp['twist'] == 'M')}\n",
        f"__constant__ signed char LOOP[{len(pp['loop'])}] = {{{', '.join(map(str, pp['loop']))}}};\n",
        _constant("TWO_INV", ((p + 1) // 2,), P),
        _constant("TWIST_B3", b3, P),
    ]
    dbl, add = raw_steps(curve)
    fns = [
        emit("dbl_raw", [("T", "g2")], dbl, "2T (r[0..2]) and the unscaled tangent line (r[3..5])"),
        emit("add_raw", [("T", "g2"), ("qx", "fq2"), ("qy", "fq2")], add,
             "T + Q (r[0..2]) and the unscaled line through them (r[3..5])"),
        emit("fq12_sqr", [("a", "fq12")], f12_sqr, "a^2"),
        emit("fq12_mul", [("a", "fq12"), ("b", "fq12")], f12_mul, "a b"),
    ]
    if pp["twist"] == "M":
        fns.append(emit("fq12_line", [("a", "fq12"), ("c0", "fq2"), ("c1", "fq2"), ("c4", "fq2")],
                        lambda e, a, c0, c1, c4: f12_mul(e, a, ((c0, c1, None), (None, c4, None))),
                        "a times the M-twist line c0 + c1 v + c4 v w"))
    else:
        fns.append(emit("fq12_line", [("a", "fq12"), ("c0", "fq2"), ("c3", "fq2"), ("c4", "fq2")],
                        lambda e, a, c0, c3, c4: f12_mul(e, a, ((c0, None, None), (c3, c4, None))),
                        "a times the D-twist line c0 + c3 w + c4 v w"))
    if pp["family"] == "bn":
        consts = twist_frobenius_constants(curve)
        parts += [_constant(name, c, P) for name, c in zip(("FQ_X1", "FQ_Y1", "FQ_X2"), consts)]
        fns.append(emit("twist_frob", [("qx", "fq2"), ("qy", "fq2")],
                        lambda e, qx, qy: twist_frobenius_code(e, qx, qy, consts),
                        "pi(Q) (r[0..1]) and -pi^2(Q) (r[2..3]) for the last two lines of the BN loop"))
    return "".join(parts), "".join(fns)


def module_source(curve: str, header: str, expand) -> str:
    """The whole compilation unit: `header` (typedefs and the curve's params structs), field.cuh,
    the generated constants, miller.cuh, the generated functions. `expand(name, seen)` reads a
    .cuh with its includes (module.expand; lab/cuda_resources.py has its own)."""
    head, fns = generated(curve)
    seen: set[str] = set()
    return header + expand("field.cuh", seen) + head + expand("miller.cuh", seen) + fns
