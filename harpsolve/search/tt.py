"""The transposition table: open addressing over two preallocated uint64 arrays.

Entry ``i`` is the 128-bit canonical fingerprint of a state (``state.py``):
``t1[i]`` and ``t2[i]``, 16 bytes, no other payload::

    t1[i]  bits 0..63  first hash half (bit 0 forced to 1: 0 marks an empty slot)
    t2[i]  bits 0..63  second hash half; its low bits pick the home slot

Linear probing; the table doubles (rehash) when half full, up to the memory
budget, after which the search stops with ``unknown`` -- it never evicts,
because forgetting a state could only cost time, but a table that refuses a
state must not pretend it was explored.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT_NORC

ENTRY_BYTES = 16
_ONE = np.uint64(1)


def new_table(capacity: int) -> tuple[np.ndarray, np.ndarray]:
    assert capacity & (capacity - 1) == 0, "capacity must be a power of two"
    return np.zeros(capacity, np.uint64), np.zeros(capacity, np.uint64)


def new_payload(capacity: int) -> np.ndarray:
    """One int64 per slot beside the keys (the depth-first search's best stock position)."""
    return np.zeros(capacity, np.int64)


@njit(**JIT_NORC)
def _claim(t1, t2, h1, h2):
    """Find or add a fingerprint: its slot if it was there, ``-1 - slot`` if it was new."""
    h1 = h1 | _ONE
    mask = np.uint64(t1.shape[0] - 1)
    i = np.int64(h2 & mask)
    n = t1.shape[0]
    while True:
        k = t1[i]
        if k == 0:
            t1[i] = h1
            t2[i] = h2
            return -1 - i
        if k == h1 and t2[i] == h2:
            return i
        i += 1
        if i == n:
            i = 0


@njit(**JIT_NORC)
def _slot(t1, t2, h1, h2):
    """The slot holding a fingerprint, claimed for it if it was absent (for tables with a payload)."""
    s = _claim(t1, t2, h1, h2)
    return s if s >= 0 else -1 - s


@njit(**JIT_NORC)
def _rehash(o1, o2, ov, n1, n2, nv):
    """Move every entry, with its payload ``ov[i]``, into the bigger table (n1, n2, nv)."""
    for i in range(o1.shape[0]):
        if o1[i] != 0:
            nv[_slot(n1, n2, o1[i], o2[i])] = ov[i]
