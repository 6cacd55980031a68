"""The arrangement-free engine: a complete search for games where built runs move.

Idea (lonelybot, ``docs/method.md`` and ``docs/no_pile_to_pile.md``; this is our
own formulation and code): in a Klondike-like game where any face-up built run
moves as a unit, *where* a face-up card lies does not matter, only *whether*
it is still in play.  The search state is

* ``F``   the foundation heights (per suit, the ``decks`` places sorted),
* ``d``   per column, how many of its *dealt* cards are still in place: the
          hidden ones plus the face-up card lying on them (the "locked" card
          ``col[i][d-1]``).  ``d = 0`` means the column has lost its dealt
          cards: it is empty or holds a king-led run.
* the talon: which of its cards are left (a bit per talon index), the waste
  size and the recycles done (the stock position is normalised, below).

The face-up tableau cards are the complement of all that.  Every face-up card
that is not locked and not a king lies on a parent of the one (rank+1,
opposite colour) *type*; the two suits of a type (four cards with two decks)
are interchangeable as parents.  So the number of free (uncovered) cards of
each type, ``free[t] = present[t] - placed[child type of t]``, and the number
of empty columns, ``#(d == 0) - #(face-up kings not locked)``, are the same
in every arrangement: they are functions of the state.

Abstract moves (``MK_*``), each realised in *any* arrangement by one or two
real moves (``afree_concrete.py`` does it with the reference engine):

* ``MK_CFL i``  the locked card x of column i goes home.  Needs a foundation
  place at rank(x)-1 and ``free[type x] >= 1``: x is uncovered, or another
  card y of its type is, and the run on x moves onto y first (y is not in
  that run: the run's ranks are below rank(x)).  Turns the card under x.
* ``MK_CFP c``  a face-up copy of kind c that is not locked goes home; same
  condition, no turn.
* ``MK_RV i``   "reveal": the run from the locked card of column i moves onto
  a free card of its parent type (``free >= 1``; such a card is never in that
  run) or, for a king, to an empty column.  Turns the card under it.
* ``MK_TF j`` / ``MK_TC j``  talon card j goes home / onto a free parent (an
  empty column for a king), after the draws and recycles that make it the
  waste top (K+: the draws are folded into the move; j ranges over every
  talon index the stock can bring to the waste top).
* ``MK_TB c``   take-back: the top c of a foundation place goes onto a free
  parent (an empty column for a king).

Why the abstraction decides exactly (proof for ``unsolvable``, any number of
identical decks, with or without take-back).  Map a real position to its
state as above.  Every real move maps to an abstract move or to none:

* ``s>w`` / ``w>s``: the talon position only; the draws before a talon play
  are part of that play's abstract move (K+), and positions that the key
  merges reach the same set of talon plays (see "Stock" below).
* ``w>f``, ``w>tJ``, ``f>tJ:c``: MK_TF, MK_TC, MK_TB; a real target card is an
  uncovered card of the parent type, so ``free >= 1`` (or an empty column).
* ``tI>f`` of the top card x: MK_CFL if x is column I's locked card (then x is
  uncovered, so ``free[type x] >= 1``), else MK_CFP.
* ``tI>tJ*n`` with bottom card x: if x is column I's locked card, MK_RV(I) and
  its precondition holds (the real target exists); otherwise x is not a dealt
  card in place, so neither ``F``, ``d``, the talon nor the set of face-up
  cards changes: the same abstract state (these are the moves that only
  rearrange runs; the search never makes them).
So every real winning line maps to an abstract path from the root's state to
the won state (all foundations at 13).  A search that exhausts the abstract
states reachable from the root without meeting the won state therefore
proves that no real line wins.  Conversely each abstract move is realisable
from every arrangement of its source state (above), which is why an abstract
solution always concretises; the concretiser still checks every real move
against the kernel's primitive legal moves and reports ``unknown``
("concretise") if anything fails, and the solver replays the line in the
reference engine.

Stock.  Talon index j runs over waste (bottom first) then stock, as at the
root.  The position is kept canonical (one plus the index of the waste top,
0 for an empty waste).  With unlimited passes, every position on the chain of
draws from an empty waste, and the end of the stock, is "pure": from any
pure position the draws and recycles reach every other one and come back,
so all pure positions reach the same talon plays and are keyed as one (0);
Solvitaire and lonelybot key it so.  A non-pure position is keyed exactly;
with a pass limit, the position and the recycles are keyed exactly.

The key is exact, not a hash: ``k1`` = talon bits | x, where x = position |
recycles | obligation (``_wanted``), ``k2`` = foundation heights (4 bits a
place) | ``d`` in mixed radix | bit 63.  When the talon leaves no room for x in
k1 (harp's 59 cards with a pass limit: 59 + 6 + 2 bits), x goes to the bits of
k2 above ``d`` instead (``Problem``; ``_key``).
The table stores both words and compares them, so two states never merge
unless they are the same state.  Where all of it fits one word (one deck:
klondike's 24 talon cards and 5 bits of position or obligation, 16 bits of
foundations, 16 of columns: 61 bits, lonelybot's size) the table holds that
word alone (``_pack1``): half the memory, and a probe -- for most children
a cache miss, the table outgrowing every cache -- reads half as much.

Search: plain depth-first search with a table of every state entered
(insert once, never evict).  A state met again is skipped: its subtree was,
or is being, explored from its first visit, and with no path-dependent cut a
state's solvability is a property of the state alone.  Besides the quotient
above and the stock normalisation, both exact, four cuts (``safe=True``): a
safe foundation move is a node's only move (``_forced``, Keller's rule in
``_safe``), a safe talon card that may go home is not also offered onto a
column (``_talon_plays``), no take-back of a card nothing could ever lie on
(``_useless``) nor of a card that would be safe (``_gen``); and where the
talon is a reserve (draw 1, unlimited passes), a talon card goes to a column
only when something needs it there, and the next move must use it
(``_wanted``: the obligation is a field of the state and of its key, so no
search path leaks into the table); proofs there.  Past
``MAX_DEPTH``, or a node with more moves than ``MAX_MOVES``, the search is
flagged incomplete and can no longer answer ``unsolvable``.
"""
from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..bits import bitlen, popcount
from ..config import JIT, JIT_NORC as NORC
from ..prefetch import prefetch
from .settings import next_slice

MAX_DEPTH = 4096
MAX_MOVES = 512
NODE_SLICE = 200_000
INITIAL_TABLE = 1 << 12  # most deals need a few thousand states; the table doubles
ENTRY_BYTES = 16         # a two-word entry (k1, k2); one word where the key fits (``_pack1``)

# abstract move kinds (the low 3 bits of a move)
MK_TF, MK_TC, MK_CFL, MK_CFP, MK_RV, MK_TB = 0, 1, 2, 3, 4, 5

# kernel parameters
Q_DECKS, Q_DRAW, Q_PASSES, Q_TAKEBACK, Q_NCOL, Q_TLEN, Q_PBITS, Q_RCBITS, Q_SAFE = range(9)
Q_PRI = 9      # 6 slots: the rank of each move kind in the order children are tried (lower first)
Q_DEFER = 15   # 1: talon plays to a column are deferred until used (``_deferred``): draw 1, unlimited passes
Q_XK2 = 16     # 1: the key's small fields (position, recycles, obligation) sit in k2, not k1 (``_key``)
Q_XSHIFT = 17  # where they start in k2 then
Q_ONE = 18     # 1: the key fits one word (``_pack1``): the table holds 8-byte entries
Q_FSHIFT = 19  # where the foundation heights start in that word
Q_DSHIFT = 20  # ...and the columns' field
Q_W = 21       # 10 slots: the weight of each column's d in the key's mixed-radix field (S_DV)
Q_SIZE = 31
OB_BITS = 5    # the key's field for the obligation (S_OB: 0, or 1 + a type, at most 26)
# which children the search tries first (move ordering only: every move is still tried)
# measured, klondike-3 deals 1-100 at 200 000 nodes: unknown 9 with (CFL, RV, CFP, TF, TC, TB),
# 7 with this order, 9-10 with three others
DEFAULT_ORDER = (MK_CFL, MK_TF, MK_RV, MK_CFP, MK_TC, MK_TB)
# ...but with a pass limit a talon card passed by costs a pass to come back to, and the
# search that tries the talon's cards on the columns first finds far more solutions:
# measured with ``benchmarks/bench_afree.py --against order`` (afree alone, both orders deal
# by deal in one run; benchmarks/README, twelfth session), big-harp deals 41-140 at 300 000
# nodes: 42 solved with this order, 23 with DEFAULT_ORDER; deals 1-40 at 500 000: 23 against
# 14.  Under unlimited passes it is the worse one (endless-harp deals 1-100 at 100 000 nodes:
# 97 solved against 99, three times the states; klondike-1 1-100 at 200 000: 91 against 95),
# so it is the order only where passes are limited.
PASS_LIMIT_ORDER = (MK_TC, MK_TF, MK_CFP, MK_RV, MK_CFL, MK_TB)
_ORDERS = (DEFAULT_ORDER, PASS_LIMIT_ORDER)  # indexed by "is there a pass limit"


def default_order(rules) -> tuple:
    """The order children are tried in under ``rules`` (move ordering only)."""
    return _ORDERS[bool(rules.passes)]


def other_order(rules) -> tuple:
    """The order :func:`default_order` does not pick (the second row of the portfolio)."""
    return _ORDERS[not rules.passes]

