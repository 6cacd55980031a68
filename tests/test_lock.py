"""The lock test (search/lock.py) against the complete search, along won lines, and on the deal
it was written for."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harpsolve.cards import make_card, parse_card
from harpsolve.deals import deal_layout
from harpsolve.layout import Layout
from harpsolve.reference import Game
from harpsolve.rules import builds_on, get_rules
from harpsolve.search.lock import lock
from harpsolve.solver import solve

GAMES = ["klondike-1", "klondike-3", "easy-harp", "harp", "big-harp", "endless-harp"]


def lock_candidate(rules, rng: random.Random, forced: bool) -> Layout:
    """A small position (the highest ranks in play, the rest home) on the rules' columns, face
    down but the tops; with ``forced``, a lock laid out on purpose: a rank r and suits S, every
    card a card of rank r in S builds on put beneath one of them, so that what the test decides
    is steps 2-3 (whether the foundations of S can reach r)."""
    low = 9 if rules.decks == 1 else 11                     # ranks low..K in play
    cards = [make_card(r, s) for s in range(4) for r in range(low, 14) for _ in range(rules.decks)]
    rng.shuffle(cards)
    ncol = rules.n_columns
    stock_share = rng.choice([0.0, 0.2, 0.4])
    k = int(len(cards) * stock_share) if rules.draw else 0
    stock, rest = cards[:k], cards[k:]
    cols = [[] for _ in range(ncol)]
    if forced:
        r = rng.randint(max(low, 2), 12)                      # L's rank (1-based), a queen at most
        suits = [s for s in range(4) if rng.random() < 0.6] or [rng.randrange(4)]
        lk = [c for c in cards if c % 13 + 1 == r and c // 13 in suits]
        bases = [c for c in cards if c % 13 + 1 == r + 1 and any(builds_on(rules, make_card(r, s), c) for s in suits)]
        stock = [c for c in stock if c not in lk and c not in bases]   # (a kind is all in or all out)
        rest = [c for c in cards if c not in lk and c not in bases]
        for c in stock:
            rest.remove(c)
        for c in lk:
            cols[rng.randrange(ncol)].append(c)
        holders = [i for i in range(ncol) if cols[i]]
        for b in bases:
            col = cols[rng.choice(holders)]
            col.insert(rng.randrange(len(col)), b)             # beneath the column's top card of L
        # step 3's case: a card S needs (rank r - 1) under a card that may have nowhere to go
        need = [c for c in rest if c % 13 + 2 == r and c // 13 in suits]
        over = [c for c in rest if c % 13 + 3 == r]
        if need and over and rng.random() < 0.7:
            a, b = rng.choice(need), rng.choice(over)
            rest.remove(a)
            rest.remove(b)
            cols[rng.randrange(ncol)] += [a, b]
    bury = rng.choice([0.0, 0.3, 0.6]) if forced else 0.0
    for c in rest:
        low_holder = min((cols[i] for i in holders), key=len) if forced else None
        if forced and rng.random() < bury and len(low_holder) < 14:
            col = low_holder                                   # frozen with the lock
            col.insert(rng.randrange(len(col)), c)
        else:
            col = min(rng.sample(cols, 2), key=len)          # (columns the solver's state holds)
            col.insert(rng.randrange(len(col) + 1), c)
    fd = [max(len(col) - 1, 0) for col in cols]
    found = [make_card(low - 1, s) for s in range(4) for _ in range(rules.decks)] if low > 1 else []
    return Layout(cols, fd, stock=stock, cells=[None] * rules.cells, foundations=found).validate(rules)


def small_rules(variant: str, takeback: bool):
    return get_rules(variant, {"takeback": takeback, "columns": "1,2,3,4"})


def status(rules, layout):
    """The unpruned complete search: the ground truth for small positions (None: too big)."""
    r = solve(rules, layout=layout, max_nodes=1_000_000, auto=False, prune=False, algorithm="dfs")
    return None if r.status == "unknown" else r.status


@pytest.mark.parametrize("variant", GAMES)
def test_every_lock_found_is_confirmed_by_the_complete_search(variant):
    """On small positions built to lock up, every position the test calls lost is lost for the
    unpruned complete search (or too big for it), and the test fires on some of them."""
    rng = random.Random(GAMES.index(variant))
    fired = by_step3 = 0
    for k in range(60):
        rules = small_rules(variant, k % 3 != 0)
        layout = lock_candidate(rules, rng, forced=k % 4 != 0)
        proof = lock(rules, layout)
        if proof is not None:
            fired += 1
            by_step3 += lock(rules, layout, displace=False) is None
            assert status(rules, layout) in ("unsolvable", None), (proof, layout.to_text())
    assert fired > 0, "the sample never locked up: it tests nothing"
    if rules.decks == 1:
        # (two decks: test_step_3_decides_a_two_deck_lock_the_dead_end_test_misses)
        assert by_step3 > 0, "step 3 never decided on its own: its rule is not tested"


def test_step_3_decides_a_two_deck_lock_the_dead_end_test_misses():
    """Deal 35423 in small: both JD lie over the black queens; diamonds need the free 8D of t4
    and the two 7D of t3, each under a 7S; the red 8s but that 8D are frozen, and one spade
    foundation only can reach 7 (the other 6S is frozen).  The complete search proves it lost;
    the test needs step 3, and the delete relaxation (both 7S home at once) sees nothing."""
    from harpsolve.layout import read_layout
    from harpsolve.search.relax import dead_end

    rules = get_rules("endless-harp", {"columns": "1,2,3,4"})

    def position(six, extra):
        return read_layout(f"""t1: QC QS 8H 8S 9H 9H TH TH JH JH QH QH | JD
