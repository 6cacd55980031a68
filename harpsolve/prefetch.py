"""A hint to the processor that an array element will be read soon: LLVM's ``prefetch``.

Why: the arrangement-free search (search/afree.py) probes its table once for every child it
generates, and the table outgrows every cache, so most probes are a trip to memory -- a
fifth of klondike-3's time sat on that one load (``benchmarks/profile_jit.py``, twenty-eighth
session).  When a state's children are generated, their table slots are known; asking for all
of them at once lets the memory system fetch them side by side while the search works on,
instead of one miss after another.  A prefetch changes no value: it is a hint, dropped by the
processor when it is busy, harmless on an address that is never read.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, arr, i):
    """Prefetch ``arr[i]`` (a 1-d array, an integer index in range) for reading, into every
    cache level (LLVM ``prefetch(ptr, rw=0, locality=3, data)``)."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(i, types.Integer):
        return None
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aryty, _ = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
