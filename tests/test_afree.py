"""The arrangement-free engine (search/afree.py): same verdicts as the complete
depth-first search, and every solution replays in the reference engine."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from harpsolve.cards import rank_of
from harpsolve.deals import deal_layout
from harpsolve.layout import Layout
from harpsolve.reference import replay
from harpsolve.rules import VARIANTS, builds_on, get_rules
from harpsolve.search import afree
from harpsolve.solver import solve

from positions import deadlock_candidate, endgame

RUN_GAMES = ["klondike-1", "klondike-3", "endless-harp", "big-harp"]


def test_applies_to_the_run_moving_games_only():
    assert [v for v in VARIANTS if afree.applies(get_rules(v))] == sorted(RUN_GAMES, key=list(VARIANTS).index)
    assert not afree.applies(get_rules("klondike-3", ["column_moves=single"]))
    assert not afree.applies(get_rules("easy-harp", ["column_moves=runs", "king_runs=false", "cells=1"]))


def check(rules, layout, nodes=300_000):
    """afree and the complete DFS agree whenever both decide; afree's solutions replay."""
    a = afree.run(rules, layout, max_nodes=nodes)
    assert a.reason != "concretise", a.abstract
    if a.status == "solved":
        rep = replay(rules, layout, a.tokens)
        assert rep.ok and rep.won, rep.error
    if a.status == "unsolvable":
        assert a.proof == "exhausted: arrangement-free"
    d = solve(rules, layout=layout, max_nodes=nodes, algorithm="dfs")
    if a.status != "unknown" and d.status != "unknown":
        assert a.status == d.status, (a.status, d.status)
    return a.status, d.status


def cuts_agree(rules, layout, **without):
    """The search with every cut and the search ``without`` some (``safe=False``: none) reach
    the same verdict whenever the latter decides (hypothesis draws another position when it
    does not); a solution replays.  Returns the first search's result."""
    plain = afree.run(rules, layout, max_nodes=300_000, **without)
    assume(plain.status != "unknown")
    cut = afree.run(rules, layout, max_nodes=300_000)
    assert cut.status == plain.status
    if cut.status == "solved":
        rep = replay(rules, layout, cut.tokens)
        assert rep.ok and rep.won, rep.error
    return cut


def _pure_by_walking(rem: int, p: int, draw: int, tlen: int) -> bool:
    """Is canonical position p on the chain of draws from an empty waste (or the stock's end)?
    The plain way: walk the chain, a draw at a time."""
    left = [i for i in range(tlen) if rem >> i & 1]
    if not [i for i in left if i >= p]:
        return True
    x = 0
    while True:
        nxt = [i for i in left if i >= x][:draw]
        if len(nxt) < draw:
            return False
        x = nxt[-1] + 1
        if x == p:
            return True
        if x > p:
            return False


@settings(deadline=None)  # the first example compiles the kernel
@given(rem=st.integers(0, 2**24 - 1), p=st.integers(0, 24), draw=st.integers(1, 3), passes=st.sampled_from([0, 3]))
def test_normal_pos_keys_exactly_the_pure_positions_as_one(rem, p, draw, passes):
    """afree._normal_pos counts the cards left below p; walking the chain of draws agrees."""
    q = np.zeros(afree.Q_SIZE, np.int64)
    q[afree.Q_DRAW], q[afree.Q_PASSES], q[afree.Q_TLEN] = draw, passes, 24
    got = afree._normal_pos(np.uint64(rem), p, q)
    canon = max([i + 1 for i in range(p) if rem >> i & 1], default=0)
    if passes or canon == 0:
        assert got == canon
    else:
        assert got == (0 if _pure_by_walking(rem, canon, draw, 24) else canon)


def lowest_rank(rules, lower: int) -> int:
    """Every card from this rank up in play (at most 28 cards with one deck, 40 with two):
    small enough for the unpruned complete search, with both verdicts common."""
    return (9 if rules.decks == 2 else 7) + lower


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(RUN_GAMES), seed=st.integers(0, 2**32), left=st.integers(4, 18),
       takeback=st.booleans(), deadlock=st.booleans(), lower=st.integers(0, 3))
def test_agrees_with_the_complete_search_on_small_positions(variant, seed, left, takeback, deadlock, lower):
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    if deadlock:
        layout = deadlock_candidate(rules, rng, lowest_rank(rules, lower))
    else:
        layout = endgame(rules, rng, left)
    a, d = check(rules, layout)
    assume(d != "unknown" and a != "unknown")  # too big: hypothesis draws another


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(RUN_GAMES), seed=st.integers(0, 2**32), left=st.integers(4, 30),
       takeback=st.booleans(), deadlock=st.booleans(), lower=st.integers(-2, 3))
def test_safe_moves_agree_with_the_search_without_them(variant, seed, left, takeback, deadlock, lower):
    """The forced safe foundation moves (afree._forced) and the dropped take-backs
    (afree._useless) never change a verdict."""
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    if deadlock:
        layout = deadlock_candidate(rules, rng, lowest_rank(rules, lower))
    else:
        layout = endgame(rules, rng, left)
    full = afree.run(rules, layout, max_nodes=300_000, safe=False)
    # a two-deck endgame of 30 cards can need millions of states without the cuts (endless-harp,
    # seed 137, 27 cards: 1.8 M); such an example says nothing -- hypothesis draws another, and
    # fails the test if it has to filter too many
    assume(full.status != "unknown")
    cut = afree.run(rules, layout, max_nodes=300_000)
    assert cut.status == full.status
    assert cut.nodes <= full.nodes or cut.status == "solved"


