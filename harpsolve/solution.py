"""From the search's compound moves to SPEC §4 move tokens.

The search plays stock cards directly and makes safe foundation moves without
branching; a printed solution must spell out every tap on the stock, every
recycle and every automatic move.  This module replays the search's path on
packed states with the same kernels the search used, and writes one token
per single legal move.  The reference engine (``reference.py``) then judges
the tokens on its own.

Then it makes the line one a player can follow: :func:`shorten_tokens` cuts
the search's wandering (loops, detours, needless turns through the stock),
and :func:`readable` writes it in words, the stock taps grouped with the
play they lead to ("draw to 7H (12 taps), 7H to t3").
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import movegen as mg
from .cards import N_KINDS, card_text, suit_of
from .config import JIT
from .layout import Layout  # noqa: F401 -- the module's doctests use it
from .reference import (
    CELL_TO_COLUMN, CELL_TO_FOUNDATION, COLUMN_TO_CELL, COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION, DRAW, RECYCLE,
    TAKE_BACK, TOKEN_FORMS, WASTE_TO_COLUMN, WASTE_TO_FOUNDATION, Game, Move, MoveError, parse_move, replay,
)
from .state import O_OBLIG, O_FOUND, O_RECYC, O_TLEN, O_TPTR, P_DECKS, P_DRAW, P_PASSES


# the reference engine's move kind of each kernel move kind
_KIND = {mg.M_COL_FOUND: COLUMN_TO_FOUNDATION, mg.M_TALON_FOUND: WASTE_TO_FOUNDATION, mg.M_TALON_COL: WASTE_TO_COLUMN,
         mg.M_COL_COL: COLUMN_TO_COLUMN, mg.M_FOUND_COL: TAKE_BACK, mg.M_COL_CELL: COLUMN_TO_CELL,
         mg.M_CELL_COL: CELL_TO_COLUMN, mg.M_CELL_FOUND: CELL_TO_FOUNDATION, mg.M_DRAW: DRAW, mg.M_RECYCLE: RECYCLE}
# kernel moves whose ``a`` is a column or cell (else a talon index or a foundation place),
# and whose ``b`` is one (else unused)
_FROM_PLACE = (mg.M_COL_FOUND, mg.M_COL_COL, mg.M_COL_CELL, mg.M_CELL_COL, mg.M_CELL_FOUND)
_TO_PLACE = (mg.M_TALON_COL, mg.M_COL_COL, mg.M_FOUND_COL, mg.M_COL_CELL, mg.M_CELL_COL)
TAP, TURN = str(Move(DRAW)), str(Move(RECYCLE))  # the stock taps' tokens


def _route_tokens(d1: int, rec: int, d2: int) -> list[str]:
    if d1 < 0:
        raise AssertionError("a talon card the search played is not reachable")  # a kernel bug, never input
    return [TAP] * d1 + ([TURN] + [TAP] * d2 if rec else [])


def _move_text(m: int, card: int, key: int) -> str:
    """The token of kernel move ``m`` itself (its talon route apart); ``card`` is the card a
    take-back moves (else -1, unused).  Cached in _TEXTS under ``key`` = (m << 7) | (card + 1)
    (card < 127), by its one caller, _rows_tokens, which reads the cache itself first and
    checks it against the token table (_texts_current)."""
    t = _TEXTS.get(key)
    if t is None:
        kind, a, b, n = (m >> 24) & 15, (m >> 16) & 255, (m >> 8) & 255, m & 255
        if kind not in _KIND:
            raise AssertionError(f"unknown move kind {kind}")
        if len(_TEXTS) >= 1 << 16:
            _TEXTS.clear()
        t = _TEXTS[key] = str(Move(_KIND[kind], a + 1 if kind in _FROM_PLACE else 0, b + 1 if kind in _TO_PLACE else 0,
                                   n if kind == mg.M_COL_COL and n > 1 else 1, card if kind == mg.M_FOUND_COL else None))
    return t


# _move_text's tokens by move and card: a token is a function of the two and of the token
# forms (reference.TOKEN_FORMS, the one table every token is written from), and building a
# Move to print it was a tenth of an easy-harp solve's time; a dict read is cheaper than
# functools.lru_cache's call.  _rows_tokens empties it when the table has changed since.
_TEXTS: dict[int, str] = {}
_TEXTS_FORMS: tuple = ()


def _texts_current() -> None:
    """Empty _TEXTS if reference.TOKEN_FORMS changed since its tokens were written."""
    global _TEXTS_FORMS
    forms = tuple(TOKEN_FORMS.items())
    if forms != _TEXTS_FORMS:
        _TEXTS.clear()
        _TEXTS_FORMS = forms


# One row per move a replayed path makes (:func:`_path_rows`): the kernel move, its talon
# route (draws, recycle, draws after, as movegen._talon_route gives it: draws -1 for a card it
# cannot reach; NO_ROUTE for a move that is not from the talon) and the card a take-back moves
# (-1 for other moves).
R_MOVE, R_D1, R_REC, R_D2, R_CARD, R_WIDTH = 0, 1, 2, 3, 4, 5
NO_ROUTE = -2


@njit(**JIT)
def _row(st, m, p, rows, k):
    """Write row ``k`` for kernel move ``m`` made from ``st`` (not modified)."""
    kind = mg._kind(m)
    rows[k, R_MOVE] = m
    rows[k, R_D1] = NO_ROUTE
    rows[k, R_REC] = 0
    rows[k, R_D2] = 0
    rows[k, R_CARD] = -1
    if kind == mg.M_TALON_FOUND or kind == mg.M_TALON_COL:
        d1, rec, d2 = mg._talon_route(np.int64(st[O_TLEN]), np.int64(st[O_TPTR]), np.int64(st[O_RECYC]),
                                      p[P_DRAW], p[P_PASSES], mg._a(m))
        rows[k, R_D1] = d1
        rows[k, R_REC] = rec
        rows[k, R_D2] = d2
    elif kind == mg.M_FOUND_COL:  # the top card of foundation place a
        a = mg._a(m)
        rows[k, R_CARD] = (a // p[P_DECKS]) * 13 + np.int64(st[O_FOUND + a]) - 1
    return k + 1


@njit(**JIT)
def _row_move(st, m, p, rows, k):
    """:func:`_row`, then make the move."""
    k = _row(st, m, p, rows, k)
    mg._apply(st, m, p)
    return k


@njit(**JIT)
def _row_auto(st, p, buf, rows, k):
    """Make the automatic moves the search made here, one row each."""
    if st[O_OBLIG]:
        return k  # the search makes none while a talon card waits for its payoff
    n = mg._auto(st.copy(), p, buf)
    for i in range(n):
        k = _row_move(st, buf[i], p, rows, k)
    return k


@njit(**JIT)
def _path_rows(root, path, p, rows):
    """Replay ``path`` from the (pre-automatic-move) ``root`` with the search's automatic
    moves, one row per move made; returns the number of rows.  ``rows`` needs one row per
    path move plus one per automatic move (at most one per card sent home, and a card goes
    home again only after a take-back, itself a path move)."""
    st = root.copy()
    buf = np.zeros(256, np.int64)
    k = _row_auto(st, p, buf, rows, 0)
    for i in range(path.shape[0]):
        k = _row_move(st, path[i], p, rows, k)
        k = _row_auto(st, p, buf, rows, k)
    return k


def _rows_tokens(rows: np.ndarray) -> list[str]:
    _texts_current()
    out: list[str] = []
    # the cache read inline (a line is 150-400 rows, most of them cached): 0.9 -> 0.5 us a row
    # on klondike-3's lines (thirty-fourth session)
    add, get = out.append, _TEXTS.get
    for m, d1, rec, d2, card in rows.tolist():
        if d1 != NO_ROUTE and (d1 or rec):
            out.extend(_route_tokens(d1, rec, d2))
        key = (m << 7) | (card + 1)
        t = get(key)
        add(_move_text(m, card, key) if t is None else t)
    return out


def move_tokens(st: np.ndarray, m: int, p: np.ndarray) -> list[str]:
    """The tokens of kernel move ``m`` made from state ``st`` (not modified): the draws and
    recycles a talon play implies, then the move, written as the reference engine's Move."""
    rows = np.zeros((1, R_WIDTH), np.int64)
    _row(st, np.int64(m), p, rows, 0)
    return _rows_tokens(rows)


