"""Deals: deal number, deal code or date -> the starting layout.

The mapping is frozen: it never changes between releases, and the golden
files in ``tests/golden/deals/`` pin it.  It is written with plain integer
arithmetic so that anyone can reimplement it (the README spells it out).

Two shuffles, chosen by the rules field ``deal``:

``ms``        The Microsoft FreeCell numbering (one deck), so that Baker's
              Game deal N here is deal N in every FreeCell/Baker's Game
              program.
``splitmix``  harpsolve's own shuffle: SplitMix64 seeded with the deal number,
              Fisher–Yates over ``decks`` copies of the kinds 0..51.

Either shuffle yields a sequence of cards that is then dealt the same way:
round-robin, row by row, left to right, skipping a column once it holds its
``rules.columns[i]`` cards; what remains is the stock, first card drawn
first.  A ``splitmix`` deal depends only on (decks, columns, number), so
``easy-harp`` and ``harp`` deal N are the same cards: rules comparisons are
deal-for-deal.

>>> deal_code(5), parse_deal_code("eh1-n-aaaaaaf")
('EH1-N-AAAAAAF', 5)
"""
from __future__ import annotations

import datetime as _dt
import re

from .cards import N_KINDS, make_card
from .layout import Layout
from .rules import Rules


class DealError(ValueError):
    """A deal number, code or date that does not name a deal."""


MAX_DEAL = 999_999

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


# ---- the two shuffles ---------------------------------------------------------
class SplitMix64:
    """SplitMix64 (Steele, Lea & Flood 2014), the generator behind the frozen shuffle.

    >>> hex(SplitMix64(0).next())
    '0xe220a8397b1dcdaf'
    """

    def __init__(self, seed: int):
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)