# draw 2 or more with unlimited passes: a safe last talon card from a pure position is forced
# (afree._forced); on fewer columns, where unsolvable positions are common
LAST_CARD_GAMES = [("klondike-3", {}), ("klondike-3", {"columns": "1,2,3,4"}),
                   ("klondike-3", {"draw": 2, "columns": "1,2,3,4"}), ("endless-harp", {"columns": "1,2,3"})]


def _last_card_position(rules, rng, left, share):
    """An endgame whose stock ends with a card of the lowest rank in play: that card is safe
    (every place is at its rank - 1 or more, its own at exactly that), and the root, with an
    empty waste, is pure: the forced last-card play applies at the root.  None if no card of
    the lowest rank is in the stock."""
    layout = endgame(rules, rng, left, stock_share=share)
    cards = [c for col in layout.columns for c in col] + list(layout.stock)
    low = min(rank_of(c) for c in cards)
    stock = list(layout.stock)
    at = [i for i, c in enumerate(stock) if rank_of(c) == low]
    if not at:
        return None
    i = rng.choice(at)
    stock.append(stock.pop(i))
    return Layout([list(c) for c in layout.columns], list(layout.face_down), stock=stock,
                  foundations=list(layout.foundations)).validate(rules)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(game=st.sampled_from(LAST_CARD_GAMES), seed=st.integers(0, 2**32), left=st.integers(6, 30),
       takeback=st.booleans(), share=st.sampled_from([0.4, 0.8]))
def test_the_forced_last_talon_card_agrees_with_the_search_without_cuts(game, seed, left, takeback, share):
    """Under draw 2 or 3 and unlimited passes a safe last talon card from a pure position is
    the node's only move (afree._forced): never a different verdict from the search without
    any cut, on positions where it applies at the root (and wherever the search meets it)."""
    variant, overrides = game
    rules = get_rules(variant, {**overrides, "takeback": takeback})
    layout = _last_card_position(rules, random.Random(seed), left, share)
    assume(layout is not None)
    pr = afree.Problem(rules, layout)
    S = pr.root.copy()
    j = int(np.uint64(S[afree.S_REM])).bit_length() - 1
    assert S[afree.S_POS] == 0 and afree._safe(S, pr.q, pr.talon[j])  # the rule's premise at the root
    cuts_agree(rules, layout, safe=False)


def test_the_forced_last_talon_card_is_exercised():
    """The test above is not vacuous: on such positions the root's only move is often the last
    talon card home (when no column card is forced first), with both verdicts; and whole deals
    need fewer states (klondike-3 deal 382: 1 758 097 states without the rule, 1 401 680)."""
    seen, fired = set(), 0
    rng = random.Random(3)
    rules = get_rules("endless-harp", {"columns": "1,2,3"})
    for _ in range(200):
        layout = _last_card_position(rules, rng, 30, 0.8)
        if layout is None:
            continue
        pr = afree.Problem(rules, layout)
        out = np.zeros(afree.MAX_MOVES, np.int64)
        n = afree._gen(pr.root.copy(), pr.q, pr.cols, pr.talon, afree.work(pr.talon, int(pr.q[afree.Q_TLEN])), out, 0,
                         afree.MAX_MOVES)
        if out[0] & 7 != afree.MK_TF:
            continue  # a column card forced first
        assert n == 1 and (out[0] >> 3) & 511 == int(np.uint64(pr.root[afree.S_REM])).bit_length() - 1
        fired += 1
        r = afree.run(rules, layout, max_nodes=300_000)
        seen.add(r.status)
    assert fired >= 20 and {"solved", "unsolvable"} <= seen, (fired, seen)
    rules = get_rules("klondike-3")
    r = afree.run(rules, deal_layout(rules, 382))
    assert r.status == "unsolvable" and r.states < 1_500_000


# the games where the talon is a reserve (draw 1, unlimited passes): talon plays to a column
# are deferred until used (afree._wanted); the two-deck one on five columns, where unsolvable
# positions are common (on ten columns nearly every small one is won)
RESERVE_GAMES = [("klondike-1", {}), ("endless-harp", {"draw": 1, "columns": "1,2,3,4,5"})]


def _reserve_position(rules, rng, deadlock, left, lower, share):
    if deadlock:
        return deadlock_candidate(rules, rng, lowest_rank(rules, lower), stock_share=share)
    return endgame(rules, rng, left, stock_share=share)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(RESERVE_GAMES), seed=st.integers(0, 2**32), left=st.integers(6, 30),
       takeback=st.booleans(), deadlock=st.booleans(), lower=st.integers(-1, 3),
       share=st.sampled_from([0.1, 0.2, 0.4, 0.8]))