# state vector slots
S_F = 0        # 8 foundation places (4 * decks used), place = suit * decks + k, sorted per suit
S_D = 8        # 10 columns
S_REM = 18     # talon cards left, a bit per talon index
S_POS = 19     # canonical position (1 + index of the waste top, 0 = empty waste / pure)
S_RC = 20      # recycles done (0 under unlimited passes)
S_OB = 21      # obligation: 1 + the type of the talon card just played to a column (Q_DEFER), else 0
S_DV = 22      # the columns' d in mixed radix, sum of d[i] * q[Q_W + i]: the key's field, kept by _lower
S_SIZE = 24

# counters
C_NODES, C_STORED, C_DEPTH, C_MAXDEPTH, C_INCOMPLETE = range(5)
C_SIZE = 8

R_SOLVED, R_EXHAUSTED, R_PAUSED, R_GROW = 1, 2, 3, 4

KING_T0 = 24  # types of rank 13: 24 (black), 25 (red)


# ---- card types ------------------------------------------------------------------
def _tables():
    """Per card kind: its type ((rank - 1) * 2 + colour, the cards interchangeable as
    parents and children), its parent type (rank + 1, the other colour; -1 for a
    king), suit and rank - 1.  Lookups: integer division is slow in the kernel."""
    ty = np.zeros(52, np.int64)
    pt = np.zeros(52, np.int64)
    su = np.zeros(52, np.int64)
    rk = np.zeros(52, np.int64)
    for c in range(52):
        s, r = c // 13, c % 13
        red = 1 if s in (1, 2) else 0
        ty[c] = r * 2 + red
        pt[c] = (r + 1) * 2 + (1 - red) if r < 12 else -1
        su[c], rk[c] = s, r
    return ty, pt, su, rk


TYPE, PTYPE, SUIT, RANK = _tables()


class Work(NamedTuple):
    """Scratch arrays of the move generator, made once per search and handed to the kernels
    (which allocate nothing: ``config.JIT_NORC``), and two tables of the talon's indices."""
    vis: np.ndarray      # face-up copies per kind
    free: np.ndarray     # uncovered cards per type
    nl: np.ndarray       # face-up copies per kind that are not locked
    locked: np.ndarray   # locked cards per type
    present: np.ndarray  # face-up cards per type
    tk: np.ndarray       # per card kind, the bits of the talon indices holding it
    tp: np.ndarray       # per type t, the talon indices whose card goes on a card of type t (26: kings)
    crem: np.ndarray     # the talon walk's cache (``_walks``): talon bits of each slot,
    cpos: np.ndarray     # ...its position (-1: an empty slot),
    cwalk: np.ndarray    # ...and its two walks (2 words a slot)
    nv: np.ndarray       # [0]: the columns that have lost their dealt cards (d = 0)
    at: np.ndarray       # [0]: the depth of the search's state the counts are of (``_sync``)
    via: np.ndarray      # per depth k, the move that made the search's state at depth k


WALK_CACHE = 1 << 12  # slots of the talon walk's cache: 4 words each, 128 KB, in the core's L2
# The kernels that take a Work run once or more per state, and numba hands a tuple of arrays
# to a function it calls by value (every array's descriptor copied): they are inlined
# (``inline='always'``), which took a state from 0.80 to 0.73 us on klondike-1 and from 0.70
# to 0.60 us on klondike-3 (twenty-second session, the engine alone on deals of 1-5 M
# states, sweeps stopped; benchmarks/README.md).  A small kernel that needs one of the
# tables takes that array, not the tuple (``_wanted``).


@njit(**JIT)
def work(talon, tlen):
    tk = np.zeros(52, np.uint64)
    tp = np.zeros(27, np.uint64)
    for j in range(tlen):
        c = talon[j]
        b = np.uint64(1) << np.uint64(j)
        tk[c] |= b
        t = PTYPE[c]
        tp[t if t >= 0 else 26] |= b
    return Work(np.zeros(52, np.int64), np.zeros(52, np.int64), np.zeros(52, np.int64), np.zeros(52, np.int64),
                np.zeros(52, np.int64), tk, tp, np.zeros(WALK_CACHE, np.uint64), np.full(WALK_CACHE, -1, np.int64),
                np.zeros(2 * WALK_CACHE, np.uint64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                np.zeros(MAX_DEPTH + 1, np.int64))


# ---- derived counts --------------------------------------------------------------
@njit(**NORC)
def _derive(S, q, cols, talon, w):
    """The counts of ``w`` for S, from scratch: ``vis`` (face-up copies per kind), ``nl``
    (those not locked), ``locked`` and ``present`` per type, ``nv`` (vacated columns), then
    ``free`` (``_counts``); returns the number of empty columns.  The search keeps them up to
    date move by move instead (``_step``)."""
    vis, nl, locked, present = w.vis, w.nl, w.locked, w.present
    decks = q[Q_DECKS]
    for c in range(52):
        vis[c] = decks
    for s in range(4):
        for k in range(decks):
            h = S[S_F + s * decks + k]
            for r in range(h):
                vis[s * 13 + r] -= 1
    rem = np.uint64(S[S_REM])
    while rem:
        low = rem & (~rem + np.uint64(1))
        vis[talon[bitlen(low) - 1]] -= 1
        rem ^= low
    ncol = q[Q_NCOL]
    for t in range(26):
        locked[t] = 0
        present[t] = 0
    nvac = 0
    for i in range(ncol):
        di = S[S_D + i]
        if di == 0:
            nvac += 1
            continue
        for x in range(di - 1):
            vis[cols[i, x]] -= 1
        locked[TYPE[cols[i, di - 1]]] += 1
    for c in range(52):
        present[TYPE[c]] += vis[c]
        nl[c] = vis[c]
    for i in range(ncol):
        di = S[S_D + i]
        if di >= 1:
            nl[cols[i, di - 1]] -= 1
    w.nv[0] = nvac
    return _counts(w)


@njit(inline='always', **NORC)
def _counts(w):
    """``w.free`` (uncovered cards per type) from ``present`` and ``locked``; returns the
    number of empty columns."""
    free, present, locked = w.free, w.present, w.locked
    # a face-up non-king card that is not locked lies on a card of its parent type
    for t in range(26):
        free[t] = present[t]
    for t in range(2, 26):
        # type t (rank >= 2) is covered by the placed cards of its child type
        ct = t - 2 - (t & 1) + (1 - (t & 1))  # rank - 1, colour flipped
        free[t] -= present[ct] - locked[ct]
    kings_free = present[KING_T0] + present[KING_T0 + 1] - locked[KING_T0] - locked[KING_T0 + 1]
    return w.nv[0] - kings_free


@njit(inline='always', **NORC)
def _face_up(w, c, sign):
    """A copy of kind c turns up on the tableau (sign 1) or leaves it (-1), not locked."""
    w.vis[c] += sign
    w.present[TYPE[c]] += sign
    w.nl[c] += sign


@njit(inline='always', **NORC)
def _lock(w, c, sign):
    """A face-up copy of kind c becomes (sign 1) or stops being (-1) a column's locked card."""
    w.locked[TYPE[c]] += sign
    w.nl[c] -= sign


@njit(inline='always', **NORC)
def _step(S, m, q, cols, talon, w, sign):
    """Bring the counts of ``w`` (``_derive``) from state S to S + m (sign 1), or back from
    S + m to S (sign -1): each change below is a sum, so the same changes negated undo it.

    What a move changes (the rest of the counts stays): MK_TF none (the card leaves the
    talon for a foundation: never face up); MK_TC and MK_TB a card turns up, not locked;
    MK_CFP a face-up card that is not locked leaves; MK_CFL column i's locked card x goes
    home, MK_RV it stays up but is no longer locked; then (both) the column lowers
    (``_lower``): the dealt card under x turns up and is locked, or, a king at the bottom, is
    up but unlocked in a column that has lost its dealt cards, or the column is vacated."""
    kind = m & 7
    a = (m >> 3) & 511
    if kind == MK_TC:
        _face_up(w, talon[a], sign)
    elif kind == MK_TB:
        _face_up(w, a, sign)
    elif kind == MK_CFP:
        _face_up(w, a, -sign)
    elif kind == MK_CFL or kind == MK_RV:
        di = S[S_D + a]
        x = cols[a, di - 1]
        _lock(w, x, -sign)
        if kind == MK_CFL:
            _face_up(w, x, -sign)
        nd = di - 1
        if nd >= 1:
            y = cols[a, nd - 1]
            _face_up(w, y, sign)
            if nd == 1 and RANK[y] == 12:
                w.nv[0] += sign
            else:
                _lock(w, y, sign)
        else:
            w.nv[0] += sign


@njit(inline='always', **NORC)
def _sync(S, q, cols, talon, w, depth):
    """Bring the counts of ``w`` back to the search's state at ``depth`` (an ancestor of the
    state they are of, ``w.at``): undo the moves that led down from it (``w.via``)."""
    while w.at[0] > depth:
        k = w.at[0]
        _step(S[k - 1], w.via[k], q, cols, talon, w, -1)
        w.at[0] = k - 1


@njit(**NORC)
def _accepts(S, q, c):
    """May card ``c`` go to a foundation place of its suit?"""
    decks = q[Q_DECKS]
    s = SUIT[c]
    r = RANK[c]  # the height it needs below it
    for k in range(decks):
        if S[S_F + s * decks + k] == r:
            return True
    return False


@njit(**NORC)
def _successor(S, s, k, decks):
    """The card that place k of suit s takes next, or -1: none (the place holds a king) or the
    same card as the place after it (places are sorted, highest first, so k = decks - 1 ... 0
    visits the cards a suit's places take in increasing order, each once: every card a
    foundation takes, in the order of ``for c in range(52)``)."""
    h = S[S_F + s * decks + k]
    if h >= 13 or (k < decks - 1 and S[S_F + s * decks + k + 1] == h):
        return -1
    return s * 13 + h


@njit(**NORC)
def _found(S, q, c, delta):
    """Put ``c`` on (delta=+1) or take it from (delta=-1) a place of its suit; keep places sorted."""
    decks = q[Q_DECKS]
    s = SUIT[c]
    need = RANK[c] if delta > 0 else RANK[c] + 1
    base = S_F + s * decks
    for k in range(decks):
        if S[base + k] == need:
            S[base + k] += delta
            break
    if decks == 2 and S[base] < S[base + 1]:
        t = S[base]
        S[base] = S[base + 1]
        S[base + 1] = t


@njit(**NORC)
def _lower(S, q, cols, i):
    """Column i loses its locked card; a dealt king left alone at the bottom is not 'locked'
    (nothing is under it), so it counts as a free king in a vacated column.  The key's column
    field follows (``S_DV``: d[i] is one of its mixed-radix digits, of weight ``q[Q_W + i]``),
    so that ``_key`` reads it instead of multiplying out ten digits for every child."""
    S[S_D + i] -= 1
    S[S_DV] -= q[Q_W + i]
    if S[S_D + i] == 1 and RANK[cols[i, 0]] == 12:
        S[S_D + i] = 0
        S[S_DV] -= q[Q_W + i]


# ---- the stock -------------------------------------------------------------------
@njit(**NORC)
def _canon(rem, p):
    """1 + the highest talon index below ``p`` still left (0 if none)."""
    if p <= 0:
        return 0
    return bitlen(rem & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))