def path_tokens(root: np.ndarray, path: list[int], p: np.ndarray) -> list[str]:
    """Tokens of the search's path from the (pre-automatic-move) root state."""
    arr = np.asarray(path, np.int64)
    rows = np.zeros((2 * len(arr) + N_KINDS * int(p[P_DECKS]) + 1, R_WIDTH), np.int64)
    n = _path_rows(root, arr, p, rows)
    return _rows_tokens(rows[:n])


# ---- shortening a found line ----------------------------------------------------------
# The search's line is correct but wasteful: it cycles through the stock far
# more often than needed, and it wanders (moves undone later, positions met
# twice, cards sent to a foundation and taken back).  What follows works on
# the reference engine's moves only, so every shortened line is judged by the
# same engine that judges the search; a candidate that does not replay to a
# win is dropped, and the found line is kept when nothing shorter wins.
#
# A line is read as its *plays*: every move that is not a stock tap (``s>w``,
# ``w>s``), each with the card it moves.  The taps are derived: before a play
# from the waste, the fewest taps that bring its card to the waste top.

_TAPS = (DRAW, RECYCLE)
_FROM_WASTE = (WASTE_TO_COLUMN, WASTE_TO_FOUNDATION)


@dataclass(frozen=True)
class Play:
    """One move that is not a stock tap, with the card it moves (the bottom
    card of a moving run)."""

    move: object  # reference.Move
    card: int

    @property
    def from_waste(self) -> bool:
        return self.move.kind in _FROM_WASTE

    def piles(self, talon_shared: bool) -> tuple:
        """The piles this play reads or changes.  Two plays that touch no pile
        in common commute: each one's legality and effect depend only on its
        own piles (a flip happens in the source column; points never depend
        on the order, as no move scores below 0).  Plays from the waste touch
        the talon only in which cards it holds -- removing two cards gives the
        same talon in either order -- unless ``talon_shared`` (draw > 1, where
        which cards a tap shows depends on every card before it, or a pass
        limit, where a reordering may need more turns of the waste)."""
        m, out = self.move, []
        k = m.kind
        if k in _FROM_WASTE:
            if talon_shared:
                out.append("w")
        elif k in (COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN, COLUMN_TO_CELL):
            out.append(f"t{m.src}")
        elif k in (CELL_TO_COLUMN, CELL_TO_FOUNDATION):
            out.append(f"c{m.src}")
        if k in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION, CELL_TO_FOUNDATION, TAKE_BACK):
            out.append(f"f{suit_of(self.card)}")
        if k in (WASTE_TO_COLUMN, COLUMN_TO_COLUMN, CELL_TO_COLUMN, TAKE_BACK):
            out.append(f"t{m.dst}")
        if k == COLUMN_TO_CELL:
            out.append(f"c{m.dst}")
        return tuple(out)


