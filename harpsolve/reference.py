"""The reference rules engine: plain Python, written to be obviously right.

This engine judges the fast numba solver.  It shares no code with the search
kernel: it reads the rules record field by field, keeps the board as lists of
card kinds, checks one move at a time and says in words why a move is
refused.  Speed is not a goal; clarity is.

>>> from harpsolve.rules import get_rules
>>> from harpsolve.layout import Layout
>>> from harpsolve.cards import parse_card as C
>>> lay = Layout(columns=[[C("KS")], []], face_down=[0, 0],
...              foundations=[C("KC"), C("KD"), C("KH"), C("QS")])
>>> game = Game(get_rules("klondike-1", ["columns=1,0"]), lay)
>>> [str(m) for m in game.legal_moves()]
['t1>f', 't1>t2', 'f>t2:KC', 'f>t2:KD', 'f>t2:KH']
>>> game.apply("t1>f"); game.is_won()
True

Moves are the SPEC §4 tokens (``s>w``, ``t4>t1*5``, ``f>t4:7H`` ...); see
:func:`parse_move`.  Interpretations of the SPEC this engine makes (all are
rules-record fields or documented in the README):

* Foundations: ``4 * decks`` places, place ``k`` reserved for suit
  ``k // decks``.  A card sent to a foundation goes to the FIRST place of its
  suit that accepts it; a card taken back leaves the LAST place whose top it
  is.  Together these keep each suit's heights in non-increasing order.
* ``s>w`` turns ``rules.draw`` cards one after another (the last one turned is
  the new waste top), or every remaining card when fewer are left.
* ``w>s`` puts the waste back in the same order: the card drawn first is drawn
  first again.  It needs an empty stock, a non-empty waste and a pass left
  (``passes`` N allows N - 1 recycles; 0 = unlimited).
* Column-to-column moves, ``tI>tJ*N``: with ``column_moves == "runs"`` any
  face-up built run moves onto a card it builds on, or to an empty column if
  that column takes its bottom card.  With ``"single"`` only N = 1 moves,
  except with ``king_runs``: a built run whose bottom card is a king moves as
  a block to an empty column (and nowhere else).
* Scoring (the Easy Harp table, kept in every game, reported where
  ``rules.scoring == "easy-harp"``): +10 a card onto a foundation, +5 a card
  from the waste onto a column, +5 a hidden card turned face up, 0 otherwise.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

from .cards import CardError, card_text, parse_card, rank_of, suit_of
from .layout import Layout, LayoutError
from .rules import Rules, RulesError, builds_on, get_rules, parse_label, value_text, with_overrides

ACE, KING = 1, 13

# Easy Harp score table (SPEC §2).
POINTS_FOUNDATION = 10
POINTS_WASTE_TO_COLUMN = 5
POINTS_FLIP = 5


class MoveError(ValueError):
    """A malformed move token, or a move the rules refuse (``reason`` says why)."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason if reason is not None else message


class SolutionError(MoveError):
    """A solution file that cannot be read.

    A subclass of :class:`MoveError` so that every command's error handling,
    which already knows ``MoveError``, turns it into one line.
    """


# ---- moves ---------------------------------------------------------------------
# Move kinds, and the token each one prints as ({i}, {j}: 1-based numbers).
DRAW = "draw"                        # s>w
RECYCLE = "recycle"                  # w>s
WASTE_TO_COLUMN = "waste-column"     # w>t{j}
WASTE_TO_FOUNDATION = "waste-found"  # w>f
COLUMN_TO_FOUNDATION = "col-found"   # t{i}>f
COLUMN_TO_COLUMN = "col-col"         # t{i}>t{j}  or  t{i}>t{j}*{n}
TAKE_BACK = "take-back"              # f>t{j}:{card}
COLUMN_TO_CELL = "col-cell"          # t{i}>c{j}
CELL_TO_COLUMN = "cell-col"          # c{i}>t{j}
CELL_TO_FOUNDATION = "cell-found"    # c{i}>f

