"""Jitted move generation and application on packed states (``state.py``).

A move is one ``int64``::

    bits 24..27  kind (the M_* constants)
    bits 16..23  a    source: column, talon index, foundation place or cell
    bits  8..15  b    target: column or cell
    bits  0..7   n    cards moved (column to column)

In *compound* mode (the search) the stock is not stepped through card by
card: ``M_TALON_FOUND``/``M_TALON_COL`` play talon card ``a`` directly, and
the draws and recycles that bring it to the top of the waste are implied
(``_talon_route`` computes them; ``solution.py`` spells them out).  This is
complete because draws and recycles commute with every other move: a line
that draws and later plays card ``i`` is the line that plays card ``i`` with
the draws folded in, and taking the route with the fewest recycles leaves
the same position with at least as many passes left.  In *primitive* mode
(``M_DRAW``/``M_RECYCLE`` and the waste top only) the kernel lists exactly
the reference engine's moves, which is what the differential tests compare.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .config import JIT_NORC
from .state import (
    EMPTY, MAXLEN, NCOL_MAX, O_OBLIG, O_CELL, O_COLS, O_DOWN, O_FOUND, O_LEN, O_RECYC, O_TALON, O_TLEN, O_TPTR,
    P_AUTO, P_BUILD_SUIT, P_CELLS, P_COMPOUND, P_DECKS, P_DRAW, P_EMPTY_ANY, P_KING_RUNS,
    P_NCOL, P_PASSES, P_PRUNE, P_RUNS, P_TAKEBACK, P_AGGRESSIVE, P_DOMINANCE, P_REACH,
    P_ALWAYS_HOME, P_CUTS, CUT_KELLER, CUT_SAFE_PLAY,
)

M_COL_FOUND = 1
M_TALON_FOUND = 2
M_TALON_COL = 3
M_COL_COL = 4
M_FOUND_COL = 5
M_COL_CELL = 6
M_CELL_COL = 7
M_CELL_FOUND = 8
M_DRAW = 9
M_RECYCLE = 10

MAX_MOVES = 1024  # per node; a fuller list is reported as overflow, never truncated silently
# _gen's working space (int64), handed in by its caller so that _gen allocates nothing (a
# search kernel compiled without reference counting, config.JIT_NORC, may not allocate):
# the cards each column takes (NCOL_MAX), then the cards that may end a talon chain
# (PAYOFFS_MAX: every column card, cell and foundation top).
PAYOFFS_MAX = 128
GEN_WORK = NCOL_MAX + PAYOFFS_MAX


@njit(**JIT_NORC)
def _mk(kind, a, b, n):
    return np.int64((kind << 24) | (a << 16) | (b << 8) | n)


@njit(**JIT_NORC)
def _kind(m):
    return (m >> 24) & 15


@njit(**JIT_NORC)
def _a(m):
    return (m >> 16) & 255


@njit(**JIT_NORC)
def _b(m):
    return (m >> 8) & 255


@njit(**JIT_NORC)
def _n(m):
    return m & 255


# ---- card arithmetic (kinds 0..51: suit * 13 + rank - 1) ----------------------
@njit(**JIT_NORC)
def _builds(card, base, suit_build):
    """May ``card`` go on ``base`` in a column?"""
    if card % 13 + 1 != base % 13:
        return False
    if suit_build:
        return card // 13 == base // 13
    cs = card // 13
    bs = base // 13
    return (cs == 1 or cs == 2) != (bs == 1 or bs == 2)


@njit(**JIT_NORC)
def _found_place(st, card, p):
    """The first foundation place of ``card``'s suit that accepts it, or -1."""
    decks = p[P_DECKS]
    s = card // 13
    r0 = card % 13
    for k in range(decks):
        if st[O_FOUND + s * decks + k] == r0:
            return s * decks + k
    return -1