def _moved_card(game: Game, m) -> int:
    k = m.kind
    if k in _FROM_WASTE:
        return game.waste[-1]
    if k in (COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN, COLUMN_TO_CELL):
        return game.columns[m.src - 1][-m.n]
    if k in (CELL_TO_COLUMN, CELL_TO_FOUNDATION):
        return game.cells[m.src - 1]
    return m.card  # take-back


def plays_of(rules, layout, tokens) -> list[Play] | None:
    """The plays of a legal line (None if a move is illegal)."""
    game = Game(rules, layout, check=False, undo=False)
    out = []
    try:
        for tok in tokens:
            m = parse_move(tok)
            if m.kind not in _TAPS:
                out.append(Play(m, _moved_card(game, m)))
            game.apply(m)
    except MoveError:
        return None
    return out


def taps_to(game: Game, card: int) -> list[str] | None:
    """The fewest stock taps that bring ``card`` to the waste top (None: no
    tap sequence does, within the passes left)."""
    talon = game.waste + game.stock
    w, n, draw = len(game.waste), len(game.waste) + len(game.stock), game.rules.draw
    passes, used = game.rules.passes, game.pass_number
    out: list[str] = []
    turned = False
    while True:
        if w and talon[w - 1] == card:
            return out
        if w < n:
            w = min(n, w + draw)
            out.append(TAP)
        else:
            if turned or n == 0 or (passes and used >= passes):
                return None  # a whole cycle without the card, or no pass left
            turned, used, w = True, used + 1, 0
            out.append(TURN)


