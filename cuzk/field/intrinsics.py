"""64x64->128-bit primitives for numba, emitted as LLVM i128 arithmetic.

numba has no 128-bit integer type; without these, Montgomery multiplication
would need 32-bit limb emulation (4x the multiplies). LLVM lowers the i128
multiply to a single `mul`/`mulx` on x86-64 and `umulh`+`mul` on aarch64.
"""

from numba import types
from numba.extending import intrinsic
from llvmlite import ir

_I64 = ir.IntType(64)
_I128 = ir.IntType(128)
_U64PAIR = types.UniTuple(types.uint64, 2)


def _split(context, builder, r, shift=64):
    """(r mod 2^64, r >> shift) of an i128 r, as the uint64 pair the intrinsics return."""
    lo = builder.trunc(r, _I64)
    hi = builder.trunc(builder.lshr(r, ir.Constant(_I128, shift)), _I64)
    return context.make_tuple(builder, _U64PAIR, [lo, hi])


def _chain(op: str, shift: int):
    """codegen of (a op b) op c over i128 (op: "add" or "sub"), split at bit 64 and at `shift`."""

    def codegen(context, builder, signature, args):
        a_, b_, c_ = (builder.zext(x, _I128) for x in args)
        step = getattr(builder, op)
        return _split(context, builder, step(step(a_, b_), c_), shift)

    return codegen


@intrinsic
def mac(typingctx, a, b, c, d):
    """(lo, hi) of a*b + c + d; cannot overflow 128 bits."""
    sig = _U64PAIR(types.uint64, types.uint64, types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        a_, b_, c_, d_ = (builder.zext(x, _I128) for x in args)
        return _split(context, builder, builder.add(builder.add(builder.mul(a_, b_), c_), d_))

    return sig, codegen


@intrinsic
def adc(typingctx, a, b, carry):
    """(sum, carry_out) of a + b + carry, carry in {0, 1}."""
    return _U64PAIR(types.uint64, types.uint64, types.uint64), _chain("add", 64)


@intrinsic
def sbb(typingctx, a, b, borrow):
    """(difference, borrow_out) of a - b - borrow, borrow in {0, 1}."""
    return _U64PAIR(types.uint64, types.uint64, types.uint64), _chain("sub", 127)  # bit 127: the sign


@intrinsic
def mulhi(typingctx, a, b):
    """High 64 bits of a*b."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        a_, b_ = (builder.zext(x, _I128) for x in args)
        r = builder.mul(a_, b_)
        return builder.trunc(builder.lshr(r, ir.Constant(_I128, 64)), _I64)

    return sig, codegen


__all__ = ["mac", "adc", "sbb", "mulhi"]
