"""Iterative depth-first search with a transposition table (the classifier).

The kernel ``_dfs`` keeps all of its state in arrays owned by the caller, so
it runs in slices: it returns after ``node_slice`` nodes (or to ask for a
bigger table), the Python side checks the clock and the memory budget, and
calls it again to go on exactly where it stopped.  Numba code cannot read a
clock, and this also keeps Ctrl-C responsive.

Completeness: every child is fingerprinted and entered in the table before
it is expanded; a child already in the table is skipped, which is sound
because its subtree was (or is being) explored from its first visit -- the
game has no state-dependent history, so a state's solvability is a property
of the state alone.  When the stack would overflow, or a node has more
moves than the move buffer holds, the search flags it and can then only
answer ``solved`` or ``unknown``, never ``unsolvable``.

Stock dominance (draw 1 with a pass limit; ``state.stock_dominance``): the
key leaves out the waste/stock boundary ``t`` and the recycles done ``r``,
and the table keeps, as each key's payload, the smallest ``(r, t)`` seen
(lexicographically).  A child is skipped when a position with the same key
and a payload no bigger was entered before; a strictly better one is
entered again and explored.  Why this is sound: two positions A and B with
the same key and (r_A, t_A) <= (r_B, t_B) have the same columns, foundations
and talon order.  Every move B has, A has too, and the results again differ
only in (r, t), in the same order: a column move leaves the talon alone; a
talon card i that B reaches (i >= t_B - 1 in this pass, or after one
recycle, which needs r_B < passes - 1) A reaches as well -- with draw 1 in
the same pass when r_A = r_B, else after at most one recycle, which r_A <
r_B leaves A -- and both end with boundary i and r_A' <= r_B'.  Playing the
waste top home by itself would depend on t, so under dominance that is not
an automatic move (movegen._auto), and nothing else in the move generator
looks at (r, t) beyond reachability.  So A wins in no more moves than B;
at the end of a complete search, a winnable entered position nearest to a
win would have a best move leading to a position that was either entered
(nearer: impossible) or skipped for an entered one no farther (impossible):
no entered position is winnable, the root included.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT_NORC
from ..movegen import GEN_WORK, M_TALON_COL, M_TALON_FOUND, _apply, _auto, _auto_child, _gen, _kind, _sort_by_key, _won
from ..state import (
    MAXLEN, NCOL_MAX, O_COLS, O_DOWN, O_FOUND, O_LEN, O_OBLIG, O_RECYC, O_TLEN, O_TPTR, P_DECKS, P_DOMINANCE, P_HEUR,
    P_NCOL, P_NOISE, P_PASSES, P_SEED, P_W0, _copy_state, _fingerprint, _fingerprint_from, _mix_a, _same_column,
    _summarise_hash,
)
from .settings import next_slice
from .tt import ENTRY_BYTES, _claim, _slots

# counters (int64 array ``ctr``)
C_NODES, C_STORED, C_DEPTH, C_INCOMPLETE, C_MAXDEPTH, C_SIZE = range(6)

# kernel return codes
R_SOLVED, R_EXHAUSTED, R_PAUSED, R_GROW = range(4)

# what _enter did with a position
SKIP, NEW_KEY, BETTER = range(3)


# ---- move ordering (the --heuristic choices) --------------------------------
# Ordering never changes a status -- the search still visits every child --
# only how soon a solution turns up.  Each heuristic gives every child a key;
# children are tried in increasing key order, ties in the generator's order
# (foundation moves, moves that turn a hidden card, talon plays, other column
# moves, free cells, take-backs: see movegen._gen).
H_STATIC, H_LOOKAHEAD, H_FEWEST_HIDDEN, H_FOUNDATION_FIRST, H_STOCK_LAST, H_WEIGHTED = range(6)
# Not a --heuristic name: its weights and seed are set per run by search/restarts.py.
H_FEATURES = 6
# the features of H_FEATURES, in the order of their weights P_W0 + k
(F_HIDDEN, F_ON_HIDDEN, F_BLOCKERS, F_BURIED_PAIRS, F_EMPTY, F_KINGS_ON_CARDS, F_HOME, F_TALON,
 F_RECYCLES, F_WASTE) = range(10)


@njit(**JIT_NORC)
def _features(st, p):
    """(hidden cards, cards home, empty columns, cards in stock and waste)."""
    hidden = 0
    empty = 0
    for c in range(p[P_NCOL]):
        hidden += np.int64(st[O_DOWN + c])
        if st[O_LEN + c] == 0:
            empty += 1
    home = 0
    for k in range(4 * p[P_DECKS]):
        home += np.int64(st[O_FOUND + k])
    return hidden, home, empty, np.int64(st[O_TLEN])


@njit(**JIT_NORC)
def _column_features(st, c):
    """Column ``c``'s cards as the feature key counts them: (cards lying on a lower card of
    their own suit, kings lying on another card, the kinds with a face-down copy here, the
    kinds with both copies face down here) -- the kinds as bit sets over kind 0..51."""
    n = np.int64(st[O_LEN + c])
    down = np.int64(st[O_DOWN + c])
    blockers = kings = 0
    once = twice = np.int64(0)
    base = O_COLS + MAXLEN * c
    mins = np.int64(0xFFFF)  # lowest rank seen lower in the column, 4 bits per suit
    for j in range(n):
        card = np.int64(st[base + j])
        r = card % 13
        s4 = (card // 13) * 4
        if ((mins >> s4) & 15) < r:
            blockers += 1
        else:
            mins = (mins & ~(np.int64(15) << s4)) | (r << s4)
        if r == 12 and j > 0:
            kings += 1
        if j < down:
            bit = np.int64(1) << card
            twice |= once & bit
            once |= bit
    return blockers, kings, once, twice


@njit(**JIT_NORC)
def _popcount(x):
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(**JIT_NORC)
def _feature_key(st, m, p):
    """H_FEATURES: the weighted sum of single-card-game features of ``st``, plus noise.

    Features (Bjarnason et al. 2007 used most of them for Klondike; the
    weights of a run are ``p[P_W0 + k]``, smaller keys are tried first):
    hidden cards; face-up cards lying on hidden cards (each must move before
    the card under it turns); cards that lie on a lower card of their own
    suit (the lower one cannot go home before they move); kinds whose two
    copies are both face down; empty columns; kings lying on another card
    (only an empty column takes them); cards home; cards in stock and waste;
    with a pass limit, the recycles used and the waste size (cards passed
    over in this pass: both spend the scarce passes).  ``P_NOISE`` > 0 adds a
    pseudo-random 0..P_NOISE drawn from ``P_SEED``, the move and the child's
    counts, so a seed always gives the same order.
    """
    blockers, kings, twice = _feature_totals(st, st, p, _NO_FEATURES, False)
    return _weigh_features(st, m, p, blockers, kings, twice)


_NO_FEATURES = np.zeros(0, np.int64)


@njit(**JIT_NORC, inline="always")  # inlined: ``from_parent`` is a constant at each call, its branch folds away
def _feature_totals(st, parent, p, fs, from_parent):
    """The column counts of the feature key, summed over the columns: (blockers, kings on
    cards, the kinds with both copies face down).  ``from_parent``: a column that is the
    parent's (state._same_column) is read from the parent's ``fs`` (_summarise_features)."""
    blockers = kings = 0
    once = twice = np.int64(0)
    for c in range(p[P_NCOL]):
        if from_parent and _same_column(st, parent, c):
            b, k, o, t = fs[4 * c], fs[4 * c + 1], fs[4 * c + 2], fs[4 * c + 3]
        else:
            b, k, o, t = _column_features(st, c)
        blockers += b
        kings += k
        twice |= t | (once & o)
        once |= o
    return blockers, kings, twice


@njit(**JIT_NORC)
def _weigh_features(st, m, p, blockers, kings, twice):
    """The feature key from the column counts that need a walk over the cards (``blockers``,
    ``kings``, ``twice``: the kinds with both copies face down) and the rest, read off ``st``."""
    hidden = on_hidden = empty = home = 0
    for c in range(p[P_NCOL]):
        n = np.int64(st[O_LEN + c])
        down = np.int64(st[O_DOWN + c])
        if n == 0:
            empty += 1
        hidden += down
        if down > 0:
            on_hidden += n - down
    for k in range(4 * p[P_DECKS]):
        home += np.int64(st[O_FOUND + k])
    talon = np.int64(st[O_TLEN])
    w = P_W0
    key = (p[w + F_HIDDEN] * hidden + p[w + F_ON_HIDDEN] * on_hidden + p[w + F_BLOCKERS] * blockers
           + p[w + F_BURIED_PAIRS] * _popcount(twice) + p[w + F_EMPTY] * empty + p[w + F_KINGS_ON_CARDS] * kings
           + p[w + F_HOME] * home + p[w + F_TALON] * talon)
    if p[P_PASSES] > 0:
        key += p[w + F_RECYCLES] * np.int64(st[O_RECYC]) + p[w + F_WASTE] * np.int64(st[O_TPTR])
    if p[P_NOISE] > 0:
        z = np.uint64(p[P_SEED]) * np.uint64(0x9E3779B97F4A7C15)
        z = _mix_a(z ^ np.uint64(m))
        z = _mix_a(z ^ np.uint64(hidden * 65536 + home * 256 + talon))
        key += np.int64(z % np.uint64(p[P_NOISE] + 1))
    return key


@njit(**JIT_NORC)
def _child_key(child, m, p):
    h = p[P_HEUR]
    if h == H_FEATURES:
        return _feature_key(child, m, p)
    hidden, home, empty, talon = _features(child, p)
    if h == H_LOOKAHEAD:
        return hidden * 8 - home
    if h == H_FEWEST_HIDDEN:
        return hidden
    if h == H_FOUNDATION_FIRST:
        return -home * 64 + hidden
    if h == H_STOCK_LAST:
        k = _kind(m)
        return 1 if (k == M_TALON_COL or k == M_TALON_FOUND) else 0
    # H_WEIGHTED: hidden cards dominate; home cards, empty columns and a
    # smaller talon (cards out of the stock are cards in play) help
    return hidden * 16 - home * 2 - empty * 6 + talon


# The feature keys of one position's children, column by column, as state._fingerprint_from
# does the fingerprints (the same argument: a column whose length and face-down count are the
# parent's holds the parent's cards).  FS layout (int64): FS[4c .. 4c + 3] column c's
# _column_features.
FS_SIZE = 4 * NCOL_MAX


@njit(**JIT_NORC)
def _summarise_features(st, p, fs):
    """Write the parent ``st``'s column features into ``fs`` (FS layout; nothing unless the
    heuristic is H_FEATURES)."""
    if p[P_HEUR] != H_FEATURES:
        return
    for c in range(p[P_NCOL]):
        fs[4 * c], fs[4 * c + 1], fs[4 * c + 2], fs[4 * c + 3] = _column_features(st, c)


@njit(**JIT_NORC)
def _child_key_from(child, parent, m, p, fs):
    """``_child_key(child, m, p)`` for a child of ``parent``, from the parent's column
    features ``fs`` (``_summarise_features``) where the heuristic is H_FEATURES."""
    if p[P_HEUR] != H_FEATURES:
        return _child_key(child, m, p)
    blockers, kings, twice = _feature_totals(child, parent, p, fs, True)
    return _weigh_features(child, m, p, blockers, kings, twice)


@njit(**JIT_NORC)
def _features_from(child, parent, p, fs, out):
    """``_summarise_features(child, p, out)`` for a child of ``parent`` whose column features
    are ``fs``: a column that is the parent's (state._same_column) keeps its features, the
    others are read again -- as ``_fingerprint_from`` does the hashes, and for the same reason:
    the depth-first search summarised every position it expanded in full, ~0.4 us in easy-harp.
    Measured (twenty-fourth session, restart runs of 20 000 nodes on easy-harp deals 1-40, sweeps
    paused): 715-770 -> 652-662 ns a node.  (The beams' parents have many children each: there
    the same change made no difference, and it was left out.)  Nothing unless the heuristic is
    H_FEATURES."""
    if p[P_HEUR] != H_FEATURES:
        return
    # The same choice per column as _feature_totals makes, written out in both: one inlined
    # helper returning either the parent's four values or _column_features made the keys of
    # every child 60 % dearer (bench_childkeys.py, easy-harp 195 -> 305 ns a child; the beams
    # 445 -> 555 ns; twenty-fourth session).
    for c in range(p[P_NCOL]):
        f = 4 * c
        if _same_column(child, parent, c):
            for x in range(4):
                out[f + x] = fs[f + x]
        else:
            out[f], out[f + 1], out[f + 2], out[f + 3] = _column_features(child, c)


@njit(**JIT_NORC)
def _order_children(st, p, moves, n, scratch, keys, fs):
    """Sort the first n moves by the key of the position each leads to (stable); ``fs``:
    ``st``'s column features (``_summarise_features`` or ``_features_from``).

    The key is that of the position the move itself leads to, before the automatic moves that
    follow it (the search makes them when it enters the child): an order is only an order --
    every child is still searched, and the table and the cuts see the real child -- and the
    automatic moves were a third of the cost of keying a child, paid for every child of every
    node entered, most of which the search never enters.  Measured with
    benchmarks/bench_ab.py (twenty-first session, two sweeps beside it), the order before / after:
    easy-harp 1-1 200 mean 17.39 / 16.23 ms, median 2.84 / 2.42 ms, mean nodes 9 568 / 9 481;
    5 001-7 000 every 2nd 14.79 / 13.39 ms, median 2.56 / 2.04 ms; klondike-3 1-3 000 every 10th
    119.2 / 116.4 ms; klondike-1 37.7 / 37.2 ms; harp (the same nodes) and bakers-game even;
    the same unknown deals."""
    if p[P_HEUR] == H_STATIC:
        return
    for i in range(n):
        _copy_state(scratch, st)
        _apply(scratch, moves[i], p)
        keys[i] = _child_key_from(scratch, st, moves[i], p, fs) * 4096 + i
    _sort_by_key(moves, keys, n)


@njit(**JIT_NORC)
def _enter(t, tv, st, p):
    """Enter ``st`` in the table: NEW_KEY, BETTER (its key was there with a worse
    stock position, under stock dominance) or SKIP (it, or a position that
    dominates it, was entered before)."""
    h1, h2 = _fingerprint(st, p)
    return _enter_key(t, tv, st, p, h1, h2)


@njit(**JIT_NORC)
def _enter_key(t, tv, st, p, h1, h2):
    """``_enter`` with ``st``'s fingerprint given."""
    s = _claim(t, h1, h2)
    if not p[P_DOMINANCE]:
        return NEW_KEY if s < 0 else SKIP
    pos = np.int64(st[O_RECYC]) * 256 + np.int64(st[O_TPTR])
    if s < 0:
        tv[-1 - s] = pos
        return NEW_KEY
    if tv[s] <= pos:
        return SKIP
    tv[s] = pos
    return BETTER