t2: QC QS 8H 8S 8D {six} KH KH 9S 9S TS TS | JD
t3: 7D 7D | 7S
t4: 8D | 7S
stock: 6S KC {extra} JS JS KS KS 9D 9D TD TD QD QD KD KD
foundations: JC JC 7H 7H 5S 5S 6D 6D
""").validate(rules)

    lost = position("6S", "KC")
    assert lock(rules, lost) == "lock: JD"
    assert lock(rules, lost, displace=False) is None and dead_end(rules, lost) is None
    assert status(rules, lost) == "unsolvable"
    # both 6S free: each spade foundation can take a 7S, and the test must not fire
    assert lock(rules, position("KC", "6S")) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(GAMES), seed=st.integers(0, 2**32), takeback=st.booleans())
def test_a_lock_is_never_found_in_a_position_the_complete_search_wins(variant, seed, takeback):
    rules = small_rules(variant, takeback)
    layout = lock_candidate(rules, random.Random(seed), forced=True)
    proof = lock(rules, layout)
    if proof is not None:
        assert status(rules, layout) in ("unsolvable", None), (proof, layout.to_text())


@pytest.mark.parametrize("variant,deal", [("klondike-3", 3), ("easy-harp", 1), ("harp", 58), ("endless-harp", 1),
                                          ("big-harp", 1)])
def test_no_lock_along_a_won_line(variant, deal):
    rules = get_rules(variant)
    r = solve(rules, deal)
    assert r.solved
    g = Game(rules, r.layout)
    assert lock(rules, r.layout) is None
    for tok in r.moves:
        g.apply(tok)
        assert lock(rules, g.to_layout()) is None, tok


def _35423(variant="endless-harp", **overrides):
    rules = get_rules(variant, overrides or None)
    return rules, deal_layout(rules, 35423)


@pytest.mark.parametrize("variant", ["endless-harp", "big-harp"])
def test_deal_35423_is_locked_by_its_red_jacks(variant):
    """The deal of the module's docstring: every black queen beneath a red jack, and a red
    foundation can reach 10 only if both 7S find a place at once -- they cannot."""
    rules, layout = _35423(variant)
    assert lock(rules, layout) == "lock: JD JH"
    # without step 3 (the two 7S) the ceilings alone allow diamonds to 10
    assert lock(rules, layout, displace=False) is None
    r = solve(rules, 35423)
    assert (r.status, r.engine, r.proof) == ("unsolvable", "lock", "lock: JD JH")


def test_deal_35423_with_its_buried_ace_of_spades_free_is_not_locked():
    """The proof needs the AS under t5's queen: with it swapped for a stock card, two spade
    foundations can start, each can take a 7S, and the test must not fire."""
    rules, layout = _35423()
    col = layout.columns[4]
    assert col[0] == parse_card("AS")
    j = layout.stock.index(parse_card("4D"))
    col[0], layout.stock[j] = layout.stock[j], col[0]
    assert lock(rules, layout.validate(rules)) is None


@pytest.mark.parametrize("change", [{"empty": "any"}, {"cells": 1}])
def test_the_lock_test_stays_out_where_its_argument_does_not_hold(change):
    """An empty column that takes any card, or a cell, lets a red jack leave without a base."""
    rules, layout = _35423(**change)
    layout.cells = [None] * rules.cells
    assert lock(rules, layout) is None


@pytest.mark.parametrize("variant", ["klondike-1", "klondike-3", "easy-harp", "harp", "big-harp", "endless-harp",
                                     "bakers-game"])
def test_the_portfolio_runs_the_lock_test_from_round_1_where_it_applies(variant):
    """By rules fields: empty columns for kings only and no cells (not Baker's Game)."""
    from harpsolve.search import engine
    from harpsolve.state import ALL_CUTS

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    rows = [e for e in engine.PORTFOLIO.entries if e.engine == "lock" and e.applies(pos)]
    assert [(e.first_round, e.cap) for e in rows] == ([(1, 1)] if rules.empty == "king" and not rules.cells else [])
