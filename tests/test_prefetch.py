"""prefetch.py: the hint compiles to a prefetch instruction and changes no value."""
from __future__ import annotations

import numpy as np
from numba import njit

from harpsolve.prefetch import prefetch
from harpsolve.search.tt import _ahead


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


def test_the_transposition_table_prefetches_the_slot_a_claim_reads_first():
    """tt._ahead asks for the line of tt._home's slot, where tt._claim starts probing."""
    from harpsolve.search import tt

    t = tt.new_table(1 << 10)
    rng = np.random.default_rng(3)
    for h1, h2 in rng.integers(1, 2**63, size=(50, 2)).astype(np.uint64):
        home = tt._home(t, h2)
        _ahead_of(t, h2)
        s = tt._claim(t, h1, h2)
        assert s < 0 and (-1 - s - home) % (1 << 10) < 4  # added at its home slot or just after
    ir = _ahead_of.inspect_llvm(_ahead_of.signatures[0])  # tt's kernels are cached, without IR
    assert "call void @llvm.prefetch" in ir


@njit(_nrt=False)
def _ahead_of(t, h2):
    _ahead(t, h2)
