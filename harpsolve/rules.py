"""Rules as data: one frozen record per variant, every rule a field.

The search kernel, the reference engine and the deal generator all branch on
these fields, never on a variant's name.  A research question such as "how
much does foundation take-back matter?" is one override away::

    >>> r = get_rules("easy-harp", ["takeback=false"])
    >>> r.takeback, r.label
    (False, 'easy-harp[takeback=false]')

Field meanings (SPEC §2):

``decks``            1 or 2 full decks; every card kind appears ``decks`` times.
``columns``          cards dealt to each tableau column, left to right (at most
                     ``MAX_DEALT`` each: the packed state sizes columns for it).
``face_down``        ``all-but-top`` (only each column's last card face up) or ``none``.
``draw``             cards turned per stock tap (1 or 3); 0 when there is no stock.
                     The stock is whatever the tableau does not take.
``passes``           times through the stock (``N`` passes = at most N-1 recycles);
                     0 means unlimited.
``build``            tableau building: ``alternate`` (down, alternating colour) or
                     ``suit`` (down, same suit).
``column_moves``     ``single`` (only a column's top card moves) or ``runs``
                     (any face-up built run moves as a unit).
``king_runs``        with ``single``: a king-led built run may still move as a block,
                     and only to an empty column (the Easy Harp exception).
``empty``            what an empty column takes: ``king`` (a king, or a king-led run
                     where runs may move) or ``any`` (any single card).
``cells``            number of free cells (each holds one card).
``takeback``         the top card of a foundation may go back to the tableau.
``scoring``          ``easy-harp`` (the app's table) or ``none``.
``deal``             how a deal number becomes a layout: ``ms`` (the Microsoft
                     FreeCell numbering, one deck; what every FreeCell and Baker's
                     Game program shares) or ``splitmix`` (harpsolve's frozen
                     shuffle).  See ``harpsolve/deals.py`` and the README.

Foundations: ``4 * decks`` places, ``decks`` per suit, each built A→K in one
suit.  Whether an ace may start *any* empty place (endless-harp) or only a
place reserved for its suit (easy-harp) gives the same game: a suit never has
more aces than places, so the two readings reach the same positions up to
renaming places.  harpsolve therefore models places reserved per suit.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass, fields

from .cards import N_KINDS, colour_of, rank_of, suit_of

# The most cards dealt to one column.  A column never holds more than the cards under its
# top run plus a 13-card run (K..A), so a dealt column of n cards grows to at most n + 12;
# state.py sizes its columns from this (MAXLEN = MAX_DEALT + 12).
MAX_DEALT = 20


class RulesError(ValueError):
    """An unknown variant or an invalid rules override."""


FACE_DOWN = ("all-but-top", "none")
BUILD = ("alternate", "suit")
COLUMN_MOVES = ("single", "runs")
EMPTY = ("king", "any")
SCORING = ("easy-harp", "none")
DEAL = ("ms", "splitmix")


@dataclass(frozen=True)
class Rules:
    name: str
    decks: int
    columns: tuple[int, ...]
    face_down: str
    draw: int
    passes: int
    build: str
    column_moves: str
    king_runs: bool
    empty: str
    cells: int
    takeback: bool
    scoring: str
    deal: str = "splitmix"
    description: str = ""

    # ---- derived quantities -------------------------------------------------
    @property
    def n_cards(self) -> int:
        return N_KINDS * self.decks

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    @property
    def stock_size(self) -> int:
        return self.n_cards - sum(self.columns)

    @property
    def n_foundations(self) -> int:
        return 4 * self.decks

    @property
    def unlimited_passes(self) -> bool:
        return self.passes == 0

    @functools.cached_property
    def label(self) -> str:
        """The variant id, followed by the overrides that differ from its preset (computed once:
        the reference engine names the rules in its reasons, move after move)."""
        base = VARIANTS.get(self.name)
        if base is None:
            return self.name
        diffs = [
            f"{f.name}={value_text(getattr(self, f.name))}"
            for f in fields(self)
            if f.name in RULE_FIELDS and getattr(self, f.name) != getattr(base, f.name)
        ]
        return self.name + (f"[{','.join(diffs)}]" if diffs else "")

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in RULE_FIELDS}

    def fingerprint(self) -> str:
        """A stable 12-hex-digit digest of the game-defining fields.

        Results computed under different rules never share a fingerprint, so
        they cannot be mixed silently.  The name and description do not enter.
        """
        blob = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def validate(self) -> "Rules":
        def need(cond: bool, msg: str) -> None:
            if not cond:
                raise RulesError(f"{self.name}: {msg}")

        need(self.decks in (1, 2), "decks must be 1 or 2")
        need(1 <= len(self.columns) <= 10, "between 1 and 10 columns")
        need(all(c >= 0 for c in self.columns), "column sizes must be >= 0")
        need(all(c <= MAX_DEALT for c in self.columns),
             f"at most {MAX_DEALT} cards dealt to a column (the solver's state holds {MAX_DEALT - 1} "
             "cards under a 13-card run)")
        need(self.stock_size >= 0, f"the columns take {sum(self.columns)} cards, more than the {self.n_cards} in the deck")
        need(self.face_down in FACE_DOWN, f"face_down must be one of {', '.join(FACE_DOWN)}")
        need(self.build in BUILD, f"build must be one of {', '.join(BUILD)}")
        need(self.column_moves in COLUMN_MOVES, f"column_moves must be one of {', '.join(COLUMN_MOVES)}")
        need(self.empty in EMPTY, f"empty must be one of {', '.join(EMPTY)}")
        need(self.scoring in SCORING, f"scoring must be one of {', '.join(SCORING)}")
        need(self.deal in DEAL, f"deal must be one of {', '.join(DEAL)}")
        need(self.deal != "ms" or self.decks == 1, "deal=ms numbers one-deck deals only")
        need(self.draw in (0, 1, 2, 3), "draw must be 0 (no stock), 1, 2 or 3")
        need(self.stock_size == 0 or self.draw > 0, "a deal with a stock needs draw >= 1")
        need(0 <= self.passes <= 100, "passes must be 0 (unlimited) .. 100")
        need(0 <= self.cells <= 8, "cells must be 0 .. 8")
        return self


RULE_FIELDS = tuple(f.name for f in fields(Rules) if f.name not in ("name", "description"))


def value_text(value, name: str = "", explain: bool = False) -> str:
    """A rules value as the text ``--rule NAME=VALUE`` reads back (a JSON
    list counts as a tuple); ``explain`` adds what a 0 means.

    >>> value_text(True), value_text((1, 2, 3)), value_text(0, "passes", explain=True)
    ('true', '1,2,3', '0 (unlimited)')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(str(x) for x in value)
    if explain and value == 0 and name in ("passes", "draw"):
        return "0 (unlimited)" if name == "passes" else "0 (no stock)"
    return str(value)




