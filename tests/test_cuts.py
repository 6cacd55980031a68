"""Each pruning cut against the unpruned search: the same verdict on small positions.

The complete search with ``auto=False, prune=False`` is the oracle: no safe
moves, no symmetry cuts, no obligations, no proved cuts.  A pruned search
that calls a position unsolvable where the oracle wins it (or the reverse)
is a soundness bug.  The regression positions are ones such a comparison
found; the hypothesis tests draw small random endgames (tests/positions.py).
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from harpsolve.layout import Layout
from harpsolve.reference import replay
from harpsolve.rules import get_rules
from harpsolve.solver import solve
from harpsolve.state import (
    ALL_CUTS, CUT_KELLER, CUT_PURE, CUT_SAFE_PLAY, O_TLEN, O_TPTR, fingerprint, kernel_params, pack,
)

from positions import endgame

NODES = 400_000


def verdicts(rules, layout, **pruned):
    """(oracle status, pruned status): complete DFS unpruned vs with the given switches."""
    full = solve(rules, layout=layout, max_nodes=NODES, auto=False, prune=False, algorithm="dfs")
    cut = solve(rules, layout=layout, max_nodes=NODES, algorithm="dfs", **pruned)
    for r in (full, cut):
        if r.solved:
            rep = replay(r.rules, r.layout, r.moves)
            assert rep.ok and rep.won, rep.error
    return full.status, cut.status


# ---- regressions --------------------------------------------------------------------------
# Two decks: hearts at J and 10, a queen of hearts on a column and one in the
# stock under the jack of hearts (draw 3: one tap shows the queen, the jack
# under it).  Putting the column queen up "safely" takes the jack's only place
# for the stock queen.  Fixed by requiring every place of the suit >= r-1.
SAFE_TWO_DECKS = ("big-harp", {"takeback": False}, {
    "columns": [["KH"], [], ["KH"], [], [], ["QH"], [], [], ["KD"], []], "face_down": [0] * 10,
    "stock": ["JH", "QH"], "cells": [], "foundations": ["KC", "KC", "KD", "QD", "JH", "TH", "KS", "KS"]})
SAFE_TWO_DECKS_ENDLESS = ("endless-harp", {"takeback": False}, {
    "columns": [["JD"], [], ["QD"], [], [], ["JD", "QD", "QH", "KH"], [], [], ["TD"], ["QH"]],
    "face_down": [0, 0, 0, 0, 0, 3, 0, 0, 0, 0], "stock": ["KD", "KH", "JH", "TD", "KD"], "cells": [],
    "foundations": ["KC", "KC", "9D", "9D", "JH", "TH", "KS", "KS"]})
# One deck, take-back: the old obligation after a take-back (the next move must
# build on the card taken back, or take back the place's next card) lost this win.
TAKEBACK_OBLIGATION = ("klondike-1", {}, {
    "columns": [["TH", "JD", "TC", "7H", "6H"], ["8C", "9H", "AH", "3H", "QD"], ["9C", "KS"],
                ["KH", "QS", "KD", "QH"], ["KC"], ["JC", "4H", "5H"], ["QC", "2H", "JH"]],
    "face_down": [4, 4, 1, 3, 0, 2, 2], "stock": ["8H"], "cells": [], "foundations": ["7C", "TD", "JS"]})


@pytest.mark.parametrize("case", [SAFE_TWO_DECKS, SAFE_TWO_DECKS_ENDLESS, TAKEBACK_OBLIGATION],
                         ids=["safe-two-decks", "safe-two-decks-endless", "takeback-obligation"])
def test_regressions_are_won_by_the_pruned_search(case):
    variant, overrides, d = case
    rules = get_rules(variant, overrides)
    full, cut = verdicts(rules, Layout.from_dict(d))
    assert full == "solved"
    assert cut == "solved"


# ---- random small positions ------------------------------------------------------------------
def _position(variant, overrides, seed, left, stock_share=0.5):
    rules = get_rules(variant, overrides)
    return rules, endgame(rules, random.Random(seed), left, stock_share)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["big-harp", "endless-harp", "easy-harp", "harp"]), seed=st.integers(0, 2**32),
       left=st.integers(3, 9), takeback=st.booleans())
def test_safe_moves_two_decks(variant, seed, left, takeback):
    """Safe foundation moves with two decks (only ``auto`` on): few cards, so the
    copies of a card compete for the places of its suit."""
    rules, layout = _position(variant, {"takeback": takeback}, seed, left, stock_share=0.8)
    full = solve(rules, layout=layout, max_nodes=NODES, auto=False, prune=False, algorithm="dfs")
    cut = solve(rules, layout=layout, max_nodes=NODES, auto=True, prune=False, algorithm="dfs")
    assume(full.status != "unknown")  # too big for the oracle: hypothesis draws another
    assert cut.status == full.status


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["klondike-1", "klondike-3", "easy-harp", "endless-harp"]),
       seed=st.integers(0, 2**32), left=st.integers(6, 22))
def test_obligations_with_takeback(variant, seed, left):
    """Symmetry cuts and the talon-chain obligation (``prune`` on, no safe moves)."""
    rules, layout = _position(variant, {"takeback": True}, seed, left)
    full, cut = verdicts(rules, layout, auto=False)
    assume(full != "unknown")  # too big for the oracle: hypothesis draws another
    assert cut == full


# ---- each proved cut alone, then all together (state.CUT_*) ------------------------------------
ALTERNATE = ["klondike-1", "klondike-3", "endless-harp", "big-harp", "easy-harp", "harp"]


def only(rules, layout, cuts, auto=False):
    """(oracle status, status with just ``cuts`` -- and the safe moves if ``auto``)."""
    full = solve(rules, layout=layout, max_nodes=NODES, auto=False, prune=False, algorithm="dfs")
    cut = solve(rules, layout=layout, max_nodes=NODES, auto=auto, prune=False, algorithm="dfs", cuts=cuts)
    if cut.solved:
        rep = replay(cut.rules, cut.layout, cut.moves)
        assert rep.ok and rep.won, rep.error
    assume(full.status != "unknown")  # too big for the oracle: hypothesis draws another
    return full.status, cut.status


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALTERNATE), seed=st.integers(0, 2**32), left=st.integers(4, 16),
       takeback=st.booleans())
def test_keller(variant, seed, left, takeback):
    rules, layout = _position(variant, {"takeback": takeback}, seed, left)
    full, cut = only(rules, layout, CUT_KELLER, auto=True)
    assert cut == full


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALTERNATE), seed=st.integers(0, 2**32), left=st.integers(4, 16),
       keller=st.booleans())
def test_never_take_back_a_safe_card(variant, seed, left, keller):
    rules, layout = _position(variant, {"takeback": True}, seed, left)
    full, cut = only(rules, layout, CUT_SAFE_PLAY | (CUT_KELLER if keller else 0))
    assert cut == full


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["klondike-3", "endless-harp"]), seed=st.integers(0, 2**32),
       left=st.integers(6, 20), takeback=st.booleans())
def test_pure_stock_positions(variant, seed, left, takeback):
    """Draw 3, unlimited passes: the pure waste sizes share a key (state._stock_key)."""
    rules, layout = _position(variant, {"takeback": takeback}, seed, left, stock_share=0.9)
    rng = random.Random(seed)
    k = rng.randint(0, len(layout.stock))
    layout.waste, layout.stock = layout.stock[:k], layout.stock[k:]
    layout.validate(rules)
    full, cut = only(rules, layout, CUT_PURE)
    assert cut == full


def test_pure_stock_positions_share_a_key():
    rules = get_rules("klondike-3")
    p = kernel_params(rules, cuts=CUT_PURE)
    p0 = kernel_params(rules)
    st_ = pack(endgame(rules, random.Random(1), 30, stock_share=1.0), rules)
    tlen = int(st_[O_TLEN])
    assert tlen >= 7
    keys = {}
    for w in range(tlen + 1):
        st_[O_TPTR] = w
        keys[w] = fingerprint(st_, p)
    without = set()
    for w in range(tlen + 1):
        st_[O_TPTR] = w
        without.add(fingerprint(st_, p0))
    assert len(without) == tlen + 1  # without the cut every waste size is its own key
    pure = [w for w in range(tlen + 1) if w % 3 == 0 or w == tlen]
    assert len({keys[w] for w in pure}) == 1
    impure = [w for w in range(tlen + 1) if w not in pure]
    assert len({keys[w] for w in impure}) == len(impure) and keys[pure[0]] not in {keys[w] for w in impure}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALTERNATE + ["bakers-game"]), seed=st.integers(0, 2**32), left=st.integers(4, 18),
       takeback=st.booleans())
def test_all_cuts_with_every_pruning(variant, seed, left, takeback):
    """The default search (safe moves, symmetry, obligations, ALL_CUTS) against the oracle."""
    rules, layout = _position(variant, {"takeback": takeback}, seed, left)
    full, cut = verdicts(rules, layout, cuts=ALL_CUTS)
    assume(full != "unknown")  # too big for the oracle: hypothesis draws another
    assert cut == full