@njit(**JIT_NORC)
def _place_mask(st, p):
    """The cards some foundation place takes now (bit ``card``): the next card of each place.
    A card has a place that takes it (``_found_place`` >= 0) exactly when its bit is set."""
    decks = p[P_DECKS]
    mask = np.int64(0)
    for f in range(4 * decks):
        h = np.int64(st[O_FOUND + f])
        if h < 13:
            mask |= np.int64(1) << ((f // decks) * 13 + h)
    return mask


@njit(**JIT_NORC)
def _same_top_earlier(st, f, decks):
    """Does an earlier place of f's suit show the same top card?  (Then taking
    back from f is the same move as taking back from that place.)"""
    for f2 in range((f // decks) * decks, f):
        if st[O_FOUND + f2] == st[O_FOUND + f]:
            return True
    return False


@njit(**JIT_NORC)
def _suit_min(st, s, decks):
    m = 99
    for k in range(decks):
        h = np.int64(st[O_FOUND + s * decks + k])
        if h < m:
            m = h
    return m


@njit(**JIT_NORC)
def _safe(st, card, p):
    """Can ``card`` (a column top or in a cell) go home without ever costing a win?

    Proof (alternate colours; any number of decks; take-back on or off).  Let
    c have suit s and rank r, P the position, P' = P with c moved home, and L a
    winning line from P.  Call a card kind *junk* when every copy of it is home
    in P and every kind that may be built on it is junk too; the kinds built
    on c must be junk.  The conditions below make these kinds junk: the
    opposite-colour ranks <= r-1 (all their places >= r-1 in P); with take-back
    also the other same-colour suit's ranks <= r-2 and s's ranks <= r-1 (its
    places >= r-2 and >= r-1), each of which only carries kinds already listed.
    Without take-back junk never leaves home, so the opposite colour's
    condition is enough for junk (s's places >= r-1 are needed anyway, for
    the foundation, below).  A non-junk card is never built on a junk card or on c (what
    builds on them is junk), so in L junk taken back only ever carries junk:
    it frees nothing, and a lowered foundation only accepts junk again.
    Follow L from P' and keep, at every step, L's position with c (while L
    has it out) and every junk card out of the foundations put home; one
    place per suit is raised to the junk rank, and for s one place at r-1
    to r for c.  Each move of L is either made unchanged (the card or the
    non-junk part of a moved run is where L has it, its target is not junk,
    the same cells and empty columns are free) or skipped (it moves only c or
    junk).  A non-junk foundation move needs a place at k-1 >= the junk
    rank, which the raising left alone -- except the other copy c' of c
    (rank r, two or more decks) while c is out in L: it needs a place of s
    at r-1, and one of them holds c in P'.  With every place of s >= r-1
    in P (and s's r-1 copies junk, so at most r-1 after a take-back), the
    places of s below r number the copies of rank r out in L, at least two
    (c and c'), so one is left.  Without that condition this fails: places
    J and 10 of hearts, the queens of hearts on a column and in the stock
    under the jack (draw 3) -- the column queen going up first loses the
    game (tests/test_cuts.py).  The line from P' is never longer than L and
    skips c's move home, so it is strictly shorter: safe moves are on some
    shortest winning line, which :func:`_gen` uses for "never take back a
    safe card" (the take-back of a safe card would be undone by a shorter line).
    Same-suit building: the kinds built on c are s's rank r-1 copies; all
    places of s >= r-1 makes them junk (they only carry s's r-2, also home),
    which with one deck holds whenever c can go up.  A talon card c with
    draw 1: L's talon with c deleted reaches every other card whenever L
    does (the card under c is the waste top sooner), so the same follows;
    with draw 3 deleting c shifts what the taps reach, and ``_auto`` leaves
    those alone.
    """
    decks = p[P_DECKS]
    return _goes_home(card, _suit_min(st, 0, decks), _suit_min(st, 1, decks), _suit_min(st, 2, decks),
                      _suit_min(st, 3, decks), p)


@njit(**JIT_NORC)
def _goes_home(card, m0, m1, m2, m3, p):
    """``_safe`` from the lowest place of each suit (see ``_safe_by_mins``)."""
    if p[P_ALWAYS_HOME]:
        return True  # the streamliner of search/restarts.py: never for a proof
    return _safe_by_mins(card, m0, m1, m2, m3, p)


@njit(**JIT_NORC)
def _proved_safe(st, card, p):
    """The rule proved in ``_safe``'s docstring (with CUT_KELLER: Keller's, below).

    CUT_KELLER, Keller's rule (Blake & Gent Cor. 3), alternate colours: c of
    rank r goes up when every place of the opposite colour is >= r-2, every
    place of the other suit of c's colour >= r-3 and -- two or more decks --
    every place of c's own suit >= r-1 (the published two-deck form, own
    suit's other places >= r-3, fails: the regression positions of
    tests/test_cuts.py).  Proof, extending ``_safe``'s: junk is now the
    opposite colour's ranks <= r-2, the other suit's <= r-3 and s's <= r-1
    (all home, closed under building on).  The kinds S = {opposite r-1, other
    suit r-2} may be out, but only S and junk build on them or on c.  Follow
    L from P' keeping L's position with c, junk out, and every S card that L
    has moved at least once and holds out, put home: when L first moves an
    S card (from a column, a cell or the talon, alone or inside a run) put
    it -- after the S cards above it, top first -- home instead; each one's
    predecessor is junk, so home in the followed position, and a place is
    free for it (the places of its suit below its rank number its copies
    out).  Every other move is made as in ``_safe``'s proof or skipped.  Per
    S card the new line makes one move home where L makes at least one
    later (its own way home), and c's move home is skipped: again strictly
    shorter than L.
    """
    decks = p[P_DECKS]
    return _safe_by_mins(card, _suit_min(st, 0, decks), _suit_min(st, 1, decks), _suit_min(st, 2, decks),
                         _suit_min(st, 3, decks), p)


@njit(**JIT_NORC)
def _safe_by_mins(card, m0, m1, m2, m3, p):
    """``_proved_safe`` from the lowest place of each suit (``m0``..``m3``, clubs to spades):
    the rule reads nothing else of the position, so ``_auto_mask`` tests every candidate
    card with the four minima found once."""
    r = card % 13 + 1
    s = card // 13
    mins = (m0, m1, m2, m3)
    if mins[s] < r - 1:
        return False  # the other copies of c need a place at r-1 (see above)
    if p[P_BUILD_SUIT]:
        return True
    red = s == 1 or s == 2
    # _safe's form: opposite colour >= r-1 (and with take-back the other suit >= r-2);
    # Keller's: opposite colour >= r-2 and the other suit >= r-3.
    plain = True
    keller = (p[P_CUTS] & CUT_KELLER) != 0
    for t in range(4):
        if t == s:
            continue
        m = mins[t]
        if (t == 1 or t == 2) != red:
            plain = plain and m >= r - 1
            keller = keller and m >= r - 2
        else:
            plain = plain and (m >= r - 2 or not p[P_TAKEBACK])
            keller = keller and m >= r - 3
    return plain or keller


@njit(**JIT_NORC)
def _auto_mask(st, p):
    """The cards ``_auto`` sends home now, as a bit set of kinds (bit ``card``): those with a
    place that takes them (``_found_place``) that are safe there (``_safe``).

    Both tests read only the foundations, so the candidates are the next card of each place,
    tested once here, instead of every column top, cell and talon card tested in turn: with
    draw 1 and unlimited passes ``_auto`` looks at the whole talon, up to 59 cards with two
    decks, for every child the searches make.  Measured (twenty-third session, benchmarks/README):
    easy-harp beams 513 -> 446 ns a child, the solver 0.961 of the time, the same nodes.  (The
    mask is almost never empty -- some place's next card, an ace or a low card, is nearly always
    safe -- so the gain is the cheaper test of each card, not an early stop.)"""
    decks = p[P_DECKS]
    m0 = _suit_min(st, 0, decks)
    m1 = _suit_min(st, 1, decks)
    m2 = _suit_min(st, 2, decks)
    m3 = _suit_min(st, 3, decks)
    mask = np.int64(0)
    for f in range(4 * decks):
        h = np.int64(st[O_FOUND + f])
        if h < 13:
            card = (f // decks) * 13 + h
            if _goes_home(card, m0, m1, m2, m3, p):
                mask |= np.int64(1) << card
    return mask


@njit(**JIT_NORC)
def _takeback_needed(st, f, card, p):
    """CUT_SAFE_PLAY (Blake & Gent Cor. 2): may the top ``card`` of place f be taken back?

    Not when the card would be safe on the column it comes to.  Proof: the
    position Q1 after the take-back has ``card`` on a column top, and if it is
    safe there (``_proved_safe`` on Q1, where f is one lower), a winning line
    of length n from Q1 gives one of length < n from Q1 with the card home,
    which is Q (both proofs end in a strictly shorter line).  So a shortest
    winning line from Q never starts with this take-back, and every suffix of
    a shortest line is shortest: a shortest winning line takes back no safe
    card, and the search keeps one.
    """
    if not (p[P_CUTS] & CUT_SAFE_PLAY):
        return True
    st[O_FOUND + f] -= 1
    safe = _proved_safe(st, card, p)
    st[O_FOUND + f] += 1
    return not safe


# ---- the talon ---------------------------------------------------------------------
@njit(**JIT_NORC)
def _recycle_allowed(recycles, passes):
    return passes == 0 or recycles < passes - 1


@njit(**JIT_NORC)
def _talon_route(tlen, tptr, recycles, draw, passes, i):
    """How to bring talon card ``i`` to the top of the waste.

    Returns (draws, recycle, draws_after): draw ``draws`` times, then (if
    ``recycle``) turn the waste back and draw ``draws_after`` times.  Returns
    (-1, 0, 0) when card ``i`` cannot be reached.  Draws never reorder the
    talon; a tap turns ``draw`` cards (fewer at the end), so within a pass the
    reachable tops are the boundary positions tptr + k*draw (capped at tlen).
    """
    if i < 0 or i >= tlen:
        return -1, 0, 0
    if i == tptr - 1:
        return 0, 0, 0
    if i >= tptr:
        gap = i + 1 - tptr
        if gap % draw == 0 or i == tlen - 1:
            return (gap + draw - 1) // draw, 0, 0
    if not _recycle_allowed(recycles, passes):
        return -1, 0, 0
    if (i + 1) % draw == 0 or i == tlen - 1:
        return (tlen - tptr + draw - 1) // draw, 1, (i + 1 + draw - 1) // draw
    return -1, 0, 0


@njit(**JIT_NORC)
def _talon_take(st, i):
    """Remove talon card ``i`` (already at the waste top by its route); return it."""
    tlen = np.int64(st[O_TLEN])
    card = st[O_TALON + i]
    for j in range(i, tlen - 1):
        st[O_TALON + j] = st[O_TALON + j + 1]
    st[O_TLEN] = tlen - 1
    st[O_TPTR] = i
    return card


@njit(**JIT_NORC)
def _talon_reach(st, i, p):
    """Follow card ``i``'s route: count its recycle, leave it on the waste top."""
    d1, rec, d2 = _talon_route(np.int64(st[O_TLEN]), np.int64(st[O_TPTR]), np.int64(st[O_RECYC]),
                               p[P_DRAW], p[P_PASSES], i)
    if rec and st[O_RECYC] < 255:
        st[O_RECYC] += 1


# ---- columns --------------------------------------------------------------------------
@njit(**JIT_NORC)
def _col_pop(st, c, n):
    """Remove the top ``n`` cards of column c; a face-down card that becomes top turns up."""
    ln = np.int64(st[O_LEN + c]) - n
    st[O_LEN + c] = ln
    if ln > 0 and st[O_DOWN + c] == ln:
        st[O_DOWN + c] = ln - 1


@njit(**JIT_NORC)
def _col_push(st, c, card):
    ln = np.int64(st[O_LEN + c])
    st[O_COLS + MAXLEN * c + ln] = card
    st[O_LEN + c] = ln + 1


@njit(**JIT_NORC)
def _top(st, c):
    ln = np.int64(st[O_LEN + c])
    if ln == 0:
        return -1
    return np.int64(st[O_COLS + MAXLEN * c + ln - 1])


@njit(**JIT_NORC)
def _run_start(st, c, suit_build):
    """Lowest index j such that cards j..top of column c are face up and built."""
    ln = np.int64(st[O_LEN + c])
    down = np.int64(st[O_DOWN + c])
    base = O_COLS + MAXLEN * c
    j = ln - 1
    while j > down and _builds(np.int64(st[base + j]), np.int64(st[base + j - 1]), suit_build):
        j -= 1
    return j



@njit(**JIT_NORC)
def _apply(st, m, p):
    """Make move ``m`` on ``st`` in place (the move must be legal)."""
    kind = _kind(m)
    a = _a(m)
    b = _b(m)
    st[O_OBLIG] = 0
    if kind == M_COL_FOUND:
        card = _top(st, a)
        _col_pop(st, a, 1)
        st[O_FOUND + _found_place(st, card, p)] += 1
    elif kind == M_TALON_FOUND:
        _talon_reach(st, a, p)
        card = np.int64(_talon_take(st, a))
        st[O_FOUND + _found_place(st, card, p)] += 1
    elif kind == M_TALON_COL:
        _talon_reach(st, a, p)
        card = np.int64(_talon_take(st, a))
        _col_push(st, b, card)
        if _chains_on(p):
            st[O_OBLIG] = b + 1
    elif kind == M_COL_COL:
        n = _n(m)
        ln = np.int64(st[O_LEN + a])
        src = O_COLS + MAXLEN * a + ln - n
        for k in range(n):
            _col_push(st, b, st[src + k])
        _col_pop(st, a, n)
    elif kind == M_FOUND_COL:
        h = np.int64(st[O_FOUND + a])
        card = (a // p[P_DECKS]) * 13 + h - 1
        st[O_FOUND + a] = h - 1
        _col_push(st, b, card)
    elif kind == M_COL_CELL:
        st[O_CELL + b] = _top(st, a)
        _col_pop(st, a, 1)
    elif kind == M_CELL_COL:
        _col_push(st, b, st[O_CELL + a])
        st[O_CELL + a] = EMPTY
    elif kind == M_CELL_FOUND:
        card = np.int64(st[O_CELL + a])
        st[O_CELL + a] = EMPTY
        st[O_FOUND + _found_place(st, card, p)] += 1
    elif kind == M_DRAW:
        st[O_TPTR] = min(np.int64(st[O_TPTR]) + p[P_DRAW], np.int64(st[O_TLEN]))
    elif kind == M_RECYCLE:
        st[O_TPTR] = 0
        if st[O_RECYC] < 255:
            st[O_RECYC] += 1


@njit(**JIT_NORC)
def _won(st, p):
    total = 0
    for k in range(4 * p[P_DECKS]):
        total += np.int64(st[O_FOUND + k])
    return total == 52 * p[P_DECKS]


@njit(**JIT_NORC)
def _auto(st, p, out):
    """Make every safe foundation move (see ``_safe``) until none is left.

    Writes the moves made into ``out`` (for the solution) and returns their
    number.  Talon cards are included only where taking one changes nothing
    else: with draw 1 and unlimited passes any talon card (every card stays
    reachable), with draw 1 and limited passes the waste top (the boundary
    just moves down by one).  With draw 3 removing a card shifts which cards
    the taps reach, so talon cards are never moved automatically.
    """
    if not p[P_AUTO]:
        return 0
    return _auto_from(st, p, out, _auto_mask(st, p))


@njit(**JIT_NORC)
def _same_foundations(st, parent, p):
    """Do ``st`` and ``parent`` have the same foundation heights (so the same ``_auto_mask``)?"""
    for f in range(4 * p[P_DECKS]):
        if st[O_FOUND + f] != parent[O_FOUND + f]:
            return False
    return True


@njit(**JIT_NORC)
def _auto_child(st, parent, p, out, parent_home):
    """``_auto(st, p, out)`` for a child ``st`` of ``parent``; ``parent_home`` is the parent's
    ``_auto_mask``, or -1 if not found yet.  Returns the parent's mask (found here if a child
    needed it): the searches keep it for the parent's next children.

    Why: the mask reads only the foundations, so a child whose move left them as they were
    (most in Harp: column and talon moves) has its parent's, and finding it again was about
    half of ``_auto``'s cost.  The same moves in the same order as ``_auto`` (tests/test_kernel.py)."""
    if not p[P_AUTO]:
        return parent_home
    if _same_foundations(st, parent, p):
        if parent_home < 0:
            parent_home = _auto_mask(parent, p)
        _auto_from(st, p, out, parent_home)
    else:
        _auto_from(st, p, out, _auto_mask(st, p))
    return parent_home


@njit(**JIT_NORC)
def _auto_from(st, p, out, home):
    """``_auto``'s moves from ``home``, the ``_auto_mask`` of ``st``."""
    count = 0
    ncol = p[P_NCOL]
    # ``home``: the cards that may go home now (``_auto_mask``), found again after every move:
    # the same moves in the same order as testing each card with _found_place and _safe
    changed = home != 0
    while changed:
        changed = False
        for c in range(ncol):
            card = _top(st, c)
            if card >= 0 and (home >> card) & 1:
                m = _mk(M_COL_FOUND, c, 0, 0)
                _apply(st, m, p)
                out[count] = m
                count += 1
                changed = True
                home = _auto_mask(st, p)
        for k in range(p[P_CELLS]):
            card = np.int64(st[O_CELL + k])
            if card != EMPTY and (home >> card) & 1:
                m = _mk(M_CELL_FOUND, k, 0, 0)
                _apply(st, m, p)
                out[count] = m
                count += 1
                changed = True
                home = _auto_mask(st, p)
        # Not under stock dominance: whether the waste top goes home by itself
        # would depend on the boundary, which the dominance must not see.
        if p[P_DRAW] == 1 and not p[P_DOMINANCE]:
            tlen = np.int64(st[O_TLEN])
            lo = 0 if p[P_PASSES] == 0 else np.int64(st[O_TPTR]) - 1
            i = tlen - 1 if p[P_PASSES] == 0 else lo
            while i >= lo and i >= 0 and home != 0:
                card = np.int64(st[O_TALON + i])
                if (home >> card) & 1:
                    m = _mk(M_TALON_FOUND, i, 0, 0)
                    _apply(st, m, p)
                    out[count] = m
                    count += 1
                    changed = True
                    home = _auto_mask(st, p)
                    if p[P_PASSES] != 0:
                        break
                i -= 1
        changed = changed and home != 0
    return count


@njit(**JIT_NORC)
def _can_move_on(st, p, card, c):
    """Could ``card`` (under the top of column c) go onto some other column's top?"""
    for t in range(p[P_NCOL]):
        if t == c:
            continue
        tl = np.int64(st[O_LEN + t])
        if tl == 0:
            if p[P_EMPTY_ANY] or card % 13 == 12:
                return True
        elif _builds(card, np.int64(st[O_COLS + MAXLEN * t + tl - 1]), p[P_BUILD_SUIT]):
            return True
    return False


# ---- move generation -----------------------------------------------------------------
# Ordering: lower score first.  Foundation moves, then moves that turn a
# hidden card (deepest pile first) or empty a column, then cards from the
# talon, then other column moves, cells, and take-backs last.
@njit(**JIT_NORC)
def _push_move(out, scores, count, m, score):
    if count >= out.shape[0]:
        return -1
    out[count] = m
    scores[count] = score
    return count + 1


@njit(**JIT_NORC)
def _empty_targets_ok(c, first_empty, prune):
    # All empty columns give the same position up to column order: use the first.
    return (not prune) or c == first_empty


@njit(**JIT_NORC)
def _targets(st, p, first_empty, want):
    """Fill ``want[t]`` with the cards (bit ``card`` of a 52-bit set) that may go onto
    column t -- the cards one rank below its top that build on it (:func:`_builds`); for an
    empty column the kings (or every card) if it is a target at all
    (:func:`_empty_targets_ok`) -- and return their union.

    Why: talon plays try every reachable talon card against every column (draw 1 with
    unlimited passes reaches the whole talon: ~55 cards x 9 columns in the Harp games),
    which was most of a Harp node's move generation; a bit test replaces a card-by-card
    check and the union skips the cards that fit nowhere.  Pinned by tests/test_kernel.py
    against that check, card by card, on random positions."""
    union = np.int64(0)
    suit_build = p[P_BUILD_SUIT]
    for t in range(p[P_NCOL]):
        tl = np.int64(st[O_LEN + t])
        mask = np.int64(0)
        if tl == 0:
            if _empty_targets_ok(t, first_empty, p[P_PRUNE]):
                if p[P_EMPTY_ANY]:
                    mask = (np.int64(1) << 52) - 1
                else:
                    for s in range(4):
                        mask |= np.int64(1) << (s * 13 + 12)
        else:
            top = np.int64(st[O_COLS + MAXLEN * t + tl - 1])
            r = top % 13
            if r > 0:
                s = top // 13
                if suit_build:
                    mask = np.int64(1) << (s * 13 + r - 1)
                else:
                    red = s == 1 or s == 2
                    for s2 in range(4):
                        if (s2 == 1 or s2 == 2) != red:
                            mask |= np.int64(1) << (s2 * 13 + r - 1)
        want[t] = mask
        union |= mask
    return union


@njit(**JIT_NORC)
def _sort_by_key(moves, keys, n):
    """Stable insertion sort of moves[:n] by keys[:n] (move lists are short)."""
    for i in range(1, n):
        m = moves[i]
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            moves[j + 1] = moves[j]
            keys[j + 1] = keys[j]
            j -= 1
        moves[j + 1] = m
        keys[j + 1] = k




# ---- obligations: cards from the talon or a foundation must receive a card ----
# With draw 1 and unlimited passes every talon card can be played at any time,
# so a talon card X put on a column matters only as a base for what is put on
# it.  Proof that nothing is lost by requiring the very next move to put a
# card on X: take a winning line and the last talon-to-column move "X onto T"
# not immediately followed by a move onto X.  If nothing is ever put on X
# while it stays there, delete that move and let X's departure (to a
# foundation or another column) come straight from the talon -- every talon
# card stays reachable, and T uncovered meanwhile only adds options (a block
# move of a king-led run that carried X carries the run without X).
# Otherwise move "X onto T" to just before the first card Y is put on X: in
# between nothing used X and nothing went on T (X covered it).  Repeating
# this gives a winning line with the property.  So, in this mode, playing a
# talon card to column c sets OBLIG = c + 1, and the next move must put a card
# on column c: another talon card (the obligation moves up), or a card from
# a column, a cell or a foundation.  Safe automatic moves wait until the
# obligation is met.  A talon card is offered for a column only if some card
# outside the talon could end such a chain (rank below, colours alternating).
#
# There is no such obligation after a take-back: the same argument fails
# there (a card taken back may be needed on the column only to be moved on
# with what it holds, the place it left may be needed lower later), and the
# pruned search lost won positions with it, with one deck too
# (tests/test_cuts.py).
@njit(**JIT_NORC)
def _chains_on(p):
    return p[P_DRAW] == 1 and p[P_PASSES] == 0 and p[P_COMPOUND] and p[P_PRUNE]


@njit(**JIT_NORC)
def _chain_can_end(x, payoffs, npay, suit_build):
    """Could a chain of talon cards starting with ``x`` end with one of ``payoffs``?"""
    rx = x % 13
    for k in range(npay):
        w = payoffs[k]
        d = rx - w % 13
        if d < 1:
            continue
        if suit_build:
            if w // 13 == x // 13:
                return True
        else:
            xs = x // 13
            ws = w // 13
            same = (xs == 1 or xs == 2) == (ws == 1 or ws == 2)
            if same == (d % 2 == 0):
                return True
    return False


@njit(**JIT_NORC)
def _first_copy(st, i):
    """Is talon card i the first of its kind in the talon?"""
    card = st[O_TALON + i]
    for j in range(i):
        if st[O_TALON + j] == card:
            return False
    return True


@njit(**JIT_NORC)
def _gen_obligation(st, p, out, scores, c):
    """Moves that put a card on column c (the only moves allowed under an obligation)."""
    ncol = p[P_NCOL]
    suit_build = p[P_BUILD_SUIT]
    count = 0
    tcard = _top(st, c)
    chains = _chains_on(p)
    tlen = np.int64(st[O_TLEN])
    tptr = np.int64(st[O_TPTR])
    for i in range(tlen):
        card = np.int64(st[O_TALON + i])
        if not _builds(card, tcard, suit_build):
            continue
        if chains:
            if not _first_copy(st, i):
                continue
        elif p[P_COMPOUND]:
            d1, rec, d2 = _talon_route(tlen, tptr, np.int64(st[O_RECYC]), p[P_DRAW], p[P_PASSES], i)
            if d1 < 0 or (p[P_REACH] and d1 + rec + d2 > p[P_REACH]):
                continue
        elif i != tptr - 1:
            continue
        count = _push_move(out, scores, count, _mk(M_TALON_COL, i, c, 0), 200)
        if count < 0:
            return -1
    for s_ in range(ncol):
        ln = np.int64(st[O_LEN + s_])
        if s_ == c or ln == 0:
            continue
        down = np.int64(st[O_DOWN + s_])
        lo = _run_start(st, s_, suit_build) if p[P_RUNS] else ln - 1
        for j in range(ln - 1, lo - 1, -1):
            if _builds(np.int64(st[O_COLS + MAXLEN * s_ + j]), tcard, suit_build):
                sc = 100 - down if (j == down and down > 0) else (150 if j == 0 else 300)
                count = _push_move(out, scores, count, _mk(M_COL_COL, s_, c, ln - j), sc)
                if count < 0:
                    return -1
    for k in range(p[P_CELLS]):
        card = np.int64(st[O_CELL + k])
        if card != EMPTY and _builds(card, tcard, suit_build):
            count = _push_move(out, scores, count, _mk(M_CELL_COL, k, c, 0), 250)
            if count < 0:
                return -1
    if p[P_TAKEBACK]:
        decks = p[P_DECKS]
        for f in range(4 * decks):
            h = np.int64(st[O_FOUND + f])
            if h == 0 or _same_top_earlier(st, f, decks):
                continue
            card = (f // decks) * 13 + h - 1
            if _builds(card, tcard, suit_build) and _takeback_needed(st, f, card, p):
                count = _push_move(out, scores, count, _mk(M_FOUND_COL, f, c, 0), 600)
                if count < 0:
                    return -1
    return count


@njit(**JIT_NORC)
def _payoffs(st, p, out):
    """Cards outside the talon that could end a chain: column cards that may move, cells, foundation tops."""
    n = 0
    suit_build = p[P_BUILD_SUIT]
    for c in range(p[P_NCOL]):
        ln = np.int64(st[O_LEN + c])
        if ln == 0:
            continue
        lo = _run_start(st, c, suit_build) if p[P_RUNS] else ln - 1
        for j in range(lo, ln):
            out[n] = st[O_COLS + MAXLEN * c + j]
            n += 1
    for k in range(p[P_CELLS]):
        if st[O_CELL + k] != EMPTY:
            out[n] = st[O_CELL + k]
            n += 1
    if p[P_TAKEBACK]:
        decks = p[P_DECKS]
        for f in range(4 * decks):
            h = np.int64(st[O_FOUND + f])
            if h:
                out[n] = (f // decks) * 13 + h - 1
                n += 1
    return n


@njit(**JIT_NORC)
def _gen(st, p, out, scores, work):
    """Write the legal moves of ``st`` into ``out`` in search order; return the count.
    ``work``: GEN_WORK int64 of working space (see GEN_WORK).

    Returns -1 when more than ``out.shape[0]`` moves exist (the caller must
    then not treat the node as fully explored).
    """
    if st[O_OBLIG]:
        return _gen_obligation(st, p, out, scores, np.int64(st[O_OBLIG]) - 1)
    ncol = p[P_NCOL]
    suit_build = p[P_BUILD_SUIT]
    prune = p[P_PRUNE]
    compound = p[P_COMPOUND]
    empty_any = p[P_EMPTY_ANY]
    count = 0
    first_empty = -1
    for c in range(ncol):
        if st[O_LEN + c] == 0:
            first_empty = c
            break

    # the cards that fit on each column (want[t]) and on some column (wanted)
    want = work[:ncol]
    wanted = _targets(st, p, first_empty, want)

    # column -> foundation, column -> column, column -> cell
    first_cell = -1
    for k in range(p[P_CELLS]):
        if st[O_CELL + k] == EMPTY:
            first_cell = k
            break
    for c in range(ncol):
        ln = np.int64(st[O_LEN + c])
        if ln == 0:
            continue
        down = np.int64(st[O_DOWN + c])
        base = O_COLS + MAXLEN * c
        top = np.int64(st[base + ln - 1])
        if _found_place(st, top, p) >= 0:
            count = _push_move(out, scores, count, _mk(M_COL_FOUND, c, 0, 0), 0)
            if count < 0:
                return -1
        rs = _run_start(st, c, suit_build)
        for j in range(ln - 1, rs - 1, -1):
            n = ln - j
            card = np.int64(st[base + j])
            is_king = card % 13 == 12
            single_ok = n == 1
            king_block = p[P_KING_RUNS] and is_king
            if not (p[P_RUNS] or single_ok or king_block):
                continue
            uncovers = j == down and down > 0
            empties = j == 0
            if p[P_AGGRESSIVE] and not (uncovers or empties):
                # Aggressive (solution finding only, never a proof; not proved
                # safe; the climb, fast-dfs and, where runs move, the beams:
                # search/beam.py aggressive_for).  Runs: split a built run only
                # when the card it uncovers can go home next, as classic
                # Klondike solvers do.
                # Single cards: take a card off a face-up card only when that
                # card can then move on (home, or onto another column).
                under = np.int64(st[base + j - 1])
                if _found_place(st, under, p) < 0:
                    if p[P_RUNS] or not _can_move_on(st, p, under, c):
                        continue
            if uncovers:
                sc = 100 - down
            elif empties:
                sc = 150
            else:
                sc = 300
            if not (wanted >> card) & 1:
                continue
            for t in range(ncol):
                if t == c:
                    continue
                tl = np.int64(st[O_LEN + t])
                if tl == 0:
                    if not (empty_any or is_king):
                        continue
                    if not _empty_targets_ok(t, first_empty, prune):
                        continue
                    if prune and empties:
                        continue  # the same column, moved: the same position
                    count = _push_move(out, scores, count, _mk(M_COL_COL, c, t, n), sc)
                    if count < 0:
                        return -1
                elif p[P_RUNS] or single_ok:
                    tcard = np.int64(st[O_COLS + MAXLEN * t + tl - 1])
                    if _builds(card, tcard, suit_build):
                        count = _push_move(out, scores, count, _mk(M_COL_COL, c, t, n), sc)
                        if count < 0:
                            return -1
        for k in range(p[P_CELLS]):
            if st[O_CELL + k] != EMPTY or (prune and k != first_cell):
                continue
            sc = 400 if not (down > 0 and ln - 1 == down) else 200 - down
            count = _push_move(out, scores, count, _mk(M_COL_CELL, c, k, 0), sc)
            if count < 0:
                return -1

    # free cells -> foundation / column
    for k in range(p[P_CELLS]):
        card = np.int64(st[O_CELL + k])
        if card == EMPTY:
            continue
        if _found_place(st, card, p) >= 0:
            count = _push_move(out, scores, count, _mk(M_CELL_FOUND, k, 0, 0), 0)
            if count < 0:
                return -1
        for t in range(ncol):
            if (want[t] >> card) & 1:
                count = _push_move(out, scores, count, _mk(M_CELL_COL, k, t, 0), 250)
                if count < 0:
                    return -1

    # the talon
    tlen = np.int64(st[O_TLEN])
    tptr = np.int64(st[O_TPTR])
    chains = _chains_on(p)
    payoffs = work[NCOL_MAX:]
    npay = -1  # the payoffs are found when a chain is first tested
    if tlen > 0:
        if compound:
            lo = 0
            hi = tlen
        else:
            lo = tptr - 1
            hi = tptr
        # A talon card makes a move only if a place takes it or a column does: the cards of
        # neither are passed over before their route is worked out (twenty-fourth session:
        # with draw 1 and no pass limit every talon card has a route, and few fit anywhere).
        fits = _place_mask(st, p) | wanted
        seen = np.int64(0)  # the cards of talon[:i] (chains: lo = 0), for _first_copy's test
        for i in range(max(lo, 0), hi):
            card = np.int64(st[O_TALON + i])
            first = not (seen >> card) & 1
            seen |= np.int64(1) << card
            if not (fits >> card) & 1:
                continue
            if compound:
                d1, rec, d2 = _talon_route(tlen, tptr, np.int64(st[O_RECYC]), p[P_DRAW], p[P_PASSES], i)
                if d1 < 0 or (p[P_REACH] and d1 + rec + d2 > p[P_REACH]):
                    continue
                cost = d1 + d2 + 8 * rec
            else:
                cost = 0
            if chains and not first:
                continue  # the talon is a multiset here: the other copy gives the same position
            if _found_place(st, card, p) >= 0:
                count = _push_move(out, scores, count, _mk(M_TALON_FOUND, i, 0, 0), 1 + cost)
                if count < 0:
                    return -1
            if not (wanted >> card) & 1:
                continue
            if chains and npay < 0:
                npay = _payoffs(st, p, payoffs)
            if chains and not _chain_can_end(card, payoffs, npay, suit_build):
                continue
            for t in range(ncol):
                if (want[t] >> card) & 1:
                    count = _push_move(out, scores, count, _mk(M_TALON_COL, i, t, 0), 200 + cost)
                    if count < 0:
                        return -1
        if not compound:
            if tptr < tlen:
                count = _push_move(out, scores, count, _mk(M_DRAW, 0, 0, 0), 500)
                if count < 0:
                    return -1
            elif tptr > 0 and _recycle_allowed(np.int64(st[O_RECYC]), p[P_PASSES]):
                count = _push_move(out, scores, count, _mk(M_RECYCLE, 0, 0, 0), 500)
                if count < 0:
                    return -1

    # take-back: the top of a foundation place onto a column
    if p[P_TAKEBACK]:
        decks = p[P_DECKS]
        for f in range(4 * decks):
            h = np.int64(st[O_FOUND + f])
            if h == 0 or _same_top_earlier(st, f, decks):
                continue
            card = (f // decks) * 13 + h - 1
            if not (wanted >> card) & 1 or not _takeback_needed(st, f, card, p):
                continue
            for t in range(ncol):
                if (want[t] >> card) & 1:
                    count = _push_move(out, scores, count, _mk(M_FOUND_COL, f, t, 0), 600)
                    if count < 0:
                        return -1

    _sort_by_key(out, scores, count)
    return count
