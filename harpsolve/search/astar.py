"""A* and weighted A*: short (provably shortest) solutions and best Easy Harp scores.

The search runs over the same packed states, move generator and 128-bit
canonical fingerprints as the depth-first classifier (``dfs.py``).  It keeps

* a node store: one row per node, the packed state squeezed into
  ``O_TALON + 52 * decks`` bytes (the fixed header, then the talon, then the
  columns one after another: cards not on the foundations fit, whatever
  their places), plus the parent node, the move from the parent, and ``g``;
* a table from fingerprint to the node that reached that position at the
  lowest cost so far (open addressing as in ``tt.py``, with a payload);
* an open list: a binary heap on (f, -g), f = g + W * h.

Nodes are never changed once stored.  When a cheaper way into a known
position turns up, a new node is stored, the table points to it and the old
one is marked dead (its heap entry is skipped when popped; nodes that hang
below it keep a correct path to the root).  That makes re-opening (needed by
weighted A* and harmless for A*) cost nothing special.

Cost models (``mode``)
----------------------
``MODE_TOKENS`` (``--shortest``): the cost of a move is the number of SPEC
move tokens it prints: a talon play costs 1 + the ``s>w`` draws and
``w>s`` recycle that bring its card to the waste top (``movegen._talon_route``),
every other move 1.  The search uses no safe-move shortcut, no symmetry or
obligation pruning (those are proved not to lose a *win*, but they can lose
a *shortest* win) and the exact talon key (waste/stock boundary, and the
recycles where passes are limited: the cost of the future depends on them).
Every line of single moves maps to a line of compound moves with at most as
many tokens: draws and recycles commute with every other move, so the ones
before a talon play can be moved next to it, and ``_talon_route`` is the
fewest taps that bring that card to the top.  So a cost-``C`` solution is a
shortest solution in SPEC tokens, over *all* legal move sequences
(``tests/test_astar.py`` checks it against a breadth-first search over the
reference engine's single moves).

``MODE_MOVES``: every kernel move costs 1, safe automatic foundation moves
included (each is one token); talon draws are free.  It keeps the classifier's
pruning and canonical key, so it is faster, and it is minimal in *search
moves*, among the lines the pruned search graph contains.

``MODE_SCORE`` (easy-harp ``--best-score``): maximise the app's score.  Each
card from the waste onto a column earns +5; hidden cards turned (+5) and
foundation moves (+10) are the same for every winning line -- except that a
card taken back and played home again earns +10 each time, so with take-back
any score can be reached by cycling one card.  The search therefore
maximises the *clean* score, the score less 10 per take-back: 1220 + 5 x
(cards played from the waste to a column) for a whole easy-harp deal.  A
talon card leaves the talon either onto a column or straight to a
foundation, so maximising it is minimising the number of talon cards played
straight home: cost ``SCORE_UNIT`` for such a move, plus 1 for every move
(among equal scores, fewer moves).  No safe-move shortcut (it would play
talon cards home) and no obligation pruning (a talon card on a column is
worth 5 points even if nothing is built on it).

The admissible heuristic ``h``
------------------------------
``h`` never exceeds the cost still to pay, so A* (W = 1) returns a minimal
solution and weighted A* one within a factor W of minimal.  Its terms, each
counting moves (or tokens) of a kind the other terms do not count:

1. *cards not home*: a move puts at most one card on a foundation (a
   take-back only removes one), so each such card needs its own move.
2. *blocked cards*: a card lying above all copies of a lower card of its own
   suit in the same column cannot go home before it leaves that column by a
   move that is not a foundation move (term 1 counts only foundation moves).
   Where one move carries one card (no run moves) each blocked card needs its
   own such move; with run moves or king-led blocks one move may carry
   several, but a move leaves one column only, so each column holding a
   blocked card needs one.
3. ``MODE_TOKENS`` only: ``ceil(stock / draw)`` draws -- every stock card
   must reach the waste before it can be played, a draw moves at most
   ``draw`` of them and a recycle only puts cards back.
4. ``MODE_SCORE`` only: ``SCORE_UNIT`` for each talon card that can never go
   onto a column (no take-back, not a king on an empty column where empty
   columns take kings, and every card it could be built on is home).

Every term drops by at most the cost of a move (each move is one token of
its own kind, draws aside, and a draw lowers term 3 by one), so ``h`` is
also consistent.

Statuses: ``solved`` when a goal is popped (with W = 1 its cost is minimal),
``unsolvable`` only when the open list empties with no node left unexpanded
(the move sets are complete: see movegen and dfs), ``unknown`` when the node,
time or memory budget runs out -- then, for W = 1, the smallest f on the
open list is a lower bound on the minimal cost.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..config import JIT
from ..movegen import (
    GEN_WORK, MAX_MOVES, M_TALON_COL, M_TALON_FOUND, _apply, _auto, _gen, _kind, _suit_min, _talon_route,
    _won,
)
from ..state import (
    MAXLEN, O_COLS, O_FOUND, O_LEN, O_OBLIG, O_RECYC, O_TALON, O_TLEN, O_TPTR, P_AUTO, P_BUILD_SUIT,
    P_DECKS, P_DRAW, P_EMPTY_ANY, P_KING_RUNS, P_NCOL, P_PASSES, P_RUNS, P_TAKEBACK, STATE_BYTES, _copy_state,
    _fingerprint,
)
from .settings import next_slice
from .tt import _rehash, _slot, _slots, new_table

MODE_MOVES, MODE_TOKENS, MODE_SCORE = range(3)
MODES = {"moves": MODE_MOVES, "tokens": MODE_TOKENS, "score": MODE_SCORE}
SCORE_UNIT = 1 << 20  # one talon card played straight home outweighs any number of moves

# counters (int64 array ``ctr``)
C_NODES, C_STORED, C_TABLE, C_HEAP, C_EXPANDED, C_INCOMPLETE, C_GOAL, C_SIZE = range(8)

# kernel return codes (as in dfs.py)
R_SOLVED, R_EXHAUSTED, R_PAUSED, R_GROW = range(4)

_ONE = np.uint64(1)


def slot_bytes(decks: int) -> int:
    """Bytes of one stored state: the header, then at most 52 * decks cards."""
    return O_TALON + 52 * decks


# ---- the node store: a packed state squeezed into one row ---------------------------------
#   row[0:O_TALON]           the state's header bytes (lengths, foundations, cells, talon counters)
#   row[O_TALON:+TLEN]       the talon, in draw order
#   then, for c = 0..ncol-1  column c's LEN[c] cards, bottom to top
@njit(**JIT)
def _put(st, p, store, i):
    row = store[i]
    for k in range(O_TALON):
        row[k] = st[k]
    k = O_TALON
    for j in range(np.int64(st[O_TLEN])):
        row[k] = st[O_TALON + j]
        k += 1
    for c in range(p[P_NCOL]):
        base = O_COLS + MAXLEN * c
        for j in range(np.int64(st[O_LEN + c])):
            row[k] = st[base + j]
            k += 1


@njit(**JIT)
def _get(store, i, p, st):
    row = store[i]
    for k in range(O_TALON):
        st[k] = row[k]
    k = O_TALON
    for j in range(np.int64(st[O_TLEN])):
        st[O_TALON + j] = row[k]
        k += 1
    for c in range(p[P_NCOL]):
        base = O_COLS + MAXLEN * c
        for j in range(np.int64(st[O_LEN + c])):
            st[base + j] = row[k]
            k += 1


# ---- the open list: a binary heap on (f, -g) ----------------------------------------------------
@njit(**JIT)
def _before(fa, ga, fb, gb):
    return fa < fb or (fa == fb and ga > gb)


@njit(**JIT)
def _push(hf, hg, hn, size, f, g, node):
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if not _before(f, g, hf[up], hg[up]):
            break
        hf[i] = hf[up]
        hg[i] = hg[up]
        hn[i] = hn[up]
        i = up
    hf[i] = f
    hg[i] = g
    hn[i] = node
    return size + 1


@njit(**JIT)
def _pop(hf, hg, hn, size):
    """Remove the top (returned by the caller before calling); return the new size."""
    size -= 1
    if size == 0:
        return 0
    f = hf[size]
    g = hg[size]
    node = hn[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(hf[c + 1], hg[c + 1], hf[c], hg[c]):
            c += 1
        if not _before(hf[c], hg[c], f, g):
            break
        hf[i] = hf[c]
        hg[i] = hg[c]
        hn[i] = hn[c]
        i = c
    hf[i] = f
    hg[i] = g
    hn[i] = node
    return size


# ---- costs and the admissible heuristic ---------------------------------------------------------
@njit(**JIT)
def _move_cost(st, m, p, mode):
    """Cost of move ``m`` from ``st`` (before it is made; automatic moves after it are extra)."""
    kind = _kind(m)
    if mode == MODE_TOKENS:
        if kind == M_TALON_COL or kind == M_TALON_FOUND:
            d1, rec, d2 = _talon_route(np.int64(st[O_TLEN]), np.int64(st[O_TPTR]), np.int64(st[O_RECYC]),
                                       p[P_DRAW], p[P_PASSES], (m >> 16) & 255)
            return 1 + d1 + rec + d2
        return 1
    if mode == MODE_SCORE and kind == M_TALON_FOUND:
        return SCORE_UNIT + 1
    return 1




@njit(**JIT)
def _h(st, p, mode, seen):
    """The admissible estimate of the cost still to pay (module docstring)."""
    decks = p[P_DECKS]
    home = 0
    for k in range(4 * decks):
        home += np.int64(st[O_FOUND + k])
    h = 52 * decks - home
    per_column = p[P_RUNS] or p[P_KING_RUNS]
    for c in range(p[P_NCOL]):
        ln = np.int64(st[O_LEN + c])
        if ln < 2:
            continue
        base = O_COLS + MAXLEN * c
        # seen[card]: copies met so far going up the column; seen[52 + suit]:
        # the lowest rank of that suit with every copy met
        for s in range(4):
            seen[52 + s] = 99
        blocked = 0
        for j in range(ln):
            card = np.int64(st[base + j])
            s = card // 13
            r = card % 13 + 1
            if seen[52 + s] < r:
                blocked += 1
            seen[card] += 1
            if seen[card] == decks and r < seen[52 + s]:
                seen[52 + s] = r
        for j in range(ln):
            seen[np.int64(st[base + j])] = 0
        if per_column:
            if blocked:
                h += 1
        else:
            h += blocked
    if mode == MODE_TOKENS:
        draw = p[P_DRAW]
        stock = np.int64(st[O_TLEN]) - np.int64(st[O_TPTR])
        if draw > 0 and stock > 0:
            h += (stock + draw - 1) // draw
    elif mode == MODE_SCORE and not p[P_TAKEBACK]:
        suit_build = p[P_BUILD_SUIT]
        for i in range(np.int64(st[O_TLEN])):
            card = np.int64(st[O_TALON + i])
            s = card // 13
            r = card % 13 + 1
            if r == 13 or p[P_EMPTY_ANY]:
                continue  # an empty column may take it
            red = s == 1 or s == 2
            possible = False
            for t in range(4):
                t_red = t == 1 or t == 2
                ok = (t == s) if suit_build else (t_red != red)
                if ok and _suit_min(st, t, decks) < r + 1:
                    possible = True  # a copy of the base (rank r+1, suit t) is not home
            if not possible:
                h += SCORE_UNIT
    return h


# ---- the search ---------------------------------------------------------------------------------
@njit(**JIT)
def _astar(p, mode, weight, store, parent, pmove, gc, dead, hf, hg, hn, t, tv, ctr, node_slice,
           moves, scores, autobuf):
    """Run until solved, exhausted, ``node_slice`` more nodes, or a full array (R_GROW).

    All state lives in the arrays, so a paused search goes on where it stopped.
    """
    st = np.empty(STATE_BYTES, np.uint8)
    child = np.empty(STATE_BYTES, np.uint8)
    seen = np.zeros(56, np.int64)
    work = np.empty(GEN_WORK, np.int64)
    nodes = ctr[C_NODES]
    limit = nodes + node_slice
    cap = store.shape[0]
    cap_half = _slots(t) // 2
    passes = p[P_PASSES]
    auto = p[P_AUTO]
    while True:
        if ctr[C_HEAP] == 0:
            ctr[C_NODES] = nodes
            return R_EXHAUSTED
        if nodes >= limit:
            ctr[C_NODES] = nodes
            return R_PAUSED
        if ctr[C_STORED] + MAX_MOVES > cap or ctr[C_TABLE] + MAX_MOVES > cap_half:
            ctr[C_NODES] = nodes
            return R_GROW
        n = hn[0]
        g = hg[0]
        ctr[C_HEAP] = _pop(hf, hg, hn, ctr[C_HEAP])
        if dead[n]:
            continue
        _get(store, n, p, st)
        if _won(st, p):
            ctr[C_GOAL] = n
            ctr[C_NODES] = nodes
            return R_SOLVED
        ctr[C_EXPANDED] += 1
        count = _gen(st, p, moves, scores, work)
        if count < 0:
            ctr[C_INCOMPLETE] = 1
            continue
        for i in range(count):
            m = moves[i]
            cost = _move_cost(st, m, p, mode)
            _copy_state(child, st)
            _apply(child, m, p)
            if auto and child[O_OBLIG] == 0:
                cost += _auto(child, p, autobuf)  # each automatic move is one more move (token)
            if passes == 0:
                child[O_RECYC] = 0  # unlimited passes: the count of recycles changes nothing
            nodes += 1
            g2 = g + cost
            h1, h2 = _fingerprint(child, p)
            s = _slot(t, h1, h2)
            old = tv[s]
            if old >= 0:
                if gc[old] <= g2:
                    continue
                dead[old] = 1
            else:
                ctr[C_TABLE] += 1
            k = ctr[C_STORED]
            ctr[C_STORED] = k + 1
            _put(child, p, store, k)
            parent[k] = n
            pmove[k] = m
            gc[k] = g2
            dead[k] = 0
            tv[s] = k
            h = 0 if _won(child, p) else _h(child, p, mode, seen)
            ctr[C_HEAP] = _push(hf, hg, hn, ctr[C_HEAP], g2 + weight * h, g2, k)


@njit(**JIT)
def _start(root, p, mode, weight, store, parent, pmove, gc, dead, hf, hg, hn, t, tv, ctr, autobuf):
    """Store the root (after its automatic moves, which cost as much as moves) as node 0."""
    st = root.copy()
    g = 0
    if p[P_AUTO] and st[O_OBLIG] == 0:
        g = _auto(st, p, autobuf)
    if p[P_PASSES] == 0:
        st[O_RECYC] = 0
    h1, h2 = _fingerprint(st, p)
    tv[_slot(t, h1, h2)] = 0
    _put(st, p, store, 0)
    parent[0] = -1
    pmove[0] = 0
    gc[0] = g
    dead[0] = 0
    ctr[C_STORED] = 1
    ctr[C_TABLE] = 1
    ctr[C_GOAL] = -1
    seen = np.zeros(56, np.int64)
    h = 0 if _won(st, p) else _h(st, p, mode, seen)
    ctr[C_HEAP] = _push(hf, hg, hn, 0, g + weight * h, g, 0)
    return g


def heuristic(st: np.ndarray, p: np.ndarray, mode: str = "tokens") -> int:
    """The admissible estimate h of a packed state (for tests and notebooks)."""
    return int(_h(st, p, MODES[mode], np.zeros(56, np.int64)))


def move_cost(st: np.ndarray, m: int, p: np.ndarray, mode: str = "tokens") -> int:
    return int(_move_cost(st, np.int64(m), p, MODES[mode]))


# ---- the Python side: buffers, growth, budgets --------------------------------------------------
INITIAL_NODES = 1 << 14
NODE_SLICE = 200_000


@dataclass
class AStarRun:
    """What one A* run found: ``code`` is R_SOLVED, R_EXHAUSTED or None (a budget ran out)."""

    code: int | None
    path: list[int] | None   # kernel moves from the root (before its automatic moves)
    cost: int | None         # g of the goal: the solution's cost under the mode
    lower_bound: float | None  # W = 1 and unknown: no solution costs less
    nodes: int
    states: int
    expanded: int
    incomplete: bool
    reason: str = ""
    root_cost: int = 0


class _Arrays:
    def __init__(self, capacity: int, slot: int):
        self.store = np.zeros((capacity, slot), np.uint8)
        self.parent = np.zeros(capacity, np.int32)
        self.pmove = np.zeros(capacity, np.int64)
        self.gc = np.zeros(capacity, np.int64)
        self.dead = np.zeros(capacity, np.uint8)
        self.hf = np.zeros(capacity, np.float64)
        self.hg = np.zeros(capacity, np.int64)
        self.hn = np.zeros(capacity, np.int32)
        self.t = new_table(2 * capacity)
        self.tv = np.full(2 * capacity, -1, np.int64)

    @staticmethod
    def bytes_for(capacity: int, slot: int) -> int:
        return capacity * (slot + 4 + 8 + 8 + 1 + 8 + 8 + 4) + 2 * capacity * 24

    def nbytes(self) -> int:
        return sum(a.nbytes for a in vars(self).values())

    def grow(self) -> None:
        cap = self.store.shape[0] * 2
        for name in ("store", "parent", "pmove", "gc", "dead", "hf", "hg", "hn"):
            old = getattr(self, name)
            new = np.zeros((cap,) + old.shape[1:], old.dtype)
            new[:old.shape[0]] = old
            setattr(self, name, new)
        grown = new_table(2 * cap)
        nv = np.full(2 * cap, -1, np.int64)
        _rehash(self.t, self.tv, grown, nv)
        self.t, self.tv = grown, nv


def run(root: np.ndarray, p: np.ndarray, mode: str = "tokens", weight: float = 1.0, *,
        max_nodes: int | None = None, timeout: float | None = None, max_memory: int = 1 << 30,
        t0: float | None = None) -> AStarRun:
    """A* (``weight`` 1) or weighted A* from packed state ``root`` under kernel params ``p``.

    ``p`` must match the mode (``params_for``).  Budgets: ``max_nodes``
    generated nodes, ``timeout`` seconds (from ``t0``), ``max_memory`` bytes
    of search arrays; None or 0 = no limit for nodes and time.
    """
    if weight < 1:
        raise ValueError("the weight of weighted A* is at least 1")
    m = MODES[mode]
    slot = slot_bytes(int(p[P_DECKS]))
    cap = INITIAL_NODES
    while _Arrays.bytes_for(cap, slot) > max_memory and cap > 2 * MAX_MOVES:
        cap //= 2
    a = _Arrays(cap, slot)
    ctr = np.zeros(C_SIZE, np.int64)
    moves = np.zeros(MAX_MOVES, np.int64)
    scores = np.zeros(MAX_MOVES, np.int32)
    autobuf = np.zeros(256, np.int64)
    t0 = time.perf_counter() if t0 is None else t0
    root_cost = int(_start(root, p, m, float(weight), a.store, a.parent, a.pmove, a.gc, a.dead, a.hf, a.hg, a.hn,
                           a.t, a.tv, ctr, autobuf))
    code, reason = None, ""
    while True:
        slice_ = next_slice(int(ctr[C_NODES]), max_nodes or None, bool(timeout), NODE_SLICE)
        if slice_ == 0:
            reason = "nodes"
            break
        code = int(_astar(p, m, float(weight), a.store, a.parent, a.pmove, a.gc, a.dead, a.hf, a.hg, a.hn,
                          a.t, a.tv, ctr, slice_, moves, scores, autobuf))
        if code == R_GROW:
            if a.nbytes() * 2 > max_memory:
                code, reason = None, "memory"
                break
            a.grow()
            continue
        if code != R_PAUSED:
            break
        code = None
        if timeout and time.perf_counter() - t0 > timeout:
            reason = "time"
            break
    out = AStarRun(code, None, None, None, int(ctr[C_NODES]), int(ctr[C_TABLE]), int(ctr[C_EXPANDED]),
                   bool(ctr[C_INCOMPLETE]), reason, root_cost)
    if code == R_SOLVED:
        goal = int(ctr[C_GOAL])
        out.cost = int(a.gc[goal])
        path = []
        k = goal
        while a.parent[k] >= 0:
            path.append(int(a.pmove[k]))
            k = int(a.parent[k])
        out.path = path[::-1]
    elif code == R_EXHAUSTED and out.incomplete:
        code = out.code = None
        out.reason = "depth"  # a node had more moves than the buffer holds: not a proof
    elif code is None and weight == 1 and ctr[C_HEAP] > 0:
        out.lower_bound = float(a.hf[0])
    return out


def params_for(rules, mode: str, *, auto: bool = True, prune: bool = True) -> np.ndarray:
    """Kernel params for a cost model (module docstring: which prunings each keeps)."""
    from ..state import kernel_params

    if mode == "moves":
        return kernel_params(rules, auto=auto, prune=prune)
    if mode == "tokens":
        return kernel_params(rules, auto=False, prune=False, exact_key=True)
    if mode == "score":
        return kernel_params(rules, auto=False, prune=False)
    raise ValueError(f"unknown cost model {mode!r}")


def score_bound(cost: float) -> int:
    """How many talon cards, at least, go straight home, given a score-mode cost (bound)."""
    return int(math.floor(cost / SCORE_UNIT + 1e-9))


def clean_score_ceiling(layout, rules) -> int:
    """The clean easy-harp score if every stock and waste card went to a column first.

    10 per card not yet home, 5 per face-down card, 5 per card in the stock
    and waste: 1220 + 5 x 59 = 1515 for an easy-harp deal.
    """
    home = sum(f % 13 + 1 for f in layout.foundations)
    talon = len(layout.stock) + len(layout.waste)
    return 10 * (rules.n_cards - home) + 5 * sum(layout.face_down) + 5 * talon