@njit(**NORC)
def _advance(rem, p, draw, tlen):
    """Position after one draw from position ``p`` (``tlen`` when fewer than ``draw`` are left)."""
    x = rem >> np.uint64(p)
    for _ in range(draw - 1):
        x &= x - np.uint64(1)
    if x == np.uint64(0):
        return tlen
    return p + bitlen(x & (~x + np.uint64(1)))


@njit(**NORC)
def _at_end(rem, p, tlen):
    return (rem >> np.uint64(p)) == np.uint64(0) if p < 64 else True


@njit(**NORC)
def _normal_pos(rem, p, q):
    """Canonical position; under unlimited passes every pure position is 0.

    A canonical position p has the talon cards left below index p in the
    waste.  The draws from an empty waste stop where the waste holds a
    multiple of ``draw`` of the cards left (each draw turns ``draw`` of them),
    and at the end of the stock: so p is pure exactly when the cards left
    below p number a multiple of ``draw``, or none is left from p on."""
    p = _canon(rem, p)
    if q[Q_PASSES] != 0 or p == 0:
        return p
    if _at_end(rem, p, q[Q_TLEN]):
        return 0
    if popcount(rem & ((np.uint64(1) << np.uint64(p)) - np.uint64(1))) % q[Q_DRAW] == 0:
        return 0
    return p


# ---- moves -------------------------------------------------------------------------
@njit(**NORC)
def _top_bit(rem, p):
    """The bit of the waste top's talon index at position ``p`` (0: an empty waste)."""
    top = _canon(rem, p)
    return np.uint64(0) if top == 0 else np.uint64(1) << np.uint64(top - 1)


@njit(**NORC)
def _tops(rem, p, draw, tlen, own, to_end):
    """The talon indices that come up as the waste top along the draws from position ``p``:
    with ``own`` p's own top, then the top after each draw, the end of the stock's included
    with ``to_end``.  Along the draws the top's index only grows (each draw turns at least one
    card left above the last top), so the bits in increasing order are the order they come up."""
    m = _top_bit(rem, p) if own else np.uint64(0)
    while not _at_end(rem, p, tlen):
        p = _advance(rem, p, draw, tlen)
        if not to_end and _at_end(rem, p, tlen):
            break
        m |= _top_bit(rem, p)
    return m


@njit(inline='always', **NORC)
def _home_mask(S, q, w):
    """The talon indices whose card a foundation place takes now (``Work.tk``)."""
    decks = q[Q_DECKS]
    home = np.uint64(0)
    for s in range(4):
        for k in range(decks):
            h = S[S_F + s * decks + k]
            if h < 13:
                home |= w.tk[s * 13 + h]
    return home


@njit(inline='always', **NORC)
def _talon_plays(S, q, cols, talon, w, empties, m, rc, out, n, lim):
    """The plays of every talon index in ``m`` (after ``rc`` recycles), in increasing index.

    MK_TF j where a foundation place takes the card, MK_TC j where an uncovered card of its
    parent type (an empty column for a king) takes it -- both found for all of ``m`` at once
    from the talon's tables (``Work.tk``, ``Work.tp``).  With ``safe``, a card that may go
    home and is safe (``_safe``) is not also offered onto a column.  Proof: MK_TF j and MK_TC
    j leave the same talon (the same card removed, the same position and recycles), so their
    children S_f and S_c differ only in c being home in S_f and uncovered on a parent (or in
    an empty column) in S_c.  The claim proved in ``_forced`` for a tableau card that is safe
    -- from the state with c home a win is at least one move nearer than from the state with
    c on the tableau -- applies to S_f against S_c (the talon plays no part in it).  So where
    a shortest win from S plays MK_TC j, MK_TF j reaches a state nearer a win, which is what
    the search's completeness needs (``_forced``).
    """
    home = _home_mask(S, q, w)
    col = w.tp[26] if empties > 0 else np.uint64(0)
    for t in range(26):
        if w.free[t] > 0:
            col |= w.tp[t]
    home &= m
    col &= m
    x = home | col
    while x:
        low = x & (~x + np.uint64(1))
        x ^= low
        j = bitlen(low) - 1
        c = talon[j]
        if home & low and n < lim:
            out[n] = MK_TF | (j << 3) | (rc << 12)
            n += 1
        if col & low:
            ok = True
            if home & low and q[Q_SAFE] and _safe(S, q, c):
                ok = False
            if ok and q[Q_DEFER] and not _wanted(S, q, cols, w.tp, w.vis, w.free, TYPE[c]):
                ok = False
            if ok and n < lim:
                out[n] = MK_TC | (j << 3) | (rc << 12)
                n += 1
    return n


@njit(inline='always', **NORC)
def _talon_moves(S, q, cols, talon, w, empties, out, n, lim):
    """K+ talon plays: every waste top that draws and recycles can bring up.

    Unlimited passes: the current top, each position drawn to the end of the
    stock, then (unless the position is pure, keyed 0, whose own chain is the
    chain from an empty waste) the chain from an empty waste after a recycle;
    the two chains meet only at the end, visited once.  With a pass limit the
    recycles are counted and each pass is walked while one is left.
    """
    rem = np.uint64(S[S_REM])
    if rem == np.uint64(0):
        return n
    passes = q[Q_PASSES]
    rc = S[S_RC]
    first, then = _walks(rem, S[S_POS], q, w)
    n = _talon_plays(S, q, cols, talon, w, empties, first, rc, out, n, lim)
    if passes == 0:
        if S[S_POS] != 0:
            n = _talon_plays(S, q, cols, talon, w, empties, then, rc, out, n, lim)
    else:
        while rc + 1 < passes:
            rc += 1
            n = _talon_plays(S, q, cols, talon, w, empties, then, rc, out, n, lim)
    return n


@njit(inline='always', **NORC)
def _walks(rem, p, q, w):
    """The two walks of ``_talon_moves`` from position ``p``: the tops from p to the end of
    the stock, and those from an empty waste (to the end with a pass limit, short of it
    without).  They depend on the talon bits and the position alone, which many states share
    (the search enters every arrangement of the columns under one talon): a direct-mapped
    cache (``Work.crem``, ``cpos``, ``cwalk``) keeps the last walks of each slot, keyed by both
    in full, so a hit is the same answer as a walk."""
    i = np.int64(_mix(rem, np.uint64(p)) & np.uint64(WALK_CACHE - 1))
    if w.cpos[i] == p and w.crem[i] == rem:
        return w.cwalk[2 * i], w.cwalk[2 * i + 1]
    tlen = q[Q_TLEN]
    draw = q[Q_DRAW]
    first = _tops(rem, p, draw, tlen, True, True)
    if q[Q_PASSES] == 0:
        then = _tops(rem, 0, draw, tlen, False, False) if p != 0 else np.uint64(0)
    else:
        then = _tops(rem, 0, draw, tlen, False, True)
    w.crem[i] = rem
    w.cpos[i] = p
    w.cwalk[2 * i] = first
    w.cwalk[2 * i + 1] = then
    return first, then