def test_deferred_talon_plays_agree_with_the_search_without_them(game, seed, left, takeback, deadlock, lower, share):
    """Deferring talon plays to a column until they are used, with the obligation to use them
    next (afree._wanted, afree._obliged), never changes a verdict: against the same search
    with the other cuts and without this one, and against the search with no cut at all."""
    variant, overrides = game
    rules = get_rules(variant, {**overrides, "takeback": takeback})
    layout = _reserve_position(rules, random.Random(seed), deadlock, left, lower, share)
    cut = cuts_agree(rules, layout, defer=False)
    bare = afree.run(rules, layout, max_nodes=300_000, safe=False)
    if bare.status != "unknown":
        assert bare.status == cut.status


def test_deferring_is_exercised_and_decides_deals_with_fewer_states():
    """The deferral test above is not vacuous: on small positions with a talon both verdicts
    occur and the deferral changes the search (on such small positions the states kept under
    an obligation can outnumber those it saves: two-deck totals came out 3 % higher); on whole
    deals it decides with far fewer states (klondike-1 deal 66: 193 527 -> 14 861)."""
    rng = random.Random(11)
    for variant, overrides in RESERVE_GAMES:
        rules = get_rules(variant, overrides)
        seen, with_, without = set(), 0, 0
        for i in range(120):
            layout = _reserve_position(rules, rng, True, 0, 0, 0.1)
            plain = afree.run(rules, layout, max_nodes=300_000, defer=False)
            cut = afree.run(rules, layout, max_nodes=300_000)
            if "unknown" in (plain.status, cut.status):
                continue
            assert cut.status == plain.status
            seen.add(cut.status)
            if cut.status == "unsolvable":
                with_, without = with_ + cut.states, without + plain.states
        assert {"solved", "unsolvable"} <= seen, variant
        assert with_ != without, (variant, with_, without)
    # a whole deal: klondike-1 deal 66 is unsolvable either way
    rules = get_rules("klondike-1")
    layout = deal_layout(rules, 66)
    plain, cut = afree.run(rules, layout, defer=False), afree.run(rules, layout)
    assert plain.status == cut.status == "unsolvable"
    assert cut.states < plain.states / 4


def test_the_obligation_is_part_of_the_key():
    """Two states that differ only in the obligation (afree.S_OB) have different keys; with no
    obligation the key is what it was before the field existed."""
    rules = get_rules("klondike-1")
    pr = afree.Problem(rules, deal_layout(rules, 5))
    assert pr.q[afree.Q_DEFER] == 1
    S = pr.root.copy()
    k0 = afree._key(S, pr.q)
    tlen = int(pr.q[afree.Q_TLEN])
    plain = (np.uint64(S[afree.S_REM]) | np.uint64(S[afree.S_POS]) << np.uint64(tlen))
    assert k0[0] == plain
    keys = {tuple(int(x) for x in k0)}
    for ob in (1, 2, 26):
        S[afree.S_OB] = ob
        keys.add(tuple(int(x) for x in afree._key(S, pr.q)))
    assert len(keys) == 4
    # the flag is off where the talon is not a reserve
    assert afree.Problem(get_rules("klondike-3"), deal_layout(rules, 5)).q[afree.Q_DEFER] == 0
    assert afree.Problem(rules, deal_layout(rules, 5), safe=False).q[afree.Q_DEFER] == 0


def test_a_long_talon_with_a_pass_limit_keys_the_stock_position_in_k2():
    """harp with runs (59 talon cards, draw 1, 4 passes): the position (6 bits) and the recycles
    (2 bits) do not fit after the talon bits in k1, so they sit in k2 above the columns' field
    and below the marker bit; states that differ only in them have different keys."""
    rules = get_rules("harp", {"column_moves": "runs"})
    pr = afree.Problem(rules, deal_layout(rules, 3))
    assert pr.ok and pr.q[afree.Q_XK2] == 1
    dbits = (int(np.prod([int(x) for x in pr.radix], dtype=object)) - 1).bit_length()
    assert pr.q[afree.Q_XSHIFT] == 32 + dbits
    assert pr.q[afree.Q_XSHIFT] + pr.q[afree.Q_PBITS] + pr.q[afree.Q_RCBITS] <= 63
    S = pr.root.copy()
    keys = set()
    for pos in (0, 1, 59):
        for rc in (0, 1, 3):
            S[afree.S_POS], S[afree.S_RC] = pos, rc
            k1, k2 = afree._key(S, pr.q)
            assert k1 == np.uint64(S[afree.S_REM]) and int(k2) >> 63 == 1
            keys.add((int(k1), int(k2)))
    assert len(keys) == 9


