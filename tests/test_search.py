"""The search: soundness of every pruning, known statuses, budgets, replayed solutions."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from harpsolve import movegen as mg
from harpsolve.layout import Layout
from harpsolve.reference import replay
from harpsolve.rules import VARIANTS, get_rules
from harpsolve.solver import solve
from harpsolve.state import (
    O_OBLIG, O_RECYC, O_TLEN, O_TPTR, fingerprint, kernel_params, pack, stock_dominance,
)

from positions import deadlock_candidate, endgame

ALL = list(VARIANTS)
KNOWN = json.loads((Path(__file__).parent / "golden" / "known.json").read_text())


def assert_replays(r):
    rep = replay(r.rules, r.layout, r.moves)
    assert rep.ok and rep.won, rep.error
    if r.rules.scoring == "easy-harp":
        assert r.score == rep.score


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), seed=st.integers(0, 2**32), left=st.integers(4, 20),
       takeback=st.booleans(), deadlock=st.booleans())
def test_pruned_search_agrees_with_unpruned(variant, seed, left, takeback, deadlock):
    """Safe moves, symmetry cuts and obligations never change a position's status."""
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    if deadlock:
        layout = deadlock_candidate(rules, rng, 12 if rules.decks == 2 else 11)
    else:
        layout = endgame(rules, rng, left)
    full = solve(rules, layout=layout, max_nodes=2_000_000, auto=False, prune=False, algorithm="dfs")
    pruned = solve(rules, layout=layout, max_nodes=2_000_000)
    assume(full.status != "unknown")  # too big for the unpruned search: hypothesis draws another
    assert pruned.status == full.status
    for r in (full, pruned):
        if r.solved:
            assert_replays(r)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["harp", "klondike-1", "easy-harp"]), passes=st.integers(1, 3),
       seed=st.integers(0, 2**32), left=st.integers(6, 12), takeback=st.booleans())
def test_stock_dominance_agrees_with_unpruned(variant, passes, seed, left, takeback):
    """Draw 1 with a pass limit: the search that keeps one best stock position per key
    (search/dfs.py) decides every position as the exact, unpruned search does."""
    rules = get_rules(variant, {"passes": passes, "takeback": takeback})
    assert stock_dominance(rules)
    rng = random.Random(seed)
    layout = endgame(rules, rng, left, stock_share=0.9)  # stock-heavy: the pass limit bites
    # part of the stock already turned, part of the passes used
    k = rng.randint(0, len(layout.stock))
    layout.waste, layout.stock = layout.stock[:k], layout.stock[k:]
    layout.pass_number = rng.randint(1, passes)
    layout.validate(rules)
    full = solve(rules, layout=layout, max_nodes=2_000_000, auto=False, prune=False, algorithm="dfs")
    pruned = solve(rules, layout=layout, max_nodes=2_000_000, algorithm="dfs")
    assume(full.status != "unknown")  # too big for the unpruned search: hypothesis draws another
    assert pruned.status == full.status
    for r in (full, pruned):
        if r.solved:
            assert_replays(r)


CASES = [(v, d["deal"], d["status"]) for v in ALL for d in KNOWN[v]["deals"]]


@pytest.mark.parametrize("variant,deal,status", CASES)
def test_known_deals(variant, deal, status):
    r = solve(variant, deal)
    assert r.status == status
    if r.solved:
        assert_replays(r)


POSITIONS = [(v, i, p) for v in ALL for i, p in enumerate(KNOWN[v]["positions"])]


@pytest.mark.parametrize("variant,i,pos", POSITIONS)
def test_constructed_positions(variant, i, pos):
    rules = get_rules(variant)
    layout = Layout.from_dict(pos["layout"])
    assert solve(rules, layout=layout).status == pos["status"]
    assert solve(rules, layout=layout, auto=False, prune=False, algorithm="dfs").status == pos["status"]


def test_every_variant_has_a_constructed_unsolvable_position():
    missing = [v for v in ALL if not any(p["status"] == "unsolvable" for p in KNOWN[v]["positions"])]
    assert not missing