def splitmix_order(decks: int, number: int) -> list[int]:
    """The frozen shuffle: ``decks`` copies of kinds 0..51, Fisher–Yates from the end."""
    cards = [c for _ in range(decks) for c in range(N_KINDS)]
    rng = SplitMix64(number)
    for i in range(len(cards) - 1, 0, -1):
        j = rng.next() % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def ms_order(number: int) -> list[int]:
    """The Microsoft FreeCell shuffle of deal ``number``: 52 card kinds in dealing order.

    MS card index ``c`` is rank ``c // 4`` (A..K) and suit ``c % 4`` in the
    order C D H S.  Card ``i`` of the result goes to column ``i % 8``.
    """
    state = number & 0x7FFFFFFF
    deck = list(range(52))
    out = []
    left = 52
    while left:
        state = (state * 214013 + 2531011) & 0x7FFFFFFF
        j = (state >> 16) % left
        out.append(deck[j])
        deck[j] = deck[left - 1]
        left -= 1
    return [make_card(c // 4 + 1, c % 4) for c in out]


def ms_deal(number: int) -> list[list[int]]:
    """Microsoft FreeCell deal ``number``: 8 columns, each bottom card first.

    >>> from harpsolve.cards import card_text
    >>> " ".join(card_text(col[0]) for col in ms_deal(1))
    'JD 2D 9H JC 5D 7H 7C 5H'
    """
    order = ms_order(number)
    return [order[i::8] for i in range(8)]


# ---- dealing --------------------------------------------------------------------
def check_number(number) -> int:
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_DEAL:
        raise DealError(f"deal number must be 1 … {MAX_DEAL}, not {number}")
    return number


def deal_order(rules: Rules, number: int) -> list[int]:
    """The shuffled cards of deal ``number`` in dealing order (``rules.deal`` picks the shuffle)."""
    check_number(number)
    if rules.deal == "ms":
        if rules.decks != 1:
            raise DealError("the Microsoft numbering deals one deck only")
        return ms_order(number)
    return splitmix_order(rules.decks, number)


def deal_layout(rules: Rules, number: int) -> Layout:
    """The starting layout of deal ``number`` (1 … 999 999) under ``rules``.

    >>> from harpsolve.rules import get_rules
    >>> lay = deal_layout(get_rules("easy-harp"), 5)
    >>> [len(c) for c in lay.columns], lay.face_down[:3], len(lay.stock)
    ([1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 1, 2], 59)
    """
    order = deal_order(rules, number)
    sizes = rules.columns
    columns: list[list[int]] = [[] for _ in sizes]
    k = 0
    for row in range(max(sizes, default=0)):
        for i, size in enumerate(sizes):
            if size > row:
                columns[i].append(order[k])
                k += 1
    stock = order[k:]
    if rules.face_down == "all-but-top":
        face_down = [max(len(c) - 1, 0) for c in columns]
    else:
        face_down = [0] * len(columns)
    layout = Layout(columns, face_down, stock=stock, cells=[None] * rules.cells)
    return layout.validate(rules)


# ---- Easy Harp deal codes ---------------------------------------------------------
CODE_PREFIX = "EH1-N-"
CODE_LETTERS = 7
_CODE_RE = re.compile(r"[A-Z]+", re.ASCII)


def deal_code(number: int) -> str:
    """``EH1-N-`` + the deal number in base 26, 7 letters, big-endian, ``A`` = 0."""
    n = check_number(number)
    letters = []
    for _ in range(CODE_LETTERS):
        n, d = divmod(n, 26)
        letters.append(chr(ord("A") + d))
    return CODE_PREFIX + "".join(reversed(letters))


def parse_deal_code(text: str) -> int:
    """The deal number of a code such as ``EH1-N-AAAAAAF`` (case-insensitive)."""
    t = text.strip().upper()
    if not t.startswith(CODE_PREFIX):
        raise DealError(f"a deal code starts with {CODE_PREFIX!r} (e.g. EH1-N-AAAAAAF), not {text!r}")
    body = t[len(CODE_PREFIX):]
    if len(body) != CODE_LETTERS:
        raise DealError(f"a deal code has {CODE_LETTERS} letters after {CODE_PREFIX!r}, {text!r} has {len(body)}")
    if not _CODE_RE.fullmatch(body):
        raise DealError(f"a deal code's last part is letters A-Z only, not {body!r}")
    n = 0
    for ch in body:
        n = n * 26 + (ord(ch) - ord("A"))
    if not 1 <= n <= MAX_DEAL:
        raise DealError(f"deal code {text!r} names deal {n}; deal numbers are 1 … {MAX_DEAL}")
    return n


# ---- daily deal -----------------------------------------------------------------------
DAILY_EPOCH = _dt.date(2000, 1, 1)


def daily_deal(date: _dt.date | None = None) -> int:
    """The deal of the day: ``1 + SplitMix64(days since 2000-01-01).next() % 999999``.

    ``date`` defaults to today's local date.  The same for every variant.

    >>> daily_deal(_dt.date(2000, 1, 1)) == 1 + 0xE220A8397B1DCDAF % 999999
    True
    """
    if date is None:
        date = _dt.date.today()
    days = date.toordinal() - DAILY_EPOCH.toordinal()
    return 1 + SplitMix64(days).next() % MAX_DEAL


_NUMBER_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def parse_deal_ref(text: str) -> int:
    """A deal number from ``5``, ``EH1-N-AAAAAAF``, ``daily`` (today) or ``daily:2026-11-30``."""
    t = str(text).strip()
    low = t.lower()
    if _NUMBER_RE.fullmatch(t):
        n = int(t)
        if not 1 <= n <= MAX_DEAL:
            raise DealError(f"deal number must be 1 … {MAX_DEAL}, not {n}")
        return n
    if low == "daily":
        return daily_deal()
    if low.startswith("daily:"):
        day = t[len("daily:"):].strip()
        try:
            if not _DATE_RE.fullmatch(day):
                raise ValueError
            return daily_deal(_dt.date.fromisoformat(day))
        except ValueError:
            raise DealError(f"a daily deal's date is a real date written YYYY-MM-DD, not {day!r}") from None
    if low.startswith("eh"):
        return parse_deal_code(t)
    raise DealError(
        f"not a deal: {text!r} (give a number 1 … {MAX_DEAL}, a code such as EH1-N-AAAAAAF, "
        "'daily' or 'daily:YYYY-MM-DD')"
    )
