"""harpsolve/bits.py: the LLVM bit counts against Python's own."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from harpsolve.bits import bitlen, popcount

WORDS = st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([0, 1, 2**63, 2**64 - 1, 2**32, 2**32 - 1]))


@settings(deadline=None)  # the first example compiles the kernel
@given(WORDS)
def test_popcount_and_bitlen_are_pythons(x):
    assert popcount(np.uint64(x)) == bin(x).count("1")
    assert bitlen(np.uint64(x)) == x.bit_length()
