"""The reference rules engine: every SPEC §2 clarification, allowed and refused,
the score table, a hand-written winning solution, and apply/undo round trips."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harpsolve.cards import N_KINDS, card_text, make_card, parse_card, rank_of, suit_of
from harpsolve.layout import Layout, LayoutError
from harpsolve.reference import (
    Game, Move, MoveError, ReplayResult, parse_move, replay,
)
from harpsolve.rules import VARIANTS, get_rules


# ---- building positions by hand ---------------------------------------------------
def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def position(variant, columns=(), *, stock="", waste="", cells=None, pass_number=1, overrides=None):
    """A valid position built from the cards a test cares about.

    ``columns`` are strings ``"face-down cards | face-up cards"`` (no ``|``:
    all face up), padded with empty columns.  Every other card goes to the
    foundations as far as it can: each place holds A up to just below the
    lowest of its suit in play.  The cards above that gap which the test did
    not name ("filler") go face down into the LAST column, top card face up,
    so tests that need every column empty name enough cards to leave no gap.
    """
    rules = get_rules(variant, overrides)
    cols, down = [], []
    for spec in columns:
        hidden, _, up = spec.rpartition("|")
        cols.append(cards(hidden) + cards(up))
        down.append(len(cards(hidden)))
    cell_cards = [None if c in (None, "-") else parse_card(c) for c in (cells or [])]
    cell_cards += [None] * (rules.cells - len(cell_cards))
    in_play = Counter(c for col in cols for c in col)
    in_play.update(cards(stock) + cards(waste) + [c for c in cell_cards if c is not None])
    foundations, filler = [], []
    for s in range(4):
        left = {r: rules.decks - in_play[make_card(r, s)] for r in range(1, 14)}
        heights = []
        for _ in range(rules.decks):
            h = 0
            while h < 13 and left[h + 1] > 0:
                h += 1
            for r in range(1, h + 1):
                left[r] -= 1
            heights.append(h)
        heights.sort(reverse=True)
        foundations += [make_card(h, s) for h in heights if h]
        filler += [make_card(r, s) for r in range(1, 14) for _ in range(left[r])]
    assert len(cols) + (1 if filler else 0) <= rules.n_columns, "no room for the filler column"
    cols += [[] for _ in range(rules.n_columns - len(cols))]
    down += [0] * (rules.n_columns - len(down))
    if filler:
        cols[-1] = filler
        down[-1] = len(filler) - 1 if rules.face_down != "none" else 0
    layout = Layout(cols, down, stock=cards(stock), waste=cards(waste), cells=cell_cards,
                    foundations=foundations, pass_number=pass_number)
    return rules, layout.validate(rules)


def game(variant, columns=(), **kw) -> Game:
    rules, layout = position(variant, columns, **kw)
    return Game(rules, layout)


def tokens(g: Game) -> list[str]:
    return [str(m) for m in g.legal_moves()]


def refused(g: Game, token: str, *words: str) -> str:
    """Assert ``token`` is refused with a reason containing ``words``; game unchanged."""
    before = (g.key(), g.score, g.to_layout())
    with pytest.raises(MoveError) as info:
        g.apply(token)
    assert (g.key(), g.score, g.to_layout()) == before
    assert token not in tokens(g)
    msg = str(info.value)
    for w in words:
        assert w in msg, msg
    return msg


def allowed(g: Game, token: str) -> None:
    assert token in tokens(g), (token, tokens(g))
    g.apply(token)


def founded(g: Game, suit: str) -> list[int]:
    d = g.rules.decks
    s = "CDHS".index(suit)
    return g.foundations[s * d:(s + 1) * d]


# ---- move tokens --------------------------------------------------------------------
@pytest.mark.parametrize("token", [
    "s>w", "w>s", "w>t3", "w>f", "t10>f", "t4>t1*5", "t9>t2", "f>t4:7H", "t1>c2", "c2>t1", "c4>f",
])
def test_tokens_round_trip(token):
    assert str(parse_move(token)) == token


def test_token_forms_accepted():
    assert str(parse_move(" T3>T5*1 ")) == "t3>t5"
    assert parse_move("f>t2:10♠") == parse_move("f>t2:TS") == Move("take-back", dst=2, card=parse_card("TS"))


@pytest.mark.parametrize("bad", ["", "x", "t0>f", "t1>t2*0", "f>t1:1X", "f>t1", "s>t1", "t1>w", "c1>c2", 7, None])
def test_malformed_tokens(bad):
    with pytest.raises(MoveError):
        parse_move(bad)


# ---- single-card rule and the king-led run ------------------------------------------
def empty_columns(g: Game) -> list[int]:
    return [j + 1 for j, col in enumerate(g.columns) if not col]


@pytest.mark.parametrize("variant", ["easy-harp", "harp"])
def test_single_card_rule_a_run_never_moves_as_a_unit(variant):
    g = game(variant, ["8S 7H 6C", "9H", "7D"])
    refused(g, "t1>t2*3", "only the top card moves")
    refused(g, "t1>t2*2", "only the top card moves")
    assert not any("*" in t for t in tokens(g))
    allowed(g, "t1>t3")  # the top card alone builds normally
    assert g.columns[2] == cards("7D 6C")


def test_easy_harp_king_led_run_moves_to_an_empty_column():
    g = game("easy-harp", ["2C | KS QH JC", "", "QD"])
    # every empty column is a target, each listed once
    runs = [t for t in tokens(g) if t.startswith("t1>") and t.endswith("*3")]
    assert runs == [f"t1>t{j}*3" for j in empty_columns(g)] and len(runs) >= 5
    refused(g, "t1>t2*2", "only the top card moves")  # the Q-led part of the run
    allowed(g, "t1>t2*3")
    assert g.columns[1] == cards("KS QH JC")
    assert g.columns[0] == cards("2C") and g.face_down[0] == 0
    assert g.score == 5  # the flip


def test_easy_harp_king_led_run_refused_onto_a_non_empty_column():
    g = game("easy-harp", ["KS QH JC", "2D", "QD"])
    refused(g, "t1>t2*3", "only to an empty column")
    refused(g, "t1>t3*3", "only to an empty column")
    allowed(g, "t1>t4*3")


def test_pointless_whole_column_king_run_is_still_listed():
    g = game("easy-harp", ["KS QH"])
    assert "t1>t2*2" in tokens(g)
    before = g.key()
    g.apply("t1>t2*2")
    assert g.key() == before  # columns are interchangeable: the same position


def test_harp_has_no_king_runs():
    g = game("harp", ["2C | KS QH JC"])
    refused(g, "t1>t2*3", "only the top card moves")
    refused(g, "t1>t2", "takes only a king")  # JC alone to an empty column
    refused(g, "t1>t2*2", "only the top card moves")


@pytest.mark.parametrize("variant", ["easy-harp", "harp", "big-harp", "endless-harp", "klondike-1"])
def test_non_king_refused_on_an_empty_column(variant):
    g = game(variant, ["QH", "2S | KD", "", "KC"], stock="JD 9C")
    refused(g, "t1>t3", "takes only a king", "QH")
    g.apply("s>w")
    top = card_text(g.waste[-1])
    refused(g, "w>t3", "takes only a king", top)
    allowed(g, "t2>t3")  # a lone king is fine
    assert g.face_down[1] == 0 and g.columns[1] == cards("2S")


def test_bakers_game_any_card_on_an_empty_column():
    g = game("bakers-game", ["5H 3C", "", "9D"], cells=["4S"])
    allowed(g, "t1>t2")
    assert g.columns[1] == cards("3C")
    allowed(g, "c1>t4")
    assert g.columns[3] == cards("4S") and g.cells == [None] * 4


def test_empty_any_with_runs_takes_any_run():
    g = game("klondike-1", ["9S 8H 7C"], overrides=["empty=any"])
    allowed(g, "t1>t2*2")
    assert g.columns[1] == cards("8H 7C")


# ---- runs -----------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["klondike-1", "klondike-3", "endless-harp", "big-harp"])
def test_runs_move_as_units(variant):
    g = game(variant, ["4D | 9S 8H 7C", "TD", "9C", "", "KH QS"])
    legal = tokens(g)
    assert {"t1>t2*3", "t1>t3*2", "t5>t4*2"} <= set(legal)
    assert not {"t1>t2*2", "t1>t3*3", "t5>t4"} & set(legal)  # QS alone is no king
    refused(g, "t1>t4*3", "takes only a king", "9S")  # not king-led
    refused(g, "t1>t2*4", "only 3 face-up cards")
    allowed(g, "t5>t4*2")  # a king-led run to an empty column
    allowed(g, "t1>t2*3")
    assert g.columns[1] == cards("TD 9S 8H 7C") and g.face_down[0] == 0 and g.columns[0] == cards("4D")


def test_a_run_must_be_built():
    # only a face-up-everything game can show an unbuilt face-up stretch
    g = game("bakers-game", ["8H 5C 4C", "6C"], overrides=["column_moves=runs"])
    refused(g, "t1>t2*3", "not a built run")
    allowed(g, "t1>t2*2")
    assert g.columns[1] == cards("6C 5C 4C")


def test_bakers_game_runs_move_only_card_by_card():
    g = game("bakers-game", ["8H 5C 4C", "6C"])
    refused(g, "t1>t2*2", "only the top card moves")
    allowed(g, "t1>c1")
    allowed(g, "t1>t2")
    allowed(g, "c1>t2")
    assert g.columns[1] == cards("6C 5C 4C")


# ---- stock and waste -------------------------------------------------------------------
def test_draw_three_turns_the_last_one_or_two():
    g = game("endless-harp", ["KS"], stock="AC 2C 3C 4C 5C")
    g.apply("s>w")
    assert g.waste == cards("AC 2C 3C") and g.stock == cards("4C 5C")
    g.apply("s>w")
    assert g.waste == cards("AC 2C 3C 4C 5C") and g.stock == []
    refused(g, "s>w", "stock is empty")
    g.apply("w>s")
    g.apply("s>w")
    assert g.waste == cards("AC 2C 3C") and g.stock == cards("4C 5C")
    g2 = game("endless-harp", ["KS"], stock="AC")
    g2.apply("s>w")
    assert g2.waste == cards("AC") and g2.stock == []


@pytest.mark.parametrize("variant", ["easy-harp", "klondike-3"])
def test_recycling_keeps_the_order(variant):
    g = game(variant, ["KS"], stock="4C 9D 2H")
    while g.stock:
        g.apply("s>w")
    assert g.waste == cards("4C 9D 2H")  # 2H on top
    refused(g, "s>w", "stock is empty")
    allowed(g, "w>s")
    assert g.stock == cards("4C 9D 2H") and g.waste == [] and g.pass_number == 2
    g.apply("s>w")
    assert g.waste[0] == parse_card("4C")  # the card drawn first comes first again
    assert g.score == 0


def test_recycle_needs_empty_stock_and_non_empty_waste():
    g = game("easy-harp", ["KS"], stock="4C 9D")
    refused(g, "w>s", "stock is not empty")
    g.apply("s>w")
    refused(g, "w>s", "stock is not empty")
    g2 = game("easy-harp", ["KS"], stock="4C")
    g2.apply("s>w")
    g2.apply("w>f")
    refused(g2, "w>s", "waste is empty")
    refused(g2, "s>w", "stock is empty")


@pytest.mark.parametrize("variant,passes", [("harp", 4), ("big-harp", 3)])
def test_pass_limits(variant, passes):
    g = game(variant, ["KS"], stock="4C 9D")
    for _ in range(passes - 1):
        while g.stock:
            g.apply("s>w")
        allowed(g, "w>s")
    assert g.pass_number == passes
    while g.stock:
        g.apply("s>w")
    refused(g, "w>s", "no pass is left", f"{passes} passes")


def test_unlimited_passes():
    g = game("easy-harp", ["KS"], stock="4C")
    for _ in range(20):
        g.apply("s>w")
        allowed(g, "w>s")
    assert g.pass_number == 21


def test_pass_limit_override():
    g = game("easy-harp", ["KS"], stock="4C", overrides=["passes=1"])
    g.apply("s>w")
    refused(g, "w>s", "no pass is left")


def test_only_the_waste_top_plays():
    g = game("easy-harp", ["TS"], stock="9H 9D")
    g.apply("s>w")
    g.apply("s>w")
    allowed(g, "w>t1")
    assert g.columns[0] == cards("TS 9D") and g.waste == cards("9H")


# ---- take-back --------------------------------------------------------------------------
def test_takeback_onto_a_column_and_its_score():
    g = game("easy-harp", ["8S"], stock="8H")  # hearts places at K and 7, spades at K and 7
    assert founded(g, "H") == [13, 7]
    allowed(g, "f>t1:7H")
    assert g.columns[0] == cards("8S 7H") and g.score == 0
    assert founded(g, "H") == [13, 6]
    allowed(g, "t1>f")
    assert founded(g, "H") == [13, 7] and g.score == 10  # +10 again
    refused(g, "f>t1:7S", "7S does not go on 8S")
    refused(g, "f>t1:6H", "6H is not on top of a foundation")


def test_takeback_of_an_ace_and_of_a_king():
    g = game("klondike-1", ["2S"], stock="2H")
    assert founded(g, "H") == [1]
    allowed(g, "f>t1:AH")  # an ace onto a 2 of the other colour
    assert founded(g, "H") == [0] and g.columns[0] == cards("2S AH")
    allowed(g, "f>t3:KC")  # a king onto an empty column
    refused(g, "f>t4:AS", "takes only a king")


def test_takeback_off():
    g = game("easy-harp", ["8S"], stock="8H", overrides=["takeback=false"])
    refused(g, "f>t1:7H", "does not let a card come back")
    assert not any(t.startswith("f>") for t in tokens(g))
    g = game("bakers-game", ["8S", "9H"])
    refused(g, "f>t3:KC", "does not let a card come back")


def test_takeback_lists_each_distinct_top_once():
    g = game("easy-harp", ["8S", "", "9D"], stock="8H")
    backs = [t for t in tokens(g) if t.startswith("f>")]
    assert "f>t1:7H" in backs and "f>t1:7S" not in backs
    assert backs.count("f>t2:KC") == 1 and backs.count("f>t2:KH") == 1  # two places, one top kind


# ---- foundations ---------------------------------------------------------------------------
def test_easy_harp_foundations_are_reserved_per_suit():
    g = game("easy-harp", ["AH", "AD", "AH", "AD"])
    assert founded(g, "D") == [0, 0] and founded(g, "H") == [0, 0]
    allowed(g, "t1>f")
    # not the first empty place (a diamonds place), the first of its own suit
    assert g.foundations[2:6] == [0, 0, 1, 0]
    allowed(g, "t3>f")
    assert founded(g, "H") == [1, 1] and founded(g, "D") == [0, 0]
    allowed(g, "t2>f")
    assert founded(g, "D") == [1, 0]


def test_one_deck_has_one_place_per_suit():
    g = game("klondike-1", ["AH", "2H"])
    assert len(g.foundations) == 4
    refused(g, "t2>f", "2H needs AH")
    allowed(g, "t1>f")
    allowed(g, "t2>f")
    assert founded(g, "H") == [2]


def test_card_goes_to_the_first_place_that_accepts_it():
    g = game("easy-harp", ["5H", "5H | 4H"])
    assert founded(g, "H") == [4, 3]
    allowed(g, "t1>f")
    assert founded(g, "H") == [5, 3]
    allowed(g, "t2>f")
    assert founded(g, "H") == [5, 4] and g.score == 25  # two cards up, one flip
    allowed(g, "t2>f")
    assert founded(g, "H") == [5, 5]


def test_foundation_refusals_name_the_missing_card():
    g = game("easy-harp", ["3C", "2C"])
    assert founded(g, "C") == [13, 1]
    refused(g, "t1>f", "3C needs 2C on top of a clubs foundation")
    g = game("easy-harp", ["AC", "2C", "AC"])
    allowed(g, "t1>f")
    allowed(g, "t3>f")
    refused(g, "c1>f", "no free cells")


# ---- building --------------------------------------------------------------------------------
def test_bakers_game_builds_in_suit():
    g = game("bakers-game", ["7H", "8H", "8D", "8C"])
    refused(g, "t1>t3", "7H does not go on 8D")
    refused(g, "t1>t4", "7H does not go on 8C")
    allowed(g, "t1>t2")


def test_alternate_colour_building():
    g = game("easy-harp", ["7H", "8H", "8D", "8C"])
    refused(g, "t1>t2", "7H does not go on 8H")
    refused(g, "t1>t3", "7H does not go on 8D")
    allowed(g, "t1>t4")


def test_a_card_cannot_move_onto_its_own_column():
    g = game("easy-harp", ["8S"])
    refused(g, "t1>t1", "its own column")
    refused(g, "t12>t1", "no column 12")


# ---- free cells ---------------------------------------------------------------------------------
def test_free_cells_hold_one_card_each_up_to_four():
    g = game("bakers-game", ["5H 4H 3H 2H KD", "9C"], cells=["AH"])
    refused(g, "t1>c1", "cell 1 already holds AH")
    assert [t for t in tokens(g) if t.startswith("t1>c")] == ["t1>c2", "t1>c3", "t1>c4"]
    g.apply("t1>c2")
    g.apply("t1>c3")
    g.apply("t1>c4")
    assert g.cells == cards("AH KD 2H 3H")
    refused(g, "t1>c1", "already holds")
    assert not any(">c" in t for t in tokens(g))  # no fifth card
    refused(g, "t1>c5", "no cell 5")
    allowed(g, "c1>f")
    allowed(g, "c3>f")
    assert g.cells == [None, parse_card("KD"), None, parse_card("3H")]
    refused(g, "c3>f", "cell 3 is empty")
    allowed(g, "c2>t3")  # any card on an empty column in bakers-game
    refused(g, "c4>t2", "3H does not go on 9C")
    allowed(g, "c4>f")


def test_no_cells_means_no_cell_moves():
    g = game("easy-harp", ["KS"])
    refused(g, "t1>c1", "no free cells")


# ---- flips and score --------------------------------------------------------------------------
def test_auto_flip_and_its_points():
    g = game("easy-harp", ["3D 4C | 5H", "6S"])
    allowed(g, "t1>t2")
    assert g.face_down[0] == 1 and g.columns[0] == cards("3D 4C") and g.score == 5
    allowed(g, "t1>t2")  # 4C on 5H, uncovering 3D
    assert g.face_down[0] == 0 and g.score == 10
    allowed(g, "t1>f")  # 3D onto the diamonds at 2
    assert g.columns[0] == [] and g.score == 20


def test_easy_harp_score_table():
    g = game("easy-harp", ["8S", "QH"], stock="7D KC")
    g.apply("s>w")
    assert g.score == 0
    g.apply("w>t1")      # waste to column
    assert g.score == 5
    g.apply("s>w")
    g.apply("w>f")       # waste to foundation
    assert g.score == 15
    g.apply("f>t3:KC")   # take-back
    assert g.score == 15
    g.apply("t2>t3")     # column to column
    assert g.score == 15
    g.apply("t1>f")      # column to foundation
    assert g.score == 25
    g.undo()
    assert g.score == 15


def test_score_is_kept_in_other_variants_too():
    g = game("klondike-1", ["3D | 5H", "6S"])
    g.apply("t1>t2")
    assert g.score == 5


# ---- a hand-written winning solution ---------------------------------------------------------
# spades [12, 13], hearts [11, 13], diamonds [12, 13], clubs complete; in play:
# column 1 = KD (hidden) under KS QH, stock = KH.
WIN_COLUMNS = ["KD | KS QH"]
WIN_STOCK = "KH"
WIN_MOVES = [
    "t1>t2*2",   # king-led run to an empty column; KD turns up      +5
    "s>w",
    "w>t3",      # waste to column (a king to an empty column)       +5
    "t2>f",      # QH                                                +10
    "f>t2:QH",   # take-back onto KS                                   0
    "t2>f",      # QH again                                          +10
    "t3>f",      # KH                                                +10
    "t2>f",      # KS                                                +10
    "t1>f",      # KD                                                +10
]


def test_hand_written_solution_wins():
    rules, layout = position("easy-harp", WIN_COLUMNS, stock=WIN_STOCK)
    assert sorted(card_text(c) for c in layout.foundations) == ["JH", "KC", "KC", "KD", "KH", "KS", "QD", "QS"]
    res = replay(rules, layout, WIN_MOVES)
    assert res == ReplayResult(ok=True, won=True, moves=9, score=60, error_index=None, error=None)


def test_tampered_solution_is_rejected_at_the_right_move():
    rules, layout = position("easy-harp", WIN_COLUMNS, stock=WIN_STOCK)
    bad = list(WIN_MOVES)
    bad[2] = "w>t1"
    res = replay(rules, layout, bad)
    assert not res.ok and not res.won
    assert res.error_index == 2 and res.moves == 2 and res.score == 5
    assert res.error == "move 3 (w>t1): KH does not go on KD"


def test_unfinished_solution_is_legal_but_not_won():
    rules, layout = position("easy-harp", WIN_COLUMNS, stock=WIN_STOCK)
    res = replay(rules, layout, WIN_MOVES[:-1])
    assert res.ok and not res.won and res.moves == 8 and res.error is None


def test_replay_raises_on_malformed_input():
    rules, layout = position("easy-harp", WIN_COLUMNS, stock=WIN_STOCK)
    with pytest.raises(MoveError, match="move 2"):
        replay(rules, layout, ["t1>t2*2", "t1->f"])
    broken = Layout(layout.columns, layout.face_down, stock=[])
    with pytest.raises(LayoutError):
        replay(rules, broken, [])


def test_undo_restores_and_reports():
    g = game("easy-harp", ["KD | KS QH"], stock="KH")
    with pytest.raises(MoveError, match="nothing to undo"):
        g.undo()
    g.apply("t1>t2*2")
    assert g.undo() == parse_move("t1>t2*2")
    assert g.face_down[0] == 1 and g.score == 0 and g.history == []


# ---- property tests: apply/undo round trips -------------------------------------------------
def random_position(rules, rnd: random.Random) -> Layout:
    """A random valid position: random foundation heights, the other cards dealt
    into columns (only the top face up where the rules hide cards), cells,
    stock and waste."""
    heights = [rnd.choice([0, 0, rnd.randint(0, 13), 13]) for _ in range(rules.n_foundations)]
    foundations = [make_card(h, k // rules.decks) for k, h in enumerate(heights) if h]
    rest = Counter({c: rules.decks for c in range(N_KINDS)})
    for k, h in enumerate(heights):
        for r in range(1, h + 1):
            rest[make_card(r, k // rules.decks)] -= 1
    pool = sorted(rest.elements())
    rnd.shuffle(pool)
    cells = [None] * rules.cells
    for k in range(rules.cells):
        if pool and rnd.random() < 0.5:
            cells[k] = pool.pop()
    stock, waste = [], []
    if rules.draw:
        n = rnd.randint(0, len(pool) // 2)
        stock, pool = pool[:n], pool[n:]
        w = rnd.randint(0, len(stock))
        waste, stock = stock[:w], stock[w:]
    cols = [[] for _ in range(rules.n_columns)]
    for c in pool:
        cols[rnd.randrange(rules.n_columns)].append(c)
    hidden = rules.face_down != "none"
    down = [max(len(c) - 1, 0) if hidden else 0 for c in cols]
    passes = rnd.randint(1, rules.passes) if rules.passes else rnd.randint(1, 3)
    return Layout(cols, down, stock, waste, cells, foundations, passes).validate(rules)


def dealt_position(rules, number: int) -> Layout | None:
    try:
        from harpsolve.deals import deal_layout
    except ImportError:
        return None
    return deal_layout(rules, number)


def score_from_history(g: Game, start_down: int) -> int:
    """The Easy Harp score recomputed from what happened, independently of apply."""
    to_found = sum(1 for m in g.history if str(m).endswith(">f"))
    from_waste = sum(1 for m in g.history if str(m).startswith("w>t"))
    flips = start_down - sum(g.face_down)
    return 10 * to_found + 5 * from_waste + 5 * flips


def snapshot(g: Game):
    return (g.key(), g.score, g.to_layout(), [list(c) for c in g.columns], list(g.face_down),
            list(g.stock), list(g.waste), list(g.cells), list(g.foundations), g.pass_number,
            list(g.history))


VARIANT_NAMES = sorted(VARIANTS)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 2**32 - 1),
       dealt=st.booleans(), choices=st.lists(st.integers(0, 10**6), min_size=5, max_size=80))
def test_apply_undo_round_trip(variant, seed, dealt, choices):
    rules = get_rules(variant)
    layout = dealt_position(rules, seed % 999_999 + 1) if dealt else None
    if layout is None:
        layout = random_position(rules, random.Random(seed))
    g = Game(rules, layout)
    assert g.to_layout() == layout
    start_down = sum(g.face_down)
    trail = []
    for ch in choices:
        legal = g.legal_moves()
        assert len(set(map(str, legal))) == len(legal)  # distinct tokens
        if not legal:
            break
        m = legal[ch % len(legal)]
        trail.append(snapshot(g))
        g.apply(m)
        assert g.key() != trail[-1][0] or m.kind == "col-col"  # never a no-op but a pointless column shuffle
        assert g.score == score_from_history(g, start_down)
        # the position written out and read back is the same position
        assert Game(rules, g.to_layout()).key() == g.key()
    while trail:
        g.undo()
        assert snapshot(g) == trail.pop()
    assert g.to_layout() == Game(rules, layout).to_layout()


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 2**32 - 1),
       probes=st.lists(st.tuples(st.sampled_from(["s>w", "w>s", "w>t", "w>f", "t>f", "t>t", "f>t", "t>c", "c>t", "c>f"]),
                                 st.integers(1, 11), st.integers(1, 11), st.integers(1, 4),
                                 st.integers(0, 51)), max_size=40))
def test_apply_accepts_exactly_the_legal_moves(variant, seed, probes):
    """Random well-formed tokens: apply succeeds iff the token is listed as legal."""
    rules = get_rules(variant)
    g = Game(rules, random_position(rules, random.Random(seed)))
    for shape, i, j, n, card in probes:
        tok = {"s>w": "s>w", "w>s": "w>s", "w>t": f"w>t{j}", "w>f": "w>f", "t>f": f"t{i}>f",
               "t>t": f"t{i}>t{j}*{n}", "f>t": f"f>t{j}:{card_text(card)}", "t>c": f"t{i}>c{j}",
               "c>t": f"c{i}>t{j}", "c>f": f"c{i}>f"}[shape]
        legal = tokens(g)
        before = snapshot(g)
        try:
            g.apply(tok)
        except MoveError as e:
            assert str(parse_move(tok)) not in legal, (tok, str(e))
            assert snapshot(g) == before
            assert e.reason and "\n" not in str(e)
        else:
            assert str(parse_move(tok)) in legal


def test_fresh_game_to_layout_equals_the_input():
    for variant in VARIANT_NAMES:
        rules = get_rules(variant)
        for seed in range(5):
            layout = random_position(rules, random.Random(seed))
            assert Game(rules, layout).to_layout() == layout
            dealt = dealt_position(rules, seed + 1)
            if dealt is not None:
                assert Game(rules, dealt).to_layout() == dealt


def test_key_ignores_column_order_copies_and_foundation_places():
    rules, a = position("easy-harp", ["3D | 8S", "KH"])
    swapped = [a.columns[1], a.columns[0]] + a.columns[2:]
    b = Layout(swapped, [a.face_down[1], a.face_down[0]] + a.face_down[2:],
               foundations=list(reversed(a.foundations)))
    assert Game(rules, a).key() == Game(rules, b).key()
    g = Game(rules, a)
    g.apply("t1>f")
    assert g.key() != Game(rules, a).key()


def test_key_pass_number_only_counts_when_passes_are_limited():
    r1, a = position("easy-harp", ["KS"], stock="4C")
    b = Layout(a.columns, a.face_down, a.stock, a.waste, a.cells, a.foundations, pass_number=3)
    assert Game(r1, a).key() == Game(r1, b).key()
    r2, a = position("harp", ["KS"], stock="4C")
    b = Layout(a.columns, a.face_down, a.stock, a.waste, a.cells, a.foundations, pass_number=3)
    assert Game(r2, a).key() != Game(r2, b).key()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 2**32 - 1),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=60))
def test_game_without_undo_plays_the_same(variant, seed, choices):
    """undo=False (what replay uses) skips the snapshots and changes nothing else."""
    rules = get_rules(variant)
    layout = random_position(rules, random.Random(seed))
    g, fast = Game(rules, layout), Game(rules, layout, undo=False)
    for ch in choices:
        legal = g.legal_moves()
        assert [str(m) for m in fast.legal_moves()] == [str(m) for m in legal]
        if not legal:
            break
        token = str(legal[ch % len(legal)])
        g.apply(token)
        fast.apply(token)
        assert snapshot(fast) == snapshot(g)
    with pytest.raises(MoveError, match="no undo history"):
        fast.undo()


def test_parse_move_reads_each_token_once_and_still_refuses_bad_ones():
    assert parse_move("t3>t1*2") == parse_move(" T3>t1*2 ") == Move("col-col", 3, 1, 2)
    for _ in range(2):  # a refused token is refused every time, with its own message
        with pytest.raises(MoveError, match="not a move token: 't3->f'"):
            parse_move("t3->f")
    with pytest.raises(MoveError, match="not a move token: 5"):
        parse_move(5)


# ---- one table of move tokens -------------------------------------------------------
def test_every_move_kind_writes_and_reads_through_the_one_table():
    from harpsolve.reference import COLUMN_TO_COLUMN, KINDS, TOKEN_FORMS, Move, parse_move

    assert set(TOKEN_FORMS) == set(KINDS)
    for kind in KINDS:
        form = TOKEN_FORMS[kind]
        for n in ((1, 3) if kind == COLUMN_TO_COLUMN else (1,)):
            m = Move(kind, 2 if "{i}" in form else 0, 1 if "{j}" in form else 0, n,
                     parse_card("7H") if "{card}" in form else None)
            assert parse_move(str(m)) == m and parse_move(str(m).upper()) == m


def test_kernel_moves_are_written_from_the_same_table(monkeypatch):
    import numpy as np

    from harpsolve import movegen as mg
    from harpsolve import reference
    from harpsolve.solution import move_tokens
    from harpsolve.state import STATE_BYTES, kernel_params

    p = kernel_params(get_rules("klondike-1"))
    st = np.zeros(STATE_BYTES, np.uint8)
    assert move_tokens(st, mg._mk(mg.M_COL_FOUND, 2, 0, 0), p) == ["t3>f"]
    assert move_tokens(st, mg._mk(mg.M_COL_COL, 0, 4, 3), p) == ["t1>t5*3"]
    monkeypatch.setitem(reference.TOKEN_FORMS, reference.COLUMN_TO_FOUNDATION, "t{i}=>f")
    assert move_tokens(st, mg._mk(mg.M_COL_FOUND, 2, 0, 0), p) == ["t3=>f"]