def _play_on(game: Game, plays: list[Play], out: list[str] | None = None) -> bool:
    """Make ``plays`` in ``game``, each waste play after the fewest taps
    (tokens appended to ``out``); False at the first illegal move."""
    try:
        for pl in plays:
            if pl.from_waste:
                taps = taps_to(game, pl.card)
                if taps is None:
                    return False
                for t in taps:  # legal by construction (taps_to): no need to ask why_illegal
                    game._play(parse_move(t))
                if out is not None:
                    out += taps
            game.apply(pl.move)
            if out is not None:
                out.append(str(pl.move))
    except MoveError:
        return False
    return True


def line_of(rules, layout, plays: list[Play]) -> list[str] | None:
    """The tokens of ``plays`` in this order, each waste play preceded by the
    fewest taps; None unless every move is legal and the game ends won."""
    game = Game(rules, layout, check=False, undo=False)
    out: list[str] = []
    return out if _play_on(game, plays, out) and game.is_won() else None


def _copy(game: Game) -> Game:
    """An independent copy of a game made with ``undo=False``."""
    g = Game.__new__(Game)
    g.__dict__.update(game.__dict__)
    g.columns = [list(c) for c in game.columns]
    for name in ("face_down", "stock", "waste", "cells", "foundations"):
        setattr(g, name, list(getattr(game, name)))
    g.history = []
    return g


def _talon_shared(rules) -> bool:
    return rules.draw != 1 or rules.passes != 0


def reorder_stock(rules, layout, plays: list[Play]) -> list[Play] | None:
    """The same plays in an order that taps the stock less.

    Only plays that touch no common pile change places (:meth:`Play.piles`),
    so every order kept is as legal as the found one.  Greedy: every ready
    play that needs no tap first (in the found order), then the ready waste
    play whose card is the fewest taps away.  A player going through the
    stock plays each card as it comes by, instead of the search's order.
    """
    shared = _talon_shared(rules)
    last: dict[str, int] = {}
    deps: list[set[int]] = []
    for j, pl in enumerate(plays):
        ps = pl.piles(shared)
        deps.append({last[p] for p in ps if p in last})
        for p in ps:
            last[p] = j
    waiting = [len(d) for d in deps]
    after: list[list[int]] = [[] for _ in plays]
    for j, d in enumerate(deps):
        for i in d:
            after[i].append(j)
    ready = {j for j, c in enumerate(waiting) if c == 0}
    game = Game(rules, layout, check=False, undo=False)
    order: list[Play] = []
    try:
        while ready:
            free = [j for j in ready if not plays[j].from_waste]
            if free:
                j = min(free)
            else:
                best = None
                for i in sorted(ready):
                    taps = taps_to(game, plays[i].card)
                    if taps is not None and (best is None or len(taps) < len(best[1])):
                        best = (i, taps)
                if best is None:
                    return None
                j, taps = best
                for t in taps:
                    game.apply(t)
            game.apply(plays[j].move)
            order.append(plays[j])
            ready.discard(j)
            for k in after[j]:
                waiting[k] -= 1
                if waiting[k] == 0:
                    ready.add(k)
    except MoveError:
        return None
    return order if len(order) == len(plays) else None