# ---- deferred talon plays ----------------------------------------------------------
@njit(**NORC)
def _wanted(S, q, cols, tp, vis, free, t):
    """May a talon card of type ``t`` be played to a column now (``Q_DEFER``)?

    Only when no card of type t is uncovered and some move needs one: a talon
    card that would go on it, a locked card whose run would (a reveal), a
    face-up card of type t that may go home (its run moving onto the new card
    first), a foundation top that would be taken back onto it.  The child then
    carries the obligation ``S_OB`` = 1 + t: its moves are only those that need
    an uncovered card of type t (``_obliged``), the forced safe move excepted.

    Why this loses no win (draw 1, unlimited passes: the talon is a reserve,
    every card left can be played at any time, whatever else is played;
    any number of decks, with or without take-back).  Write T_c for "talon
    card c to a column".  Every abstract move needs at most one count that a
    card on the tableau can supply: an uncovered card of one type (MK_TC, MK_RV
    and MK_TB onto its parent type, MK_CFL and MK_CFP of a card of that type),
    or an empty column (kings), or a face-up copy of the kind going home
    (MK_CFP).  *Deferring*: take any line A from S to the all-home state and
    play it with every T_c held back (the card stays in the talon, "pending")
    until the first move that is illegal without it.  With P pending, the
    line's state differs from A's only by P being in the talon: for each type
    u, free[u] is lower by the pending cards of type u and higher by the
    pending cards lying on type u; empty columns are higher by the pending
    kings.  So a move of A is illegal only if it needs an uncovered card of a
    type u with free[u] = 0 here and a pending card of type u exists: play one
    such T_c first, and before it, if it finds no uncovered parent, a pending
    card of the parent type, and so on up the ranks (a pending king always
    finds an empty column).  A move home of a pending card becomes the talon
    card home (a T_c and its MK_CFP become one MK_TF); talon plays of other
    cards are legal at any time.  The deferred line D wins, is no longer than
    A, and every T_c in it comes where no card of type c is uncovered and is
    followed at once by a move that needs one ("canonical").
    *The search stays complete.*  Its nodes are (state, obligation).  Call a
    node N = (S, o) good when S has a shortest win that is canonical, meets o
    (its first move needs an uncovered card of type o, if o is set) and takes
    back no card of X(S), the cards ``_useless`` names in S ("clean").  The
    root is good: take a shortest win, delete its take-backs of X(S) cards (no
    longer: ``_useless``), defer it (no longer, no take-back added).  As in
    ``_forced``, it is enough that every entered good node has a generated
    good child nearer a win.  (1) A forced move f: the child (S + f, none) is
    nearer (``_forced``) and good (so is every state without an obligation:
    clean and defer a shortest win).  (2) Otherwise let W be a win that makes
    N good; its first move m is generated: not a take-back of an X(S) card (W
    has none) nor of a card that would be safe (never the first move of a
    shortest win: ``_gen``), not a T_c whose card may safely go home (S would
    have a forced move: the talon is a reserve); a T_c first in a canonical
    line is what this test lets through, and m meets o, what ``_obliged``
    asks.  The child is nearer, and good: W without m is a shortest win from
    it, canonical, meeting the obligation a T_c leaves (W's next move needs
    that type), and clean -- a T_c moves no foundation, so X is unchanged;
    after any other move there is no obligation.  The obligation is part of
    the key (``_key``): a state entered under one obligation is entered
    again under another or none.
    """
    if free[t] != 0:
        return False
    if np.uint64(S[S_REM]) & tp[t]:  # a talon card left that goes on type t
        return True
    for i in range(q[Q_NCOL]):
        di = S[S_D + i]
        if di >= 1 and PTYPE[cols[i, di - 1]] == t:
            return True
    r = t >> 1
    for s in range(4):
        red = 1 if (s == 1 or s == 2) else 0
        if red == (t & 1) and vis[s * 13 + r] > 0 and _accepts(S, q, s * 13 + r):
            return True
    if q[Q_TAKEBACK]:
        decks = q[Q_DECKS]
        for s in range(4):
            for k in range(decks):
                h = S[S_F + s * decks + k]
                if h > 0 and PTYPE[s * 13 + h - 1] == t:
                    return True
    return False


@njit(**NORC)
def _obliged(S, cols, talon, out, base, n, t):
    """Keep of ``out[base:n]`` the moves that need an uncovered card of type ``t`` (``_wanted``);
    returns the new end."""
    k = base
    for a in range(base, n):
        m = out[a]
        kind = m & 7
        x = (m >> 3) & 511
        if kind == MK_TC:
            keep = PTYPE[talon[x]] == t
        elif kind == MK_RV:
            keep = PTYPE[cols[x, S[S_D + x] - 1]] == t
        elif kind == MK_CFL:
            keep = TYPE[cols[x, S[S_D + x] - 1]] == t
        elif kind == MK_CFP:
            keep = TYPE[x] == t
        elif kind == MK_TB:
            keep = PTYPE[x] == t
        else:
            keep = False
        if keep:
            out[k] = m
            k += 1
    return k


@njit(**NORC)
def _safe(S, q, c):
    """May card ``c`` go home as the only move (the claim of ``_forced``)?

    Keller's rule (Blake & Gent, Cor. 3) in its two-deck form: every place of
    the other colour is at rank(c) - 2 or more, every place of the other suit
    of c's colour at rank(c) - 3 or more, and every place of c's own suit at
    rank(c) - 1 or more (one of them exactly, to take it; the published
    two-deck form, own suit's other places >= r-3, fails: movegen._proved_safe).

    Why the claim of ``_forced`` holds for it.  ``movegen._proved_safe`` proves,
    for the real game (alternate colours, any number of decks, take-back on or
    off), that from a real position P with c on the tableau and a winning
    line L, the position P' with c home has a winning line L' that makes
    every move of L unchanged or skips it, except that the first move of
    each of a few cards y (the "S" cards: opposite colour at r-1, the other
    suit at r-2) becomes "y home", after which L's moves of y are skipped;
    c's own move home (or its reveal) is skipped too.  Count the moves that
    change the abstract state (the others only rearrange runs): a move L'
    keeps changes it exactly when it does in L (the same cards from the same
    places; which cards are locked is the same in both lines, c's moves being
    skipped); per S card y, L' makes one such move (y home) where L makes at
    least one (y's own way home, which L' skips); and c's skipped move is
    one.  So the shortest abstract win from S + (c home) is shorter than
    from S.  (With the conservative thresholds -- other colour >= r-1, other
    suit >= r-2 -- no S card is out and the proof in ``_forced`` suffices.)
    """
    decks = q[Q_DECKS]
    s = SUIT[c]
    r = RANK[c] + 1
    red = 1 if (s == 1 or s == 2) else 0
    took = False
    for t in range(4):
        tred = 1 if (t == 1 or t == 2) else 0
        need = r - 1 if t == s else (r - 2 if tred != red else r - 3)
        for k in range(decks):
            h = S[S_F + t * decks + k]
            if h < need:
                return False
            if t == s and h == r - 1:
                took = True
    return took


@njit(**NORC)
def _useless(S, q, c):
    """Is the take-back of foundation top ``c`` (rank r, suit s) never needed?

    True when every place of the other colour is at r - 1 or more, every place
    of the other suit of c's colour at r - 2 or more, and every place of suit
    s at r (c is the top of one).  Proof, any number of decks: let X be every
    copy of the cards of the other colour up to r - 1, of the other suit of
    c's colour up to r - 2 and of suit s up to r.  X is all home, holds all
    copies of the lowest ranks of each suit, and whatever may lie on an X
    card is in X.  The deletion argument of ``_forced`` then applies to X
    (kings in X only make an empty column more when deleted): from a shortest
    win from S, delete every take-back of an X card and that copy's moves
    until it is home again; what is left still wins and is no longer.  Do it
    for the union of these X over every such top (still such a set): the line
    left takes back none of them, so its first move (or S is won) is
    generated, and leads to a state nearer a win -- the condition the search's
    completeness needs (``_forced``).
    """
    decks = q[Q_DECKS]
    s = SUIT[c]
    r = RANK[c] + 1
    red = 1 if (s == 1 or s == 2) else 0
    for t in range(4):
        tred = 1 if (t == 1 or t == 2) else 0
        need = r if t == s else (r - 1 if tred != red else r - 2)
        for k in range(decks):
            if S[S_F + t * decks + k] < need:
                return False
    return True