@njit(**JIT_NORC)
def _dfs(stack, hs, fs, home, moves, mstart, nmoves, nxt, scores, autobuf, work, scratch, keys, nopre, t, tv, ctr, p,
         node_slice):
    """Search on; the moves of depth d are moves[mstart[d] : mstart[d] + nmoves[d]],
    ``hs[d]`` holds ``stack[d]``'s column and talon hashes (state._fingerprint_from) and
    ``fs[d]`` its column features (``_features_from``), ``home[d]`` its ``_auto_mask``
    (its children's automatic moves: movegen._auto_child) or -1 until one needs it.

    Move lists are stacked in one flat array (a deep path of nodes with few
    moves costs little), and keys live in ``ctr`` so a call resumes exactly.
    ``work`` (_gen's working space), ``scratch`` and ``keys`` (a child being keyed and the
    keys: _order_children) and ``nopre`` (no talon prefix sums: state._fingerprint_from hashes a
    child's talon in full) come from the caller: the kernel allocates nothing (it is compiled
    without reference counting, config.JIT_NORC).
    """
    d = ctr[C_DEPTH]
    nodes = ctr[C_NODES]
    limit = nodes + node_slice
    maxd = stack.shape[0] - 1
    cap_half = _slots(t) // 2
    while True:
        if d < 0:
            ctr[C_DEPTH] = d
            ctr[C_NODES] = nodes
            return R_EXHAUSTED
        if nxt[d] >= nmoves[d]:
            d -= 1
            continue
        if nodes >= limit or ctr[C_STORED] >= cap_half:
            ctr[C_DEPTH] = d
            ctr[C_NODES] = nodes
            return R_PAUSED if nodes >= limit else R_GROW
        m = moves[mstart[d] + nxt[d]]
        nxt[d] += 1
        child = stack[d + 1]
        _copy_state(child, stack[d])
        _apply(child, m, p)
        if child[O_OBLIG] == 0:
            home[d] = _auto_child(child, stack[d], p, autobuf, home[d])
        nodes += 1
        if _won(child, p):
            ctr[C_DEPTH] = d + 1
            ctr[C_NODES] = nodes
            return R_SOLVED
        h1, h2 = _fingerprint_from(child, stack[d], p, hs[d], hs[d + 1], nopre)
        entered = _enter_key(t, tv, child, p, h1, h2)
        if entered == SKIP:
            continue
        ctr[C_STORED] += entered == NEW_KEY
        if d + 1 >= maxd:
            ctr[C_INCOMPLETE] = 1
            continue
        lo = mstart[d] + nmoves[d]
        if lo + scores.shape[0] > moves.shape[0]:
            ctr[C_INCOMPLETE] = 1  # out of move-stack room: explore no deeper here
            continue
        mine = moves[lo:lo + scores.shape[0]]
        n = _gen(child, p, mine, scores, work)
        if n < 0:
            ctr[C_INCOMPLETE] = 1
            continue
        _features_from(child, stack[d], p, fs[d], fs[d + 1])
        home[d + 1] = -1  # not found yet (a mask is a set of 52 bits: never negative)
        _order_children(child, p, mine, n, scratch, keys, fs[d + 1])
        mstart[d + 1] = lo
        nmoves[d + 1] = n
        nxt[d + 1] = 0
        d += 1
        if d > ctr[C_MAXDEPTH]:
            ctr[C_MAXDEPTH] = d