class _XInK2(afree.Problem):
    """A Problem whose position, recycles and obligation sit in k2 even where k1 has room."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.ok:
            dbits = max(1, (int(np.prod([int(x) for x in self.radix], dtype=object)) - 1).bit_length())
            self.q[afree.Q_XK2], self.q[afree.Q_XSHIFT] = 1, 32 + dbits
            # and two-word entries, as Problem makes them wherever x sits in k2 (_pack1 packs
            # only k2's foundations and d: x there would be cut off a one-word entry)
            self.q[afree.Q_ONE] = 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from([("klondike-1", {}), ("klondike-3", {}), ("big-harp", {}),
                             ("endless-harp", {"draw": 1, "passes": 4, "columns": "1,2,3,4,5"})]),
       seed=st.integers(0, 2**32), left=st.integers(6, 24), takeback=st.booleans(),
       share=st.sampled_from([0.2, 0.5, 0.8]))
@example(game=("endless-harp", {"draw": 1, "passes": 4, "columns": "1,2,3,4,5"}), seed=49026983, left=23,
         takeback=False, share=0.5)  # one-word entries fit there: _XInK2 must turn them off
def test_the_small_fields_in_k2_search_the_same_states(game, seed, left, takeback, share):
    """Where the small fields sit is a layout of the key, not a change of the search: with them
    forced into k2 the search enters the same states and decides the same way (so harp's keys,
    which need k2, are as exact as everyone else's)."""
    variant, overrides = game
    rules = get_rules(variant, {**overrides, "takeback": takeback})
    layout = endgame(rules, random.Random(seed), left, stock_share=share)
    a = afree.run(rules, layout, max_nodes=50_000)
    original = afree.Problem
    try:
        afree.Problem = _XInK2
        b = afree.run(rules, layout, max_nodes=50_000)
    finally:
        afree.Problem = original
    assert (a.status, a.states, a.tokens) == (b.status, b.states, b.tokens)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["klondike-1", "klondike-3"]), seed=st.integers(0, 2**32),
       left=st.integers(6, 30), takeback=st.booleans(), share=st.sampled_from([0.2, 0.5, 0.8]))
def test_one_word_keys_search_the_same_states(variant, seed, left, takeback, share):
    """The one-word table (``_pack1``, one deck) is a layout of the key, not a change of the
    search: with two-word entries instead the search enters the same states, in the same
    order, and decides the same way."""
    rules = get_rules(variant, {"takeback": takeback})
    layout = endgame(rules, random.Random(seed), left, stock_share=share)
    one = afree.Search(rules, layout)
    two = afree.Search(rules, layout, one_word=False)
    assume(one.result is None and two.result is None)
    assert one.pr.q[afree.Q_ONE] == 1 and two.pr.q[afree.Q_ONE] == 0
    a, b = one.advance(50_000), two.advance(50_000)
    assert (a.status, a.states, a.nodes, a.tokens) == (b.status, b.states, b.nodes, b.tokens)


def test_the_one_word_key_is_exact():
    """Which games get one-word keys (klondike's 24-card talon: 61 bits; not two decks), and
    ``_pack1`` maps distinct keys to distinct words: every field of (k1, k2) at its width,
    flipped bit by bit, changes the word, and the word has the marker bit (0 = empty slot)."""
    for variant, one in (("klondike-1", 1), ("klondike-3", 1), ("endless-harp", 0), ("big-harp", 0)):
        rules = get_rules(variant)
        assert afree.Problem(rules, deal_layout(rules, 3)).q[afree.Q_ONE] == one, variant
    rules = get_rules("klondike-3")
    pr = afree.Problem(rules, deal_layout(rules, 3))
    q = pr.q
    dbits = (int(np.prod([int(x) for x in pr.radix], dtype=object)) - 1).bit_length()
    assert q[afree.Q_DSHIFT] + dbits <= 63
    k1 = np.uint64(0b1011 | (5 << int(q[afree.Q_TLEN])))
    k2 = np.uint64((1 << 63) | (0x3A7C) | (12345 << 32))
    w = afree._pack1(k1, k2, q)
    assert int(w) >> 63 == 1
    words = {int(w)}
    for b in range(int(q[afree.Q_FSHIFT])):  # k1: talon bits and position
        words.add(int(afree._pack1(k1 ^ np.uint64(1 << b), k2, q)))
    for b in list(range(16)) + list(range(32, 32 + dbits)):  # k2: foundations and d
        words.add(int(afree._pack1(k1, k2 ^ np.uint64(1 << b), q)))
    assert len(words) == 1 + int(q[afree.Q_FSHIFT]) + 16 + dbits
    t = np.zeros(8, np.uint64)
    assert afree._insert1(t, w) and not afree._insert1(t, w) and np.count_nonzero(t) == 1


def _talon_plays_by_walking(pr, S, w, empties):
    """The talon plays of state S found the plain way: walk the stock position by position (each
    draw, each recycle while passes are left), and at each waste top test the card as
    ``_talon_plays`` does -- the order the walk meets the tops is the order of the moves."""
    q, talon = pr.q, pr.talon
    rem, tlen, draw, passes = np.uint64(S[afree.S_REM]), int(q[afree.Q_TLEN]), int(q[afree.Q_DRAW]), int(q[afree.Q_PASSES])
    out = []

    def visit(p, rc):
        top = afree._canon(rem, p)
        if top == 0:
            return
        j = top - 1
        c = int(talon[j])
        home = afree._accepts(S, q, c)
        if home:
            out.append(afree.MK_TF | (j << 3) | (rc << 12))
        ok = empties > 0 if rank_of(c) == 13 else w.free[afree.PTYPE[c]] > 0
        if ok and home and q[afree.Q_SAFE] and afree._safe(S, q, c):
            ok = False
        if ok and q[afree.Q_DEFER] and not afree._wanted(S, q, pr.cols, w.tp, w.vis, w.free, afree.TYPE[c]):
            ok = False
        if ok:
            out.append(afree.MK_TC | (j << 3) | (rc << 12))

    if rem == 0:
        return out
    p, rc = int(S[afree.S_POS]), int(S[afree.S_RC])
    visit(p, rc)
    while not afree._at_end(rem, p, tlen):
        p = afree._advance(rem, p, draw, tlen)
        visit(p, rc)
    if passes == 0 and S[afree.S_POS] != 0:
        p = 0
        while True:
            p = afree._advance(rem, p, draw, tlen)
            if afree._at_end(rem, p, tlen):
                break
            visit(p, rc)
    while passes and rc + 1 < passes:
        rc, p = rc + 1, 0
        while not afree._at_end(rem, p, tlen):
            p = afree._advance(rem, p, draw, tlen)
            visit(p, rc)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from([("klondike-1", {}), ("klondike-3", {}), ("big-harp", {}), ("endless-harp", {}),
                             ("endless-harp", {"draw": 2, "passes": 3})]),
       seed=st.integers(0, 2**32), left=st.integers(6, 40), share=st.sampled_from([0.3, 0.6, 0.9]),
       steps=st.integers(0, 40))