@njit(inline='always', **NORC)
def _forced(S, q, cols, talon, w, out, n):
    """A safe foundation move, if there is one, as the node's only move.

    Claim: if c (rank r, suit s) can go home and ``_safe`` holds, then from
    S' = S + (c home) a win is at least one move nearer than from S.  With a
    depth-first search that enters every child in the table, that keeps it
    complete: of the entered winnable states take one nearest to a win; its
    generated moves include one to a nearer winnable state (the first move of
    a shortest win, or the forced move), which was entered: contradiction.
    Proof of the claim for the conservative thresholds (other colour >= r-1,
    other suit of c's colour >= r-2; ``_safe`` extends it to Keller's), any
    number of decks, with take-back.  Let L be every
    copy of the cards of the other colour up to rank r-1, of the other suit of
    c's colour up to r-2, of suit s up to r-1: all home in S, down-
    closed in each suit, and closed under "what may lie on it" (children of
    (r', colour) are (r'-1, other colour)).  Take a shortest win A from S and
    delete every take-back of an L card and the moves of that copy until it is
    home again.  What is left is legal and still wins: an L card on the
    tableau serves only as a parent, and only for L cards (deleted); without
    it, its parent is uncovered (more free cards); a foundation move of a
    card above the L ranks of its suit needs every L card of the suit home in
    A already, and then the places agree (a suit's heights are fixed by how
    many copies of each rank are home); L cards are no kings (r-1 <= 12) and
    not in the talon.  In that line nothing ever lies on a card of c's type
    (its children are in L), so every such card is uncovered, and c's only
    roles are to go home, to move with its run (only when c is a locked card:
    a reveal) and to cover its parent.  From S' play the same line, skipping
    c's own moves: each move is legal (a parent of c's type is freer, the
    column under a locked c is already turned, an empty column vacated by c
    is one more empty column; with two decks, when the line sends the other
    copy of c home S' sends it too, onto the other place of suit s, which is
    at r-1 or above; a take-back of a rank-r card of suit s, S' takes back a
    rank-r card too), the states differ only by c being home (and the card
    under it turned) until the line sends c home, after which they agree.  It
    skips at least c's move home (or its reveal), so it is shorter.  From the
    talon this holds only where the talon is a reserve (draw 1, unlimited
    passes: every card left can come up whatever is removed); with draw 3 or
    a pass limit removing a card changes what the others can reach.

    Draw 2 or more, unlimited passes: the talon's last card (the highest talon
    index left), from a pure position (``S_POS`` 0; lonelybot's deck dominance,
    ``gen_moves``; our proof).  It can always come up: deal to the end of the
    stock.  Which of the other talon cards a position (rem, p) can bring up
    depends only on how many cards are left between p and each of them, and,
    after a recycle, below each of them: counts the last card never enters, as
    no other card lies above it.  So from rem without that card and the same
    p, every other card comes up where it did (and the new last card besides):
    a line's talon plays of the other cards stay legal, its positions after
    them are the same, except that a position whose only card ahead was c is
    now at the end of the stock, from which a recycle reaches every position of
    the chain from an empty waste -- a superset.  The state after MK_TF of c is
    at the end of the stock, pure: keyed as S's own pure position.  The
    argument above, skipping c's moves, then goes through unchanged.  From a
    non-pure position it does not: the play moves the position to the end,
    and cards the current pass could bring up may not be on the chain after a
    recycle.  (With a pass limit, the same: playing c ends the pass.)
    """
    free, nl = w.free, w.nl
    ncol = q[Q_NCOL]
    for i in range(ncol):
        di = S[S_D + i]
        if di >= 1:
            x = cols[i, di - 1]
            if free[TYPE[x]] > 0 and _safe(S, q, x):
                out[n] = MK_CFL | (i << 3)
                return n + 1
    decks = q[Q_DECKS]
    for s in range(4):
        for k in range(decks - 1, -1, -1):
            c = _successor(S, s, k, decks)
            if c >= 0 and nl[c] > 0 and free[TYPE[c]] > 0 and _safe(S, q, c):
                out[n] = MK_CFP | (c << 3)
                return n + 1
    if q[Q_DRAW] == 1 and q[Q_PASSES] == 0:
        # the first talon card (by index) that is safe; only one a place takes can be
        x = np.uint64(S[S_REM]) & _home_mask(S, q, w)
        while x:
            low = x & (~x + np.uint64(1))
            x ^= low
            j = bitlen(low) - 1
            if _safe(S, q, talon[j]):
                out[n] = MK_TF | (j << 3)
                return n + 1
    elif q[Q_PASSES] == 0 and S[S_POS] == 0 and S[S_REM] != 0:
        # draw 2 or more: only the talon's last card, from a pure position (proof above)
        j = bitlen(np.uint64(S[S_REM])) - 1
        if _safe(S, q, talon[j]):
            out[n] = MK_TF | (j << 3)
            return n + 1
    return n


@njit(**NORC)
def _gen(S, q, cols, talon, w, out, base, cap):
    """The abstract moves of ``S`` into ``out[base:]``; returns their count (-1 if cut short).

    Order (what the search tries first): locked cards home (they turn a card),
    reveals, other face-up cards home, talon plays, take-backs.
    """
    return _moves(S, q, cols, talon, w, _derive(S, q, cols, talon, w), out, base, cap)


@njit(**NORC)
def _moves(S, q, cols, talon, w, empties, out, base, cap):
    """``_gen`` with the counts of ``w`` already those of S (``_derive`` or ``_step``)."""
    free, nl = w.free, w.nl
    n = base
    lim = base + cap
    ncol = q[Q_NCOL]
    if q[Q_SAFE]:
        m = _forced(S, q, cols, talon, w, out, n)
        if m > n:
            return m - base
    for i in range(ncol):
        di = S[S_D + i]
        if di >= 1:
            x = cols[i, di - 1]
            if _accepts(S, q, x) and free[TYPE[x]] > 0:
                out[n] = MK_CFL | (i << 3)
                n += 1
    for i in range(ncol):
        di = S[S_D + i]
        if di >= 1:
            x = cols[i, di - 1]
            ok = empties > 0 if RANK[x] == 12 else free[PTYPE[x]] > 0
            if ok:
                out[n] = MK_RV | (i << 3)
                n += 1
    decks = q[Q_DECKS]
    for s in range(4):
        for k in range(decks - 1, -1, -1):
            c = _successor(S, s, k, decks)
            if c >= 0 and nl[c] > 0 and free[TYPE[c]] > 0 and n < lim:
                out[n] = MK_CFP | (c << 3)
                n += 1
    n = _talon_moves(S, q, cols, talon, w, empties, out, n, lim)
    if q[Q_TAKEBACK]:
        for s in range(4):
            for k in range(decks):
                h = S[S_F + s * decks + k]
                if h == 0 or (k > 0 and S[S_F + s * decks + k - 1] == h):
                    continue  # the same top card as the place before
                c = s * 13 + h - 1
                ok = empties > 0 if RANK[c] == 12 else free[PTYPE[c]] > 0
                if ok and q[Q_SAFE] and _useless(S, q, c):
                    ok = False
                if ok and q[Q_SAFE]:
                    # never take back a safe card (Blake & Gent, Cor. 2): from S1, the
                    # state after the take-back, c may go home (a place at r - 1, c
                    # uncovered), and if _safe holds there, S = S1 + (c home) is nearer a
                    # win than S1 (_safe's claim): the take-back is never the first move
                    # of a shortest win, and the search keeps one (_forced)
                    S[S_F + s * decks + k] -= 1
                    ok = not _safe(S, q, c)
                    S[S_F + s * decks + k] += 1
                if ok and n < lim:
                    out[n] = MK_TB | (c << 3)
                    n += 1
    if n >= lim:
        return -1
    if S[S_OB]:
        n = _obliged(S, cols, talon, out, base, n, S[S_OB] - 1)
    # stable insertion sort by the kinds' ranks
    for a in range(base + 1, n):
        m = out[a]
        pm = q[Q_PRI + (m & 7)]
        b = a - 1
        while b >= base and q[Q_PRI + (out[b] & 7)] > pm:
            out[b + 1] = out[b]
            b -= 1
        out[b + 1] = m
    return n - base


@njit(**NORC)
def _apply(S, m, q, cols, talon):
    kind = m & 7
    a = (m >> 3) & 511
    S[S_OB] = TYPE[talon[a]] + 1 if kind == MK_TC and q[Q_DEFER] else 0
    if kind == MK_TF or kind == MK_TC:
        rem = np.uint64(S[S_REM]) & ~(np.uint64(1) << np.uint64(a))
        S[S_REM] = np.int64(rem)
        S[S_POS] = _normal_pos(rem, a + 1, q)
        S[S_RC] = ((m >> 12) & 1023) if q[Q_PASSES] != 0 else 0
        if kind == MK_TF:
            _found(S, q, talon[a], 1)
    elif kind == MK_CFL:
        _found(S, q, cols[a, S[S_D + a] - 1], 1)
        _lower(S, q, cols, a)
    elif kind == MK_RV:
        _lower(S, q, cols, a)
    elif kind == MK_CFP:
        _found(S, q, a, 1)
    else:  # MK_TB
        _found(S, q, a, -1)


@njit(**NORC)
def _won(S, q):
    """Won, or sure to be: the talon is empty and no card is face down.

    Then a win follows by sending home, again and again, a card of the
    lowest rank still in play, m: every lower card is home, so nothing lies on
    m (what could is lower), and a place of its suit is at rank(m) - 1 (all
    copies of rank(m) - 1 are home, and not all copies of m are).  The
    concretiser plays those moves (any column top that goes home will do)."""
    if S[S_REM] != 0:
        return False
    for i in range(q[Q_NCOL]):
        if S[S_D + i] > 1:
            return False
    return True


# ---- the exact key and its table ---------------------------------------------------
@njit(**NORC)
def _key(S, q):
    # x: the stock position | recycles | obligation (each field's width: Problem)
    x = np.uint64(S[S_POS]) | (np.uint64(S[S_RC]) << np.uint64(q[Q_PBITS]))
    if S[S_OB]:  # (never set unless the field fits: Problem)
        x |= np.uint64(S[S_OB]) << np.uint64(q[Q_PBITS] + q[Q_RCBITS])
    k2 = np.uint64(0)
    for k in range(4 * q[Q_DECKS]):
        k2 = (k2 << np.uint64(4)) | np.uint64(S[S_F + k])
    k2 = k2 | (np.uint64(S[S_DV]) << np.uint64(32)) | (np.uint64(1) << np.uint64(63))
    k1 = np.uint64(S[S_REM])
    if q[Q_XK2]:
        k2 |= x << np.uint64(q[Q_XSHIFT])
    elif q[Q_TLEN] < 64:  # (x is 0 when the talon fills k1)
        k1 |= x << np.uint64(q[Q_TLEN])
    return k1, k2


@njit(**NORC)
def _pack1(k1, k2, q):
    """The one-word key (``Q_ONE``): k1 (talon bits and x, ``Q_FSHIFT`` bits) | the
    foundation heights (k2's low 4 * 4 * decks bits) << ``Q_FSHIFT`` | ``d`` (k2's bits
    32..) << ``Q_DSHIFT`` | bit 63.  ``Problem`` sets it only where the three fields fit side
    by side below bit 63 (and x is in k1), so it is exact as (k1, k2) is."""
    fbits = np.uint64(16 * q[Q_DECKS])
    f = k2 & ((np.uint64(1) << fbits) - np.uint64(1))
    d = (k2 & ~(np.uint64(1) << np.uint64(63))) >> np.uint64(32)
    return (k1 | (f << np.uint64(q[Q_FSHIFT])) | (d << np.uint64(q[Q_DSHIFT]))
            | (np.uint64(1) << np.uint64(63)))