def parse_label(text: str) -> tuple[str, dict[str, str]]:
    """A rules label, as :attr:`Rules.label` writes it, back into the variant
    and its overrides.

    >>> parse_label("easy-harp[passes=3,columns=1,2,3]")
    ('easy-harp', {'passes': '3', 'columns': '1,2,3'})
    """
    import re

    m = re.fullmatch(r"\s*([\w-]+)\s*(?:\[(.*)\])?\s*", text)
    if m is None:
        raise RulesError(f"not a rules label such as easy-harp[passes=3]: {text!r}")
    out: dict[str, str] = {}
    last = None
    for part in (m.group(2) or "").split(","):
        if "=" in part:
            last, value = part.split("=", 1)
            out[last.strip()] = value
        elif last is not None and part:
            out[last.strip()] += "," + part  # a tuple value such as columns=1,2,3
        elif part.strip():
            raise RulesError(f"cannot read rule override {part!r} in {text!r}")
    return m.group(1), out


def describe(rules: "Rules") -> str:
    """The rules in words, from the fields (what ``variants`` prints for overridden rules).

    >>> describe(get_rules("bakers-game", ["cells=2"]))
    '1 deck, 8 columns (7,7,7,7,6,6,6,6), all face up; no stock; build down in suit; single cards move; an empty column takes any card; 2 free cells; no take-back.'
    """
    parts = [f"{rules.decks} deck{'s' if rules.decks > 1 else ''}, {rules.n_columns} columns "
             f"({value_text(rules.columns)}), " + ("all face up" if rules.face_down == "none"
                                                    else "all but each column's top card face down")]
    if rules.stock_size and rules.draw:
        passes = "unlimited passes" if rules.passes == 0 else f"{rules.passes} pass{'es' if rules.passes > 1 else ''}"
        parts.append(f"stock of {rules.stock_size}, draw {rules.draw}, {passes}")
    else:
        parts.append("no stock")
    parts.append("build down " + ("in suit" if rules.build == "suit" else "in alternating colours"))
    if rules.column_moves == "runs":
        parts.append("built runs move as units")
    else:
        parts.append("single cards move" + (", and a king-led run as a block to an empty column"
                                            if rules.king_runs else ""))
    parts.append("an empty column takes " + ("any card" if rules.empty == "any" else "a king"))
    if rules.cells:
        parts.append(f"{rules.cells} free cell{'s' if rules.cells > 1 else ''}")
    parts.append("take-back from the foundations" if rules.takeback else "no take-back")
    if rules.scoring != "none":
        parts.append(f"{rules.scoring} scoring")
    return "; ".join(parts) + "."


_KLONDIKE = dict(
    decks=1, columns=(1, 2, 3, 4, 5, 6, 7), face_down="all-but-top", passes=0,
    build="alternate", column_moves="runs", king_runs=False, empty="king",
    cells=0, takeback=True, scoring="none",
)