def test_talon_plays_are_those_of_a_walk_through_the_stock(game, seed, left, share, steps):
    """``_talon_moves`` finds the plays of every waste top at once, from the talon's tables and
    the walk cache (``_walks``); on states along random lines of play it makes the moves, in
    the order, that walking the stock position by position and testing each top makes -- the
    second time from the cache."""
    variant, overrides = game
    rules = get_rules(variant, overrides)
    layout = endgame(rules, random.Random(seed), left, stock_share=share)
    pr = afree.Problem(rules, layout)
    assume(pr.ok)
    w = afree.work(pr.talon, int(pr.q[afree.Q_TLEN]))
    rng = random.Random(seed ^ 1)
    S = pr.root.copy()
    out = np.zeros(afree.MAX_MOVES, np.int64)
    for _ in range(steps + 1):
        empties = afree._derive(S, pr.q, pr.cols, pr.talon, w)
        want = _talon_plays_by_walking(pr, S, w, empties)
        for _ in range(2):  # a walk, then the cache
            n = afree._talon_moves(S, pr.q, pr.cols, pr.talon, w, empties, out, 0, afree.MAX_MOVES)
            assert [int(m) for m in out[:n]] == want
        n = afree._gen(S, pr.q, pr.cols, pr.talon, w, out, 0, afree.MAX_MOVES)
        if n <= 0:
            break
        afree._apply(S, int(out[rng.randrange(n)]), pr.q, pr.cols, pr.talon)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from([("klondike-1", {}), ("klondike-3", {}), ("big-harp", {}), ("endless-harp", {}),
                             ("klondike-3", {"takeback": False})]),
       seed=st.integers(0, 2**32), left=st.integers(6, 52), share=st.sampled_from([0.1, 0.4, 0.8]),
       steps=st.integers(1, 60), one_word=st.booleans())
def test_children_keys_ahead_are_the_keys_of_the_children(game, seed, left, share, steps, one_word):
    """Along random lines of play: the key's column field kept move by move (``S_DV``, by
    ``_lower``) is the columns' d in mixed radix, written out from the radices; and the keys
    ``_ahead`` stores for a state's children (and prefetches) are the keys of those children
    made one by one -- (0, 0) exactly for a won child -- in both table layouts, shared or not."""
    variant, overrides = game
    rules = get_rules(variant, overrides)
    layout = endgame(rules, random.Random(seed), left, stock_share=share)
    pr = afree.Problem(rules, layout, one_word=one_word)
    assume(pr.ok)
    ncol = int(pr.q[afree.Q_NCOL])
    w = afree.work(pr.talon, int(pr.q[afree.Q_TLEN]))
    rng = random.Random(seed ^ 3)
    S = pr.root.copy()
    out = np.zeros(afree.MAX_MOVES, np.int64)
    keys = np.zeros(2 * afree.MAX_MOVES, np.uint64)
    t = np.zeros(1 << 10, np.uint64)
    flags = np.zeros(1 << 10, np.uint8)
    scratch = np.empty(afree.S_SIZE, np.int64)
    for step in range(steps):
        dv = 0
        for i in range(ncol):
            dv = dv * int(pr.radix[i]) + int(S[afree.S_D + i])
        assert S[afree.S_DV] == dv
        n = afree._gen(S, pr.q, pr.cols, pr.talon, w, out, 0, afree.MAX_MOVES)
        if n <= 0:
            break
        afree._ahead(S, out, keys, 0, n, t, flags, step % 2 - 1, pr.q, pr.cols, pr.talon, scratch)
        for i in range(n):
            child = S.copy()
            afree._apply(child, int(out[i]), pr.q, pr.cols, pr.talon)
            want = (0, 0) if afree._won(child, pr.q) else tuple(int(x) for x in afree._key(child, pr.q))
            assert (int(keys[2 * i]), int(keys[2 * i + 1])) == want
        afree._apply(S, int(out[rng.randrange(n)]), pr.q, pr.cols, pr.talon)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from([("klondike-1", {}), ("klondike-3", {}), ("big-harp", {}), ("endless-harp", {}),
                             ("klondike-3", {"takeback": False})]),
       seed=st.integers(0, 2**32), left=st.integers(6, 52), share=st.sampled_from([0.1, 0.4, 0.8]),
       steps=st.integers(1, 60))
