"""Proofs without exhaustion (search/relax.py): the dead-end test and the weaker games."""
from __future__ import annotations

import random

import pytest

from harpsolve.cards import parse_card
from harpsolve.layout import Layout
from harpsolve.reference import Game, replay
from harpsolve.rules import VARIANTS, get_rules, with_overrides
from harpsolve.search import relax
from harpsolve.solver import solve

from positions import deadlock_candidate, endgame, random_walk


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def full_status(rules, layout):
    """The unpruned complete search: the ground truth for small positions."""
    r = solve(rules, layout=layout, max_nodes=2_000_000, auto=False, prune=False, algorithm="dfs")
    assert r.status != "unknown", "position too big for the unpruned search"
    return r


def small_positions(variant: str, n: int, seed: int):
    """Small random positions of ``variant`` on four columns (where positions lock up often):
    end games (some part-way through the stock and its passes) and deadlock candidates, with
    and without take-back."""
    rng = random.Random(seed)
    for k in range(n):
        # (bakers-game deals every card: four columns of 13)
        four = "13,13,13,13" if VARIANTS[variant].draw == 0 else "1,2,3,4"
        rules = get_rules(variant, {"takeback": k % 3 != 0, "columns": four})
        if k % 2:
            layout = deadlock_candidate(rules, rng, 12 if rules.decks == 2 else 10)
        else:
            layout = endgame(rules, rng, rng.randint(6, 16), stock_share=0.7)
            if layout.stock and rng.random() < 0.5:
                j = rng.randint(0, len(layout.stock))
                layout.waste, layout.stock = layout.stock[:j], layout.stock[j:]
            if rules.passes:
                layout.pass_number = rng.randint(1, rules.passes)
            layout.validate(rules)
        yield rules, layout


GAMES = ["klondike-1", "klondike-3", "easy-harp", "harp", "big-harp", "endless-harp", "bakers-game"]


@pytest.mark.parametrize("variant", GAMES)
def test_dead_end_never_fires_on_a_winnable_position(variant):
    """Every dead end found is confirmed by the unpruned search, and no position on a winning
    line (replayed move by move in the reference engine) is ever called a dead end."""
    dead = 0
    for rules, layout in small_positions(variant, 40, seed=GAMES.index(variant)):
        card = relax.dead_end(rules, layout)
        r = full_status(rules, layout)
        if card is not None:
            dead += 1
            assert r.status == "unsolvable", (card, layout.to_text())
        if r.solved:
            g = Game(rules, layout)
            for tok in r.moves:
                g.apply(tok)
                assert relax.dead_end(rules, g.to_layout()) is None, (tok, g.to_layout().to_text())
    if variant != "bakers-game":  # free cells let every card leave: the test is weak there
        assert dead > 0, "the sample never hit a dead end: it tests nothing"


@pytest.mark.parametrize("variant,deal", [("klondike-3", 3), ("easy-harp", 1), ("harp", 58), ("endless-harp", 1)])
def test_dead_end_never_fires_along_a_solved_deal(variant, deal):
    rules = get_rules(variant)
    r = solve(rules, deal)
    assert r.solved
    g = Game(rules, r.layout)
    assert relax.dead_end(rules, r.layout) is None
    for tok in r.moves:
        g.apply(tok)
        assert relax.dead_end(rules, g.to_layout()) is None, tok


def _position(rules, column, down, stock, foundations, waste="", pass_number=1):
    cols = [[] for _ in range(rules.n_columns)]
    cols[0] = cards(column)
    fd = [0] * rules.n_columns
    fd[0] = down
    return Layout(cols, fd, stock=cards(stock), waste=cards(waste), cells=[None] * rules.cells,
                  foundations=cards(foundations), pass_number=pass_number).validate(rules)