VARIANTS: dict[str, Rules] = {
    r.name: r.validate()
    for r in [
        Rules(
            name="easy-harp", decks=2, columns=tuple(range(1, 10)), face_down="all-but-top",
            draw=1, passes=0, build="alternate", column_moves="single", king_runs=True,
            empty="king", cells=0, takeback=True, scoring="easy-harp",
            description="Two decks, 9 columns, draw 1, unlimited passes; single cards only, "
            "except a king-led run may move as a block to an empty column.",
        ),
        Rules(
            name="harp", decks=2, columns=tuple(range(1, 10)), face_down="all-but-top",
            draw=1, passes=4, build="alternate", column_moves="single", king_runs=False,
            empty="king", cells=0, takeback=True, scoring="none",
            description="The family parent: Easy Harp with 4 passes and no run moves at all.",
        ),
        Rules(
            name="big-harp", decks=2, columns=tuple(range(1, 11)), face_down="all-but-top",
            draw=3, passes=3, build="alternate", column_moves="runs", king_runs=False,
            empty="king", cells=0, takeback=True, scoring="none",
            description="Two decks, 10 columns, draw 3, 3 passes; built runs move as units.",
        ),
        Rules(
            name="endless-harp", decks=2, columns=tuple(range(1, 11)), face_down="all-but-top",
            draw=3, passes=0, build="alternate", column_moves="runs", king_runs=False,
            empty="king", cells=0, takeback=True, scoring="none",
            description="Big Harp without its pass limit: draw 3, unlimited passes.",
        ),
        Rules(
            name="bakers-game", decks=1, columns=(7, 7, 7, 7, 6, 6, 6, 6), face_down="none",
            draw=0, passes=0, build="suit", column_moves="single", king_runs=False,
            empty="any", cells=4, takeback=False, scoring="none", deal="ms",
            description="One deck all face up in 8 columns, 4 free cells, build down in suit, "
            "any card to an empty column, single-card moves, no take-back.",
        ),
        Rules(name="klondike-1", draw=1, description="Thoughtful Klondike, draw 1, unlimited passes.", **_KLONDIKE),
        Rules(name="klondike-3", draw=3, description="Thoughtful Klondike, draw 3, unlimited passes.", **_KLONDIKE),
    ]
}


def builds_on(rules: Rules, card: int, base: int) -> bool:
    """May ``card`` be placed on ``base`` in a tableau column under ``rules.build``?"""
    if rank_of(card) + 1 != rank_of(base):
        return False
    if rules.build == "suit":
        return suit_of(card) == suit_of(base)
    return colour_of(card) != colour_of(base)


def _parse_value(name: str, current, text: str):
    t = text.strip().lower()
    if isinstance(current, bool):
        if t in ("true", "yes", "on", "1"):
            return True
        if t in ("false", "no", "off", "0"):
            return False
        raise RulesError(f"rule {name} takes true or false, not {text!r}")
    if isinstance(current, int):
        if name == "passes" and t in ("unlimited", "inf", "infinite"):
            return 0
        try:
            return int(t)
        except ValueError:
            raise RulesError(f"rule {name} takes a whole number, not {text!r}") from None
    if isinstance(current, tuple):
        try:
            return tuple(int(x) for x in t.split(","))
        except ValueError:
            raise RulesError(f"rule {name} takes comma-separated whole numbers, not {text!r}") from None
    return t


def with_overrides(rules: Rules, overrides) -> Rules:
    """Apply ``name=value`` overrides (strings) or a mapping; validate the result."""
    if not overrides:
        return rules
    items = overrides.items() if isinstance(overrides, dict) else [_split(o) for o in overrides]
    changes = {}
    for name, value in items:
        name = name.strip().replace("-", "_")
        if name not in RULE_FIELDS:
            raise RulesError(f"unknown rule {name!r}; rules are: {', '.join(RULE_FIELDS)}")
        current = getattr(rules, name)
        changes[name] = _parse_value(name, current, value) if isinstance(value, str) else value
    out = dataclasses.replace(rules, **changes).validate()
    preset = VARIANTS.get(out.name)
    if preset is not None and out.as_dict() != preset.as_dict():
        # the preset's prose would describe other rules (e.g. "4 free cells" with cells=2)
        out = dataclasses.replace(out, description=describe(out))
    return out


def _split(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise RulesError(f"a rule override looks like name=value, not {text!r}")
    k, v = text.split("=", 1)
    return k, v


def get_rules(variant: str, overrides=None) -> Rules:
    """The preset of ``variant`` with ``overrides`` applied."""
    try:
        base = VARIANTS[variant]
    except KeyError:
        raise RulesError(f"unknown variant {variant!r}; known variants: {', '.join(VARIANTS)}") from None
    return with_overrides(base, overrides)