def test_counts_kept_move_by_move_are_the_counts_from_scratch(game, seed, left, share, steps):
    """The search keeps the derived counts (``_derive``) up to date with ``_step``, forward
    when it enters a child and backward when it backs up (``_sync``): along random lines of
    play the counts so kept are those computed from scratch after every move, and undoing
    the line move by move gives the root's counts back."""
    variant, overrides = game
    rules = get_rules(variant, overrides)
    layout = endgame(rules, random.Random(seed), left, stock_share=share)
    pr = afree.Problem(rules, layout)
    assume(pr.ok)
    tlen = int(pr.q[afree.Q_TLEN])
    kept, fresh = afree.work(pr.talon, tlen), afree.work(pr.talon, tlen)
    rng = random.Random(seed ^ 7)
    line = [pr.root.copy()]
    moves = []
    out = np.zeros(afree.MAX_MOVES, np.int64)

    def same(S, empties):
        assert empties == afree._derive(S, pr.q, pr.cols, pr.talon, fresh)
        for name in ("vis", "nl", "free", "locked", "present", "nv"):
            assert list(getattr(kept, name)) == list(getattr(fresh, name)), name

    afree._derive(line[0], pr.q, pr.cols, pr.talon, kept)
    for _ in range(steps):
        n = afree._gen(line[-1].copy(), pr.q, pr.cols, pr.talon, fresh, out, 0, afree.MAX_MOVES)
        if n <= 0:
            break
        m = int(out[rng.randrange(n)])
        child = line[-1].copy()
        afree._apply(child, m, pr.q, pr.cols, pr.talon)
        afree._step(line[-1], m, pr.q, pr.cols, pr.talon, kept, 1)
        same(child, afree._counts(kept))
        line.append(child)
        moves.append(m)
    while moves:
        m = moves.pop()
        line.pop()
        afree._step(line[-1], m, pr.q, pr.cols, pr.talon, kept, -1)
        same(line[-1], afree._counts(kept))


def test_both_verdicts_occur_on_small_positions():
    """The differential test above is not vacuous: afree proves and solves in every game
    (each first verdict is checked against the complete search)."""
    rng = random.Random(7)
    for variant in RUN_GAMES:
        rules = get_rules(variant, {"takeback": False})
        seen = set()
        for i in range(150):
            layout = deadlock_candidate(rules, rng, lowest_rank(rules, -1))
            status = afree.run(rules, layout, max_nodes=300_000).status
            if status not in seen:
                seen.add(check(rules, layout)[0])
            if {"solved", "unsolvable"} <= seen:
                break
        assert {"solved", "unsolvable"} <= seen, variant


def test_the_move_order_follows_the_pass_limit():
    """Where passes are limited the talon's plays to a column come first (afree.PASS_LIMIT_ORDER);
    a rules field decides it, not the variant's name."""
    assert afree.default_order(get_rules("big-harp")) == afree.PASS_LIMIT_ORDER
    assert afree.default_order(get_rules("klondike-3", ["passes=3"])) == afree.PASS_LIMIT_ORDER
    for v in ("klondike-1", "klondike-3", "endless-harp"):
        assert afree.default_order(get_rules(v)) == afree.DEFAULT_ORDER
    assert afree.default_order(get_rules("big-harp", ["passes=0"])) == afree.DEFAULT_ORDER
    # the portfolio's second arrangement-free row takes the order the rules do not
    for v in RUN_GAMES:
        r = get_rules(v)
        assert {afree.default_order(r), afree.other_order(r)} == {afree.DEFAULT_ORDER, afree.PASS_LIMIT_ORDER}
    for order in (afree.DEFAULT_ORDER, afree.PASS_LIMIT_ORDER):
        assert sorted(order) == list(range(6))
    rules = get_rules("big-harp")
    pr = afree.Problem(rules, deal_layout(rules, 1))
    ranks = pr.q[afree.Q_PRI:afree.Q_PRI + 6]
    assert [int(ranks[k]) for k in afree.PASS_LIMIT_ORDER] == list(range(6))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(RUN_GAMES), passes=st.sampled_from([0, 1, 2, 3]), seed=st.integers(0, 2**32),
       left=st.integers(4, 30), takeback=st.booleans())
def test_the_move_order_never_changes_a_verdict(variant, passes, seed, left, takeback):
    """Move ordering decides only which child is tried first: both orders reach the same
    verdict whenever both decide, and both orders' solutions replay."""
    rules = get_rules(variant, {"takeback": takeback, "passes": passes})
    layout = endgame(rules, random.Random(seed), left)
    out = []
    for order in (afree.DEFAULT_ORDER, afree.PASS_LIMIT_ORDER):
        r = afree.run(rules, layout, max_nodes=200_000, order=order)
        assert r.reason != "concretise", r.abstract
        if r.status == "solved":
            rep = replay(rules, layout, r.tokens)
            assert rep.ok and rep.won, rep.error
        out.append(r.status)
    assume("unknown" not in out)
    assert out[0] == out[1]


