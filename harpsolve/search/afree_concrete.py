"""Turn an arrangement-free solution (search/afree.py) into SPEC move tokens.

Each abstract move is realised by one or more single real moves on a packed
board (harpsolve/state.py), every one of them checked first against the
kernel's own list of legal moves -- the primitive move list (no compound
talon plays, no automatic moves, no pruning), which tests/test_kernel.py
holds equal to the reference engine's legal moves:

* talon plays: ``s>w`` / ``w>s`` until the card is the waste top with the
  waste size (and recycles, under a pass limit) the move was searched with,
  then ``w>f`` or ``w>tJ``;
* a locked card home (``MK_CFL``) or another face-up card home (``MK_CFP``):
  ``tI>f``, after moving the run on it, if any, onto an uncovered card of its
  type (afree.py proves one exists);
* a reveal: the whole face-up run of the column onto a parent or, for a
  king, to an empty column;
* a take-back: ``f>tJ:card``.

Anything unexpected raises :class:`ConcretiseError`; the engine then reports
``unknown`` (reason "concretise"), never a wrong status.  The finished line
must win; the solver then replays it in the reference engine (solver._check),
as it does every engine's line.

Why a kernel, not the reference engine.  Until the thirty-fourth session the
board was the reference engine's, which checked each token as it was played
-- and the solver replayed the same tokens in the same engine again to
verify them.  On a typical klondike-3 deal (about 2 ms) that first, redundant
replay was the biggest part of the solve: a line is about 150 tokens, and
the concretiser took 1.29 ms a line against 6-10 % of the time for each
search (benchmarks/README.md, thirty-third and thirty-fourth sessions).  The
reference engine still judges every line once, outside the search's time.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import movegen as mg
from ..cards import card_text
from ..config import JIT
from ..state import (
    MAXLEN, O_COLS, O_DOWN, O_FOUND, O_LEN, O_RECYC, O_TALON, O_TLEN, O_TPTR, P_BUILD_SUIT, P_DECKS, P_NCOL, P_PASSES,
    kernel_params, pack,
)
from ..solution import R_WIDTH, _row_move, _rows_tokens
from .afree import MK_CFL, MK_CFP, MK_RV, MK_TB, MK_TC, MK_TF, Q_TLEN, S_D, TYPE, _lower


class ConcretiseError(RuntimeError):
    """An abstract solution that could not be played on the real board."""


# What went wrong (the kernel's err[0]; err[1] the card, column, move or talon index it
# concerns, err[2] the abstract move's index) -- every one a bug, never a property of a deal.
E_ILLEGAL, E_NO_TARGET, E_NO_UNCOVER, E_NO_LOCK, E_FACE_DOWN, E_TALON_NEVER, E_TALON_CARD, E_NO_FREE, \
    E_NOT_WON, E_KIND = range(1, 11)
FULL = -2  # the rows ran out: the wrapper calls again with twice as many
# the rows the wrapper first gives a line: per abstract move (a talon play's draws and
# recycles are most of a line's tokens), and for the closing cards home, per deck
ROWS_PER_MOVE, ROWS_PER_DECK = 4, 64


@njit(**JIT)
def _card(st, c, i):
    return np.int64(st[O_COLS + MAXLEN * c + i])


@njit(**JIT)
def _play(st, m, p, rows, k, out, scores, work, err):
    """Make move ``m`` and write its row; only if the kernel lists it as legal here."""
    if k >= rows.shape[0]:
        return FULL
    n = mg._gen(st, p, out, scores, work)
    for i in range(n):
        if out[i] == m:
            return _row_move(st, m, p, rows, k)
    err[0] = E_ILLEGAL
    err[1] = m
    return -1


@njit(**JIT)
def _target(st, p, card, exclude, err):
    """A column that takes ``card`` (or a run led by it): a top it builds on, else, for a
    king, an empty column; -1 (err set) if none."""
    ncol = p[P_NCOL]
    for j in range(ncol):
        ln = np.int64(st[O_LEN + j])
        if j != exclude and ln > 0 and mg._builds(card, _card(st, j, ln - 1), p[P_BUILD_SUIT]):
            return j
    if card % 13 == 12:
        for j in range(ncol):
            if j != exclude and st[O_LEN + j] == 0:
                return j
    err[0] = E_NO_TARGET
    err[1] = card
    return -1


@njit(**JIT)
def _uncover(st, p, i, k, rows, r, out, scores, work, err):
    """Move the run above index ``k`` of column i onto an uncovered card of the same type."""
    ln = np.int64(st[O_LEN + i])
    n = ln - k - 1
    if n == 0:
        return r
    x = _card(st, i, k)
    for j in range(p[P_NCOL]):
        lj = np.int64(st[O_LEN + j])
        if j != i and lj > 0 and TYPE[_card(st, j, lj - 1)] == TYPE[x]:
            return _play(st, mg._mk(mg.M_COL_COL, i, j, n), p, rows, r, out, scores, work, err)
    err[0] = E_NO_UNCOVER
    err[1] = x
    return -1


@njit(**JIT)
def _concretise(st, p, talon, left, S, q, cols, path, rows, err):
    """Play the abstract ``path`` (afree's kernel moves) from ``st`` as single real moves, one
    row each (solution.R_*); return the number of rows, -1 on an error (``err``), FULL when
    ``rows`` is too short.  ``talon``: the root's talon cards by index (waste, then stock),
    ``left``: which of them are still there; ``S``, ``q``, ``cols``: the abstract root state
    (a copy: its d, each column's dealt cards still in place, is kept up to date by afree's
    own ``_lower``), the problem's parameters and dealt columns (afree.Problem)."""
    out = np.zeros(mg.MAX_MOVES, np.int64)
    scores = np.zeros(mg.MAX_MOVES, np.int32)
    work = np.zeros(mg.GEN_WORK, np.int64)
    limited = p[P_PASSES] != 0
    draw, recycle = mg._mk(mg.M_DRAW, 0, 0, 0), mg._mk(mg.M_RECYCLE, 0, 0, 0)
    r = 0
    for t in range(path.shape[0]):
        err[2] = t
        m = path[t]
        kind = m & 7
        a = (m >> 3) & 511
        rc = (m >> 12) & 1023
        if kind == MK_TF or kind == MK_TC:
            want = 0  # the waste size that has talon card a on top: the cards left up to it
            for x in range(a + 1):
                want += left[x]
            taps = 0  # (a bound no real route comes near: a bug, not a deal, reaches it)
            while not (st[O_TPTR] == want and (not limited or st[O_RECYC] == rc)):
                taps += 1
                if taps > 4 * (talon.shape[0] + 2) * (max(p[P_PASSES], 1) + 1):
                    err[0] = E_TALON_NEVER
                    err[1] = a
                    return -1
                r = _play(st, draw if st[O_TPTR] < st[O_TLEN] else recycle, p, rows, r, out, scores, work, err)
                if r < 0:
                    return r
            top = want - 1
            if want == 0 or np.int64(st[O_TALON + top]) != talon[a]:
                err[0] = E_TALON_CARD
                err[1] = a
                return -1
            left[a] = 0
            card = np.int64(st[O_TALON + top])
            if kind == MK_TF:
                mv = mg._mk(mg.M_TALON_FOUND, top, 0, 0)
            else:
                j = _target(st, p, card, -1, err)
                if j < 0:
                    return -1
                mv = mg._mk(mg.M_TALON_COL, top, j, 0)
            r = _play(st, mv, p, rows, r, out, scores, work, err)
        elif kind == MK_CFL or kind == MK_RV:
            if S[S_D + a] < 1:
                err[0] = E_NO_LOCK
                err[1] = a
                return -1
            k = S[S_D + a] - 1
            if kind == MK_CFL:
                r = _uncover(st, p, a, k, rows, r, out, scores, work, err)
                if r >= 0:
                    r = _play(st, mg._mk(mg.M_COL_FOUND, a, 0, 0), p, rows, r, out, scores, work, err)
            else:
                if st[O_DOWN + a] != k:
                    err[0] = E_FACE_DOWN
                    err[1] = a
                    return -1
                j = _target(st, p, _card(st, a, k), a, err)
                if j < 0:
                    return -1
                r = _play(st, mg._mk(mg.M_COL_COL, a, j, np.int64(st[O_LEN + a]) - k), p, rows, r,
                          out, scores, work, err)
            _lower(S, q, cols, a)
        elif kind == MK_CFP:
            # a face-up copy of card a that is not its column's locked card; a column top first
            bi, bk = -1, -1
            for i in range(p[P_NCOL]):
                lock = S[S_D + i] - 1 if S[S_D + i] >= 1 else -1
                ln = np.int64(st[O_LEN + i])
                for k in range(np.int64(st[O_DOWN + i]), ln):
                    if _card(st, i, k) == a and k != lock and (bi < 0 or k == ln - 1):
                        bi, bk = i, k
            if bi < 0:
                err[0] = E_NO_FREE
                err[1] = a
                return -1
            r = _uncover(st, p, bi, bk, rows, r, out, scores, work, err)
            if r >= 0:
                r = _play(st, mg._mk(mg.M_COL_FOUND, bi, 0, 0), p, rows, r, out, scores, work, err)
        elif kind == MK_TB:
            decks = p[P_DECKS]
            f = (a // 13) * decks
            while f < (a // 13 + 1) * decks - 1 and st[O_FOUND + f] != a % 13 + 1:
                f += 1  # the first place showing the card (the kernel lists that one)
            j = _target(st, p, a, -1, err)
            if j < 0:
                return -1
            r = _play(st, mg._mk(mg.M_FOUND_COL, f, j, 0), p, rows, r, out, scores, work, err)
        else:
            err[0] = E_KIND
            err[1] = m
            return -1
        if r < 0:
            return r
    # the search stops once the talon is empty and every card is face up (afree._won):
    # the rest is column tops home, a card of the lowest rank in play always being one.
    # Each column sends home what it can before the next is asked (a column is a run going
    # down, so its cards follow one another home).
    err[2] = path.shape[0]
    while not mg._won(st, p):
        played = False
        for i in range(p[P_NCOL]):
            while st[O_LEN + i] > 0 and mg._found_place(st, _card(st, i, np.int64(st[O_LEN + i]) - 1), p) >= 0:
                r = _play(st, mg._mk(mg.M_COL_FOUND, i, 0, 0), p, rows, r, out, scores, work, err)
                if r < 0:
                    return r
                played = True
        if not played:
            err[0] = E_NOT_WON
            return -1
    return r


_WHY = {E_ILLEGAL: "a move the rules do not allow", E_NO_TARGET: "no column takes {card}",
        E_NO_UNCOVER: "no uncovered card of {card}'s type to take its run",
        E_NO_LOCK: "column {col} has no locked card", E_FACE_DOWN: "column {col}: not the face-down count searched",
        E_TALON_NEVER: "talon card {n} never came up", E_TALON_CARD: "the waste top is not talon card {n}",
        E_NO_FREE: "no free face-up {card}", E_NOT_WON: "the concrete line does not win",
        E_KIND: "unknown abstract move {n}"}


def concretise(rules, layout, pr, path) -> list[str]:
    """SPEC tokens for the abstract kernel moves ``path`` from ``layout``; they win."""
    # the primitive move list: the reference engine's legal moves (tests/test_kernel.py)
    p = kernel_params(rules, compound=False, auto=False, prune=False, exact_key=True)
    tlen = int(pr.q[Q_TLEN])
    talon = np.asarray(pr.talon[:tlen], np.int64)
    arr = np.asarray(path, np.int64)
    st0 = pack(layout, rules)
    cap = ROWS_PER_MOVE * len(arr) + ROWS_PER_DECK * rules.decks + 1
    err = np.zeros(3, np.int64)
    while True:
        rows = np.zeros((cap, R_WIDTH), np.int64)
        n = _concretise(st0.copy(), p, talon, np.ones(tlen, np.int64), pr.root.copy(), pr.q, pr.cols, arr, rows, err)
        if n != FULL:
            break
        cap *= 2
    if n < 0:
        code, x, t = (int(v) for v in err)
        why = _WHY[code].format(card=card_text(x) if 0 <= x < 52 else x, col=x + 1, n=x)
        raise ConcretiseError(f"abstract move {t}: {why}" + (f" (kernel move {x:#x})" if code == E_ILLEGAL else ""))
    return _rows_tokens(rows[:n])
