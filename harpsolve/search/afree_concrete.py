"""Turn an arrangement-free solution (search/afree.py) into SPEC move tokens.

Each abstract move is realised on a real board kept by the reference engine
(harpsolve/reference.py), which checks every token as it is played:

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
must win in the reference engine.
"""
from __future__ import annotations

from ..cards import card_text, colour_of, rank_of
from ..reference import (
    COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION, DRAW, RECYCLE, TAKE_BACK, WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION, Game, Move, MoveError,
)
from ..rules import builds_on
from .afree import MK_CFL, MK_CFP, MK_RV, MK_TB, MK_TC, MK_TF, decode

KING = 13


class ConcretiseError(RuntimeError):
    """An abstract solution that could not be played on the real board."""


def _same_type(a: int, b: int) -> bool:
    return rank_of(a) == rank_of(b) and colour_of(a) == colour_of(b)


# The moves a line repeats most (klondike-3: 39 % of its tokens are draws and recycles), made
# and written once rather than at every play (a Move and its token text cost about a third as
# much as the reference engine's checked play of it).
_DRAW, _RECYCLE, _WASTE_HOME = Move(DRAW), Move(RECYCLE), Move(WASTE_TO_FOUNDATION)
_DRAW_TOKEN, _RECYCLE_TOKEN, _WASTE_HOME_TOKEN = str(_DRAW), str(_RECYCLE), str(_WASTE_HOME)


class _Board:
    def __init__(self, rules, layout, pr):
        self.g = Game(rules, layout, undo=False)
        self.rules = rules
        self.tokens: list[str] = []
        self.talon = [int(x) for x in pr.talon[:int(pr.q[5])]]
        self.left = [True] * len(self.talon)
        # dealt cards still in place per column (the abstract d), kept by hand
        self.d = [int(pr.root[8 + i]) for i in range(rules.n_columns)]
        self.cols0 = [list(c) for c in layout.columns]

    def try_play(self, move: Move, token: str = "") -> str | None:
        """Play ``move`` in the reference engine and record its token (``token``: its text, if
        the caller has it); None if it was played, else the engine's reason for refusing it."""
        try:
            self.g.apply(move)
        except MoveError as e:
            return e.reason
        self.tokens.append(token or str(move))
        return None

    def play(self, move: Move, token: str = "") -> None:
        """:meth:`try_play`, a refusal being a ``ConcretiseError``."""
        reason = self.try_play(move, token)
        if reason is not None:
            raise ConcretiseError(f"{move}: {reason}")

    # ---- where things are ------------------------------------------------------
    def target_for(self, card: int, exclude: int = -1) -> int:
        """A column (0-based) that takes ``card`` (or a run led by it)."""
        for j, col in enumerate(self.g.columns):
            if j == exclude:
                continue
            if col and builds_on(self.rules, card, col[-1]):
                return j
        if rank_of(card) == KING:
            for j, col in enumerate(self.g.columns):
                if j != exclude and not col:
                    return j
        raise ConcretiseError(f"no column takes {card_text(card)}")

    def uncover(self, i: int, k: int) -> None:
        """Move the run above index ``k`` of column i onto an uncovered card of the same type."""
        col = self.g.columns[i]
        n = len(col) - k - 1
        if n == 0:
            return
        x = col[k]
        for j, other in enumerate(self.g.columns):
            if j != i and other and _same_type(other[-1], x):
                self.play(Move(COLUMN_TO_COLUMN, i + 1, j + 1, n))
                return
        raise ConcretiseError(f"no uncovered card of {card_text(x)}'s type to take its run")

    def lower(self, i: int) -> None:
        self.d[i] -= 1
        if self.d[i] == 1 and rank_of(self.cols0[i][0]) == KING:
            self.d[i] = 0

    # ---- abstract moves --------------------------------------------------------
    def talon_play(self, j: int, rc: int, home: bool) -> None:
        want = sum(1 for x in range(j + 1) if self.left[x])
        g = self.g
        limited = self.rules.passes != 0
        for _ in range(4 * (len(self.talon) + 2) * (max(self.rules.passes, 1) + 1)):
            if len(g.waste) == want and (not limited or g.pass_number - 1 == rc):
                break
            if g.stock:
                self.play(_DRAW, _DRAW_TOKEN)
            else:
                self.play(_RECYCLE, _RECYCLE_TOKEN)
        else:
            raise ConcretiseError(f"talon card {j} never came up")
        card = g.waste[-1]
        if card != self.talon[j]:
            raise ConcretiseError(f"waste top {card_text(card)} is not talon card {card_text(self.talon[j])}")
        self.left[j] = False
        if home:
            self.play(_WASTE_HOME, _WASTE_HOME_TOKEN)
        else:
            self.play(Move(WASTE_TO_COLUMN, dst=self.target_for(card) + 1))

    def locked_home(self, i: int) -> None:
        if self.d[i] < 1:
            raise ConcretiseError(f"column {i + 1} has no locked card")
        k = self.d[i] - 1
        self.uncover(i, k)
        self.play(Move(COLUMN_TO_FOUNDATION, src=i + 1))
        self.lower(i)

    def face_up_home(self, card: int) -> None:
        best = None
        for i, col in enumerate(self.g.columns):
            lock = self.d[i] - 1 if self.d[i] >= 1 else -1
            for k in range(self.g.face_down[i], len(col)):
                if col[k] == card and k != lock:
                    if best is None or k == len(col) - 1:
                        best = (i, k)
        if best is None:
            raise ConcretiseError(f"no free face-up {card_text(card)}")
        i, k = best
        self.uncover(i, k)
        self.play(Move(COLUMN_TO_FOUNDATION, src=i + 1))

    def reveal(self, i: int) -> None:
        if self.d[i] < 1:
            raise ConcretiseError(f"column {i + 1} has no locked card")
        col = self.g.columns[i]
        k = self.d[i] - 1
        if self.g.face_down[i] != k:
            raise ConcretiseError(f"column {i + 1}: {self.g.face_down[i]} face down, expected {k}")
        j = self.target_for(col[k], exclude=i)
        self.play(Move(COLUMN_TO_COLUMN, i + 1, j + 1, len(col) - k))
        self.lower(i)

    def take_back(self, card: int) -> None:
        self.play(Move(TAKE_BACK, dst=self.target_for(card) + 1, card=card))


