"""Layouts: a board as plain data, its JSON form (SPEC §4) and its validation.

A :class:`Layout` describes a position (usually the start of a deal):

``columns[i]``     column i+1, bottom card first, top card last (card kinds).
``face_down[i]``   how many of column i+1's bottom cards are face down.
``stock``          the stock, the card drawn first first.
``waste``          the waste, bottom first; its last card is the playable top.
``cells``          free cells, one entry per cell, ``None`` when empty.
``foundations``    the top card of each non-empty foundation place; a place
                   whose top is ``5H`` holds ``AH`` .. ``5H``.
``pass_number``    which pass through the stock is under way (1 = the first).

In JSON, cards are text (``"7H"``) and an empty cell is ``null``.

The text form (:meth:`Layout.to_text` / :meth:`Layout.from_text`) holds the
same fields, one line each; ``#`` starts a comment, blank lines are skipped::

    t1: 4D              column 1, bottom card first
    t2: 9C | KS         cards before '|' are face down (no '|' = all face up)
    t3:                 an empty column
    stock: 7H 3C …      first drawn first
    waste: 2D 5S        bottom first, top last
    cells: -- 5S -- --  one entry per cell, '--' (or '-', '.') when empty
    foundations: 3C AH  the top card of each non-empty place
    pass: 2             omitted when 1

Columns must be ``t1`` … ``tN`` without gaps (in any order); the other lines
are optional.  :func:`load_layout` reads either form, told apart by content.
:func:`render` draws a position for people (face-down cards as ``##``); it
is not meant to be read back.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from .cards import CardError, card_text, parse_card, rank_of, suit_of, make_card, N_KINDS
from .rules import Rules, builds_on


class LayoutError(ValueError):
    """A layout that is not a valid position for its rules."""


TEXT_HEADER = "# harpsolve layout: columns bottom to top, face-down cards before '|'"
EMPTY_CELL = "--"
_EMPTY_CELLS = ("-", "--", ".", "[]")
_COLUMN_KEY = re.compile(r"t[0-9]{1,2}", re.ASCII)
FACE_DOWN_MARK = "##"


def _text_card(token: str, where: str) -> int:
    try:
        return parse_card(token)
    except CardError as e:
        raise LayoutError(f"{where}: {e}") from None


@dataclass
class Layout:
    columns: list[list[int]]
    face_down: list[int]
    stock: list[int] = field(default_factory=list)
    waste: list[int] = field(default_factory=list)
    cells: list = field(default_factory=list)
    foundations: list[int] = field(default_factory=list)
    pass_number: int = 1

    # ---- JSON ---------------------------------------------------------------
    def to_dict(self) -> dict:
        d = {
            "columns": [[card_text(c) for c in col] for col in self.columns],
            "face_down": list(self.face_down),
            "stock": [card_text(c) for c in self.stock],
            "cells": [None if c is None else card_text(c) for c in self.cells],
            "foundations": [card_text(c) for c in self.foundations],
        }
        if self.waste:
            d["waste"] = [card_text(c) for c in self.waste]
        if self.pass_number != 1:
            d["pass_number"] = self.pass_number
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Layout":
        if not isinstance(d, dict):
            raise LayoutError("a layout is a JSON object with 'columns', 'face_down' and 'stock'")
        if "layout" in d and "columns" not in d:
            d = d["layout"]  # accept a whole solution JSON
        try:
            columns = d["columns"]
        except KeyError:
            raise LayoutError("layout has no 'columns'") from None
        if not isinstance(columns, list) or not all(isinstance(c, list) for c in columns):
            raise LayoutError("'columns' must be a list of lists of cards")
        try:
            cols = [[parse_card(c) for c in col] for col in columns]
            face_down = d.get("face_down")
            if face_down is None:
                face_down = [0] * len(cols)
            if not isinstance(face_down, list) or not all(isinstance(x, int) for x in face_down):
                raise LayoutError("'face_down' must be a list of whole numbers")
            stock = [parse_card(c) for c in d.get("stock", [])]
            waste = [parse_card(c) for c in d.get("waste", [])]
            cells = [None if c is None else parse_card(c) for c in d.get("cells", [])]
            foundations = [parse_card(c) for c in d.get("foundations", [])]
        except CardError as e:
            raise LayoutError(str(e)) from None
        except TypeError:
            raise LayoutError("layout fields must hold card strings such as \"7H\"") from None
        pass_number = d.get("pass_number", 1)
        if not isinstance(pass_number, int) or pass_number < 1:
            raise LayoutError("'pass_number' must be a whole number >= 1")
        return cls(cols, list(face_down), stock, waste, cells, foundations, pass_number)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, text: str) -> "Layout":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise LayoutError(f"not valid JSON: {e.msg} at line {e.lineno}") from None
        return cls.from_dict(d)

    # ---- text form (readable and readable back) -----------------------------
    def to_text(self) -> str:
        """The text form :meth:`from_text` reads; see the module docstring.

        >>> print(Layout([[0], [13, 26]], [0, 1], stock=[39]).to_text())
        # harpsolve layout: columns bottom to top, face-down cards before '|'
        t1: AC
        t2: AD | AH
        stock: AS
        """
        lines = [TEXT_HEADER]
        key_width = len(f"t{len(self.columns)}:")
        for i, (col, fd) in enumerate(zip(self.columns, self.face_down), 1):
            cards = [card_text(c) for c in col]
            if fd:
                cards.insert(fd, "|")
            lines.append(f"{f't{i}:'.ljust(key_width)} {' '.join(cards)}".rstrip())
        if self.stock:
            lines.append("stock: " + " ".join(card_text(c) for c in self.stock))
        if self.waste:
            lines.append("waste: " + " ".join(card_text(c) for c in self.waste))
        if self.cells:
            lines.append("cells: " + " ".join(EMPTY_CELL if c is None else card_text(c) for c in self.cells))
        if self.foundations:
            lines.append("foundations: " + " ".join(card_text(c) for c in self.foundations))
        if self.pass_number != 1:
            lines.append(f"pass: {self.pass_number}")
        return "\n".join(lines)

    @classmethod
    def from_text(cls, text: str) -> "Layout":
        """Read the text form (``t1: …`` lines, ``stock:``, ``waste:``, ``cells:``, ``foundations:``, ``pass:``)."""
        columns: dict[int, tuple[list[int], int]] = {}
        parts: dict[str, object] = {}
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            key, sep, rest = line.partition(":")
            key = key.strip().lower()
            if not sep:
                raise LayoutError(f"line {lineno}: expected 'name: cards' (t1, stock, waste, cells, foundations, pass), got {raw.strip()!r}")
            where = f"line {lineno} ({key})"
            if _COLUMN_KEY.fullmatch(key):
                i = int(key[1:])
                if i < 1:
                    raise LayoutError(f"{where}: columns are numbered from t1")
                if i in columns:
                    raise LayoutError(f"{where}: column t{i} given twice")
                tokens = rest.replace("|", " | ").split()
                bars = tokens.count("|")
                if bars > 1:
                    raise LayoutError(f"{where}: more than one '|' (it marks where face-down cards end)")
                fd = tokens.index("|") if bars else 0
                columns[i] = ([_text_card(t, where) for t in tokens if t != "|"], fd)
            elif key in ("stock", "waste", "foundations"):
                if key in parts:
                    raise LayoutError(f"{where}: given twice")
                parts[key] = [_text_card(t, where) for t in rest.split()]
            elif key == "cells":
                if key in parts:
                    raise LayoutError(f"{where}: given twice")
                parts[key] = [None if t in _EMPTY_CELLS else _text_card(t, where) for t in rest.split()]
            elif key == "pass":
                if key in parts:
                    raise LayoutError(f"{where}: given twice")
                try:
                    parts[key] = int(rest.strip())
                except ValueError:
                    parts[key] = 0
                if parts[key] < 1:
                    raise LayoutError(f"{where}: the pass number is a whole number >= 1, not {rest.strip()!r}")
            else:
                raise LayoutError(
                    f"line {lineno}: unknown line {key!r}; lines are t1 … t10, stock, waste, cells, foundations, pass"
                )
        if not columns:
            raise LayoutError("no columns: a text layout lists each column as 't1: cards', 't2: cards', …")
        missing = [i for i in range(1, max(columns) + 1) if i not in columns]
        if missing:
            raise LayoutError(f"column t{missing[0]} is missing (columns are t1, t2, … without gaps)")
        cols = [columns[i][0] for i in sorted(columns)]
        fds = [columns[i][1] for i in sorted(columns)]
        return cls(
            cols, fds,
            stock=parts.get("stock", []), waste=parts.get("waste", []),
            cells=parts.get("cells", []), foundations=parts.get("foundations", []),
            pass_number=parts.get("pass", 1),
        )

    # ---- checks -------------------------------------------------------------
    def all_cards(self) -> Counter:
        """Every card the position holds, foundation cards included."""
        cards = [c for col in self.columns for c in col]
        cards += self.stock
        cards += self.waste
        cards += [c for c in self.cells if c is not None]
        for top in self.foundations:  # the ace of its suit up to it
            cards += range(make_card(1, suit_of(top)), top + 1)
        return Counter(cards)

    def validate(self, rules: Rules) -> "Layout":
        """Check that this is a position the rules can reach; raise LayoutError if not."""
        n = rules.n_columns
        if len(self.columns) != n:
            raise LayoutError(f"{rules.name} has {n} columns, the layout has {len(self.columns)}")
        if len(self.face_down) != n:
            raise LayoutError(f"'face_down' has {len(self.face_down)} entries for {n} columns")
        for i, (col, fd) in enumerate(zip(self.columns, self.face_down), 1):
            if fd < 0 or fd > len(col):
                raise LayoutError(f"column {i}: {fd} face-down cards but only {len(col)} cards")
            if col and fd == len(col):
                raise LayoutError(f"column {i}: its top card must be face up")
            if rules.face_down == "none" and fd:
                raise LayoutError(f"column {i}: {rules.name} has no face-down cards")
            if rules.face_down != "none":
                # In the Klondike family a face-up part only ever grows by legal
                # builds, so anything else is not a reachable position.
                up = col[fd:]
                for lo, hi in zip(up, up[1:]):
                    if not builds_on(rules, hi, lo):
                        raise LayoutError(
                            f"column {i}: face-up {card_text(hi)} does not build on {card_text(lo)}"
                        )
        if len(self.cells) > rules.cells:
            raise LayoutError(f"{rules.name} has {rules.cells} free cells, the layout uses {len(self.cells)}")
        if rules.draw == 0 and (self.stock or self.waste):
            raise LayoutError(f"{rules.name} has no stock")
        if not 1 <= self.pass_number <= max(rules.passes, 1) and rules.passes:
            raise LayoutError(f"pass {self.pass_number} is beyond the {rules.passes} passes allowed")
        per_suit = Counter(suit_of(c) for c in self.foundations)
        for s, k in per_suit.items():
            if k > rules.decks:
                raise LayoutError(f"{k} foundations of {'CDHS'[s]}, at most {rules.decks}")
        cnt = self.all_cards()
        total = sum(cnt.values())
        if total != rules.n_cards:
            raise LayoutError(f"the layout holds {total} cards, {rules.name} uses {rules.n_cards}")
        # Report a card held too often before the one it displaced.
        for c in sorted(range(N_KINDS), key=lambda c: cnt[c] <= rules.decks):
            if cnt[c] != rules.decks:
                raise LayoutError(
                    f"card {card_text(c)} appears {cnt[c]} times, {rules.name} has it {rules.decks} times"
                )
        return self


# ---- reading files -----------------------------------------------------------------
def read_layout(text: str) -> Layout:
    """A layout from JSON (anything starting with ``{``) or the text form."""
    if text.lstrip().startswith("{"):
        return Layout.from_json(text)
    return Layout.from_text(text)


def load_layout(path, rules: Rules) -> Layout:
    """Read a layout file (JSON or text, told apart by content; ``-`` = stdin) and validate it."""
    if str(path) == "-":
        import sys

        text = sys.stdin.read()
    else:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    return read_layout(text).validate(rules)


# ---- display --------------------------------------------------------------------------
def render(board, rules: Rules) -> str:
    """A readable picture of a position: columns side by side, then stock, waste,
    foundations and cells.  Face-down cards show as ``##``.

    ``board`` is a :class:`Layout` or anything with a ``to_layout()`` method.
    This is for people; :meth:`Layout.to_text` is the form to save and read back.

    >>> from harpsolve.rules import get_rules
    >>> print(render(Layout([[0], [13, 26]], [0, 1], stock=[39]), get_rules("klondike-1")))
     t1  t2
     AC  ##
         AH
    stock: 1 card, next AS
    waste: empty
    foundations: -- -- -- --
    """
    layout = board if isinstance(board, Layout) else board.to_layout()
    cols = layout.columns
    width = 3
    lines = [" ".join(f"t{i}".rjust(width) for i in range(1, len(cols) + 1))]
    for row in range(max((len(c) for c in cols), default=0)):
        cells = []
        for col, fd in zip(cols, layout.face_down):
            if row >= len(col):
                cells.append("")
            else:
                cells.append(FACE_DOWN_MARK if row < fd else card_text(col[row]))
        lines.append(" ".join(c.rjust(width) for c in cells).rstrip())
    if rules.draw or layout.stock or layout.waste:
        n = len(layout.stock)
        if n:
            nxt = " ".join(card_text(c) for c in layout.stock[: max(rules.draw, 1)])
            lines.append(f"stock: {n} card{'s' if n != 1 else ''}, next {nxt}")
        else:
            lines.append("stock: empty")
        w = layout.waste
        if w:
            shown = " ".join(card_text(c) for c in w[-5:])
            lines.append(f"waste: {len(w)} card{'s' if len(w) != 1 else ''}, {'… ' if len(w) > 5 else ''}{shown} (top last)")
        else:
            lines.append("waste: empty")
        if rules.passes:
            lines.append(f"pass: {layout.pass_number} of {rules.passes}")
        elif layout.pass_number != 1:
            lines.append(f"pass: {layout.pass_number}")
    places = []
    for suit in range(4):
        tops = sorted((c for c in layout.foundations if suit_of(c) == suit), key=rank_of, reverse=True)
        places += [card_text(c) for c in tops] + [EMPTY_CELL] * max(rules.decks - len(tops), 0)
    lines.append("foundations: " + " ".join(places))
    if rules.cells or layout.cells:
        cells = list(layout.cells) + [None] * max(rules.cells - len(layout.cells), 0)
        lines.append("cells: " + " ".join(EMPTY_CELL if c is None else card_text(c) for c in cells))
    return "\n".join(lines)

