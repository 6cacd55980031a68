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
from ..movegen import GEN_WORK, _apply, _auto, _gen
from ..state import O_OBLIG, STATE_BYTES, _copy_state, _mix_a

assert STATE_BYTES % 8 == 0  # _key reads a state as words


@njit(**JIT)
def _step(st, m, p, autobuf):
    _apply(st, m, p)
    if st[O_OBLIG] == 0:
        _auto(st, p, autobuf)


@njit(**JIT)
def _walk(start, path, p, autobuf):
    """The positions of ``path`` from ``start`` (included), one row each: one kernel call
    instead of one per move."""
    states = np.empty((path.shape[0] + 1, start.shape[0]), np.uint8)
    _copy_state(states[0], start)
    for i in range(path.shape[0]):
        _copy_state(states[i + 1], states[i])
        _step(states[i + 1], path[i], p, autobuf)
    return states


_KM = np.uint64(0xFF51AFD7ED558CCD)
_K29 = np.uint64(29)


@njit(**JIT)
def _key(st):
    """A 64-bit hash of every byte of ``st``, eight bytes a step (a state is a whole number
    of words, STATE_BYTES = 472): the table of path positions only filters, a jump is taken
    only on byte-for-byte equality.  Word steps instead of state._seq_hash's byte steps:
    the keys were most of the shortcut's time (every child of every path position)."""
    w = st.view(np.uint64)
    # two independent lanes of multiply-xorshift steps (the processor overlaps them), then
    # a full mixer
    a = np.uint64(0x9E3779B97F4A7C15)
    b = np.uint64(0xC2B2AE3D27D4EB4F)
    n = w.shape[0]
    for i in range(0, n - 1, 2):
        a = (a ^ w[i]) * _KM
        a ^= a >> _K29
        b = (b ^ w[i + 1]) * _KM
        b ^= b >> _K29
    if n % 2:
        a = (a ^ w[n - 1]) * _KM
    return _mix_a(a ^ _mix_a(b))


@njit(**JIT)
def _shortcut(start, path, n, p, moves, scores, autobuf, out):
    """Write a path no longer than ``path[:n]`` from ``start`` to the same end into ``out``."""
    nb = start.shape[0]
    states = _walk(start, path[:n], p, autobuf)
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
    work = np.empty(GEN_WORK, np.int64)
    i = 0
    k = 0
    while i < n:
        best = i + 1
        best_m = path[i]
        cnt = _gen(states[i], p, moves, scores, work)
        for t in range(max(cnt, 0)):
            _copy_state(child, states[i])
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


# ---- the Python side ---------------------------------------------------------------------
def shorten(root: np.ndarray, path: list[int], p: np.ndarray) -> list[int]:
    """Cut every loop out of a solution path: where a position repeats, drop the moves between.

    Depth-first search finds long, wandering solutions; a position met twice
    (byte for byte, so the later moves still apply) means the moves between
    the two visits did nothing.  The result replays exactly like the input.
    """
    from ..solution import drop_loops

    st = root.copy()
    buf = np.zeros(256, np.int64)
    _auto(st, p, buf)
    states = _walk(st, np.asarray(path, np.int64), p, buf)
    if not _repeats(states):
        return list(path)  # no position comes twice: no loop (the beams' and most searches' lines)
    return drop_loops(states[0].tobytes(), ((m, states[i + 1].tobytes()) for i, m in enumerate(path)))


@njit(**JIT)
def _repeats(states):
    """Does a row of ``states`` come twice?  Rows with equal :func:`_key` are compared byte
    for byte, so a collision of keys only costs a comparison."""
    n, nb = states.shape
    cap = 16
    while cap < 2 * n:
        cap *= 2
    mask = cap - 1
    slot = np.full(cap, -1, np.int64)
    keys = np.zeros(cap, np.uint64)
    for i in range(n):
        h = _key(states[i])
        j = np.int64(h & np.uint64(mask))
        while slot[j] >= 0:
            if keys[j] == h:
                r = slot[j]
                same = True
                for b in range(nb):
                    if states[i, b] != states[r, b]:
                        same = False
                        break
                if same:
                    return True
            j = (j + 1) & mask
        slot[j] = i
        keys[j] = h
    return False


def shortcut(root: np.ndarray, path: list[int], p: np.ndarray) -> list[int]:
    """Jump ahead wherever one move reaches a later position of the path (:func:`_shortcut`).

    One pass: a second would find nothing.  The shortened path visits a subsequence of the
    positions, in order; from each it visits, the first pass tried every move and jumped to
    the latest position of the path any of them reaches.  A second pass tries the same moves
    from the same position against fewer later positions, and the latest it could reach is
    that same one, now the next step (twentieth session: of 156 second passes over easy-harp
    and klondike-1 lines, none cut a move; tests/test_engine.py checks it)."""
    from ..movegen import MAX_MOVES

    if not path:
        return path
    st = root.copy()
    buf = np.zeros(256, np.int64)
    _auto(st, p, buf)
    arr = np.array(path, np.int64)
    out = np.zeros(len(path), np.int64)
    n = _shortcut(st, arr, len(arr), p, np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.int32), buf, out)
    return [int(x) for x in out[:n]]


def line_tokens(root: np.ndarray, path: list[int], p: np.ndarray, jump: bool = True, cut: bool = True) -> list[str]:
    """A kernel path found under ``p`` as SPEC move tokens, loops cut first and, with ``jump``,
    detours (:func:`shortcut`); ``cut=False``: neither (a path known to have none)."""
    from ..solution import path_tokens

    if cut:
        path = shorten(root, path, p)
        if jump:
            path = shortcut(root, path, p)
    return path_tokens(root, path, p)
