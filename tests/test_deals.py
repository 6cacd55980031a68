"""Deals: the frozen number -> layout mapping, codes and the daily deal."""
from __future__ import annotations

import datetime as dt
import json
import pathlib
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

import harpsolve.deals as deals
from harpsolve.cards import card_text, parse_card
from harpsolve.deals import (
    MAX_DEAL, DealError, SplitMix64, daily_deal, deal_code, deal_layout, ms_deal,
    parse_deal_code, parse_deal_ref,
)
from harpsolve.layout import Layout
from harpsolve.rules import VARIANTS, RulesError, get_rules

GOLDEN = pathlib.Path(__file__).parent / "golden" / "deals"

# The two best-known FreeCell deals, row by row (row r = card r of each column).
MS_DEALS = {
    1: """
        JD 2D 9H JC 5D 7H 7C 5H
        KD KC 9S 5S AD QC KH 3H
        2S KS 9D QD JS AS AH 3C
        4C 5C TS QH 4H AC 4D 7S
        3S TD 4S TH 8H 2C JH 7D
        6D 8S 8D QS 6C 3D 8C TC
        6S 9C 2H 6H
    """,
    617: """
        7D AD 5C 3S 5S 8C 2D AH
        TD 7S QD AC 6D 8H AS KH
        TH QC 3H 9D 6S 8D 3D TC
        KD 5H 9S 3C 8S 7H 4D JS
        4C QS 9C 9H 7C 6H 2C 2S
        4S TS 2H 5D JC 6C JH QH
        JD KS KC 4H
    """,
}


def rows_of(columns):
    return [[card_text(c[r]) for c in columns if len(c) > r] for r in range(max(map(len, columns)))]


@pytest.mark.parametrize("number", sorted(MS_DEALS))
def test_ms_deal_vectors(number):
    expected = [line.split() for line in MS_DEALS[number].strip().splitlines()]
    assert rows_of(ms_deal(number)) == expected


@pytest.mark.parametrize("number", sorted(MS_DEALS))
def test_bakers_game_uses_the_ms_numbering(number):
    lay = deal_layout(get_rules("bakers-game"), number)
    assert lay.columns == ms_deal(number)
    assert lay.face_down == [0] * 8 and lay.stock == [] and lay.cells == [None] * 4


def test_splitmix64_reference_vector():
    # The published outputs of Vigna's splitmix64.c for seed 1234567.
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(5)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423,
        4593380528125082431, 16408922859458223821,
    ]


def naive_splitmix_deal(decks, sizes, number):
    """The README's description of the frozen shuffle, written out again independently."""
    m = 2**64
    state = number
    def nxt():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) % m
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % m
        return z ^ (z >> 31)
    cards = list(range(52)) * decks
    for i in reversed(range(1, len(cards))):
        j = nxt() % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    cols = [[] for _ in sizes]
    it = iter(cards)
    for r in range(max(sizes)):
        for i, s in enumerate(sizes):
            if r < s:
                cols[i].append(next(it))
    return cols, list(it)


@pytest.mark.parametrize("variant", [v for v, r in VARIANTS.items() if r.deal == "splitmix"])
@pytest.mark.parametrize("number", [1, 77, 999_999])
def test_splitmix_deal_matches_its_description(variant, number):
    rules = VARIANTS[variant]
    lay = deal_layout(rules, number)
    cols, stock = naive_splitmix_deal(rules.decks, rules.columns, number)
    assert lay.columns == cols and lay.stock == stock
    assert lay.face_down == [len(c) - 1 for c in cols]


def test_golden_files_cover_every_variant():
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(VARIANTS)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_golden_deals(variant):
    data = json.loads((GOLDEN / f"{variant}.json").read_text())
    assert data["variant"] == variant
    assert sorted(map(int, data["deals"])) == [1, 2, 5, 617, 999_999]
    rules = VARIANTS[variant]
    for n, entry in data["deals"].items():
        assert deal_code(int(n)) == entry["code"]
        assert deal_layout(rules, int(n)).to_dict() == entry["layout"], f"{variant} deal {n} changed"


def test_same_cards_across_rules_that_share_the_deck_and_columns():
    for n in (1, 5, 617):
        eh, harp = deal_layout(VARIANTS["easy-harp"], n), deal_layout(VARIANTS["harp"], n)
        assert eh.columns == harp.columns and eh.stock == harp.stock
        assert deal_layout(VARIANTS["big-harp"], n) == deal_layout(VARIANTS["endless-harp"], n)