def test_climbing_never_decides_what_the_search_does_not():
    compared = set()
    for variant in ("klondike-3", "easy-harp", "bakers-game"):
        for deal in (1, 2, 3):
            a = solve(variant, deal, max_nodes=200_000, algorithm="climb")
            b = solve(variant, deal, max_nodes=200_000, algorithm="dfs")
            if "unknown" not in (a.status, b.status):
                assert a.status == b.status
                compared.add((variant, deal, a.status))
    # not vacuous: most of the nine are decided by both, a proof among them
    assert len(compared) >= 5 and "unsolvable" in {s for _, _, s in compared}, compared


def test_node_budget_gives_unknown():
    r = solve("easy-harp", 4, max_nodes=50)
    assert r.status == "unknown" and r.reason == "nodes" and r.moves is None


def test_memory_budget_gives_unknown():
    r = solve("klondike-3", 1, max_nodes=None, max_memory=1 << 20, algorithm="dfs")
    assert r.status == "unknown" and r.reason == "memory"


def test_time_budget_gives_unknown():
    r = solve("klondike-3", 1, max_nodes=None, timeout=1e-6, algorithm="dfs")
    assert r.status == "unknown" and r.reason == "time"


def test_easy_harp_score_is_the_apps():
    r = solve("easy-harp", KNOWN["easy-harp"]["deals"][0]["deal"])
    assert r.solved
    waste_to_tableau = sum(1 for t in r.moves if t.startswith("w>t"))
    takebacks = sum(1 for t in r.moves if t.startswith("f>"))
    if takebacks == 0:
        assert r.score == 1220 + 5 * waste_to_tableau
    else:  # every re-placement after a take-back scores again
        assert r.score == 1220 + 5 * waste_to_tableau + 10 * takebacks


def _settled(st, m, p):
    child = st.copy()
    mg._apply(child, np.int64(m), p)
    if child[O_OBLIG] == 0:
        mg._auto(child, p, np.zeros(256, np.int64))
    return child


def _children(st, p):
    moves = np.zeros(mg.MAX_MOVES, np.int64)
    n = mg._gen(st, p, moves, np.zeros(mg.MAX_MOVES, np.int32), np.zeros(mg.GEN_WORK, np.int64))
    return [_settled(st, m, p) for m in moves[:n]]


def _stock_pos(st):
    return int(st[O_RECYC]) * 256 + int(st[O_TPTR])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["harp", "klondike-1", "easy-harp"]), passes=st.integers(2, 4),
       seed=st.integers(0, 2**32), left=st.integers(10, 40), takeback=st.booleans())
def test_stock_dominance_is_a_simulation(variant, passes, seed, left, takeback):
    """The lemma behind stock dominance (search/dfs.py): a position A that differs from B
    only by an earlier stock position has, for every child of B, a child with the same
    key and a stock position no later -- checked move by move on random positions."""
    rules = get_rules(variant, {"passes": passes, "takeback": takeback})
    p = kernel_params(rules, dominance=True)
    rng = random.Random(seed)
    b = pack(endgame(rules, rng, left, stock_share=0.8), rules)
    tlen = int(b[O_TLEN])
    b[O_RECYC] = rng.randint(0, passes - 1)
    b[O_TPTR] = rng.randint(0, tlen)
    a = b.copy()
    a[O_RECYC] = rng.randint(0, int(b[O_RECYC]))
    a[O_TPTR] = rng.randint(0, tlen if a[O_RECYC] < b[O_RECYC] else int(b[O_TPTR]))
    assert fingerprint(a, p) == fingerprint(b, p), "the stock position is not in the key"
    best = {}
    for child in _children(a, p):
        key = fingerprint(child, p)
        best[key] = min(best.get(key, 1 << 30), _stock_pos(child))
    for child in _children(b, p):
        key = fingerprint(child, p)
        assert key in best and best[key] <= _stock_pos(child)