@njit(**NORC)
def _mix(k1, k2):
    h = k1 * np.uint64(0x9E3779B97F4A7C15) ^ k2
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h


@njit(**NORC)
def _home(t, k1, k2, one):
    """The first slot probed for a key (``_find``'s arguments): the top bits of its mix, as
    many as the table's size (a power of two) needs.  Top bits, not bottom ones: then the
    entries of slot i of a table land at slots 2i and 2i + 1 of the table twice its size (and
    the few after, by probing), so ``_rehash``, reading the old table in order, writes the new
    one in order too -- a stream the processor fetches ahead, where bottom bits scatter every
    entry to a cache miss."""
    entries = t.shape[0] >> (1 - one)
    return np.int64(_mix(k1, k2) >> np.uint64(65 - bitlen(entries)))


@njit(**NORC)
def _find(t, k1, k2, one):
    """Find or add a key in the table (``one``: one-word entries, ``k1`` the packed key, below,
    ``k2`` 0; else two-word entries, ``_insert``), by linear probing from ``_home``: ``slot`` if
    the key was there, ``-1 - slot`` if it was added."""
    i = _home(t, k1, k2, one)
    if one:
        mask = np.uint64(t.shape[0] - 1)
        while True:
            if t[i] == np.uint64(0):
                t[i] = k1
                return -1 - i
            if t[i] == k1:
                return i
            i = (i + 1) & np.int64(mask)
    mask = np.uint64((t.shape[0] >> 1) - 1)
    while True:
        if t[2 * i + 1] == np.uint64(0):
            t[2 * i] = k1
            t[2 * i + 1] = k2
            return -1 - i
        if t[2 * i] == k1 and t[2 * i + 1] == k2:
            return i
        i = (i + 1) & np.int64(mask)


@njit(**NORC)
def _insert(t, k1, k2):
    """Add a key; False if it was there.

    Table entry (``ENTRY_BYTES`` = 16): ``t[2i] = k1``, ``t[2i + 1] = k2``, side
    by side so that a probe reads one cache line (the table outgrows every
    cache: a probe is a memory access, and most generated children are probed
    only to find them there).  ``k2 == 0`` marks an empty slot (k2 has bit 63)."""
    return _find(t, k1, k2, False) < 0


@njit(**NORC)
def _insert1(t, k):
    """``_insert`` for one-word keys (``Q_ONE``): ``t[i] = k``, 0 marks an empty slot (k has bit 63)."""
    return _find(t, k, np.uint64(0), True) < 0


@njit(**NORC)
def _slot_of(t, k1, k2, q):
    """The slot of the state keyed (k1, k2), added if absent (``_find``'s sign convention)."""
    if q[Q_ONE]:
        return _find(t, _pack1(k1, k2, q), np.uint64(0), True)
    return _find(t, k1, k2, False)


@njit(**NORC)
def _add(t, k1, k2, q):
    """Add the state keyed (k1, k2) to the table in the layout ``q`` says; False if it was there."""
    if q[Q_ONE]:
        return _insert1(t, _pack1(k1, k2, q))
    return _insert(t, k1, k2)


@njit(**JIT)
def _rehash(t, n, one, flags, nflags, shared):
    """Move every entry of ``t`` into the bigger table ``n``; with ``shared``, each with its
    flags byte (``flags`` -> ``nflags``, see ``_dfs``)."""
    if one:
        for i in range(t.shape[0]):
            if t[i] != np.uint64(0):
                s = -1 - _find(n, t[i], np.uint64(0), True)
                if shared:
                    nflags[s] = flags[i]
        return
    for i in range(t.shape[0] >> 1):
        if t[2 * i + 1] != np.uint64(0):
            s = -1 - _find(n, t[2 * i], t[2 * i + 1], False)
            if shared:
                nflags[s] = flags[i]


@njit(**JIT)
def _reslot(S, depth, t, q, slots):
    """Find again the slots of the states on a stack (``S[0..depth]``) after the table grew."""
    for k in range(depth + 1):
        k1, k2 = _key(S[k], q)
        sl = _slot_of(t, k1, k2, q)
        slots[k] = sl if sl >= 0 else -1 - sl


@njit(**NORC)
def _ahead(P, moves, keys, base, n, t, flags, me, q, cols, talon, child):
    """The keys of the children of ``P`` (its moves ``moves[base:base + n]``) into
    ``keys[2 * (base + i)]``, ``keys[2 * (base + i) + 1]`` -- ``(0, 0)`` for a won child -- and
    a prefetch of each one's table slot (and of its flags byte, for a search on a shared
    table: ``me`` >= 0, see ``_dfs``).

    Why: ``_dfs`` probes the table once a child, and most probes miss every cache (the table
    outgrows them); found one by one, a child's key is ready only when its turn comes, so
    the misses come one after another.  Found here, all of a state's children are asked for
    at once and the memory system fetches their slots side by side; the probe, later, mostly
    finds its line in a cache.  The search is the same: a key is a function of the child's
    state, which does not change, and a prefetch changes no value (``prefetch.py``).  The
    table may have grown or filled before a child's turn: then the hint was wasted, not wrong
    (``_find`` probes the table as it is).  Cost: a child that is new to the table is made
    twice (here for its key, and in ``_dfs`` to enter it); most children are not new."""
    one = q[Q_ONE]
    for i in range(n):
        m = moves[base + i]
        for k in range(S_SIZE):
            child[k] = P[k]
        _apply(child, m, q, cols, talon)
        j = 2 * (base + i)
        if _won(child, q):  # (never in the table: the search stops at the first won child)
            keys[j] = np.uint64(0)
            keys[j + 1] = np.uint64(0)
            continue
        k1, k2 = _key(child, q)
        keys[j] = k1
        keys[j + 1] = k2
        if one:
            sl = _home(t, _pack1(k1, k2, q), np.uint64(0), 1)
            prefetch(t, sl)
        else:
            sl = _home(t, k1, k2, 0)
            prefetch(t, 2 * sl)
        if me >= 0:
            prefetch(flags, sl)


# ---- the search --------------------------------------------------------------------
# Searches that share a table (``Table``, ``Search(table=...)``; search/engine.py ``AfreeBoth``:
# the rules' own move order and the other one).  Each slot has a flags byte: bit ``me`` -- search
# ``me`` entered the state; bit ``4 + me`` -- it finished it (left it, every move tried).  A search
# skips a child it entered itself, as a lone search does, and a child another search has
# finished; a child another search has only entered (still on that search's stack) it enters
# again.  Why not skip those too: the states on a search's stack are the trunk of its work, and
# the other order's lines run into them -- skipping every entered state cost klondike-3 deal
# 352361 7.36 M nodes instead of 1.37 M (benchmarks/README, twenty-fifth session).
# Proof that the searches together decide as one does.  The children of a state are a function
# of the state alone (``_moves`` reads counts derived from it; ``_step`` only keeps them up to
# date along the stack), so it does not matter which search expands a state.  Let V be the
# states with an "entered" bit once every search sharing the table has emptied its stack.  A
# search leaves a state only after trying all of its moves, and each child it tried is in V: it
# entered it, or skipped it because it had entered it or another had finished it.  So V holds
# the root and every child of every state in V: every reachable state.  None was won, so the
# root is lost.  One search's empty stack alone proves nothing (a state only another entered
# may still be on the other's stack with moves untried): a search on a shared table reports its
# end as ``unknown`` with reason SHARED_END, and its owner concludes when all of them have.
# A solution found by any of them is a line of abstract moves from the root, as alone.
FINISHED = 0xF0  # the four "finished" bits


