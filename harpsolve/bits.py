"""Bit counts on 64-bit words, as single machine instructions inside jitted kernels.

The search kernels keep card and talon sets as ``uint64`` masks and ask two
questions of them many times a node: how many bits are set (``popcount``),
and how long a word is (``bitlen``: 0 for 0, else 1 + the index of the
highest set bit).  Numba has no operator for either; these are LLVM's
``ctpop`` and ``ctlz`` intrinsics, typed for ``uint64`` (a signed or narrower
argument is converted first).  Their slow, obvious twins are
``tests/test_bits.py``'s oracles.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .config import JIT


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _ctlz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        # the flag False: ctlz(0) is defined (64), so bitlen(0) = 0 needs no branch
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@njit(**JIT)
def popcount(x):
    """How many bits of the ``uint64`` x are set."""
    return np.int64(_ctpop(np.uint64(x)))


@njit(**JIT)
def bitlen(x):
    """Length of the ``uint64`` x in bits: 0 for 0, else 1 + the index of its highest set bit."""
    return np.int64(64) - np.int64(_ctlz(np.uint64(x)))