KINDS = (DRAW, RECYCLE, WASTE_TO_COLUMN, WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION,
         COLUMN_TO_COLUMN, TAKE_BACK, COLUMN_TO_CELL, CELL_TO_COLUMN, CELL_TO_FOUNDATION)


@dataclass(frozen=True)
class Move:
    """One move.  ``src``/``dst`` are 1-based column or cell numbers (0 when the
    end is the stock, waste or foundations), ``n`` the number of cards of a
    column-to-column move, ``card`` the card of a take-back.

    >>> str(Move(COLUMN_TO_COLUMN, 4, 1, 5)), parse_move("f>t4:7♥")
    ('t4>t1*5', Move(kind='take-back', src=0, dst=4, n=1, card=32))
    """

    kind: str
    src: int = 0
    dst: int = 0
    n: int = 1
    card: int | None = None

    def __str__(self) -> str:
        form = TOKEN_FORMS.get(self.kind)
        if form is None:
            raise ValueError(f"unknown move kind {self.kind!r}")
        text = form.format(i=self.src, j=self.dst, card=card_text(self.card) if self.card is not None else "")
        return text + (f"*{self.n}" if self.kind == COLUMN_TO_COLUMN and self.n != 1 else "")


# The one table of move tokens (SPEC §4): {i} and {j} are 1-based column or cell numbers,
# {card} a card's text; a column-to-column move of n > 1 cards adds "*{n}".  Move.__str__
# writes tokens from it (the kernel's moves too, through solution.move_tokens) and
# parse_move reads them with patterns made from it.
TOKEN_FORMS = {
    DRAW: "s>w",
    RECYCLE: "w>s",
    WASTE_TO_COLUMN: "w>t{j}",
    WASTE_TO_FOUNDATION: "w>f",
    COLUMN_TO_FOUNDATION: "t{i}>f",
    COLUMN_TO_COLUMN: "t{i}>t{j}",
    TAKE_BACK: "f>t{j}:{card}",
    COLUMN_TO_CELL: "t{i}>c{j}",
    CELL_TO_COLUMN: "c{i}>t{j}",
    CELL_TO_FOUNDATION: "c{i}>f",
}


def _token_pattern(kind: str) -> re.Pattern:
    number = r"([1-9][0-9]*)"
    pattern = re.escape(TOKEN_FORMS[kind])
    pattern = pattern.replace(r"\{i\}", number.replace("(", "(?P<i>", 1))
    pattern = pattern.replace(r"\{j\}", number.replace("(", "(?P<j>", 1))
    pattern = pattern.replace(r"\{card\}", "(?P<card>.+)")
    if kind == COLUMN_TO_COLUMN:
        pattern += r"(?:\*" + number.replace("(", "(?P<n>", 1) + ")?"
    return re.compile(pattern)


_TOKEN_PATTERNS = [(_token_pattern(kind), kind) for kind in TOKEN_FORMS]


def parse_move(token) -> Move:
    """Read a SPEC §4 move token (case and surrounding blanks ignored).

    >>> str(parse_move("T10>t2*1")), str(parse_move("f>t3:10s"))
    ('t10>t2', 'f>t3:TS')
    """
    if isinstance(token, Move):
        return token
    if not isinstance(token, str):
        raise MoveError(f"not a move token: {token!r}")
    return _parse_token(token)


# A solution repeats a few hundred distinct tokens thousands of times, and a
# Move is immutable, so each distinct token is read once.  (Errors are not
# cached: lru_cache lets exceptions through.)
@functools.lru_cache(maxsize=4096)
def _parse_token(token: str) -> Move:
    text = token.strip()
    low = text.lower()
    for pattern, kind in _TOKEN_PATTERNS:
        m = pattern.fullmatch(low)
        if m is None:
            continue
        g = m.groupdict()
        card = None
        if "card" in g:
            card_part = text[m.start("card"):]  # the card as written (case kept for its own parser)
            try:
                card = parse_card(card_part)
            except CardError as e:
                raise MoveError(f"{text}: {e}") from None
        return Move(kind, int(g.get("i") or 0), int(g.get("j") or 0), int(g.get("n") or 1), card)
    raise MoveError(f"not a move token: {token!r} (expected e.g. {_EXAMPLES})")