@njit(**NORC)
def _dfs(S, moves, keys, nmoves, nxt, t, fill, flags, slots, me, ctr, q, cols, talon, node_slice, w, child):
    """Resume the depth-first search; stops after ``node_slice`` new states, to grow the table,
    on a win (``ctr[C_DEPTH]`` = the won state's depth) or when exhausted.  ``fill[0]``: the
    states in the table ``t``.  ``me`` >= 0: the search's number on a shared table, whose flags
    are ``flags`` (the stack's slots in ``slots``); -1: a lone search (``flags``, ``slots``
    unused)."""
    stop = ctr[C_NODES] + node_slice
    depth = ctr[C_DEPTH]
    cap = t.shape[0] >> (1 - q[Q_ONE])
    mine = np.uint8(1 << me) if me >= 0 else np.uint8(0)
    done_mine = np.uint8(16 << me) if me >= 0 else np.uint8(0)
    done_other = np.uint8(FINISHED - (16 << me)) if me >= 0 else np.uint8(0)
    while depth >= 0:
        if nxt[depth] >= nmoves[depth]:
            if me >= 0:
                flags[slots[depth]] |= done_mine
            depth -= 1
            continue
        if 2 * (fill[0] + 1) > cap:
            ctr[C_DEPTH] = depth
            return R_GROW
        j = depth * MAX_MOVES + nxt[depth]
        m = moves[j]
        nxt[depth] += 1
        k1, k2 = keys[2 * j], keys[2 * j + 1]  # (_ahead)
        if k2 == np.uint64(0):
            ctr[C_DEPTH] = depth + 1
            return R_SOLVED
        sl = 0
        if me < 0:
            if not _add(t, k1, k2, q):
                continue
            fill[0] += 1
        else:
            sl = _slot_of(t, k1, k2, q)
            if sl >= 0:
                f = flags[sl]
                if (f & mine) or (f & done_other):
                    continue
                flags[sl] = f | mine
            else:
                sl = -1 - sl
                flags[sl] = mine
                fill[0] += 1
        _sync(S, q, cols, talon, w, depth)  # (before S[depth + 1] is overwritten: it may be needed)
        for k in range(S_SIZE):
            S[depth + 1, k] = S[depth, k]
        _apply(S[depth + 1], m, q, cols, talon)
        ctr[C_STORED] += 1
        ctr[C_NODES] += 1
        if depth + 1 >= MAX_DEPTH - 1:
            ctr[C_INCOMPLETE] = 1
            continue
        # the child's counts from its parent's, not from scratch (_derive): a fifth of a state's time
        _step(S[depth], m, q, cols, talon, w, 1)
        w.via[depth + 1] = m
        w.at[0] = depth + 1
        n = _moves(S[depth + 1], q, cols, talon, w, _counts(w), moves, (depth + 1) * MAX_MOVES, MAX_MOVES)
        if n < 0:
            ctr[C_INCOMPLETE] = 1
            n = MAX_MOVES
        _ahead(S[depth + 1], moves, keys, (depth + 1) * MAX_MOVES, n, t, flags, me, q, cols, talon, child)
        depth += 1
        if me >= 0:
            slots[depth] = sl
        nmoves[depth] = n
        nxt[depth] = 0
        if depth > ctr[C_MAXDEPTH]:
            ctr[C_MAXDEPTH] = depth
        if ctr[C_NODES] >= stop:
            ctr[C_DEPTH] = depth
            return R_PAUSED
    ctr[C_DEPTH] = -1
    return R_EXHAUSTED


@njit(**JIT)
def _root(S, moves, keys, nmoves, nxt, t, fill, flags, slots, me, ctr, q, cols, talon, w, child):
    k1, k2 = _key(S[0], q)
    if me < 0:
        if _add(t, k1, k2, q):
            fill[0] += 1
    else:
        sl = _slot_of(t, k1, k2, q)
        if sl < 0:
            sl = -1 - sl
            fill[0] += 1
        flags[sl] |= np.uint8(1 << me)
        slots[0] = sl
    ctr[C_STORED] = 1
    ctr[C_NODES] = 1
    n = _gen(S[0], q, cols, talon, w, moves, 0, MAX_MOVES)
    w.at[0] = 0  # the counts of w are the root's (_sync)
    if n < 0:
        ctr[C_INCOMPLETE] = 1
        n = MAX_MOVES
    _ahead(S[0], moves, keys, 0, n, t, flags, me, q, cols, talon, child)
    nmoves[0] = n
    nxt[0] = 0
    ctr[C_DEPTH] = 0


@njit(**JIT)
def _check_root(S, q, cols, talon):
    """False if the derived counts are impossible (the layout is not a Klondike-family position)."""
    w = work(talon, q[Q_TLEN])
    if _derive(S, q, cols, talon, w) < 0:
        return False
    for c in range(52):
        if w.vis[c] < 0:
            return False
    for t in range(26):
        if w.free[t] < 0:
            return False
    return True


# ---- the Python side -----------------------------------------------------------------
def applies(rules) -> bool:
    """Games where the abstraction above is exact: built runs move as units onto an
    alternating-colour parent, an empty column takes a king (or a king-led run), no
    cells, face-down deals, at most 4 passes (the recycles are keyed exactly)."""
    return (
        rules.column_moves == "runs" and rules.build == "alternate" and rules.empty == "king"
        and rules.cells == 0 and rules.face_down == "all-but-top" and rules.decks in (1, 2)
        and rules.n_columns <= 10 and rules.draw in (1, 2, 3) and rules.passes <= 4
    )


def searches(rules, layout) -> bool:
    """Does the engine search this position (the rules apply and the layout fits its key)?"""
    return applies(rules) and Problem(rules, layout).ok


@dataclass
class AfreeResult:
    status: str                 # 'solved' | 'unsolvable' | 'unknown'
    proof: str | None = None    # "exhausted: arrangement-free" for unsolvable
    tokens: list | None = None  # SPEC move tokens (solved), replayed by the reference engine
    nodes: int = 0
    states: int = 0
    reason: str = ""            # why unknown
    abstract: list | None = None  # the abstract solution (decoded moves), for the record


