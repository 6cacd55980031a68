"""The transposition table: open addressing over one preallocated uint64 array.

Slot ``i`` holds the 128-bit canonical fingerprint of a state (``state.py``) in
two neighbouring words, 16 bytes, no other payload::

    t[2i]      bits 0..63  first hash half (bit 0 forced to 1: 0 marks an empty slot)
    t[2i + 1]  bits 0..63  second hash half; its low bits pick the home slot

The two halves lie side by side so that a probe reads one cache line: the
table outgrows every cache, and most probes of a big search are misses (the
first layout kept the halves in two arrays, two lines a probe; thirtieth
session, benchmarks/README.md).  The arrangement-free engine's table
(``afree._find``) is laid out the same way.

Linear probing; the table doubles (rehash) when half full, up to the memory
budget, after which the search stops with ``unknown`` -- it never evicts,
because forgetting a state could only cost time, but a table that refuses a
state must not pretend it was explored.  A payload, where a search keeps one
(the depth-first search's best stock position, A*'s cost), is a separate
array indexed by slot.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT_NORC
from ..prefetch import prefetch

ENTRY_BYTES = 16
_ONE = np.uint64(1)


def new_table(capacity: int) -> np.ndarray:
    """An empty table of ``capacity`` slots (a power of two)."""
    assert capacity & (capacity - 1) == 0, "capacity must be a power of two"
    return np.zeros(2 * capacity, np.uint64)


def new_payload(capacity: int) -> np.ndarray:
    """One int64 per slot beside the keys (the depth-first search's best stock position)."""
    return np.zeros(capacity, np.int64)


@njit(**JIT_NORC)
def _slots(t):
    """The number of slots of table ``t``."""
    return t.shape[0] >> 1


@njit(**JIT_NORC)
def _home(t, h2):
    """A fingerprint's first slot: the low bits of its second half."""
    return np.int64(h2 & np.uint64(_slots(t) - 1))


@njit(**JIT_NORC)
def _ahead(t, h2):
    """Ask for the cache line of a fingerprint's first slot, to be claimed soon (a search that
    knows several fingerprints before it claims them lets their misses overlap; prefetch.py)."""
    prefetch(t, 2 * _home(t, h2))


@njit(**JIT_NORC)
def _claim(t, h1, h2):
    """Find or add a fingerprint: its slot if it was there, ``-1 - slot`` if it was new."""
    h1 = h1 | _ONE
    n = _slots(t)
    i = _home(t, h2)
    while True:
        k = t[2 * i]
        if k == 0:
            t[2 * i] = h1
            t[2 * i + 1] = h2
            return -1 - i
        if k == h1 and t[2 * i + 1] == h2:
            return i
        i += 1
        if i == n:
            i = 0


@njit(**JIT_NORC)
def _slot(t, h1, h2):
    """The slot holding a fingerprint, claimed for it if it was absent (for tables with a payload)."""
    s = _claim(t, h1, h2)
    return s if s >= 0 else -1 - s


@njit(**JIT_NORC)
def _clear(t, s):
    """Empty slot ``s`` (only for a caller that empties every slot it claimed: linear probing
    finds a key only past no empty slot)."""
    t[2 * s] = 0
    t[2 * s + 1] = 0


@njit(**JIT_NORC)
def _rehash(o, ov, n, nv):
    """Move every entry of table ``o``, with its payload ``ov[i]``, into the bigger table
    ``n`` (payload ``nv``); tables without a payload pass empty ``ov`` and ``nv``."""
    payload = nv.shape[0] > 0
    for i in range(_slots(o)):
        if o[2 * i] != 0:
            s = _slot(n, o[2 * i], o[2 * i + 1])
            if payload:
                nv[s] = ov[i]