@pytest.mark.parametrize("variant,deals", [("klondike-3", range(1, 9)), ("klondike-1", range(1, 7)),
                                           ("endless-harp", range(1, 4))])
def test_agrees_with_the_complete_search_on_deals(variant, deals):
    rules = get_rules(variant)
    for n in deals:
        check(rules, deal_layout(rules, n), nodes=100_000)


def test_waste_and_pass_number_in_the_layout():
    """A position with cards on the waste, part-way through a limited stock."""
    rules = get_rules("big-harp")
    rng = random.Random(3)
    for _ in range(20):
        layout = endgame(rules, rng, 18, stock_share=0.9)
        k = rng.randint(0, len(layout.stock))
        layout.waste, layout.stock = layout.stock[:k], layout.stock[k:]
        layout.pass_number = rng.randint(1, 3)
        check(rules, layout)


def test_budgets_give_unknown():
    rules = get_rules("klondike-3")
    layout = deal_layout(rules, 1)
    r = afree.run(rules, layout, max_nodes=50)
    assert (r.status, r.reason) == ("unknown", "nodes")
    r = afree.run(rules, layout, max_nodes=0, max_memory=1 << 16)
    assert (r.status, r.reason) == ("unknown", "memory")


def test_a_search_in_slices_ends_as_one_run():
    """Search.advance resumes where it paused: same verdict, same nodes as one call."""
    rules = get_rules("klondike-3")
    for n in (7, 11):
        layout = deal_layout(rules, n)
        whole = afree.run(rules, layout)
        s = afree.Search(rules, layout)
        r = s.advance(1000)
        while r.status == "unknown":
            assert r.reason == "nodes"
            r = s.advance(1000)
        assert (r.status, r.nodes, r.tokens) == (whole.status, whole.nodes, whole.tokens)
        assert r.nodes > 1000


def test_a_59_card_talon_fits_the_key_under_draw_1_with_unlimited_passes():
    """Under draw 1 with unlimited passes every stock position is pure, keyed 0 (_normal_pos), so
    the key spends no bits on it and easy-harp's 59-card talon fits in k1 with the obligation
    field: the weaker game easy-harp[column_moves=runs] is searchable."""
    eh = get_rules("easy-harp", {"column_moves": "runs"})
    p = afree.Problem(eh, deal_layout(eh, 1))
    assert p.ok and p.q[afree.Q_TLEN] == 59 and p.q[afree.Q_PBITS] == 0 and p.q[afree.Q_XK2] == 0
    assert p.q[afree.Q_DEFER] == 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), left=st.integers(4, 18), takeback=st.booleans(), deadlock=st.booleans(),
       lower=st.integers(0, 3), share=st.sampled_from([0.1, 0.4, 0.8]))
def test_agrees_with_the_complete_search_on_easy_harp_with_runs(seed, left, takeback, deadlock, lower, share):
    """easy-harp with runs, the weaker game through which the portfolio proves easy-harp deals
    unsolvable (search/relax.py), on five columns: afree and the complete depth-first search of
    the same rules agree whenever both decide."""
    rules = get_rules("easy-harp", {"column_moves": "runs", "columns": "1,2,3,4,5", "takeback": takeback})
    layout = _reserve_position(rules, random.Random(seed), deadlock, left, lower, share)
    a, d = check(rules, layout)
    assume(d != "unknown" and a != "unknown")


def test_rules_it_does_not_apply_to_give_unknown():
    rules = get_rules("easy-harp")
    r = afree.run(rules, deal_layout(rules, 1), max_nodes=1000)
    assert (r.status, r.reason) == ("unknown", "rules")


def test_table_entry_is_two_words_side_by_side():
    """afree._insert's entry (where the key needs two words): k1 at t[2i], k2 at t[2i + 1],
    k2 == 0 marks an empty slot."""
    t = np.zeros(2 * 8, np.uint64)
    k1, k2 = np.uint64(12345), np.uint64((1 << 63) | 77)
    assert afree._insert(t, k1, k2)
    i = int(afree._mix(k1, k2)) >> 61  # (_home: the top 3 bits for 8 slots)
    assert (t[2 * i], t[2 * i + 1]) == (k1, k2)
    assert np.count_nonzero(t) == 2
    assert not afree._insert(t, k1, k2)
    assert afree._insert(t, k1 + np.uint64(1), k2)  # another key: the next free slot
    assert np.count_nonzero(t) == 4
    assert afree.ENTRY_BYTES == t[:2].nbytes


@settings(max_examples=200, deadline=None)
@given(k1=st.integers(0, 2**64 - 1), k2=st.integers(0, 2**64 - 1), bits=st.integers(1, 24),
       one=st.booleans())
def test_a_key_s_home_slot_doubles_with_the_table(k1, k2, bits, one):
    """``_home`` takes the top bits of the key's mix: in a table twice the size a key's first
    slot is 2i or 2i + 1 where it was i (what lets ``_rehash`` write the new table in order);
    every slot is inside the table, for one-word and two-word entries."""
    words = 1 if one else 2
    small = np.empty(words << bits, np.uint64)  # (only the sizes are read: never touched)
    big = np.empty(words << (bits + 1), np.uint64)
    a = afree._home(small, np.uint64(k1), np.uint64(k2), int(one))
    b = afree._home(big, np.uint64(k1), np.uint64(k2), int(one))
    assert 0 <= a < 1 << bits and b >> 1 == a


