"""prefetch.py: the hint compiles to a prefetch instruction and changes no value."""
from __future__ import annotations

import numpy as np
from numba import njit

from harpsolve.prefetch import prefetch


@njit(_nrt=False)
def _sum_with_hints(a, idx):
    s = 0
    for i in range(idx.shape[0]):
        prefetch(a, idx[i])
    for i in range(idx.shape[0]):
        s += a[idx[i]]
    return s


def test_prefetch_is_an_instruction_and_changes_nothing():
    a = np.arange(1 << 12, dtype=np.uint64) * np.uint64(3)
    idx = np.random.default_rng(5).integers(0, a.shape[0], 200)
    assert _sum_with_hints(a, idx) == int(a[idx].sum())
    ir = _sum_with_hints.inspect_llvm(_sum_with_hints.signatures[0])
    assert "call void @llvm.prefetch" in ir  # kept through LLVM's optimisation
    b = np.zeros(8, np.uint8)
    _sum_with_hints(b, np.arange(8))  # any 1-d array, any element type
