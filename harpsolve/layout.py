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
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from .cards import CardError, card_text, parse_card, rank_of, suit_of, make_card, N_KINDS
from .rules import Rules, builds_on


class LayoutError(ValueError):
    """A layout that is not a valid position for its rules."""


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

    # ---- checks -------------------------------------------------------------
    def all_cards(self) -> Counter:
        """Every card the position holds, foundation cards included."""
        cnt = Counter()
        for col in self.columns:
            cnt.update(col)
        cnt.update(self.stock)
        cnt.update(self.waste)
        cnt.update(c for c in self.cells if c is not None)
        for top in self.foundations:
            cnt.update(make_card(r, suit_of(top)) for r in range(1, rank_of(top) + 1))
        return cnt

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
        for c in range(N_KINDS):
            if cnt[c] != rules.decks:
                raise LayoutError(
                    f"card {card_text(c)} appears {cnt[c]} times, {rules.name} has it {rules.decks} times"
                )
        return self
