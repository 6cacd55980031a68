"""Cards: the one integer encoding used everywhere, and its text forms.

A card *kind* is an integer 0..51::

    card = suit * 13 + (rank - 1)

with rank 1 (ace) .. 13 (king) and suit 0..3 in the order clubs, diamonds,
hearts, spades (``C D H S``).  Red suits are diamonds and hearts.

Two-deck games hold every kind twice.  The two copies are interchangeable
for play, so harpsolve never gives a copy an identity of its own: a board is
described by card kinds only, and a state in which the two copies have
swapped places is literally the same state.

>>> parse_card("7H"), card_text(parse_card("10♠"))
(32, 'TS')
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
N_KINDS = 52

_SYMBOL_TO_SUIT = {s: SUITS[i] for i, s in enumerate(SUIT_SYMBOLS)}


class CardError(ValueError):
    """A card's text form could not be read."""


def make_card(rank: int, suit: int) -> int:
    return suit * 13 + (rank - 1)


def rank_of(card: int) -> int:
    """Rank 1 (ace) .. 13 (king)."""
    return card % 13 + 1


def suit_of(card: int) -> int:
    """Suit 0..3 = clubs, diamonds, hearts, spades."""
    return card // 13


def is_red(card: int) -> bool:
    return suit_of(card) in (1, 2)


def colour_of(card: int) -> int:
    """0 = black, 1 = red."""
    return 1 if is_red(card) else 0


def card_text(card: int, symbols: bool = False) -> str:
    """``7H``/``TS`` (or ``7♥`` with ``symbols=True``)."""
    if not 0 <= card < N_KINDS:
        raise CardError(f"not a card code: {card}")
    suit = SUIT_SYMBOLS[suit_of(card)] if symbols else SUITS[suit_of(card)]
    return RANKS[rank_of(card) - 1] + suit


def parse_card(text: str) -> int:
    """Read ``7H``, ``TS``, ``10S``, ``7♥`` (case-insensitive) into a card kind."""
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r}")
    t = text.strip().upper()
    if len(t) < 2:
        raise CardError(f"unknown card {text!r} (expected rank A23456789TJQK and suit CDHS, e.g. 7H)")
    rank_part, suit_part = t[:-1], t[-1]
    suit_part = _SYMBOL_TO_SUIT.get(suit_part, suit_part)
    if rank_part == "10":
        rank_part = "T"
    if len(rank_part) != 1 or rank_part not in RANKS or suit_part not in SUITS:
        raise CardError(f"unknown card {text!r} (expected rank A23456789TJQK and suit CDHS, e.g. 7H)")
    return make_card(RANKS.index(rank_part) + 1, SUITS.index(suit_part))


def deck(copies: int = 1) -> list[int]:
    """Card kinds of ``copies`` full decks, in kind order (each kind ``copies`` times)."""
    return [c for _ in range(copies) for c in range(N_KINDS)]


def count_cards(cards: Iterable[int]) -> Counter:
    return Counter(cards)