@njit(**JIT_NORC)
def _root(stack, hs, fs, home, moves, mstart, nmoves, nxt, scores, autobuf, work, scratch, keys, t, tv, ctr, p):
    """Prepare depth 0: safe moves, the root's fingerprint and moves.

    Returns the number of automatic moves made at the root (in ``autobuf``),
    or -1 if the root has more moves than the buffer holds.
    """
    na = _auto(stack[0], p, autobuf)
    _enter(t, tv, stack[0], p)
    _summarise_hash(stack[0], p, hs[0])
    _summarise_features(stack[0], p, fs[0])
    home[0] = -1  # the root's _auto_mask, found when a child first needs it
    ctr[C_STORED] = 1
    ctr[C_DEPTH] = 0
    mstart[0] = 0
    n = _gen(stack[0], p, moves[:scores.shape[0]], scores, work)
    if n < 0:
        return -1
    _order_children(stack[0], p, moves[:scores.shape[0]], n, scratch, keys, fs[0])
    nmoves[0] = n
    nxt[0] = 0
    return na


# ---- the Python side: buffers and a resumable run --------------------------------------
MAX_DEPTH = 32768       # deepest search path (past it: "unknown", never "unsolvable")
MOVE_STACK = 1 << 22    # move lists of all the nodes on the path, stacked
NODE_SLICE = 100_000    # nodes per kernel call: the clock is read between calls
ENTRY_BYTES_DFS = ENTRY_BYTES + 8  # a table entry: the 128-bit key, and the payload of stock dominance