def test_dead_end_one_deck_card_over_a_lower_card_of_its_suit():
    """7C lies on 5C, and both red 8s lie under them: 7C can never leave (no base, 6C cannot go
    home before 5C), so 5C never comes out.  With one red 8 in the stock it is winnable."""
    rules = get_rules("klondike-1")
    cols = [cards("8D 8H 5C 7C"), cards("KC QC JC TC 9C 8C 6C"), cards("KD QD JD TD 9D"),
            cards("KH QH JH TH 9H"), [], [], []]
    dead = Layout(cols, [3, 6, 4, 4, 0, 0, 0], foundations=cards("4C 7D 7H KS")).validate(rules)
    assert relax.dead_end(rules, dead) == "5C"
    assert full_status(rules, dead).status == "unsolvable"
    rest = "6C 8C 9C TC JC QC KC 9D TD JD QD KD 9H TH JH QH KH"
    live = _position(rules, "8D 5C 7C", 2, rest + " 8H", "4C 7D 7H KS")
    assert relax.dead_end(rules, live) is None
    assert solve(rules, layout=live).status == "solved"


def test_dead_end_two_decks_needs_both_copies():
    """With two decks 7C must lie over *both* 5C (and every red 8 be under it) to be stuck;
    with one 5C free, that 5C, a 6C and the other 7C... let the buried 7C go home first."""
    rules = get_rules("easy-harp")
    rest = "6C 6C 7C 8C 8C 9C 9C TC TC JC JC QC QC KC KC 9D 9D TD TD JD JD QD QD KD KD " \
           "9H 9H TH TH JH JH QH QH KH KH"
    found = "4C 4C 7D 7D 7H 7H KS KS"
    dead = _position(rules, "8D 8D 8H 8H 5C 5C 7C", 6, rest, found)
    assert relax.dead_end(rules, dead) == "5C"
    live = _position(rules, "8D 8D 8H 8H 5C 7C", 5, rest + " 5C", found)
    assert relax.dead_end(rules, live) is None
    assert solve(rules, layout=live).status == "solved"


def test_dead_end_counts_the_passes_left():
    """Harp without take-back, in its last pass: the waste holds 5C 5C under 7C, no red card is
    left to take 7C and 6C needs a 5C, so the 5Cs are buried for good.  One pass more (or
    unlimited passes) turns them up again.  (With take-back, a red 8 comes back from its
    foundation on a chain of taken-back cards led by a king in an empty column: not dead.)"""
    rules = get_rules("harp", {"takeback": False})
    column = "KC KC QC QC JC JC TC TC 9C 9C 8C 8C 7C 6C 6C"
    found = "4C 4C KD KD KH KH KS KS"
    last = _position(rules, column, 14, "", found, waste="5C 5C 7C", pass_number=4)
    assert relax.dead_end(rules, last) == "5C"
    assert full_status(rules, last).status == "unsolvable"
    one_more = _position(rules, column, 14, "", found, waste="5C 5C 7C", pass_number=3)
    assert relax.dead_end(rules, one_more) is None
    assert full_status(rules, one_more).status == "solved"
    unlimited = get_rules("harp", {"passes": 0, "takeback": False})
    assert relax.dead_end(unlimited, last) is None
    assert relax.dead_end(get_rules("harp"), last) is None


# ---- the weaker games ---------------------------------------------------------------------
ROWS = [(row, v) for row in relax.RELAXATIONS for v in VARIANTS if row.applies(VARIANTS[v])]


@pytest.mark.parametrize("row,variant", ROWS, ids=[f"{r.proof}-{v}" for r, v in ROWS])
def test_every_move_of_the_game_is_a_line_of_the_relaxed_game(row, variant):
    """The soundness claim of each RELAXATIONS row, on random positions: the position every
    legal move of the original game leads to is reached in the relaxed game by the same move
    or, for a draw of k cards, by k draw-1 draws."""
    rules = VARIANTS[variant]
    relaxed = row.relax(rules)
    rng = random.Random(7)
    checked = 0
    for k in range(12):
        layout = endgame(rules, rng, rng.randint(10, 30), stock_share=0.8)
        g = Game(rules, layout)
        for tok in random_walk(rules, layout, rng, rng.randint(0, 30)):
            g.apply(tok)
        here = g.to_layout()
        for m in g.legal_moves():
            after = Game(rules, here)
            after.apply(m)
            want = Game(relaxed, after.to_layout()).key()
            ok = False
            for line in ([str(m)], *[["s>w"] * n for n in range(1, rules.draw + 1)]):
                h = Game(relaxed, here)
                if all(h.why_illegal(t) is None and (h.apply(t) or True) for t in line) and h.key() == want:
                    ok = True
                    break
            assert ok, (str(m), here.to_text())
            checked += 1
    assert checked > 50


