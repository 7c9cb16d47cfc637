"""Bit counting for numba kernels, as the processor's own instructions.

Card games keep holdings and tables as bit masks, and their hot loops ask how many bits are set
and where the lowest one is. Written as Python loops, each answer costs a loop iteration per
bit; LLVM has one instruction for each (``llvm.ctpop``, ``llvm.cttz``), which numba does not
expose, so they are declared here as numba intrinsics. They compile into any ``njit`` function,
inline, and are cached with it.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of the integer ``x`` (as int64)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        n = builder.ctpop(args[0])
        return context.cast(builder, n, x, types.int64)

    return types.int64(x), codegen


@intrinsic
def lowest_bit(typingctx, x):
    """The index of the lowest set bit of the integer ``x`` (as int64); ``x`` must not be 0."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        n = builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return context.cast(builder, n, x, types.int64)

    return types.int64(x), codegen
