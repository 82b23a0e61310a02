"""Per-field constant structs for the CUDA templates, derived from FieldParams.

The device code is written once (field.cuh, ...); each field gets a params
struct here with its modulus, Montgomery one and -p^-1 mod 2^32 as 32-bit
limbs, so the same host bytes (64-bit Montgomery limbs) are valid on the device.
"""

from __future__ import annotations

from cuzk.field.fields import CURVE_FIELDS


def _limbs32(x: int, n: int) -> list[int]:
    return [(x >> (32 * i)) & 0xFFFFFFFF for i in range(n)]


def params_struct(name: str, fp) -> str:
    n = 2 * fp.limbs
    inv32 = (-pow(fp.p, -1, 1 << 32)) % (1 << 32)

    def arr(x):
        return ", ".join(f"{v:#x}u" for v in _limbs32(x, n))

    return f"""
__constant__ u32 {name}_inv = {inv32:#x}u;  // INV where ptxas must not see it (field.cuh's mont_inv)
struct {name} {{
    static constexpr int N = {n};
    static constexpr u32 INV = {inv32:#x}u;
    __device__ __forceinline__ static u32 inv_opaque() {{ return {name}_inv; }}
    static constexpr bool SUM2 = {"true" if 3 * fp.p < 1 << (32 * n) else "false"};  // room for fp_mul_add
    __device__ __forceinline__ static constexpr u32 p(int i) {{ constexpr u32 v[{n}] = {{{arr(fp.p)}}}; return v[i]; }}
    __device__ __forceinline__ static constexpr u32 one(int i) {{ constexpr u32 v[{n}] = {{{arr(fp.R)}}}; return v[i]; }}
}};
"""


def curve_header(curve: str) -> str:
    """Params structs `fr_params`, `fq_params` for `curve` (one module per curve)."""
    fr, fq, _ = CURVE_FIELDS[curve]
    out = params_struct("fr_params", fr) + params_struct("fq_params", fq)
    if fq.p.bit_length() == 381:  # field_f64.cuh's product: R = 2^384 in 48-bit limbs, as fq_params' R
        out += "#define CUZK_FQ64 1\n" + f64_params_struct("fq64_params", fq.p)
    # ... and Fr's, R' = 2^288 in 6 limbs (= 2^32 R: the NTT study keeps its twiddles times 2^32)
    out += "#define CUZK_FR64 1\n" + f64_params_struct("fr64_params", fr.p, limbs=6)
    return out


def f64_params_struct(name: str, p: int, qualifier: str = "__host__ __device__ ", limbs: int = 8) -> str:
    """Params for field_f64.cuh's product (`limbs` limbs of 48 bits in doubles, R' = 2^(48 limbs)):
    p's limbs and -1/p mod 2^48, as hex floats (exact). `qualifier` "" for a host build."""
    if 4 * p >= 1 << (48 * limbs):
        raise ValueError(f"{limbs} limbs of 48 bits leave no room for products below 2p of a {p.bit_length()}-bit p")
    values = [float((p >> (48 * i)) & ((1 << 48) - 1)).hex() for i in range(limbs)]
    pinv = float((-pow(p, -1, 1 << 48)) % (1 << 48)).hex()
    body = " : ".join(f"i == {i} ? {v}" for i, v in enumerate(values)) + " : 0.0"
    return (f"struct {name} {{\n"
            f"    static constexpr int N = {limbs};\n"
            f"    static constexpr double pinv48 = {pinv};\n"
            f"    {qualifier}static constexpr double p48(int i) {{ return {body}; }}\n"
            "};\n")