class Problem:
    """A layout turned into the kernel's arrays (see the module docstring)."""

    def __init__(self, rules, layout, safe=True, order=None, defer=True, one_word=True):
        self.rules = rules
        order = default_order(rules) if order is None else order
        self.ok = True
        self.why = ""
        ncol = rules.n_columns
        maxlen = max([len(c) for c in layout.columns] + [1])
        self.cols = np.zeros((ncol, maxlen), np.int64)
        # (built as Python lists and made arrays once: numpy's item assignment and its
        # scalars cost more than the rest of a problem's set-up, made 2-3 times a solve)
        radix = [0] * ncol
        S = [0] * S_SIZE
        for i, col in enumerate(layout.columns):
            self.cols[i, :len(col)] = col
            fd = layout.face_down[i]
            radix[i] = fd + 2
            d = fd + 1 if col else 0
            if d == 1 and col[0] % 13 == 12:
                d = 0
            S[S_D + i] = d
        self.radix = np.array(radix, np.int64)
        decks = rules.decks
        per_suit = [[] for _ in range(4)]
        for top in layout.foundations:
            per_suit[top // 13].append(top % 13 + 1)
        for s in range(4):
            hs = sorted(per_suit[s] + [0] * (decks - len(per_suit[s])), reverse=True)
            for k in range(decks):
                S[S_F + s * decks + k] = hs[k]
        self.talon = np.array(list(layout.waste) + list(layout.stock) + [0], np.int64)
        tlen = len(layout.waste) + len(layout.stock)
        # draw 1 with unlimited passes: the talon is a reserve.  Every position is then pure,
        # keyed 0 (_normal_pos): the key spends no bits on it, which is what lets easy-harp's
        # 59-card talon (and the obligation field) fit in 64 bits
        reserve = rules.draw == 1 and rules.passes == 0
        pbits = 0 if reserve else max(1, tlen.bit_length())
        rcbits = max(0, rules.passes - 1).bit_length()
        defer = int(safe and defer and reserve)
        # the weight of each column's d in the mixed-radix field: the product of the radices after it
        weights = [1] * ncol
        for i in range(ncol - 2, -1, -1):
            weights[i] = weights[i + 1] * radix[i + 1]
        dprod = weights[0] * radix[0]
        if dprod >= 1 << 31:
            self.ok, self.why = False, "columns too deep for the key"
        # x (position, recycles, obligation) after the talon bits in k1, or else in k2 above the
        # foundations (bits 0-31) and d (bits 32 .. 32 + dbits - 1), below the marker bit 63
        xbits = pbits + rcbits + (OB_BITS if defer else 0)
        dbits = max(1, (dprod - 1).bit_length())
        xk2, xshift = 0, 0
        if tlen + xbits > 64:
            xk2, xshift = 1, 32 + dbits
            if xshift + xbits > 63:
                self.ok, self.why = False, f"talon of {tlen} cards is too long for the key"
        pri = [0] * 6
        for rank_, kind in enumerate(order):
            pri[kind] = rank_
        # one word (_pack1): k1's bits (talon, x), the foundations, d, below the marker bit 63
        fshift = tlen + xbits
        dshift = fshift + 16 * decks
        one = int(one_word and not xk2 and dshift + dbits <= 63)
        if not self.ok:
            weights = [0] * ncol  # (too big for a word, and never used)
        self.q = np.array([decks, rules.draw, rules.passes, int(rules.takeback), ncol, tlen, pbits, rcbits,
                           int(safe)] + pri + [defer, xk2, xshift, one, fshift, dshift]
                          + weights + [0] * (Q_SIZE - Q_W - ncol), np.int64)
        S[S_DV] = sum(S[S_D + i] * weights[i] for i in range(ncol))
        S[S_REM] = (1 << tlen) - 1 if tlen < 64 else -1
        S[S_RC] = (layout.pass_number - 1) if rules.passes else 0
        S = np.array(S, np.int64)
        if self.ok:
            S[S_POS] = _normal_pos(np.uint64(S[S_REM]), len(layout.waste), self.q)
            if not _check_root(S, self.q, self.cols, self.talon):
                self.ok, self.why = False, "not a position of the abstraction"
        self.root = S


def decode(m: int) -> tuple:
    """(kind, arg, recycles) of a kernel move."""
    return int(m) & 7, (int(m) >> 3) & 511, (int(m) >> 12) & 1023


def encode(kind: int, arg: int, rc: int = 0) -> int:
    """The kernel move of (kind, arg, recycles): :func:`decode`'s inverse (the kernels write
    ``kind | (arg << 3) | (rc << 12)`` inline)."""
    return kind | (arg << 3) | (rc << 12)


class Table:
    """The table of the states a search has entered, which several searches of one problem may
    share (``shared``; at most 4): ``t`` the entries (``_insert`` / ``_insert1``), ``fill[0]``
    how many, ``words`` a state's words, ``flags`` one byte a slot for shared searches (see
    ``_dfs``), ``generation`` how many times it grew (a shared search finds its stack's slots
    again after another grew it)."""

    def __init__(self, words: int = 0, shared: bool = False):
        self.words, self.shared = words, shared
        self.t = np.zeros(words * INITIAL_TABLE, np.uint64)
        self.fill = np.zeros(1, np.int64)
        self.flags = np.zeros(INITIAL_TABLE if shared else 1, np.uint8)
        self.generation = 0
        self.members = 0

    def join(self, words: int) -> int:
        """A number for one more search sharing the table (its bits in ``flags``), whose states
        take ``words`` words (the first search to join sets it, for a table made without)."""
        if not self.shared or self.members >= 4:
            raise ValueError("a table is shared by at most 4 searches, made with shared=True")
        if not self.words:
            self.words = words
            self.t = np.zeros(words * INITIAL_TABLE, np.uint64)
        if words != self.words:
            raise ValueError("a shared table holds the states of one problem")
        self.members += 1
        return self.members - 1

    def nbytes(self) -> int:
        return self.t.nbytes + (self.flags.nbytes if self.shared else 0)

    def grow(self, q) -> None:
        grown = np.zeros(2 * self.t.shape[0], np.uint64)
        flags = np.zeros(2 * self.flags.shape[0] if self.shared else 1, np.uint8)
        _rehash(self.t, grown, bool(q[Q_ONE]), self.flags, flags, self.shared)
        self.t, self.flags = grown, flags
        self.generation += 1


class _Stacks:
    """A pool of the arrays a ``Search`` keeps per depth (stack, moves, children's keys: 48 MB of
    address space, of which a search touches the first pages only), handed back when a search
    is collected.  Why: a deal runs several searches (both move orders, the weaker games), most
    of them done in a millisecond, and fresh arrays of this size cost each search its page
    faults -- up to 0.1 ms for the keys alone, where the 2 MB pages the kernel gives such
    allocations are zeroed on first touch (endless-harp deals 1-100 000 every 200th took 1.18
    times as long with fresh arrays, twenty-ninth session).  Nothing in them is read before the
    search writes it, so a reused set needs no clearing.  At most ``keep`` sets are kept; a
    lock makes it safe for threads (Dask workers)."""

    def __init__(self, keep: int = 4):
        self.keep, self.free, self.lock = keep, [], threading.Lock()

    def take(self):
        with self.lock:
            if self.free:
                return self.free.pop()
        return (np.empty((MAX_DEPTH + 1, S_SIZE), np.int64), np.empty(MAX_DEPTH * MAX_MOVES, np.int64),
                np.empty(2 * MAX_DEPTH * MAX_MOVES, np.uint64))

    def give(self, stacks) -> None:
        with self.lock:
            if len(self.free) < self.keep:
                self.free.append(stacks)


_STACKS = _Stacks()


# A search on a shared table ends as ``unknown`` with this reason (see ``_dfs``: no proof alone).
SHARED_END = "exhausted, shared"


class Search:
    """One resumable search: ``advance`` runs it on for a number of nodes and says where it is.

    The stack, move lists and table live here, so a schedule can give the
    search slices in turn (search/engine.py) without losing work.  ``table``: a ``Table``
    shared with other searches of the same rules and layout (see SHARED_END).
    """

    def __init__(self, rules, layout, safe: bool = True, order=None, defer: bool = True,
                 concretise: bool = True, one_word: bool = True, table: "Table | None" = None):
        self.rules, self.layout = rules, layout
        # False: a win is reported with its abstract moves only, no tokens -- for a weaker game
        # (search/engine.py, Relax), whose win proves nothing and is dropped, so turning it
        # into real moves with the reference engine would be time thrown away
        self.concretise = concretise
        self.result: AfreeResult | None = None
        self.nodes = self.states = 0
        if not applies(rules):
            self.result = AfreeResult("unknown", reason="rules")
            return
        pr = self.pr = Problem(rules, layout, safe, order, defer, one_word)
        if not pr.ok:
            self.result = AfreeResult("unknown", reason=pr.why)
            return
        # the stack, the moves and the moves' children's keys (_ahead): each depth written
        # before it is read, so a search takes them from the pool (_Stacks) as they were left
        stacks = _STACKS.take()
        weakref.finalize(self, _STACKS.give, stacks)
        self.S, self.moves, self.keys = stacks
        self.nmoves = np.zeros(MAX_DEPTH + 1, np.int64)
        self.nxt = np.zeros(MAX_DEPTH + 1, np.int64)
        self.ctr = np.zeros(C_SIZE, np.int64)
        self.S[0] = pr.root
        if _won(self.S[0], pr.q):
            self.ctr[C_DEPTH] = 0
            self.result = self._solution()
            return
        words = 1 if pr.q[Q_ONE] else 2  # words a table entry takes (_pack1)
        self.shared = table is not None
        self.table = table if table is not None else Table(words)
        # a shared search's number on the table and its stack's slots (``_dfs``); -1 alone
        self.me = self.table.join(words) if self.shared else -1
        self.slots = np.zeros(MAX_DEPTH + 1 if self.shared else 1, np.int64)
        self.generation = self.table.generation
        self.w, self.child = work(pr.talon, int(pr.q[Q_TLEN])), np.empty(S_SIZE, np.int64)
        tab = self.table
        _root(self.S, self.moves, self.keys, self.nmoves, self.nxt, tab.t, tab.fill, tab.flags, self.slots, self.me,
              self.ctr, pr.q, pr.cols, pr.talon, self.w, self.child)
        self._count()

    def _count(self):
        self.nodes, self.states = int(self.ctr[C_NODES]), int(self.ctr[C_STORED])

    def _unknown(self, reason: str) -> AfreeResult:
        return AfreeResult("unknown", nodes=self.nodes, states=self.states, reason=reason)

    def advance(self, nodes: int = 0, *, deadline: float | None = None, reserve=None) -> AfreeResult:
        """Search on for at most ``nodes`` more states (0 = no limit) or until ``deadline``.

        Returns the final result once decided (then again on every call), else
        ``unknown`` with reason "nodes" / "time" (paused: call again) or
        "memory" (``reserve(nbytes)`` refused a bigger table: final).
        """
        if self.result is not None:
            return self.result
        pr = self.pr
        stop = self.nodes + nodes if nodes else None
        while True:
            slice_ = next_slice(int(self.ctr[C_NODES]), stop, deadline is not None, NODE_SLICE)
            if slice_ == 0:
                return self._unknown("nodes")
            tab = self.table
            if self.shared and self.generation != tab.generation:  # another search grew the table
                _reslot(self.S, int(self.ctr[C_DEPTH]), tab.t, pr.q, self.slots)
                self.generation = tab.generation
            code = _dfs(self.S, self.moves, self.keys, self.nmoves, self.nxt, tab.t, tab.fill, tab.flags, self.slots, self.me,
                        self.ctr, pr.q, pr.cols, pr.talon, slice_, self.w, self.child)
            self._count()
            if code == R_GROW:
                if reserve is not None and not reserve(tab.nbytes()):  # (twice as many words)
                    self.result = self._unknown("memory")
                    return self.result
                tab.grow(pr.q)
                if self.shared:
                    _reslot(self.S, int(self.ctr[C_DEPTH]), tab.t, pr.q, self.slots)
                    self.generation = tab.generation
                continue
            if code == R_SOLVED:
                self.result = self._solution()
                return self.result
            if code == R_EXHAUSTED:
                if self.ctr[C_INCOMPLETE]:
                    self.result = self._unknown("depth")
                elif self.shared:
                    self.result = self._unknown(SHARED_END)
                else:
                    self.result = AfreeResult("unsolvable", proof=PROOF, nodes=self.nodes, states=self.states)
                return self.result
            if deadline is not None and time.perf_counter() > deadline:
                return self._unknown("time")

    def _solution(self) -> AfreeResult:
        from .afree_concrete import ConcretiseError, concretise

        depth = int(self.ctr[C_DEPTH])
        path = [int(self.moves[k * MAX_MOVES + self.nxt[k] - 1]) for k in range(depth)]
        abstract = [decode(m) for m in path]
        if not self.concretise:
            return AfreeResult("solved", nodes=self.nodes, states=self.states, abstract=abstract)
        try:
            tokens = concretise(self.rules, self.layout, self.pr, path)
        except ConcretiseError as e:
            r = self._unknown("concretise")
            r.abstract = abstract + [str(e)]
            return r
        return AfreeResult("solved", tokens=tokens, nodes=self.nodes, states=self.states, abstract=abstract)


PROOF = "exhausted: arrangement-free"


def run(rules, layout, *, max_nodes: int = 0, deadline: float | None = None,
        max_memory: int = 1 << 30, safe: bool = True, order=None, defer: bool = True) -> AfreeResult:
    """Decide ``layout`` by exhausting the arrangement-free graph.

    ``max_nodes`` (0 = no limit) counts states entered; ``deadline`` is a
    ``time.perf_counter()`` value or None; ``max_memory`` bounds the table;
    ``safe`` plays safe foundation moves as forced moves (``_forced``) and
    drops useless take-backs (``_useless``); ``defer`` (with ``safe``, draw 1
    and unlimited passes) defers talon plays to a column until they are used
    (``_wanted``); both off only to test those cuts against the search without them.
    ``order``: the move kinds in the order children are tried (None: ``default_order``).
    """
    s = Search(rules, layout, safe, order, defer)
    r = s.advance(max_nodes, deadline=deadline, reserve=lambda nbytes: nbytes <= max_memory)
    if r.reason in ("nodes", "time"):
        s.table = None  # paused for good: let the table go
    return r