def concretise(rules, layout, pr, path) -> list[str]:
    """SPEC tokens for the abstract kernel moves ``path`` from ``layout``; they win."""
    b = _Board(rules, layout, pr)
    for m in path:
        kind, a, rc = decode(m)
        if kind in (MK_TF, MK_TC):
            b.talon_play(a, rc, kind == MK_TF)
        elif kind == MK_CFL:
            b.locked_home(a)
        elif kind == MK_CFP:
            b.face_up_home(a)
        elif kind == MK_RV:
            b.reveal(a)
        elif kind == MK_TB:
            b.take_back(a)
        else:
            raise ConcretiseError(f"unknown abstract move {m}")
    # the search stops once the talon is empty and every card is face up (afree._won):
    # the rest is column tops home, a card of the lowest rank in play always being one.
    # Each column sends home what it can before the next is asked (a column is a run going
    # down, so its cards follow one another home), and a move is tried, not asked about and
    # then played.  With the moves above made once, a line cost 1.29 ms instead of 1.65
    # (klondike-3, the 108 lines afree found on deals 2-99 502 every 500th, thirty-third
    # session): on most deals the concretiser takes more time than the search.
    home = [Move(COLUMN_TO_FOUNDATION, src=i + 1) for i in range(len(b.g.columns))]
    tokens = [str(m) for m in home]
    while not b.g.is_won():
        played = False
        for i, m in enumerate(home):
            # (the reference engine refuses a top that cannot go home yet)
            while b.g.columns[i] and b.try_play(m, tokens[i]) is None:
                played = True
        if not played:
            raise ConcretiseError("the concrete line does not win")
    return b.tokens
