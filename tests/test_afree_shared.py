"""The arrangement-free engine's two move orders over one table (search/afree.py ``Table``,
search/engine.py ``AfreeBoth``): the same verdicts as one search alone, the same reachable
states on a proof, solutions that replay, and no proof from one search's empty stack."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from harpsolve.deals import deal_layout
from harpsolve.reference import replay
from harpsolve.rules import get_rules
from harpsolve.search import afree, engine

from positions import endgame

RUN_GAMES = ["klondike-1", "klondike-3", "endless-harp", "big-harp"]


def both(rules, layout, max_nodes: int, step: int):
    """AfreeBoth run in slices of ``step`` nodes until it ends or has used ``max_nodes``."""
    eng = engine.AfreeBoth(engine.Position(rules, layout), engine.Memory(1 << 30))
    try:
        out = eng.final
        while out is None or (out.status == "unknown" and not eng.done and eng.nodes < max_nodes):
            out = eng.advance(step, None)
        return out, eng.states, eng.table.generation
    finally:
        eng.close()


def check_against_alone(rules, layout, step, nodes=200_000):
    alone = afree.run(rules, layout, max_nodes=nodes)
    out, states, grown = both(rules, layout, nodes, step)
    assert out.reason != "concretise"
    if out.status == "solved":
        rep = replay(rules, layout, out.tokens)
        assert rep.ok and rep.won, rep.error
    if out.status == "unsolvable":
        assert out.proof == afree.PROOF and out.engine == "afree"
    if alone.status != "unknown" and out.status != "unknown":
        assert out.status == alone.status
        if out.status == "unsolvable":
            # the two searches together entered every reachable state, as the lone one did
            assert states == alone.states
    return alone, out, grown


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(RUN_GAMES), passes=st.sampled_from([0, 3]), seed=st.integers(0, 2**32),
       left=st.integers(4, 30), takeback=st.booleans(), share=st.sampled_from([0.2, 0.5, 0.8]),
       step=st.sampled_from([5, 60, 1_000]))
def test_both_orders_on_one_table_agree_with_one_search(variant, passes, seed, left, takeback, share, step):
    """Small slices interleave the two searches finely (each sees the other's finished states
    early); on every position both decide, the verdict is the lone search's, and a proof has
    entered exactly the lone search's states."""
    rules = get_rules(variant, {"takeback": takeback, "passes": passes})
    layout = endgame(rules, random.Random(seed), left, stock_share=share)
    alone, out, _ = check_against_alone(rules, layout, step)
    assume(alone.status != "unknown" and out.status != "unknown")


@pytest.mark.parametrize("variant,deal", [("klondike-1", 25), ("klondike-1", 39), ("klondike-3", 7),
                                          ("big-harp", 10)])
def test_deals_that_grow_the_shared_table(variant, deal):
    """Deals of 10 000-40 000 states: the table grows (its flags and both stacks' slots move
    with it), with the searches interleaved."""
    rules = get_rules(variant)
    layout = deal_layout(rules, deal)
    alone, out, grown = check_against_alone(rules, layout, 3_000)
    assert alone.status != "unknown" and out.status == alone.status
    assert grown >= 1


def test_a_proof_costs_the_reachable_states_once():
    """What the sharing is for: as separate rows the other order entered every state of a
    lost deal again (1.25 times the states at 16:4); together they enter each about once."""
    rules = get_rules("klondike-1")
    layout = deal_layout(rules, 39)
    alone = afree.run(rules, layout)
    eng = engine.AfreeBoth(engine.Position(rules, layout), engine.Memory(1 << 30))
    try:
        out = eng.advance(0, None)
        while out.status == "unknown" and not eng.done:
            out = eng.advance(0, None)
        assert alone.status == out.status == "unsolvable"
        assert eng.states == alone.states and eng.nodes < 1.02 * alone.nodes
    finally:
        eng.close()


def test_one_search_on_a_shared_table_proves_nothing_alone():
    """A search whose stack empties on a shared table says so (SHARED_END), not "unsolvable":
    states the other entered may still have moves untried on the other's stack."""
    rules = get_rules("klondike-1")
    layout = deal_layout(rules, 25)
    assert afree.run(rules, layout).status == "unsolvable"
    table = afree.Table(shared=True)
    s = afree.Search(rules, layout, table=table)
    r = s.advance(0)
    assert (r.status, r.reason) == ("unknown", afree.SHARED_END)
    with pytest.raises(ValueError):
        afree.Table(1).join(1)  # a table made for one search is not shared
    with pytest.raises(ValueError):
        table.join(3 - table.words)  # nor is one shared by searches of different problems


def test_the_flags_byte_moves_with_its_entry():
    """``_rehash`` of a shared table: after it grows, each state's flags are found at its new slot."""
    import numpy as np

    rules = get_rules("klondike-3")
    pr = afree.Problem(rules, deal_layout(rules, 1))
    table = afree.Table(1 if pr.q[afree.Q_ONE] else 2, shared=True)
    rng = random.Random(5)
    keys = {}
    while len(keys) < afree.INITIAL_TABLE // 3:
        k1, k2 = np.uint64(rng.getrandbits(62) | 1), np.uint64((1 << 63) | rng.getrandbits(40))
        if pr.q[afree.Q_ONE]:
            k1 = np.uint64(rng.getrandbits(62) | (1 << 63))
            sl = afree._find(table.t, k1, np.uint64(0), True)
        else:
            sl = afree._find(table.t, k1, k2, False)
        assert sl < 0
        table.flags[-1 - sl] = f = rng.randrange(1, 256)
        keys[(int(k1), int(k2))] = f
    table.fill[0] = len(keys)
    table.grow(pr.q)
    assert table.generation == 1 and table.flags.shape[0] == 2 * afree.INITIAL_TABLE
    for (k1, k2), f in keys.items():
        one = bool(pr.q[afree.Q_ONE])
        sl = afree._find(table.t, np.uint64(k1), np.uint64(0 if one else k2), one)
        assert sl >= 0 and table.flags[sl] == f


def test_the_pair_concludes_only_when_both_searches_have_ended():
    """One search's empty stack is not a proof (see above), so the engine says "unsolvable" only
    once both have ended so: with the other order's end forced, a live first order goes on."""
    rules = get_rules("klondike-3")
    layout = deal_layout(rules, 7)  # solved, in some 34 000 states
    eng = engine.AfreeBoth(engine.Position(rules, layout), engine.Memory(1 << 30))
    try:
        eng.advance(100, None)  # (the other order's search is made at its first turn)
        other = eng.searches[1][0]
        other.result = afree.AfreeResult("unknown", nodes=other.nodes, reason=afree.SHARED_END)
        out = eng.advance(100, None)
        assert out.status == "unknown" and not eng.done
        while out.status == "unknown":
            out = eng.advance(5_000, None)
        assert out.status == "solved" and out.engine == "afree"
    finally:
        eng.close()