def test_a_grown_table_holds_every_key_once():
    """``Table.grow`` (``_rehash``) keeps every entry and its flags byte: after two doublings each
    key of a full-to-half table is found at a slot whose flags byte is the one it had."""
    rng = np.random.default_rng(11)
    for words in (1, 2):
        table = afree.Table(words, shared=True)
        q = np.zeros(afree.Q_SIZE, np.int64)
        q[afree.Q_ONE] = int(words == 1)
        n = table.t.shape[0] // words // 2
        keys = rng.integers(1, 2**62, (n, 2), dtype=np.int64).astype(np.uint64) | np.uint64(1 << 63)
        for j, (k1, k2) in enumerate(keys):
            sl = afree._find(table.t, k1, np.uint64(0) if words == 1 else k2, words == 1)
            assert sl < 0
            table.flags[-1 - sl] = j % 251 + 1
        table.grow(q)
        table.grow(q)
        assert np.count_nonzero(table.t) == n * words
        for j, (k1, k2) in enumerate(keys):
            sl = afree._find(table.t, k1, np.uint64(0) if words == 1 else k2, words == 1)
            assert sl >= 0 and table.flags[sl] == j % 251 + 1


def test_a_search_on_reused_stacks_is_the_search_on_fresh_ones(monkeypatch):
    """``_Stacks`` hands a new search the arrays an earlier one left full of its own states,
    moves and keys: the search reads none of it before writing it, so it enters the same
    states and finds the same line as on fresh arrays filled with garbage."""
    rules = get_rules("klondike-3")
    deals = (7, 40, 5, 103)  # 40 and 103: unsolvable, exhausted in a few thousand states
    pool = afree._Stacks(keep=1)
    monkeypatch.setattr(afree, "_STACKS", pool)
    reused = []
    for d in deals:
        s = afree.Search(rules, deal_layout(rules, d))
        r = s.advance(300_000)
        reused.append((r.status, r.nodes, r.states, r.tokens))
        del s
        assert len(pool.free) == 1  # (handed back when the search was collected)
    junk = afree._Stacks(keep=0)

    def garbage():
        S, moves, keys = (np.empty((afree.MAX_DEPTH + 1, afree.S_SIZE), np.int64),
                          np.empty(afree.MAX_DEPTH * afree.MAX_MOVES, np.int64),
                          np.empty(2 * afree.MAX_DEPTH * afree.MAX_MOVES, np.uint64))
        for a in (S, moves, keys):
            a.reshape(-1)[:1 << 16] = np.random.default_rng(3).integers(0, 2**62, 1 << 16)
        return S, moves, keys

    monkeypatch.setattr(junk, "take", garbage)
    monkeypatch.setattr(afree, "_STACKS", junk)
    for d, want in zip(deals, reused):
        r = afree.Search(rules, deal_layout(rules, d)).advance(300_000)
        assert (r.status, r.nodes, r.states, r.tokens) == want
    assert {w[0] for w in reused} == {"solved", "unsolvable"}


@pytest.mark.parametrize("variant,deal", [("klondike-3", 7), ("endless-harp", 7)])
def test_a_broken_abstract_line_is_an_error_never_a_line(variant, deal):
    """The concretiser checks every real move against the kernel's legal moves and the end
    against a won board: an abstract line cut short, or with a move no position allows,
    raises ConcretiseError (the engine's ``unknown``, reason "concretise") instead of
    writing tokens that do not win."""
    from harpsolve.search.afree_concrete import ConcretiseError, concretise

    rules = get_rules(variant)
    layout = deal_layout(rules, deal)
    s = afree.Search(rules, layout)
    r = s.advance(0)
    assert r.status == "solved"
    path = [afree.encode(*m) for m in r.abstract]
    tokens = concretise(rules, layout, s.pr, path)
    assert tokens == r.tokens
    rep = replay(rules, layout, tokens)
    assert rep.ok and rep.won
    # a line longer than the rows first given it is written again with more, the same
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("harpsolve.search.afree_concrete.ROWS_PER_MOVE", 0)
        mp.setattr("harpsolve.search.afree_concrete.ROWS_PER_DECK", 0)
        assert concretise(rules, layout, s.pr, path) == tokens
    with pytest.raises(ConcretiseError, match="does not win"):
        concretise(rules, layout, s.pr, path[:len(path) // 2])
    # taking back a card that fits a column top while no foundation holds it: the kernel does
    # not list the move
    tops = [c[-1] for c in layout.columns]
    card = next(x for x in range(52) for top in tops if builds_on(rules, x, top))
    with pytest.raises(ConcretiseError, match="not allow"):
        concretise(rules, layout, s.pr, [afree.encode(afree.MK_TB, card)] + path)
    # a reveal of a column whose top no other column takes (nor an empty one: not a king)
    i = next(i for i, x in enumerate(tops) if rank_of(x) != 13 and not any(
        j != i and builds_on(rules, x, y) for j, y in enumerate(tops)))
    with pytest.raises(ConcretiseError, match="no column takes"):
        concretise(rules, layout, s.pr, [afree.encode(afree.MK_RV, i)] + path)
