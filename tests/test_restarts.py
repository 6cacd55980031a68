"""The restart portfolio (search/restarts.py) and the "features" move order (search/dfs.py)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from harpsolve import movegen as mg
from harpsolve.deals import deal_layout
from harpsolve.reference import replay
from harpsolve.rules import get_rules
from harpsolve.search import dfs, restarts
from harpsolve.solver import solve
from harpsolve.state import N_WEIGHTS, O_COLS, O_FOUND, O_LEN, O_TALON, O_TLEN, MAXLEN, fingerprint, kernel_params, pack

from positions import deadlock_candidate, endgame

SINGLE = ["easy-harp", "harp"]
FOUR = "1,2,3,4"  # columns of the small two-deck positions


def root_moves(rules, layout, p):
    """The root's moves in the order the search tries them (after the root's safe moves)."""
    b = restarts._Buffers()
    b.fresh_table()
    ctr = np.zeros(dfs.C_SIZE, np.int64)
    b.stack[0] = pack(layout, rules)
    n = dfs._root(b.stack, b.hs, b.fs, b.home, b.moves, b.mstart, b.nmoves, b.nxt, b.scores, b.autobuf, b.work, b.scratch,
                  b.keys, b.t, b.tv, ctr, p)
    assert n >= 0
    return [int(m) for m in b.moves[:b.nmoves[0]]]


def test_features_only_reorder_and_seeds_change_the_order():
    rng = random.Random(7)
    reordered = reseeded = 0
    for i in range(40):
        rules = get_rules(SINGLE[i % 2])
        layout = endgame(rules, rng, rng.randint(20, 60))
        plain = root_moves(rules, layout, kernel_params(rules, heuristic=dfs.H_LOOKAHEAD, dominance=True))
        weights = [rng.randint(-8, 8) for _ in range(N_WEIGHTS)]
        a = root_moves(rules, layout, kernel_params(rules, heuristic=dfs.H_FEATURES, dominance=True,
                                                    weights=weights, noise=20, seed=1))
        again = root_moves(rules, layout, kernel_params(rules, heuristic=dfs.H_FEATURES, dominance=True,
                                                        weights=weights, noise=20, seed=1))
        other = root_moves(rules, layout, kernel_params(rules, heuristic=dfs.H_FEATURES, dominance=True,
                                                        weights=weights, noise=20, seed=2))
        assert sorted(a) == sorted(plain) == sorted(other)
        assert a == again  # a seed is reproducible
        reordered += a != plain
        reseeded += a != other
    # the checks above mean something only if the orders do differ
    assert reordered > 5 and reseeded > 5


def test_merged_colours_share_a_key():
    """Swapping clubs with spades is one state under the streamliner, two without."""
    rules = get_rules("easy-harp")
    layout = deal_layout(rules, 3)
    st_ = pack(layout, rules)
    sw = st_.copy()

    def swap(card):
        s = card // 13
        return {0: 3, 3: 0}.get(s, s) * 13 + card % 13

    for c in range(rules.n_columns):
        for j in range(int(st_[O_LEN + c])):
            sw[O_COLS + MAXLEN * c + j] = swap(int(st_[O_COLS + MAXLEN * c + j]))
    for i in range(int(st_[O_TLEN])):
        sw[O_TALON + i] = swap(int(st_[O_TALON + i]))
    sw[O_FOUND:O_FOUND + 8] = st_[O_FOUND:O_FOUND + 8][[6, 7, 2, 3, 4, 5, 0, 1]]
    merged = kernel_params(rules, merge_colours=True)
    plain = kernel_params(rules)
    assert fingerprint(st_, merged) == fingerprint(sw, merged)
    assert fingerprint(st_, plain) != fingerprint(sw, plain)

    # the foundations: a colour's heights are one set across its four places (two decks;
    # places in suit order clubs, diamonds, hearts, spades, two a suit), not a set per suit
    def with_found(heights):
        s = st_.copy()
        s[O_FOUND:O_FOUND + 8] = heights
        return fingerprint(s, merged)

    base = with_found([3, 1, 2, 0, 5, 4, 0, 2])
    assert with_found([0, 2, 2, 0, 5, 4, 3, 1]) == base  # clubs' and spades' places swapped
    assert with_found([2, 1, 0, 2, 5, 4, 3, 0]) == base  # black heights dealt otherwise
    assert with_found([3, 1, 5, 4, 2, 0, 0, 2]) == base  # red heights dealt otherwise
    assert with_found([3, 2, 2, 0, 5, 4, 0, 2]) != base  # one black height differs
    assert with_found([3, 1, 2, 0, 5, 0, 4, 2]) != base  # a black and a red height traded
    assert with_found([3, 1, 2, 0, 5, 4, 0, 2]) != fingerprint(st_, merged)


def test_same_run_twice_gives_the_same_result():
    rules = get_rules("easy-harp")
    layout = deal_layout(rules, 2)
    a = restarts.run(rules, layout, max_nodes=60_000)
    b = restarts.run(rules, layout, max_nodes=60_000)
    assert (a.status, a.engine, a.nodes, a.tokens) == (b.status, b.engine, b.nodes, b.tokens)


@pytest.mark.parametrize("variant,deal", [("easy-harp", 1), ("easy-harp", 2), ("harp", 3)])
def test_solutions_replay(variant, deal):
    rules = get_rules(variant)
    layout = deal_layout(rules, deal)
    r = restarts.run(rules, layout, max_nodes=200_000, verify=False)
    assert r.status == "solved" and r.engine.startswith("restart ")
    rep = replay(rules, layout, r.tokens)
    assert rep.ok and rep.won, rep.error


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(SINGLE + ["klondike-1"]), seed=st.integers(0, 2**32), left=st.integers(4, 16),
       takeback=st.booleans(), deadlock=st.booleans())
def test_portfolio_agrees_with_the_complete_search(variant, seed, left, takeback, deadlock):
    """A run that exhausts its graph is a proof: the portfolio (streamliners first) decides
    small positions as the unpruned depth-first search does."""
    if deadlock:  # four columns: about half of these are unsolvable (see below)
        rules = get_rules(variant, {"takeback": takeback, "columns": FOUR})
        layout = deadlock_candidate(rules, random.Random(seed), 11)
    else:
        rules = get_rules(variant, {"takeback": takeback})
        layout = endgame(rules, random.Random(seed), left)
    full = solve(rules, layout=layout, max_nodes=2_000_000, auto=False, prune=False, algorithm="dfs")
    assume(full.status != "unknown")  # too big for the unpruned search: hypothesis draws another
    r = restarts.run(rules, layout, max_nodes=2_000_000)
    assert r.status == full.status
    if r.status == "unsolvable":
        assert r.proof == "exhausted" and r.engine.startswith("restart r")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(SINGLE), seed=st.integers(0, 2**32))
def test_streamlined_runs_never_prove(variant, seed):
    """Only streamlined runs: exhausted, they answer unknown, never unsolvable."""
    rules = get_rules(variant, {"columns": FOUR})
    layout = deadlock_candidate(rules, random.Random(seed), 11)
    only = tuple(c for c in restarts.CONFIGS if c[1])
    r = restarts.run(rules, layout, max_nodes=200_000, configs=only)
    assert r.status != "unsolvable"


@pytest.mark.parametrize("variant", SINGLE)
def test_the_small_deadlocks_have_both_outcomes(variant):
    """The two checks above mean something only if such positions are both solvable and not."""
    rules = get_rules(variant, {"columns": FOUR})
    seen = set()
    for seed in range(20):
        layout = deadlock_candidate(rules, random.Random(seed), 11)
        seen.add(solve(rules, layout=layout, max_nodes=200_000, algorithm="dfs").status)
    assert seen == {"solved", "unsolvable"}


def test_runs_double_every_round_and_drop_the_streamlined_ones():
    runs = restarts.Runs(0)
    n = len(restarts.CONFIGS)
    first = [next(runs) for _ in range(n)]
    assert [(k, s) for _, k, s, _ in first] == list(restarts.CONFIGS)
    assert {(r, cap) for r, _, _, cap in first} == {(1, restarts.BASE_NODES)}
    r2 = next(runs)
    assert r2[0] == 2 and r2[3] == 2 * restarts.BASE_NODES
    assert any(s for _, s in restarts.CONFIGS) and not restarts.CONFIGS[0][1]
    runs.drop_streamlined()
    rest = [next(runs) for _ in range(3 * n)]
    assert not any(s for _, _, s, _ in rest)
    plain = [c for c in restarts.CONFIGS if not c[1]]
    # round 2 goes on after its first run, with the plain configurations only
    assert [(k, s) for _, k, s, _ in rest[:len(plain) - 1]] == plain[1:]
    assert rest[len(plain) - 1][0] == 3


def test_runs_budgets_sum_to_the_limit():
    limit = 7 * restarts.BASE_NODES + 123
    caps = [cap for _, _, _, cap in restarts.Runs(limit)]
    assert caps == [restarts.BASE_NODES] * 7 + [123]  # the first round's runs, then what is left
