"""Proofs of unsolvability without exhausting the game: the dead-end test and weaker games.

Two sound ways to answer ``unsolvable`` cheaply (SOLVING.md §4.1, §4.4):

* :func:`dead_end` -- the delete relaxation of Bjarnason, Tadepalli & Fern
  (2007, §4.1): once a card can be moved or built upon, pretend it stays so.
  If even then some card can never reach its foundation, the position is
  lost; the proof names that card ("dead end: 7C").
* :data:`RELAXATIONS` -- a deal that is unsolvable in a *more permissive*
  game (every move of this game is a move there) is unsolvable here, and the
  permissive game is sometimes much easier to exhaust ("relaxed: draw=1").

:func:`run` tries both and answers ``unsolvable`` (with the proof) or
``unknown``, never ``solved``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..cards import card_text
from ..config import JIT
from ..movegen import _builds  # may a card go on a base in a column (one rule, one place)
from ..layout import Layout
from ..rules import Rules, value_text, with_overrides
from ..state import (
    EMPTY, MAXLEN, O_CELL, O_COLS, O_DOWN, O_FOUND, O_LEN, O_RECYC, O_TALON, O_TLEN, O_TPTR,
    P_BUILD_SUIT, P_CELLS, P_DECKS, P_EMPTY_ANY, P_KING_RUNS, P_NCOL, P_PASSES, P_RUNS, P_TAKEBACK,
    kernel_params, pack,
)

# ---- the delete-relaxation dead-end test ------------------------------------------------------
#
# Facts (all monotone: once derived they stay; "at some time" everywhere):
#
#   lvl[c]     every original card of column c at index >= lvl[c] may have left
#              its original place (C(c, i) := "all original cards at >= i left"
#              holds for i >= lvl[c]).  A card at index i is uncovered in place
#              at some time iff C(c, i + 1).
#   uin[k]     bit c set: some card of kind k, at its original place in column
#              c, is a column top at some time (index >= lvl[c] - 1).
#   umv[k]     some card of kind k is a column top at a place that is not its
#              original one (it came from the talon, a cell, a foundation or
#              another place in the tableau).
#   home       per card (tableau, talon, cell): it may reach its foundation;
#   nhome[k]   how many cards of kind k may be home (foundation cards included).
#   gone[i]    talon card i may have left the talon (home or onto a column).
#
# A card x may go onto a column top b of kind k (x builds on k) from column c
# iff umv[k] or uin[k] has a column other than c: a card below x in its own
# column is covered while x is in place, and a card of c above x can only
# serve as x's base after it moved away (then umv).  An empty column for x
# (a king, or any card where the rules allow) must be another column c' with
# lvl[c'] == 0 (its original cards all gone) -- x's own column is not empty
# while x is in it.  x goes home if it is movable and one card of its suit one
# rank lower may be home (with two decks the second copy needs both copies of
# the rank below, so asking for one is weaker, hence still sound).
#
# Why it is sound: take any real line of play and show, by induction over its
# moves, that every event in it is derived.  A card x_i (index i of column c)
# leaves its original place either (a) as the bottom of the moved unit -- then
# every original card above it has left before, or is in the unit, which is a
# built run of originally face-up cards x_i .. x_{j-1} with C(c, j) before the
# move, and its destination (home, a cell, a top b as above, an empty column)
# is derived; the kernel lowers lvl[c] to i on exactly these premises -- or (b)
# carried inside such a unit with bottom x_k, k < i; then C(c, k) was derived
# and C(c, i) follows (lvl is a single level).  A card is a column top away
# from its original place only after arriving there: from the talon (it was
# reachable, below), a cell, a foundation (take-back: its kind was home) or
# its column (case (a) onto a top or an empty column, or case (b)); each of
# these premises is derived, and the kernel sets umv from them.  Every card
# that goes home is movable then (uncovered in place -- C(c, i+1) also holds
# after it was carried or moved, since everything above it left its place --
# or a reachable talon card, a cell, or a card that was put onto a column),
# with one card of the rank below home.  So every real event is derived, and
# in a win every card goes home: a card without a derived ``home`` is a proof
# that no line of play wins.
#
# The talon, pass-aware.  With unlimited passes every talon card is reachable
# at some time, so they all are, at once (this also over-approximates draw 3,
# where only some boundaries are reachable).  With a pass limit the facts are
# computed in layers, one per (pass, d) with d the highest original talon
# index drawn in that pass -- in real play (pass, d) only grows, and the waste
# top is the highest card <= d that has not gone.  So in layer (pass, d) the
# reachable cards are d and those below it with every card between gone;
# facts carry from layer to layer (they are monotone), a talon card is
# reachable only in the layers of the passes left, and the last pass ends with
# whatever is still buried in the waste unreachable.  Every real position
# falls in some layer whose derived facts include its events, as above.
# Layers step d by one even for draw 3 (more reachable cards than real: sound).


@njit(**JIT)
def _base_ok(card, cex, umv, uin, suit_build):
    """May ``card`` go onto some column top at some time, coming from column ``cex`` (-1: not a column)?"""
    r = card % 13
    if r == 12:
        return False
    mask = ~(np.int64(1) << cex) if cex >= 0 else np.int64(-1)
    for s in range(4):
        k = s * 13 + r + 1
        if _builds(card, k, suit_build) and (umv[k] or (uin[k] & mask) != 0):
            return True
    return False


@njit(**JIT)
def _empty_ok(card, cex, lvl, ncol, empty_any):
    """May ``card`` go to an empty column other than ``cex`` at some time?"""
    if not (empty_any or card % 13 == 12):
        return False
    for c in range(ncol):
        if c != cex and lvl[c] == 0:
            return True
    return False


@njit(**JIT)
def _home_ok(card, nhome):
    return card % 13 == 0 or nhome[card - 1] > 0


@njit(**JIT)
def _tableau_sweep(st, p, lvl, uin, umv, nhome, thome, chome, runlen, carried):
    """Apply the column, cell and take-back rules once; return whether a fact was added."""
    ncol = p[P_NCOL]
    suit_build = p[P_BUILD_SUIT]
    empty_any = p[P_EMPTY_ANY]
    cells = p[P_CELLS]
    multi = p[P_RUNS] or p[P_KING_RUNS]
    changed = False
    for c in range(ncol):
        base = O_COLS + MAXLEN * c
        ln = np.int64(st[O_LEN + c])
        down = np.int64(st[O_DOWN + c])
        while lvl[c] > 0:
            L = lvl[c]
            i = L - 1
            x = np.int64(st[base + i])
            new = L
            if _home_ok(x, nhome) or cells > 0 or _base_ok(x, c, umv, uin, suit_build) \
                    or _empty_ok(x, c, lvl, ncol, empty_any):
                new = i
            elif multi:
                # a built run of originally face-up cards x_k .. x_{L-1} moving as one unit
                for k in range(down, i):
                    if k + runlen[c, k] < L:
                        continue
                    y = np.int64(st[base + k])
                    if p[P_RUNS]:
                        ok = _base_ok(y, c, umv, uin, suit_build) or _empty_ok(y, c, lvl, ncol, empty_any)
                    else:  # a king-led run, to an empty column only
                        ok = y % 13 == 12 and _empty_ok(y, c, lvl, ncol, empty_any)
                    if ok:
                        new = k
                        break
            if new == L:
                break
            for j in range(max(new - 1, 0), L - 1):
                uin[np.int64(st[base + j])] |= np.int64(1) << c
            lvl[c] = new
            changed = True
        for i in range(max(lvl[c] - 1, 0), ln):
            x = np.int64(st[base + i])
            if thome[c, i] == 0 and _home_ok(x, nhome):
                thome[c, i] = 1
                nhome[x] += 1
                changed = True
            if i >= lvl[c] and not umv[x]:
                # it left its place: onto a top or an empty column, carried in a run,
                # or via a cell to anywhere
                if carried[c, i] or _base_ok(x, c, umv, uin, suit_build) \
                        or _empty_ok(x, c, lvl, ncol, empty_any) \
                        or (cells > 0 and (_base_ok(x, -1, umv, uin, suit_build)
                                           or _empty_ok(x, -1, lvl, ncol, empty_any))):
                    umv[x] = True
                    changed = True
    for k in range(cells):
        x = np.int64(st[O_CELL + k])
        if x == EMPTY:
            continue
        if chome[k] == 0 and _home_ok(x, nhome):
            chome[k] = 1
            nhome[x] += 1
            changed = True
        if not umv[x] and (_base_ok(x, -1, umv, uin, suit_build) or _empty_ok(x, -1, lvl, ncol, empty_any)):
            umv[x] = True
            changed = True
    if p[P_TAKEBACK]:
        for x in range(52):
            if nhome[x] > 0 and not umv[x] and (_base_ok(x, -1, umv, uin, suit_build)
                                                or _empty_ok(x, -1, lvl, ncol, empty_any)):
                umv[x] = True
                changed = True
    return changed


@njit(**JIT)
def _talon_card(st, p, i, lvl, uin, umv, nhome, gone, placed, hometal):
    """Talon card i is reachable now: record where it may go; return whether a fact was added."""
    x = np.int64(st[O_TALON + i])
    changed = False
    if hometal[i] == 0 and _home_ok(x, nhome):
        hometal[i] = 1
        nhome[x] += 1
        gone[i] = 1
        changed = True
    if placed[i] == 0 and (_base_ok(x, -1, umv, uin, p[P_BUILD_SUIT])
                           or _empty_ok(x, -1, lvl, p[P_NCOL], p[P_EMPTY_ANY])):
        placed[i] = 1
        gone[i] = 1
        if not umv[x]:
            umv[x] = True
        changed = True
    return changed


@njit(**JIT)
def _talon_layer(st, p, d, lvl, uin, umv, nhome, gone, placed, hometal):
    """The talon moves of layer d (d < 0: nothing drawn; d >= tlen: every card reachable)."""
    tlen = np.int64(st[O_TLEN])
    changed = False
    if d >= tlen:
        for i in range(tlen):
            changed |= _talon_card(st, p, i, lvl, uin, umv, nhome, gone, placed, hometal)
    else:
        i = d
        while i >= 0:
            changed |= _talon_card(st, p, i, lvl, uin, umv, nhome, gone, placed, hometal)
            if not gone[i]:
                break  # it covers the cards below it in the waste
            i -= 1
    # a talon card put onto a column may later go home from there
    for i in range(tlen):
        x = np.int64(st[O_TALON + i])
        if placed[i] and hometal[i] == 0 and _home_ok(x, nhome):
            hometal[i] = 1
            nhome[x] += 1
            changed = True
    return changed


@njit(**JIT)
def _dead_end(st, p):
    """The delete-relaxation dead-end test: a card that can never reach its foundation, or -1.

    Sound (proof above): a card returned here is a proof that no line of play
    from ``st`` wins.  Among the cards that can never go home it returns one
    of the lowest rank (the first to block its suit).
    """
    ncol = p[P_NCOL]
    decks = p[P_DECKS]
    suit_build = p[P_BUILD_SUIT]
    lvl = np.zeros(ncol, np.int64)
    uin = np.zeros(52, np.int64)
    umv = np.zeros(52, np.bool_)
    nhome = np.zeros(52, np.int64)
    thome = np.zeros((ncol, MAXLEN), np.uint8)
    chome = np.zeros(8, np.uint8)
    runlen = np.ones((ncol, MAXLEN), np.int64)
    carried = np.zeros((ncol, MAXLEN), np.bool_)
    multi = p[P_RUNS] or p[P_KING_RUNS]
    for c in range(ncol):
        ln = np.int64(st[O_LEN + c])
        down = np.int64(st[O_DOWN + c])
        base = O_COLS + MAXLEN * c
        lvl[c] = ln
        if ln > 0:
            uin[np.int64(st[base + ln - 1])] |= np.int64(1) << c
        # runlen[c, i]: cards i .. i + runlen - 1 form a built run (only among
        # originally face-up cards: a face-down card is turned only once every
        # original card above it has left)
        for i in range(ln - 2, down - 1, -1):
            if _builds(np.int64(st[base + i + 1]), np.int64(st[base + i]), suit_build):
                runlen[c, i] = runlen[c, i + 1] + 1
        if multi:
            for k in range(down, ln):
                y = np.int64(st[base + k])
                if not (p[P_RUNS] or y % 13 == 12):
                    continue
                for i in range(k + 1, k + runlen[c, k]):
                    carried[c, i] = True
    for f in range(4 * decks):
        s = f // decks
        for h in range(np.int64(st[O_FOUND + f])):
            nhome[s * 13 + h] += 1
    tlen = np.int64(st[O_TLEN])
    gone = np.zeros(max(tlen, 1), np.uint8)
    placed = np.zeros(max(tlen, 1), np.uint8)
    hometal = np.zeros(max(tlen, 1), np.uint8)

    passes = p[P_PASSES]
    if passes == 0 or tlen == 0:
        while True:
            ch = _talon_layer(st, p, tlen, lvl, uin, umv, nhome, gone, placed, hometal)
            ch |= _tableau_sweep(st, p, lvl, uin, umv, nhome, thome, chome, runlen, carried)
            if not ch:
                break
    else:
        left = passes - 1 - np.int64(st[O_RECYC])
        if left < 0:
            left = 0
        first = np.int64(st[O_TPTR]) - 1
        while _tableau_sweep(st, p, lvl, uin, umv, nhome, thome, chome, runlen, carried):
            pass
        for k in range(left + 1):
            any_pass = False
            for d in range(first if k == 0 else 0, tlen):
                if d < 0:
                    continue
                ch = _talon_layer(st, p, d, lvl, uin, umv, nhome, gone, placed, hometal)
                # the tableau rules were at a fixpoint: they can only add facts after a new talon fact
                while ch:
                    any_pass = True
                    ch = _tableau_sweep(st, p, lvl, uin, umv, nhome, thome, chome, runlen, carried)
                    ch |= _talon_layer(st, p, d, lvl, uin, umv, nhome, gone, placed, hometal)
            if k > 0 and not any_pass:
                break  # a whole pass added nothing: the next ones would not either

    # a card that never goes home: the lowest rank first
    best = -1
    for c in range(ncol):
        base = O_COLS + MAXLEN * c
        for i in range(np.int64(st[O_LEN + c])):
            if thome[c, i] == 0:
                x = np.int64(st[base + i])
                if best < 0 or (x % 13, x // 13) < (best % 13, best // 13):
                    best = x
    for i in range(tlen):
        if hometal[i] == 0:
            x = np.int64(st[O_TALON + i])
            if best < 0 or (x % 13, x // 13) < (best % 13, best // 13):
                best = x
    for k in range(p[P_CELLS]):
        x = np.int64(st[O_CELL + k])
        if x != EMPTY and chome[k] == 0:
            if best < 0 or (x % 13, x // 13) < (best % 13, best // 13):
                best = x
    return best


def dead_end(rules: Rules, layout: Layout, packed: np.ndarray | None = None) -> str | None:
    """The card that can never reach its foundation (text, e.g. ``"7C"``), or None.

    A card returned here proves the position unsolvable (see the proof above
    ``_dead_end``); None proves nothing.  ``packed``: ``layout`` already packed (read only).
    """
    x = int(_dead_end(pack(layout, rules) if packed is None else packed, kernel_params(rules)))
    return None if x < 0 else card_text(x)


# ---- weaker games --------------------------------------------------------------------------
@dataclass(frozen=True)
class Relaxation:
    """A more permissive game: ``changes`` sets rules fields to values that allow more moves.

    ``why`` is the soundness argument: every line of play of the original
    game is a line of play of the relaxed one (from the same position, with
    the same positions along it), so a position the relaxed game cannot win
    is lost in the original too.  tests/test_relax.py checks each claim on
    random positions: every original move's result is reached by relaxed moves.
    """
    changes: tuple[tuple[str, object], ...]
    why: str

    @property
    def proof(self) -> str:
        return "relaxed: " + ",".join(f"{k}={value_text(v)}" for k, v in self.changes)

    def applies(self, rules: Rules) -> bool:
        """Does it change ``rules`` at all, and only towards more moves?"""
        return any(getattr(rules, k) != v for k, v in self.changes) and all(
            _more_permissive(k, getattr(rules, k), v) for k, v in self.changes)

    def relax(self, rules: Rules) -> Rules:
        return with_overrides(rules, dict(self.changes))


def _more_permissive(field: str, old, new) -> bool:
    """Is ``new`` a value of ``field`` that allows every move ``old`` allows (or the same)?"""
    if old == new or field == "scoring":
        return True  # (scoring counts points and allows no move: harp, unscored, is in easy-harp)
    if field == "draw":
        return new == 1 and old > 1
    if field == "passes":
        return new == 0 or (old != 0 and new > old)
    if field == "column_moves":
        return new == "runs"
    return field in ("king_runs", "takeback") and new is True


# Tried in this order by run(); each is one complete search of the relaxed game.
RELAXATIONS: tuple[Relaxation, ...] = (
    Relaxation(
        (("draw", 1),),
        "A tap of draw k turns k cards (the rest at the end of the stock) onto the waste in stock "
        "order, which k draw-1 taps also do, leaving the same waste and stock; recycles turn the "
        "same waste back and count the same pass.  The packed state is the same in both games.  "
        "Draw 1 is the smaller search: with unlimited passes the talon is a multiset, with a pass "
        "limit the stock dominance of dfs.py applies (Blake & Gent §6: 231 of 396 hard klondike-3 "
        "deals proved this way)."),
    Relaxation(
        (("passes", 0),),
        "More passes only make the waste-to-stock turn legal where it was not; every other move "
        "is the same.  (harp -> harp[passes=unlimited], which is stronger than harp -> easy-harp: "
        "easy-harp also allows king-led runs, so an easy-harp proof is a proof for harp[passes=0].)"),
    Relaxation(
        (("draw", 1), ("passes", 0)),
        "The two rows above together (big-harp -> endless-harp in draw 1)."),
    Relaxation(
        (("column_moves", "runs"),),
        "With runs, any face-up built run moves, a single top card included, and a king-led run "
        "still goes to an empty column: every single-card move and every king-led block move is "
        "a run move.  Worth it where a run-moving game has a faster complete engine (afree)."),
    Relaxation(
        (("passes", 0), ("column_moves", "runs")),
        "The two rows above together (harp -> runs with unlimited passes: the weaker game of harp "
        "that the arrangement-free engine searches, since the runs game that keeps harp's pass "
        "limit is left out, see relaxations)."),
)


def relaxations(rules: Rules) -> list[Relaxation]:
    """The rows of :data:`RELAXATIONS` that apply to ``rules``, one per distinct relaxed game
    (in the order ``run`` tries them), leaving out the weaker games that keep a pass limit.

    Why those are left out: a weaker game is worth searching when it is smaller to exhaust
    than the real one, which is what unlimited passes give (pure stock positions keyed as one,
    under draw 1 a talon that is a reserve).  With a pass limit the positions and recycles are
    keyed exactly and the weaker game stays large, while it is mostly won: harp with runs and
    its 4 passes, on the first 216 harp deals the solver leaves unknown, was won for 157 and
    undecided for 59 at 2 000 000 states each, none proved; big-harp under draw 1 with its 3
    passes proved none of deals 1-20 at 1 000 000 (benchmarks/README, twelfth and fifteenth
    sessions).  Searched in the portfolio, such a game only took the nodes of the engines that
    solve (harp deal 2: 904 304 nodes to a solution without it, 1 914 823 with it).  The
    same game with unlimited passes (the rows that lift the limit) is still searched."""
    out, games = [], []
    for row in RELAXATIONS:
        if row.applies(rules):
            game = row.relax(rules)
            if game.passes != 0:
                continue
            if game not in games:
                games.append(game)
                out.append(row)
    return out


def _includes(bigger: Rules, smaller: Rules) -> bool:
    """Does every move of ``smaller`` exist in ``bigger`` (field by field, by _more_permissive)?"""
    from ..rules import RULE_FIELDS

    return all(_more_permissive(f, getattr(smaller, f), getattr(bigger, f)) for f in RULE_FIELDS)


@dataclass
class RelaxResult:
    status: str            # "unsolvable" or "unknown": never "solved"
    proof: str | None = None   # "dead end: 7C", "relaxed: draw=1"
    nodes: int = 0
    reason: str = ""
    seconds: float = 0.0
    tried: list = None     # (proof, status of the relaxed game) per game searched


def run(rules: Rules, layout: Layout, *, max_nodes: int = 200_000, deadline: float | None = None,
        max_memory: int = 1 << 30) -> RelaxResult:
    """Try to prove ``layout`` unsolvable: the dead-end test, then each weaker game.

    Each relaxed game gets an equal share of what is left of ``max_nodes``
    (0 = no limit) and is searched by the complete depth-first search
    (``solver.solve``, algorithm "dfs"); only its ``unsolvable`` -- an
    exhausted search -- is used.  ``deadline`` is a ``time.perf_counter()``
    value.  Returns ``unsolvable`` with the proof, or ``unknown``.
    """
    from ..solver import solve

    t0 = time.perf_counter()
    res = RelaxResult("unknown", tried=[])
    card = dead_end(rules, layout)
    if card is not None:
        res.status, res.proof = "unsolvable", f"dead end: {card}"
        res.seconds = time.perf_counter() - t0
        return res
    rows = relaxations(rules)
    won = []  # relaxed games that won: any game including one of them wins too
    for k, row in enumerate(rows):
        game = row.relax(rules)
        if any(_includes(game, w) for w in won):
            res.tried.append((row.proof, "solved (includes a won game)"))
            continue
        left = max_nodes - res.nodes if max_nodes else 0
        if max_nodes and left <= 0:
            res.reason = "nodes"
            break
        timeout = None
        if deadline is not None:
            timeout = deadline - time.perf_counter()
            if timeout <= 0:
                res.reason = "time"
                break
        share = left // (len(rows) - k) if max_nodes else 0
        r = solve(game, layout=layout, algorithm="dfs", max_nodes=share, timeout=timeout,
                  max_memory=max_memory, verify=False)
        res.nodes += r.nodes
        res.tried.append((row.proof, r.status))
        if r.status == "unsolvable":
            res.status, res.proof = "unsolvable", row.proof
            break
        if r.status == "solved":
            won.append(game)
        res.reason = r.reason or res.reason
    if res.status == "unknown" and not res.reason:
        res.reason = "relaxations solved" if rows else "no relaxation applies"
    res.seconds = time.perf_counter() - t0
    return res