def _position(game: Game, pointer: bool = False) -> tuple:
    """The position; without the stock pointer unless ``pointer``: where the
    waste/stock boundary is does not matter once taps are derived."""
    return (tuple(map(tuple, game.columns)), tuple(game.face_down), tuple(game.waste + game.stock),
            tuple(game.cells), tuple(game.foundations), game.pass_number if game.rules.passes else 0,
            len(game.waste) if pointer else -1)


def drop_loops(start, steps) -> list:
    """The steps of a line with every loop cut out: ``steps`` yields (step, key of the position
    after it), ``start`` is the key of the first position.  Where a position comes again, the
    steps between its two visits did nothing and go (and the positions inside the loop are
    forgotten).  Shared by the kernel-path and the reference-play shorteners."""
    seen = {start: 0}
    kept: list = []
    for step, key in steps:
        if key in seen:
            del kept[seen[key]:]
            seen = {k: i for k, i in seen.items() if i <= len(kept)}
        else:
            kept.append(step)
            seen[key] = len(kept)
    return kept


def cut_loops(rules, layout, plays: list[Play]) -> list[Play] | None:
    """Drop the plays between two visits of the same position (taps aside); None when the
    plays do not replay with the fewest taps before each waste play (with a pass limit the
    found line may have gone round the stock otherwise, and the fewest taps can run out of
    passes: big-harp, tests/test_solution.py)."""
    game = Game(rules, layout, check=False, undo=False)

    def steps():
        for pl in plays:
            if pl.from_waste:
                taps = taps_to(game, pl.card)
                if taps is None:
                    raise MoveError(f"{pl.move}: no taps reach the card within the passes left")
                for t in taps:
                    game.apply(t)
            game.apply(pl.move)
            yield pl, _position(game)

    try:
        return drop_loops(_position(game), steps())
    except MoveError:
        return None


def _pile(pl: Play, end: str) -> str:
    """Where a play takes its card from (``end="src"``) or puts it."""
    m = pl.move
    k = m.kind
    if end == "src":
        if k in _FROM_WASTE:
            return "w"
        if k == TAKE_BACK:
            return "f"
        return ("c" if k in (CELL_TO_COLUMN, CELL_TO_FOUNDATION) else "t") + str(m.src)
    if k in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION, CELL_TO_FOUNDATION):
        return "f"
    return ("c" if k == COLUMN_TO_CELL else "t") + str(m.dst)


# the move kind from one kind of pile to another ('w'aste, 'f'oundation, 't'ableau column, 'c'ell)
_PILE_MOVES = {("w", "t"): WASTE_TO_COLUMN, ("w", "f"): WASTE_TO_FOUNDATION, ("t", "f"): COLUMN_TO_FOUNDATION,
               ("t", "t"): COLUMN_TO_COLUMN, ("f", "t"): TAKE_BACK, ("t", "c"): COLUMN_TO_CELL,
               ("c", "t"): CELL_TO_COLUMN, ("c", "f"): CELL_TO_FOUNDATION}


def _direct(src: str, dst: str, card: int, n: int):
    """The single move from pile ``src`` to pile ``dst`` (None: no such move)."""
    kind = _PILE_MOVES.get((src[0], dst[0]))
    if src == dst or kind is None or (n > 1 and kind != COLUMN_TO_COLUMN):
        return None
    return Move(kind, int(src[1:] or 0), int(dst[1:] or 0), n, card if kind == TAKE_BACK else None)


# The detour search replays part of the line per candidate: bounded, so that
# a depth-first search's line of tens of thousands of moves (Baker's Game)
# costs seconds, not hours.  A card's next play is looked for within
# DETOUR_SPAN plays, and at most DETOUR_WORK plays are replayed per line
# (the budget is counted, not timed: the same line always shortens the same).
DETOUR_SPAN = 200
DETOUR_WORK = 20_000  # easy-harp lines of ~150 plays use 8 000-18 000