class Buffers:
    """One depth-first search's stack, move lists and table.

    Allocated once per process and role (:func:`buffers`) and reused: the
    stack and move lists are big (~50 MB, mapped lazily), the table is
    cleared rather than reallocated while it keeps its first size.
    """

    def __init__(self):
        from ..state import HS_SIZE, STATE_BYTES
        from ..movegen import MAX_MOVES

        self.stack = np.zeros((MAX_DEPTH + 1, STATE_BYTES), np.uint8)
        self.hs = np.zeros((MAX_DEPTH + 1, HS_SIZE), np.uint64)  # the stack's hashes (_dfs)
        self.fs = np.zeros((MAX_DEPTH + 1, FS_SIZE), np.int64)   # ...and column features
        self.home = np.zeros(MAX_DEPTH + 1, np.int64)             # ...and _auto_mask
        self.moves = np.zeros(MOVE_STACK, np.int64)
        self.mstart = np.zeros(MAX_DEPTH, np.int64)
        self.nmoves = np.zeros(MAX_DEPTH, np.int32)
        self.nxt = np.zeros(MAX_DEPTH, np.int32)
        self.scores = np.zeros(MAX_MOVES, np.int32)
        self.autobuf = np.zeros(256, np.int64)
        self.work = np.zeros(GEN_WORK, np.int64)        # _gen's working space
        self.scratch = np.zeros(STATE_BYTES, np.uint8)  # a child being keyed (_order_children)
        self.keys = np.zeros(MAX_MOVES, np.int64)       # ...and the keys
        self.nopre = np.zeros((2, 0), np.uint64)         # no talon prefix sums (_dfs)
        self.t = self.tv = None

    def fresh_table(self, capacity: int) -> None:
        from .tt import new_payload, new_table

        if self.t is not None and _slots(self.t) == capacity:
            self.t.fill(0)
        else:
            self.t = new_table(capacity)
            self.tv = new_payload(capacity)

    def table_bytes(self) -> int:
        return 0 if self.t is None else _slots(self.t) * ENTRY_BYTES_DFS

    def trim(self, keep: int = 64 << 20) -> None:
        """Let a big table go (the next search starts small anyway)."""
        if self.table_bytes() > keep:
            self.t = self.tv = None