def test_deal_field_is_a_rule():
    r = get_rules("bakers-game", ["deal=splitmix"])
    assert deal_layout(r, 1).columns != ms_deal(1)
    with pytest.raises(RulesError):
        get_rules("easy-harp", ["deal=ms"])  # the MS numbering is one deck
    k = get_rules("klondike-1", ["deal=ms"])
    assert [card_text(c[0]) for c in deal_layout(k, 1).columns] == "JD 2D 9H JC 5D 7H 7C".split()


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), number=st.integers(1, MAX_DEAL))
def test_every_deal_is_a_valid_layout(variant, number):
    rules = VARIANTS[variant]
    lay = deal_layout(rules, number)
    lay.validate(rules)
    assert [len(c) for c in lay.columns] == list(rules.columns)
    assert len(lay.stock) == rules.stock_size
    assert Counter(lay.all_cards()) == Counter({c: rules.decks for c in range(52)})


@pytest.mark.parametrize("bad", [0, -1, MAX_DEAL + 1, 10**9, True, 1.0, "5"])
def test_deal_number_out_of_range(bad):
    with pytest.raises(DealError, match="deal number must be 1"):
        deal_layout(VARIANTS["easy-harp"], bad)


# ---- codes -------------------------------------------------------------------------
def test_code_examples():
    assert deal_code(5) == "EH1-N-AAAAAAF"
    assert deal_code(1) == "EH1-N-AAAAAAB"
    assert deal_code(26) == "EH1-N-AAAAABA"
    assert parse_deal_code("EH1-N-AAAAAAF") == 5
    assert parse_deal_code("  eh1-n-aaaaaaf ") == 5
    assert parse_deal_code(deal_code(MAX_DEAL)) == MAX_DEAL


@given(st.integers(1, MAX_DEAL))
def test_code_round_trip(n):
    code = deal_code(n)
    assert len(code) == 13 and code.startswith("EH1-N-")
    assert parse_deal_code(code) == n
    assert parse_deal_code(code.lower()) == n
    assert parse_deal_ref(code) == n


@pytest.mark.parametrize(
    "code, message",
    [
        ("EH2-N-AAAAAAF", "starts with"),
        ("EH1-X-AAAAAAF", "starts with"),
        ("AAAAAAF", "starts with"),
        ("EH1-N-AAAAAF", "7 letters"),
        ("EH1-N-AAAAAAAF", "7 letters"),
        ("EH1-N-AAAA1AF", "letters A-Z"),
        ("EH1-N-AAAA AF", "letters A-Z"),
        ("EH1-N-AAAAÉAF", "letters A-Z"),
        ("EH1-N-AAAAAAA", "names deal 0"),
        ("EH1-N-ZZZZZZZ", "names deal"),
    ],
)
def test_bad_codes(code, message):
    with pytest.raises(DealError, match=message):
        parse_deal_code(code)


# ---- daily deal and deal references --------------------------------------------------
def test_daily_deal_is_a_frozen_function_of_the_date():
    day0 = dt.date(2000, 1, 1)
    assert daily_deal(day0) == 1 + 0xE220A8397B1DCDAF % 999_999
    assert daily_deal(dt.date(2026, 11, 30)) == 1 + SplitMix64((dt.date(2026, 11, 30) - day0).days).next() % 999_999
    days = [daily_deal(day0 + dt.timedelta(days=k)) for k in range(400)]
    assert all(1 <= d <= MAX_DEAL for d in days) and len(set(days)) > 390
    assert daily_deal() == daily_deal(dt.date.today())


def test_parse_deal_ref():
    assert parse_deal_ref("5") == 5
    assert parse_deal_ref(" 999999 ") == 999_999
    assert parse_deal_ref("EH1-N-AAAAAAF") == 5
    assert parse_deal_ref("daily") == daily_deal()
    assert parse_deal_ref("DAILY:2026-11-30") == daily_deal(dt.date(2026, 11, 30))


@pytest.mark.parametrize(
    "text, message",
    [
        ("0", "must be 1"),
        ("-3", "must be 1"),
        ("1000000", "must be 1"),
        ("five", "not a deal"),
        ("5.0", "not a deal"),
        ("", "not a deal"),
        ("daily:2026-02-30", "YYYY-MM-DD"),
        ("daily:20261130", "YYYY-MM-DD"),
        ("daily:", "YYYY-MM-DD"),
        ("EH1-N-AAAAAF", "7 letters"),
    ],
)
def test_bad_deal_refs(text, message):
    with pytest.raises(DealError, match=message):
        parse_deal_ref(text)