def without_detours(rules, layout, plays: list[Play]) -> list[Play] | None:
    """Replace a card's trip through other piles by one move, or none.

    For each play of a card, the card's next play: when the card comes back
    where it started, both go ("moves undone later"); otherwise the two
    become one move from the first source to the last destination (a card
    sent up and taken back: ``t3>f`` ... ``f>t5`` becomes ``t3>t5``), made
    where the first or where the second was.  Each candidate is kept only
    if the whole line still wins, and is no longer.  Bounded: DETOUR_SPAN,
    DETOUR_WORK.  None when ``plays`` do not replay to a win with the fewest taps.
    """
    if line_of(rules, layout, plays) is None:
        return None  # the plays do not replay with the fewest taps: nothing to build on

    work = [DETOUR_WORK]

    def trace(plays, g, keys, toks):
        """Extend ``keys``/``toks`` (the full position, stock pointer included,
        after each play, and the tokens so far) from game ``g`` to the end."""
        out: list[str] = []
        base = toks[-1]
        work[0] -= len(plays) - len(keys) + 1
        for k in range(len(keys) - 1, len(plays)):
            if not _play_on(g, plays[k:k + 1], out):
                break  # illegal: the lists stop short
            keys.append(_position(g, True))
            toks.append(base + len(out))
        return keys, toks

    start = Game(rules, layout, check=False, undo=False)
    keys, toks = trace(plays, start, [_position(start, True)], [0])
    # ``pre`` is the game before play i: a candidate differs from ``plays``
    # only from i on, so only that part is replayed -- and only until it
    # rejoins the found line (the same position, stock pointer included),
    # from where the rest is the found line's.
    pre = Game(rules, layout, check=False, undo=False)
    i = 0
    while i < len(plays) and work[0] > 0:
        a = plays[i]
        n = a.move.n if a.move.kind == COLUMN_TO_COLUMN else 1
        j = next((j for j in range(i + 1, min(len(plays), i + DETOUR_SPAN)) if plays[j].card == a.card), None)
        kept = False
        if j is not None:
            b = plays[j]
            src, dst = _pile(a, "src"), _pile(b, "dst")
            cands = []
            if src == dst and (b.move.n if b.move.kind == COLUMN_TO_COLUMN else 1) == n:
                cands.append(plays[i + 1:j])
            direct = _direct(src, dst, a.card, n)
            if direct is not None:
                one = Play(direct, a.card)
                cands.append([one] + plays[i + 1:j])
                cands.append(plays[i + 1:j] + [one])
            for part in cands:
                g = _copy(pre)
                pk, pt = trace(part, g, [keys[i]], [toks[i]])
                if len(pk) <= len(part):
                    continue  # a move was illegal
                if pk[-1] == keys[j + 1]:
                    # rejoined: the rest is the found line's, shifted
                    shift = pt[-1] - toks[j + 1]
                    if shift <= 0:
                        plays = plays[:i] + part + plays[j + 1:]
                        keys = keys[:i] + pk + keys[j + 2:]
                        toks = toks[:i] + pt + [t + shift for t in toks[j + 2:]]
                        kept = True
                        break
                    continue
                rest = plays[:i] + part + plays[j + 1:]
                rk, rt = trace(rest, g, keys[:i] + pk, toks[:i] + pt)
                if len(rk) == len(rest) + 1 and g.is_won() and rt[-1] <= toks[-1]:
                    plays, keys, toks, kept = rest, rk, rt, True
                    break
        if not kept:
            _play_on(pre, plays[i:i + 1])
            i += 1
    return plays