_POOL: dict[str, Buffers] = {}


def buffers(role: str) -> Buffers:
    """This process's buffers for ``role``: searches that may be paused at the same time
    (the engines of one schedule) use different roles."""
    b = _POOL.get(role)
    if b is None:
        b = _POOL[role] = Buffers()
    return b


def trim_pool() -> None:
    for b in _POOL.values():
        b.trim()


class DfsSearch:
    """One depth-first search from ``root`` under the kernel vector ``p``, run in slices.

    ``advance`` goes on exactly where the last call stopped (the kernel keeps
    all of its state in the buffers), so a schedule can give a search slices
    in turn without losing work.  Only one search may use a :class:`Buffers`
    at a time.
    """

    def __init__(self, root: np.ndarray, p: np.ndarray, buf: Buffers, initial_table: int = 1 << 14):
        self.p, self.buf = p, buf
        buf.fresh_table(initial_table)
        self.ctr = np.zeros(C_SIZE, np.int64)
        buf.stack[0] = root
        b = buf
        na = _root(b.stack, b.hs, b.fs, b.home, b.moves, b.mstart, b.nmoves, b.nxt, b.scores, b.autobuf, b.work, b.scratch,
                   b.keys, b.t, b.tv, self.ctr, p)
        self.final = None  # (kernel code, reason) once the search has ended
        if _won(b.stack[0], p):
            self.ctr[C_DEPTH] = 0
            self.final = (R_SOLVED, "")
        elif na < 0:
            self.ctr[C_INCOMPLETE] = 1
            self.final = (R_EXHAUSTED, "depth")

    @property
    def nodes(self) -> int:
        return int(self.ctr[C_NODES])

    @property
    def states(self) -> int:
        return int(self.ctr[C_STORED])

    @property
    def max_depth(self) -> int:
        return int(self.ctr[C_MAXDEPTH])

    @property
    def complete(self) -> bool:
        """No part of the graph was cut off (stack or move-list overflow): an exhausted
        search is then a proof."""
        return not self.ctr[C_INCOMPLETE]

    def advance(self, nodes: int = 0, deadline: float | None = None, reserve=None):
        """Search on for at most ``nodes`` more nodes (0 = no limit) or until ``deadline``
        (a ``time.perf_counter()`` value).  ``reserve(nbytes)`` is asked before the table
        grows to ``nbytes`` and may refuse.

        Returns (code, reason): (R_SOLVED, ""), (R_EXHAUSTED, "" or "depth") -- final --,
        or (None, "nodes" | "time") -- paused, call again -- or (None, "memory"): final.
        """
        import time

        from .tt import _rehash, new_payload, new_table

        if self.final is not None:
            return self.final
        b, ctr = self.buf, self.ctr
        stop = int(ctr[C_NODES]) + nodes if nodes else None
        while True:
            n = next_slice(int(ctr[C_NODES]), stop, deadline is not None, NODE_SLICE)
            if n == 0:
                return None, "nodes"
            code = _dfs(b.stack, b.hs, b.fs, b.home, b.moves, b.mstart, b.nmoves, b.nxt, b.scores, b.autobuf,
                        b.work, b.scratch, b.keys, b.nopre, b.t, b.tv, ctr, self.p, n)
            if code == R_GROW:
                size = 2 * _slots(b.t)
                if reserve is not None and not reserve(size * ENTRY_BYTES_DFS):
                    self.final = (None, "memory")
                    return self.final
                grown, nv = new_table(size), new_payload(size)
                _rehash(b.t, b.tv, grown, nv)
                b.t, b.tv = grown, nv
                continue
            if code == R_SOLVED:
                self.final = (R_SOLVED, "")
                return self.final
            if code == R_EXHAUSTED:
                self.final = (R_EXHAUSTED, "" if self.complete else "depth")
                return self.final
            if deadline is not None and time.perf_counter() > deadline:
                return None, "time"

    def path(self) -> list[int]:
        """The kernel moves from the root to the won position on the stack (after R_SOLVED)."""
        b = self.buf
        return [int(b.moves[b.mstart[k] + b.nxt[k] - 1]) for k in range(int(self.ctr[C_DEPTH]))]
