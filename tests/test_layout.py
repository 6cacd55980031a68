"""Layouts: JSON and text round trips, file loading, validation errors, rendering."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

import harpsolve.layout as layout_mod
from harpsolve.cards import card_text, parse_card
from harpsolve.deals import MAX_DEAL, deal_layout
from harpsolve.layout import Layout, LayoutError, load_layout, read_layout, render
from harpsolve.rules import VARIANTS, builds_on as rules_build, get_rules

cards = st.integers(0, 51)


@st.composite
def layouts(draw):
    """Arbitrary layouts (not necessarily valid positions): the forms must carry anything."""
    cols = draw(st.lists(st.lists(cards, max_size=12), min_size=1, max_size=10))
    fds = [draw(st.integers(0, len(c))) for c in cols]
    return Layout(
        cols, fds,
        stock=draw(st.lists(cards, max_size=30)),
        waste=draw(st.lists(cards, max_size=10)),
        cells=draw(st.lists(st.none() | cards, max_size=4)),
        foundations=draw(st.lists(cards, max_size=8)),
        pass_number=draw(st.integers(1, 5)),
    )


deals = st.tuples(st.sampled_from(sorted(VARIANTS)), st.integers(1, MAX_DEAL))


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_json_round_trip(lay):
    assert Layout.from_json(lay.to_json()) == lay
    assert Layout.from_dict(json.loads(json.dumps(lay.to_dict()))) == lay


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_text_round_trip(lay):
    text = lay.to_text()
    assert Layout.from_text(text) == lay
    assert read_layout(text) == lay and read_layout(lay.to_json()) == lay


@settings(max_examples=30, deadline=None)
@given(deals)
def test_deal_round_trips(deal):
    variant, number = deal
    rules = VARIANTS[variant]
    lay = deal_layout(rules, number)
    assert Layout.from_text(lay.to_text()).validate(rules) == lay
    assert Layout.from_json(lay.to_json()).validate(rules) == lay


def test_text_form_example():
    text = """
        # a hand-typed easy-harp position (comments and blank lines are fine)
        t2: 9C|KS
        t1: 4d
        t3:
        stock: 7H 10C   # '10' and lower case are accepted
        waste: 2D 5♠
        cells: -- 5S . -
        foundations: 3C AH
        pass: 2
    """
    lay = Layout.from_text(text)
    c = parse_card
    assert lay.columns == [[c("4D")], [c("9C"), c("KS")], []]
    assert lay.face_down == [0, 1, 0]
    assert lay.stock == [c("7H"), c("TC")] and lay.waste == [c("2D"), c("5S")]
    assert lay.cells == [None, c("5S"), None, None]
    assert lay.foundations == [c("3C"), c("AH")] and lay.pass_number == 2


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no columns"),
        ("stock: 5H", "no columns"),
        ("t1: 4D\nt3: 5D", "t2 is missing"),
        ("t1: 4D\nt1: 5D", "given twice"),
        ("t0: 4D", "numbered from t1"),
        ("t1: 4D | 5D | 6D", "more than one"),
        ("t1: 4X", "line 1 \\(t1\\): unknown card '4X'"),
        ("t1: 4D\nstock: 1H", "line 2 \\(stock\\): unknown card"),
        ("t1: 4D\nfoo: 5H", "unknown line 'foo'"),
        ("t1: 4D\njust words", "expected 'name: cards'"),
        ("t1: 4D\npass: 0", "pass number"),
        ("t1: 4D\npass: two", "pass number"),
        ("t1: 4D\nstock: 5H\nstock: 6H", "given twice"),
    ],
)
def test_text_errors(text, message):
    with pytest.raises(LayoutError, match=message):
        Layout.from_text(text)


# ---- validation ------------------------------------------------------------------------
def easy(n=5):
    return deal_layout(VARIANTS["easy-harp"], n)


def test_wrong_card_count():
    lay = easy()
    lay.stock.pop()
    with pytest.raises(LayoutError, match="holds 103 cards, easy-harp uses 104"):
        lay.validate(VARIANTS["easy-harp"])


def test_duplicate_beyond_deck_count():
    lay = easy()
    extra = lay.stock[0]
    k = next(i for i, c in enumerate(lay.stock) if c != extra)
    lay.stock[k] = extra
    with pytest.raises(LayoutError, match=f"card {card_text(extra)} appears 3 times, easy-harp has it 2 times"):
        lay.validate(VARIANTS["easy-harp"])


def test_duplicate_in_one_deck_game():
    rules = VARIANTS["bakers-game"]
    lay = deal_layout(rules, 617)
    lay.columns[0][0] = lay.columns[1][0]  # two AD, no 7D
    with pytest.raises(LayoutError, match="card AD appears 2 times, bakers-game has it 1 times"):
        lay.validate(rules)


def test_unknown_card():
    d = easy().to_dict()
    d["stock"][3] = "1Z"
    with pytest.raises(LayoutError, match="unknown card '1Z'"):
        Layout.from_dict(d)


def test_face_up_run_not_built():
    rules = VARIANTS["easy-harp"]
    lay = easy()
    hidden, top = lay.columns[1]
    assert not rules_build(rules, top, hidden)
    lay.face_down[1] = 0  # column 2's hidden card turned face up: the two do not build
    with pytest.raises(LayoutError, match=f"column 2: face-up {card_text(top)} does not build on {card_text(hidden)}"):
        lay.validate(rules)


def test_wrong_column_count_and_face_down():
    rules = VARIANTS["easy-harp"]
    lay = easy()
    lay.columns.append([])
    with pytest.raises(LayoutError, match="9 columns"):
        lay.validate(rules)
    lay = easy()
    lay.face_down[0] = 1
    with pytest.raises(LayoutError, match="top card must be face up"):
        lay.validate(rules)
    bg = VARIANTS["bakers-game"]
    lay = deal_layout(bg, 1)
    lay.face_down[0] = 2
    with pytest.raises(LayoutError, match="no face-down cards"):
        lay.validate(bg)


# ---- files ---------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["json", "text", "solution-json"])
def test_load_layout(tmp_path, form):
    rules = VARIANTS["easy-harp"]
    lay = easy(617)
    body = {
        "json": lay.to_json(indent=1),
        "text": lay.to_text(),
        "solution-json": json.dumps({"variant": "easy-harp", "deal": 617, "layout": lay.to_dict()}),
    }[form]
    path = tmp_path / "game.txt"
    path.write_text("\n" + body)
    assert load_layout(path, rules) == lay
    assert load_layout(str(path), rules) == lay


def test_load_layout_validates(tmp_path):
    lay = easy()
    path = tmp_path / "bad.txt"
    path.write_text(lay.to_text())
    with pytest.raises(LayoutError, match="has 8 columns"):
        load_layout(path, VARIANTS["bakers-game"])
    path.write_text("{not json")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(path, VARIANTS["easy-harp"])


# ---- rendering ----------------------------------------------------------------------------
def test_render_easy_harp():
    rules = VARIANTS["easy-harp"]
    lay = easy(5)
    out = render(lay, rules).splitlines()
    assert out[0].split() == [f"t{i}" for i in range(1, 10)]
    assert out[1].split()[1:] == ["##"] * 8  # every column but the first hides its bottom card
    assert len(out) == 1 + 9 + 3
    assert out[-3].startswith("stock: 59 cards, next ")
    assert out[-2] == "waste: empty"
    assert out[-1] == "foundations: " + " ".join(["--"] * 8)
    assert out.count("##") == 0 and sum(line.count("##") for line in out) == 36


def test_render_mid_game_and_objects_with_to_layout():
    rules = get_rules("bakers-game")
    lay = deal_layout(rules, 1)
    lay.cells = [parse_card("KH"), None]
    lay.foundations = [parse_card("2S"), parse_card("AC")]

    class Board:
        def to_layout(self):
            return lay

    out = render(Board(), rules)
    assert "foundations: AC -- -- 2S" in out
    assert "cells: KH -- -- --" in out
    assert "stock" not in out

    r3 = VARIANTS["big-harp"]
    lay = deal_layout(r3, 2)
    lay.waste, lay.stock = lay.stock[:7], lay.stock[7:]
    lay.pass_number = 2
    out = render(lay, r3)
    assert "stock: 42 cards, next " in out and "waste: 7 cards, … " in out and "pass: 2 of 3" in out