_EXAMPLES = ", ".join(str(Move(kind, 2, 1, 3, parse_card("7H"))) for kind in TOKEN_FORMS)


# ---- the game ------------------------------------------------------------------
class Game:
    """A position under ``rules``, with legal moves, apply/undo and the score.

    Attributes (plain lists, read them freely; change them only through
    :meth:`apply` and :meth:`undo`):

    ``columns``      each column bottom to top (card kinds).
    ``face_down``    how many bottom cards of each column are face down.
    ``stock``        the stock, the next card drawn first.
    ``waste``        the waste, its playable top last.
    ``cells``        ``rules.cells`` entries, ``None`` for an empty cell.
    ``foundations``  the height (0..13) of each of the ``4 * decks`` places;
                     place ``k`` holds suit ``k // decks``.
    ``pass_number``  the pass through the stock under way (1 = the first).
    ``score``        the Easy Harp score so far.
    ``history``      the moves applied so far.

    ``undo=False`` keeps no undo snapshots: :meth:`undo` then refuses, and
    :meth:`apply` costs a fraction as much (what :func:`replay` uses).
    """

    def __init__(self, rules: Rules, layout: Layout, *, check: bool = True, undo: bool = True):
        if check:
            layout.validate(rules)
        self.rules = rules
        d = rules.decks
        self.columns = [list(col) for col in layout.columns]
        self.face_down = list(layout.face_down)
        self.stock = list(layout.stock)
        self.waste = list(layout.waste)
        self.cells = list(layout.cells) + [None] * (rules.cells - len(layout.cells))
        self.foundations = [0] * rules.n_foundations
        for top in layout.foundations:
            # Fill the places of a suit in the order the layout lists them.
            s = suit_of(top)
            free = [k for k in range(s * d, (s + 1) * d) if self.foundations[k] == 0]
            if not free:
                raise LayoutError(f"more foundations of suit {'CDHS'[s]} than the {d} places it has")
            self.foundations[free[0]] = rank_of(top)
        self.pass_number = layout.pass_number
        self.score = 0
        self.history: list[Move] = []
        self.keeps_undo = undo
        self._undo_stack: list[tuple] = []

    # ---- reading the position -----------------------------------------------
    @property
    def recycles(self) -> int:
        """Turns of the waste back into the stock so far (= pass_number - 1)."""
        return self.pass_number - 1

    passes_used = recycles

    def face_up(self, i: int) -> list[int]:
        """The face-up cards of column ``i`` (0-based), bottom to top."""
        return self.columns[i][self.face_down[i]:]

    def is_won(self) -> bool:
        return sum(self.foundations) == self.rules.n_cards

    def to_layout(self) -> Layout:
        """The position as a :class:`Layout` (foundations listed in place order)."""
        d = self.rules.decks
        return Layout(
            columns=[list(col) for col in self.columns],
            face_down=list(self.face_down),
            stock=list(self.stock),
            waste=list(self.waste),
            cells=list(self.cells),
            foundations=[(k // d) * 13 + h - 1 for k, h in enumerate(self.foundations) if h],
            pass_number=self.pass_number,
        )

    def key(self) -> tuple:
        """A hashable canonical description of the position.

        Columns are interchangeable, so they form a sorted multiset of
        (face-down cards, face-up cards); a suit's foundation places are
        interchangeable, so their heights are sorted; so are the cells.  The
        stock and waste are one sequence in drawing order (waste bottom first,
        then the stock) with the waste size marking the next card.  The pass
        number enters only when passes are limited.
        """
        cols = tuple(sorted(
            (tuple(col[:fd]), tuple(col[fd:])) for col, fd in zip(self.columns, self.face_down)
        ))
        d = self.rules.decks
        founds = tuple(tuple(sorted(self.foundations[s * d:(s + 1) * d])) for s in range(4))
        cells = tuple(sorted(c for c in self.cells if c is not None))
        passes = self.pass_number if self.rules.passes else 0
        return (cols, founds, cells, tuple(self.waste + self.stock), len(self.waste), passes)

    # ---- helpers ------------------------------------------------------------
    def _places(self, card: int) -> range:
        d = self.rules.decks
        s = suit_of(card)
        return range(s * d, (s + 1) * d)

    def _foundation_for(self, card: int) -> int | None:
        """The first place of the card's suit that accepts it, or None."""
        for k in self._places(card):
            if self.foundations[k] == rank_of(card) - 1:
                return k
        return None

    def _foundation_holding(self, card: int) -> int | None:
        """The last place whose top card is ``card``, or None."""
        for k in reversed(self._places(card)):
            if self.foundations[k] == rank_of(card):
                return k
        return None

    def _pass_left(self) -> bool:
        return self.rules.passes == 0 or self.pass_number < self.rules.passes

    def _why_not_onto_column(self, card: int, j: int) -> str | None:
        """Why ``card`` (alone or as the bottom of a run) may not go onto column j."""
        col = self.columns[j]
        if col:
            if builds_on(self.rules, card, col[-1]):
                return None
            return f"{card_text(card)} does not go on {card_text(col[-1])}"
        if self.rules.empty == "any" or rank_of(card) == KING:
            return None
        return f"column {j + 1} is empty and takes only a king, not {card_text(card)}"

    def _why_not_to_foundation(self, card: int) -> str | None:
        if self._foundation_for(card) is not None:
            return None
        if rank_of(card) == ACE:
            return f"no empty {_SUIT_NAMES[suit_of(card)]} foundation for {card_text(card)}"
        below = card_text(card - 1)
        return f"{card_text(card)} needs {below} on top of a {_SUIT_NAMES[suit_of(card)]} foundation"

    def _column_index(self, n: int) -> str | None:
        if not 1 <= n <= len(self.columns):
            return f"there is no column {n} ({self.rules.name} has {len(self.columns)})"
        return None

    def _cell_index(self, n: int) -> str | None:
        if not 1 <= n <= len(self.cells):
            if not self.cells:
                return f"{self.rules.name} has no free cells"
            return f"there is no cell {n} ({self.rules.name} has {len(self.cells)})"
        return None

    # ---- legality -----------------------------------------------------------
    def why_illegal(self, move: Move | str) -> str | None:
        """None when ``move`` is legal here, else the reason in words."""
        m = parse_move(move)
        r = self.rules
        k = m.kind
        if k == DRAW:
            return None if self.stock else "the stock is empty"
        if k == RECYCLE:
            if self.stock:
                return "the stock is not empty yet"
            if not self.waste:
                return "the waste is empty"
            if not self._pass_left():
                return (f"no pass is left: {r.name} allows {r.passes} passes through the stock, "
                        f"so at most {r.passes - 1} turns of the waste back into the stock")
            return None
        if k in (WASTE_TO_COLUMN, WASTE_TO_FOUNDATION):
            if not self.waste:
                return "the waste is empty"
            if k == WASTE_TO_FOUNDATION:
                return self._why_not_to_foundation(self.waste[-1])
            return self._column_index(m.dst) or self._why_not_onto_column(self.waste[-1], m.dst - 1)
        if k == COLUMN_TO_FOUNDATION:
            bad = self._column_index(m.src)
            if bad:
                return bad
            if not self.columns[m.src - 1]:
                return f"column {m.src} is empty"
            return self._why_not_to_foundation(self.columns[m.src - 1][-1])
        if k == COLUMN_TO_COLUMN:
            return self._why_not_column_to_column(m.src - 1, m.dst - 1, m.n)
        if k == TAKE_BACK:
            if not r.takeback:
                return f"{r.label} does not let a card come back from the foundations"
            if self._foundation_holding(m.card) is None:
                return f"{card_text(m.card)} is not on top of a foundation"
            return self._column_index(m.dst) or self._why_not_onto_column(m.card, m.dst - 1)
        if k == COLUMN_TO_CELL:
            bad = self._column_index(m.src) or self._cell_index(m.dst)
            if bad:
                return bad
            if not self.columns[m.src - 1]:
                return f"column {m.src} is empty"
            if self.cells[m.dst - 1] is not None:
                return f"cell {m.dst} already holds {card_text(self.cells[m.dst - 1])}"
            return None
        if k in (CELL_TO_COLUMN, CELL_TO_FOUNDATION):
            bad = self._cell_index(m.src)
            if bad:
                return bad
            card = self.cells[m.src - 1]
            if card is None:
                return f"cell {m.src} is empty"
            if k == CELL_TO_FOUNDATION:
                return self._why_not_to_foundation(card)
            return self._column_index(m.dst) or self._why_not_onto_column(card, m.dst - 1)
        return f"unknown move kind {k!r}"

    def _why_not_column_to_column(self, i: int, j: int, n: int) -> str | None:
        r = self.rules
        bad = self._column_index(i + 1) or self._column_index(j + 1)
        if bad:
            return bad
        if i == j:
            return "a card cannot move onto its own column"
        src = self.columns[i]
        if not src:
            return f"column {i + 1} is empty"
        up = self.face_up(i)
        if n > len(up):
            return f"column {i + 1} has only {len(up)} face-up card{'s' if len(up) != 1 else ''}"
        moving = up[len(up) - n:]
        for lo, hi in zip(moving, moving[1:]):
            if not builds_on(r, hi, lo):
                return (f"the top {n} cards of column {i + 1} are not a built run "
                        f"({card_text(hi)} on {card_text(lo)})")
        bottom = moving[0]
        if n > 1 and r.column_moves == "single":
            king_led = rank_of(bottom) == KING
            if not (r.king_runs and king_led):
                extra = " (a king-led run moves as a block, and only to an empty column)" if r.king_runs else ""
                return f"only the top card moves between columns in {r.label}{extra}"
            if self.columns[j]:
                return (f"a king-led run moves only to an empty column, "
                        f"and column {j + 1} is not empty")
            return None
        return self._why_not_onto_column(bottom, j)

    def _candidates(self):
        """Every move that could be legal in some position of this shape."""
        ncol, ncell = len(self.columns), len(self.cells)
        for i in range(1, ncol + 1):
            yield Move(COLUMN_TO_FOUNDATION, src=i)
        for i in range(1, ncell + 1):
            yield Move(CELL_TO_FOUNDATION, src=i)
        yield Move(WASTE_TO_FOUNDATION)
        # where only the top card moves (column_moves single), a longer run can move only if it is
        # king-led (king_runs), so only that length is a candidate: the same legal moves, found
        # without asking why_illegal about every other length (a harp player's rules fallback
        # spent a quarter of its game there)
        single = self.rules.column_moves == "single"
        for i in range(1, ncol + 1):
            up = self.face_up(i - 1)
            lengths = range(1, len(up) + 1)
            if single:
                lengths = [1] + [n for n in range(2, len(up) + 1)
                                 if self.rules.king_runs and rank_of(up[len(up) - n]) == KING]
            for j in range(1, ncol + 1):
                for n in lengths:
                    yield Move(COLUMN_TO_COLUMN, i, j, n)
        for j in range(1, ncol + 1):
            yield Move(WASTE_TO_COLUMN, dst=j)
        for i in range(1, ncell + 1):
            for j in range(1, ncol + 1):
                yield Move(CELL_TO_COLUMN, i, j)
        for i in range(1, ncol + 1):
            for j in range(1, ncell + 1):
                yield Move(COLUMN_TO_CELL, i, j)
        tops = sorted({(k // self.rules.decks) * 13 + h - 1 for k, h in enumerate(self.foundations) if h})
        for card in tops:
            for j in range(1, ncol + 1):
                yield Move(TAKE_BACK, dst=j, card=card)
        yield Move(DRAW)
        yield Move(RECYCLE)

    def legal_moves(self) -> list[Move]:
        """Every distinct legal move, in a fixed order."""
        return [m for m in self._candidates() if self.why_illegal(m) is None]

    # ---- apply / undo -------------------------------------------------------
    def apply(self, move: Move | str) -> None:
        """Play ``move`` (a Move or a token); MoveError, game unchanged, if illegal."""
        m = parse_move(move)
        reason = self.why_illegal(m)
        if reason is not None:
            raise MoveError(f"{m}: {reason}", reason)
        if self.keeps_undo:
            self._undo_stack.append(self._snapshot())
        self.history.append(m)
        self.score = max(0, self.score + self._play(m))

    def undo(self) -> Move:
        """Take back the last move exactly (cards, flips, passes, score)."""
        if not self.keeps_undo:
            raise MoveError("this game keeps no undo history (made with undo=False)")
        if not self._undo_stack:
            raise MoveError("nothing to undo")
        self._restore(self._undo_stack.pop())
        return self.history.pop()

    # A full copy of the (small) position per move: undo is then trivially
    # exact, which is what a reference engine needs to be.
    def _snapshot(self) -> tuple:
        return ([list(c) for c in self.columns], list(self.face_down), list(self.stock),
                list(self.waste), list(self.cells), list(self.foundations),
                self.pass_number, self.score)

    def _restore(self, snap: tuple) -> None:
        (self.columns, self.face_down, self.stock, self.waste, self.cells,
         self.foundations, self.pass_number, self.score) = snap

    def _take_from_column(self, i: int, n: int = 1) -> tuple[list[int], int]:
        """Lift the top n cards of column i; turn a hidden card that becomes the top."""
        col = self.columns[i]
        cards = col[len(col) - n:]
        del col[len(col) - n:]
        points = 0
        if col and self.face_down[i] == len(col):
            self.face_down[i] -= 1
            points = POINTS_FLIP
        return cards, points

    def _to_foundation(self, card: int) -> int:
        self.foundations[self._foundation_for(card)] += 1
        return POINTS_FOUNDATION

    def _play(self, m: Move) -> int:
        """Carry out a legal move; return the points it scores."""
        k = m.kind
        if k == DRAW:
            n = min(self.rules.draw, len(self.stock))
            self.waste.extend(self.stock[:n])
            del self.stock[:n]
            return 0
        if k == RECYCLE:
            self.stock = self.waste
            self.waste = []
            self.pass_number += 1
            return 0
        if k == WASTE_TO_FOUNDATION:
            return self._to_foundation(self.waste.pop())
        if k == WASTE_TO_COLUMN:
            self.columns[m.dst - 1].append(self.waste.pop())
            return POINTS_WASTE_TO_COLUMN
        if k == COLUMN_TO_FOUNDATION:
            (card,), flip = self._take_from_column(m.src - 1)
            return self._to_foundation(card) + flip
        if k == COLUMN_TO_COLUMN:
            cards, flip = self._take_from_column(m.src - 1, m.n)
            self.columns[m.dst - 1].extend(cards)
            return flip
        if k == TAKE_BACK:
            self.foundations[self._foundation_holding(m.card)] -= 1
            self.columns[m.dst - 1].append(m.card)
            return 0
        if k == COLUMN_TO_CELL:
            (card,), flip = self._take_from_column(m.src - 1)
            self.cells[m.dst - 1] = card
            return flip
        if k == CELL_TO_COLUMN:
            self.columns[m.dst - 1].append(self.cells[m.src - 1])
            self.cells[m.src - 1] = None
            return 0
        if k == CELL_TO_FOUNDATION:
            card = self.cells[m.src - 1]
            self.cells[m.src - 1] = None
            return self._to_foundation(card)
        raise AssertionError(k)  # why_illegal refused unknown kinds

    def __repr__(self) -> str:
        return f"Game({self.rules.label}, {len(self.history)} moves, score {self.score})"


_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


# ---- replay and solution files ---------------------------------------------------
@dataclass
class ReplayResult:
    """What replaying a move list found.

    ``ok``           every move was legal.
    ``won``          legal all through and every card ends on the foundations.
    ``moves``        how many moves were applied.
    ``score``        the Easy Harp score after those moves.
    ``error_index``  0-based index of the first illegal move, or None.
    ``error``        ``"move K (token): reason"`` (K 1-based), or None.
    ``cards_left``   cards not on the foundations after those moves.
    """

    ok: bool
    won: bool
    moves: int
    score: int
    error_index: int | None = None
    error: str | None = None
    cards_left: int = 0


def replay(rules: Rules, layout: Layout, tokens) -> ReplayResult:
    """Replay ``tokens`` from ``layout``; report the first illegal move.

    Raises (LayoutError, MoveError) only for malformed input: an invalid
    layout or a string that is not a move token at all.
    """
    game = Game(rules, layout, undo=False)
    moves = []
    for i, tok in enumerate(tokens):
        try:
            moves.append(parse_move(tok))
        except MoveError as e:
            raise MoveError(f"move {i + 1}: {e}") from None
    for i, (tok, m) in enumerate(zip(tokens, moves)):
        try:
            game.apply(m)
        except MoveError as e:
            return ReplayResult(False, False, i, game.score, i, f"move {i + 1} ({str(tok).strip()}): {e.reason}",
                                _cards_left(game))
    return ReplayResult(True, game.is_won(), len(moves), game.score, cards_left=_cards_left(game))


def _cards_left(game: Game) -> int:
    return game.rules.n_cards - sum(game.foundations)


def _overrides_of(variant: str, spec, path) -> dict:
    """The ``rules`` entry of a solution: a dict of overrides, or a label such
    as ``"easy-harp[passes=3,columns=1,2,3]"`` (what ``deal --json`` prints)."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return {k: value_text(v) for k, v in spec.items()}
    if isinstance(spec, str):
        try:
            name, out = parse_label(spec)
        except RulesError as e:
            raise SolutionError(f"{path}: 'rules': {e}") from None
        if name != variant:
            raise SolutionError(f"{path}: 'rules' {spec!r} does not describe variant {variant!r}")
        return out
    raise SolutionError(f"{path}: 'rules' must be an object of rule overrides")


def load_solution(path) -> tuple[Rules, Layout, list[str], dict]:
    """Read a SPEC §4 solution JSON file: ``(rules, layout, tokens, meta)``.

    ``meta`` holds the remaining fields (deal, status, score, nodes, ...).
    Raises SolutionError, RulesError or LayoutError with a one-line message.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        raise SolutionError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise SolutionError(f"{path}: not a text file (expected solution JSON)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SolutionError(f"{path}: not valid JSON: {e.msg} at line {e.lineno}") from None
    if not isinstance(data, dict):
        raise SolutionError(f"{path}: a solution is a JSON object with 'variant', 'layout' and 'moves'")
    for name in ("variant", "layout", "moves"):
        if name not in data:
            raise SolutionError(f"{path}: the solution has no '{name}'")
    if not isinstance(data["variant"], str):
        raise SolutionError(f"{path}: 'variant' must be a variant name such as \"easy-harp\"")
    rules = get_rules(data["variant"])
    rules = with_overrides(rules, _overrides_of(data["variant"], data.get("rules"), path))
    layout = Layout.from_dict(data["layout"]) if isinstance(data["layout"], dict) else None
    if layout is None:
        raise SolutionError(f"{path}: 'layout' must be a JSON object")
    layout.validate(rules)
    tokens = data["moves"]
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise SolutionError(f"{path}: 'moves' must be a list of move tokens such as \"t3>f\"")
    meta = {k: v for k, v in data.items() if k not in ("variant", "rules", "layout", "moves")}
    # The fields verify compares with the replay must mean what they say.
    score = meta.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int)):
        raise SolutionError(f"{path}: 'score' must be a whole number (or absent), not {score!r}")
    status = meta.get("status")
    if status is not None and status not in ("solved", "unsolvable", "unknown"):
        raise SolutionError(f"{path}: 'status' must be solved, unsolvable or unknown, not {status!r}")
    return rules, layout, tokens, meta