def shorten_tokens(rules, layout, tokens: list[str], deadline: float | None = None) -> list[str]:
    """A shorter winning line for the winning line ``tokens`` (or ``tokens``).

    Loops cut, detours dropped, the plays reordered to go round the stock
    less, the taps recounted; the result replays to a win in the reference
    engine (checked here: a candidate that does not is never returned).
    No step starts after ``deadline`` (``time.perf_counter()``): a solve under a
    time budget keeps what was shortened by then.
    """
    plays = plays_of(rules, layout, tokens)
    if plays is None:
        return list(tokens)
    best = list(tokens)
    steps = [cut_loops] + [reorder_stock, without_detours] * ROUNDS + [reorder_stock]
    if not any(p.from_waste for p in plays):
        steps = [s for s in steps if s is not reorder_stock]  # no stock: nothing to reorder for
    for step in steps:
        if deadline is not None and time.perf_counter() > deadline:
            break
        try:
            new = step(rules, layout, plays)
        except MoveError:
            new = None
        if new is None or new == plays:
            continue
        line = line_of(rules, layout, new)
        if line is not None and len(line) <= len(best):
            plays, best = new, line
    rep = replay(rules, layout, best)  # the judge, once more: never return a line that does not win
    return best if rep.ok and rep.won else list(tokens)


# Rounds of reordering and detour-dropping: one detour gone can free a better
# order and back (easy-harp deals 1-10: the second round takes a few % more,
# a third almost nothing).
ROUNDS = 2


# ---- the text a player reads -------------------------------------------------------
def _where(pile: str) -> str:
    if pile == "f":
        return "foundation"
    if pile.startswith("c"):
        return f"cell {pile[1:]}"
    return pile


def _play_text(game: Game, m) -> str:
    """``m`` (legal in ``game``, not yet made) in words."""
    pl = Play(m, _moved_card(game, m))
    what = card_text(pl.card)
    if m.kind == COLUMN_TO_COLUMN and m.n > 1:
        what += f"..{card_text(game.columns[m.src - 1][-1])} ({m.n} cards)"
    src, dst = _pile(pl, "src"), _pile(pl, "dst")
    if src == "w":
        return f"{what} to {_where(dst)}"
    return f"{what} from {_where(src)} to {_where(dst)}"


def _taps_text(taps: list[str], card: int | None) -> str:
    turns = taps.count(TURN)
    n = len(taps)
    head = f"draw to {card_text(card)}" if card is not None else "tap the stock"
    extra = f", the waste turned over {'once' if turns == 1 else f'{turns} times'}" if turns else ""
    return f"{head} ({n} tap{'s' if n != 1 else ''}{extra})"


def readable(rules, layout, tokens) -> list[tuple[int, str]]:
    """The line in words, one entry per play with the stock taps before it:
    ``(index of the play's last token, 1-based; text)``.

    >>> from harpsolve.rules import get_rules
    >>> rules = get_rules("klondike-1", ["columns=1"])
    >>> lay = Layout(columns=[[51]], face_down=[0], stock=list(range(51)), foundations=[])
    >>> readable(rules, lay, ["s>w", "w>f", "s>w", "w>f"])
    [(2, 'draw to AC (1 tap), AC to foundation'), (4, 'draw to 2C (1 tap), 2C to foundation')]
    """
    game = Game(rules, layout, check=False, undo=False)
    out: list[tuple[int, str]] = []
    taps: list[str] = []
    for i, tok in enumerate(tokens, 1):
        m = parse_move(tok)
        if m.kind in _TAPS:
            game.apply(m)
            taps.append(str(m))
            continue
        text = _play_text(game, m)
        hidden = m.kind in (COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN, COLUMN_TO_CELL) and \
            game.face_down[m.src - 1] == len(game.columns[m.src - 1]) - m.n > 0
        if taps:
            text = _taps_text(taps, game.waste[-1] if m.kind in _FROM_WASTE else None) + ", " + text
            taps = []
        game.apply(m)
        if hidden:
            text += f", turning up {card_text(game.columns[m.src - 1][-1])}"
        out.append((i, text))
    if taps:
        out.append((len(tokens), _taps_text(taps, None)))
    return out


def count_plays(tokens) -> int:
    """The moves of a line that are not stock taps (``s>w``, ``w>s``)."""
    return sum(parse_move(t).kind not in _TAPS for t in tokens)
