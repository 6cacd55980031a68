"""Enforced hill-climbing: a fast first try at finding a solution.

From the current position, a breadth-first search looks for the nearest
position that is strictly better (fewer hidden cards, then more cards home);
the path to it is committed and the climb goes on from there, until the game
is won.  Each breadth-first search keeps its own small table of seen
positions.  This finds most solutions of solvable deals in a few thousand
nodes, with far shorter solutions than depth-first search -- but it commits
greedily, so failing proves nothing: when it gets stuck (a breadth-first
search exhausts or overflows) the caller falls back to the complete
depth-first search (``dfs.py``).  It is never used to report ``unsolvable``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT
from ..movegen import GEN_WORK, _apply, _auto, _gen, _won
from ..state import O_DOWN, O_FOUND, O_OBLIG, P_DECKS, P_NCOL, _copy_state, _fingerprint
from .tt import _claim, _clear, _slots

E_SOLVED, E_STUCK, E_BUDGET = range(3)


@njit(**JIT)
def _progress(st, p):
    """Lower is better; 0 exactly when the game is won."""
    hidden = 0
    for c in range(p[P_NCOL]):
        hidden += np.int64(st[O_DOWN + c])
    home = 0
    for k in range(4 * p[P_DECKS]):
        home += np.int64(st[O_FOUND + k])
    return hidden * 1024 + 52 * p[P_DECKS] - home


@njit(**JIT)
def _bfs(cur, p, q, h0, queue, parent, pmove, t, slots, moves, scores, autobuf, nodes, node_budget, seed, rng):
    """Breadth-first search from ``cur``, with the moves of params ``q``, for the nearest
    position better than ``h0``: (its index in ``queue`` or -1, nodes, rng).

    ``t`` must come in empty and are left empty: ``slots`` records the
    slots this search fills, and only those are cleared -- a climb makes a
    step per card home or turned up, and wiping the whole table at every
    step used to cost more than the search itself.
    """
    cap = queue.shape[0]
    work = np.empty(GEN_WORK, np.int64)
    queue[0] = cur
    parent[0] = -1
    h1, h2 = _fingerprint(cur, p)
    slots[0] = -1 - _claim(t, h1, h2)
    head = 0
    tail = 1
    stored = 1
    found = -1
    limit_stored = _slots(t) // 2
    while head < tail and found < 0 and nodes < node_budget:
        n = _gen(queue[head], q, moves, scores, work)
        if n < 0:
            break
        if seed != 0:
            for i in range(n - 1, 0, -1):
                rng ^= rng << np.uint64(13)
                rng ^= rng >> np.uint64(7)
                rng ^= rng << np.uint64(17)
                j = np.int64(rng % np.uint64(i + 1))
                mv = moves[i]
                moves[i] = moves[j]
                moves[j] = mv
        for i in range(n):
            if tail >= cap or stored >= limit_stored:
                break
            child = queue[tail]
            _copy_state(child, queue[head])
            _apply(child, moves[i], q)
            if child[O_OBLIG] == 0:
                _auto(child, q, autobuf)
            nodes += 1
            a, b = _fingerprint(child, p)
            s = _claim(t, a, b)
            if s >= 0:
                continue
            slots[stored] = -1 - s
            stored += 1
            parent[tail] = head
            pmove[tail] = moves[i]
            tail += 1
            if child[O_OBLIG] == 0 and _progress(child, p) < h0:
                found = tail - 1
                break
        head += 1
    for k in range(stored):
        _clear(t, slots[k])
    return found, nodes, rng


@njit(**JIT)
def _ehc(start, p, stages, queue, parent, pmove, t, slots, moves, scores, autobuf, path, ctr, node_budget, seed):
    """Climb from ``start`` (safe moves already made); write the path of moves into ``path``.

    ``ctr[0]`` counts nodes, ``ctr[1]`` the path length.  Returns E_SOLVED,
    E_STUCK (no better position found: not a proof of anything) or E_BUDGET.
    ``seed`` 0 keeps the generator's move order; any other value shuffles each
    node's moves (xorshift), so that a restart commits to other improvements.
    ``stages`` holds the params of the move sets each step tries in turn;
    ``t``/``slots`` are the breadth-first searches' table (:func:`_bfs`).
    """
    rng = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    cur = start.copy()
    plen = 0
    nodes = ctr[0]
    while True:
        if _won(cur, p):
            ctr[0] = nodes
            ctr[1] = plen
            return E_SOLVED
        h0 = _progress(cur, p)
        found = -1
        # each step tries the stages' move sets in turn (solver._climb_stages)
        for stage in range(stages.shape[0]):
            if found >= 0 or nodes >= node_budget:
                break
            found, nodes, rng = _bfs(cur, p, stages[stage], h0, queue, parent, pmove, t, slots, moves, scores,
                                     autobuf, nodes, node_budget, seed, rng)
        if found < 0:
            ctr[0] = nodes
            ctr[1] = plen
            return E_BUDGET if nodes >= node_budget else E_STUCK
        # the path to the better position, root first
        k = 0
        j = found
        while parent[j] >= 0:
            k += 1
            j = parent[j]
        if plen + k > path.shape[0]:
            ctr[0] = nodes
            ctr[1] = plen
            return E_STUCK
        j = found
        for i in range(k - 1, -1, -1):
            path[plen + i] = pmove[j]
            j = parent[j]
        plen += k
        _copy_state(cur, queue[found])


# ---- the Python side ----------------------------------------------------------------------
CLIMB_QUEUE = 1 << 16       # states one breadth-first step may hold
PATH_CAP = 1 << 14          # longest climbed path


def climb_stages(p: np.ndarray) -> np.ndarray:
    """The move sets each climbing step tries in turn, as rows of kernel params.

    With a pass limit the stock is a resource that a greedy climb burns: the
    nearest gain is often a card deep in the stock, one move away but
    passing over every card before it.  So a step first looks for a gain
    drawing at most one card, then anywhere in this pass, and only then
    turns the waste over.  Without a pass limit every row is the rules'.
    """
    from ..state import P_PASSES, P_REACH

    if p[P_PASSES] == 0:
        return p[None, :].copy()
    near, this_pass = p.copy(), p.copy()
    near[P_REACH] = 1
    this_pass[P_PASSES] = 1  # no waste-to-stock turn
    return np.stack([near, this_pass, p])


class _Buffers:
    def __init__(self):
        from ..movegen import MAX_MOVES
        from ..state import STATE_BYTES
        from .tt import new_table

        self.queue = np.zeros((CLIMB_QUEUE, STATE_BYTES), np.uint8)
        self.parent = np.zeros(CLIMB_QUEUE, np.int64)
        self.pmove = np.zeros(CLIMB_QUEUE, np.int64)
        self.t = new_table(4 * CLIMB_QUEUE)
        self.slots = np.zeros(CLIMB_QUEUE, np.int64)
        self.path = np.zeros(PATH_CAP, np.int64)
        self.moves = np.zeros(MAX_MOVES, np.int64)
        self.scores = np.zeros(MAX_MOVES, np.int32)
        self.autobuf = np.zeros(256, np.int64)


_BUF: _Buffers | None = None


def climb_once(start: np.ndarray, p: np.ndarray, stages: np.ndarray, cap: int, seed: int):
    """One climb from ``start`` (safe moves made) with at most ``cap`` nodes; ``seed`` 0 keeps
    the generator's order, others shuffle it.  Returns (path of kernel moves or None, nodes)."""
    global _BUF
    if _BUF is None:
        _BUF = _Buffers()
    b = _BUF
    ctr = np.zeros(2, np.int64)
    e = _ehc(start, p, stages, b.queue, b.parent, b.pmove, b.t, b.slots, b.moves, b.scores, b.autobuf,
             b.path, ctr, cap, seed)
    if e == E_SOLVED:
        return [int(x) for x in b.path[:ctr[1]]], int(ctr[0])
    return None, int(ctr[0])
