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
    return params_struct("fr_params", fr) + params_struct("fq_params", fq)