def test_relaxations_lists_only_more_permissive_distinct_games():
    assert [r.proof for r in relax.relaxations(get_rules("klondike-3"))] == ["relaxed: draw=1"]
    assert [r.proof for r in relax.relaxations(get_rules("klondike-1"))] == []
    assert "relaxed: passes=0" in [r.proof for r in relax.relaxations(get_rules("harp"))]
    for row in relax.RELAXATIONS:
        assert not row.applies(row.relax(get_rules("big-harp")))  # nothing left to relax


def test_weaker_games_that_keep_a_pass_limit_are_left_out():
    """relax.relaxations never offers a weaker game with a pass limit (mostly won and as large as
    the real game: its docstring); the same game with the limit lifted is offered."""
    assert [r.proof for r in relax.relaxations(get_rules("harp"))] == [
        "relaxed: passes=0", "relaxed: passes=0,column_moves=runs"]
    assert [r.proof for r in relax.relaxations(get_rules("big-harp"))] == [
        "relaxed: passes=0", "relaxed: draw=1,passes=0"]
    assert [r.proof for r in relax.relaxations(get_rules("easy-harp"))] == ["relaxed: column_moves=runs"]
    for v in VARIANTS:
        for row in relax.relaxations(get_rules(v)):
            assert row.relax(get_rules(v)).passes == 0


@pytest.mark.parametrize("row,variant", ROWS, ids=[f"{r.proof}-{v}" for r, v in ROWS])
def test_a_relaxation_proof_names_the_weaker_game_as_rule_overrides(row, variant):
    """'relaxed: draw=1,…' is --rule text (rules.value_text): read back, it is the relaxed game."""
    rules = VARIANTS[variant]
    overrides = row.proof.removeprefix("relaxed: ").split(",")
    assert with_overrides(rules, overrides) == row.relax(rules)


@pytest.mark.parametrize("variant", ["klondike-3", "big-harp", "harp"])
def test_run_never_claims_a_winnable_position(variant):
    proved = 0
    for rules, layout in small_positions(variant, 30, seed=11):
        r = relax.run(rules, layout, max_nodes=50_000)
        assert r.status in ("unsolvable", "unknown")
        if r.status == "unsolvable":
            proved += 1
            assert r.proof.startswith(("dead end: ", "relaxed: "))
            assert full_status(rules, layout).status == "unsolvable", r.proof
    assert proved > 0


def test_run_proves_a_klondike3_deal_through_draw_1():
    """No dead end shows at the root of klondike-3 deal 21, but its draw-1 game is exhausted in
    about 60 000 nodes (klondike-1 deal 21 is unsolvable in tests/golden/known.json)."""
    rules = get_rules("klondike-3")
    from harpsolve.deals import deal_layout

    layout = deal_layout(rules, 21)
    assert relax.dead_end(rules, layout) is None
    r = relax.run(rules, layout, max_nodes=300_000)
    assert (r.status, r.proof) == ("unsolvable", "relaxed: draw=1")


def test_the_portfolio_proves_an_easy_harp_deal_through_runs():
    """easy-harp deal 89723, the first easy-harp deal proved unsolvable: with runs moving it is
    still lost.  The portfolio's ``relax`` row searches that weaker game with the
    arrangement-free engine (its 59-card talon keyed under draw 1: tests/test_afree.py), which
    exhausts it in 165 014 states (without deferring talon plays, 1 680 004: the same verdict;
    benchmarks/README.md, fifteenth session)."""
    from harpsolve.solver import solve

    r = solve("easy-harp", 89723)
    assert (r.status, r.proof) == ("unsolvable", "relaxed: column_moves=runs")
    assert r.engine == "relax (afree)"
