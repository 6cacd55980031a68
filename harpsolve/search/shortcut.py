"""Shortening a found solution: jump ahead along the path wherever one move can.

Depth-first search finds long, wandering solutions (thousands of moves in
Baker's Game).  Walking the path from the start, every move from the
current position is tried; if one lands on a position that the path visits
later (byte for byte, so the rest of the path still applies), the walk jumps
to the latest such visit.  Each jump removes a detour; the result is a
legal path to the same won position, never longer than the input.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT
from ..movegen import _apply, _auto, _gen
from ..state import O_OBLIG, _seq_hash


@njit(**JIT)
def _step(st, m, p, autobuf):
    _apply(st, m, p)
    if st[O_OBLIG] == 0:
        _auto(st, p, autobuf)


@njit(**JIT)
def _key(st):
    a, b = _seq_hash(st, 0, st.shape[0], 1)
    return a


@njit(**JIT)
def _shortcut(start, path, n, p, moves, scores, autobuf, out):
    """Write a path no longer than ``path[:n]`` from ``start`` to the same end into ``out``."""
    nb = start.shape[0]
    states = np.empty((n + 1, nb), np.uint8)
    states[0] = start
    for i in range(n):
        states[i + 1] = states[i]
        _step(states[i + 1], path[i], p, autobuf)
    cap = 16
    while cap < 4 * (n + 1):
        cap *= 2
    keys = np.zeros(cap, np.uint64)
    vals = np.full(cap, -1, np.int64)
    mask = cap - 1
    for i in range(n + 1):  # later visits overwrite earlier ones
        h = _key(states[i])
        j = np.int64(h & np.uint64(mask))
        while vals[j] >= 0 and keys[j] != h:
            j = (j + 1) & mask
        keys[j] = h
        vals[j] = i
    child = np.empty(nb, np.uint8)
    i = 0
    k = 0
    while i < n:
        best = i + 1
        best_m = path[i]
        cnt = _gen(states[i], p, moves, scores)
        for t in range(max(cnt, 0)):
            child[:] = states[i]
            _step(child, moves[t], p, autobuf)
            h = _key(child)
            j = np.int64(h & np.uint64(mask))
            while vals[j] >= 0 and keys[j] != h:
                j = (j + 1) & mask
            idx = vals[j]
            if idx > best:
                same = True
                for b in range(nb):
                    if child[b] != states[idx, b]:
                        same = False
                        break
                if same:
                    best = idx
                    best_m = moves[t]
        out[k] = best_m
        k += 1
        i = best
    return k
