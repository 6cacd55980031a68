"""Shortening a found line (solution.py): every shortened line wins in the
reference engine, is never longer, and cuts the waste the search leaves."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings, strategies as st

from harpsolve import solution as S
from harpsolve.cards import parse_card
from harpsolve.layout import Layout
from harpsolve.reference import Game, replay
from harpsolve.rules import VARIANTS, get_rules
from harpsolve.solver import solve

from positions import endgame, random_walk


def wins(rules, layout, tokens) -> bool:
    rep = replay(rules, layout, tokens)
    return rep.ok and rep.won


def wandering_line(rules, layout, rng, steps):
    """A winning line that first wanders: random legal moves, then a solution
    from wherever they led (None when that position cannot be won)."""
    walk = random_walk(rules, layout, rng, steps)
    game = Game(rules, layout)
    for t in walk:
        game.apply(t)
    r = solve(rules, layout=game.to_layout(), max_nodes=200_000)
    return walk + r.moves if r.solved else None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(list(VARIANTS)), seed=st.integers(0, 2**32), left=st.integers(6, 20),
       steps=st.integers(0, 40), takeback=st.booleans())
# big-harp, three passes: the found line goes round the stock otherwise than the fewest taps
# would, which run out of passes; cut_loops and without_detours must say so (None)
@example(variant="big-harp", seed=2324, left=19, steps=13, takeback=False)
def test_shortened_lines_replay_and_are_never_longer(variant, seed, left, steps, takeback):
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    layout = endgame(rules, rng, left)
    line = wandering_line(rules, layout, rng, steps)
    if line is None:
        return
    short = S.shorten_tokens(rules, layout, line)
    assert wins(rules, layout, short)
    assert len(short) <= len(line)
    # each step on its own keeps the plays legal, or says it cannot (None)
    plays = S.plays_of(rules, layout, line)
    for step in (S.cut_loops, S.reorder_stock, S.without_detours):
        out = step(rules, layout, plays)
        if out is not None:
            assert S.line_of(rules, layout, out) is not None, step.__name__
    order = S.reorder_stock(rules, layout, plays)
    if order is not None:  # a reordering, nothing dropped or added
        assert sorted(map(str, (p.move for p in order))) == sorted(map(str, (p.move for p in plays)))


def test_a_card_sent_up_and_taken_back_is_dropped():
    rules = get_rules("klondike-1", ["columns=1,2"])
    C = parse_card
    layout = Layout(columns=[[C("KS")], [C("KH"), C("QH")]], face_down=[0, 1], stock=[],
                    foundations=[C("KC"), C("KD"), C("JH"), C("QS")])
    detour = ["t2>f", "f>t1:QH", "t1>f", "t2>f", "t1>f"]  # QH up, back onto KS, up again
    assert wins(rules, layout, detour)
    short = S.shorten_tokens(rules, layout, detour)
    assert wins(rules, layout, short) and len(short) == 3


def test_a_move_undone_later_is_dropped():
    rules = get_rules("klondike-1", ["columns=1,2,0"])
    C = parse_card
    layout = Layout(columns=[[C("KS")], [C("KH"), C("QH")], []], face_down=[0, 1, 0], stock=[],
                    foundations=[C("KC"), C("KD"), C("JH"), C("QS")])
    line = ["t1>t3", "t3>t1", "t2>f", "t2>f", "t1>f"]  # KS to the empty column and back
    assert wins(rules, layout, line)
    assert S.shorten_tokens(rules, layout, line) == ["t2>f", "t2>f", "t1>f"]


def test_no_shortening_step_starts_after_the_deadline():
    """A solve under --timeout keeps what was shortened by its deadline (here: nothing)."""
    import time

    rules = get_rules("klondike-1", ["columns=1,2,0"])
    C = parse_card
    layout = Layout(columns=[[C("KS")], [C("KH"), C("QH")], []], face_down=[0, 1, 0], stock=[],
                    foundations=[C("KC"), C("KD"), C("JH"), C("QS")])
    line = ["t1>t3", "t3>t1", "t2>f", "t2>f", "t1>f"]
    assert S.shorten_tokens(rules, layout, line, deadline=time.perf_counter() - 1) == line
    assert S.shorten_tokens(rules, layout, line, deadline=time.perf_counter() + 60) == ["t2>f", "t2>f", "t1>f"]


def test_the_whole_deck_in_the_stock_needs_one_pass():
    """klondike-1 with every card in the stock in order: the search's line
    went round the stock again and again (1 148 moves); 52 draws and 52
    plays from the waste is the least, what --shortest proves."""
    rules = get_rules("klondike-1")
    layout = Layout([[] for _ in range(7)], [0] * 7, stock=list(range(52)), cells=[], foundations=[])
    r = solve(rules, layout=layout)
    assert r.solved and wins(rules, layout, r.moves)
    assert len(r.moves) == 104


def test_easy_harp_5_prints_a_line_a_player_can_follow():
    """The issue's figure: 1 014 moves before shortening, at most 700 wanted."""
    r = solve("easy-harp", 5)
    assert r.solved and wins(r.rules, r.layout, r.moves)
    assert len(r.moves) <= 700


def test_readable_groups_the_taps_with_their_play():
    rules = get_rules("klondike-1", ["columns=1"])
    C = parse_card
    # the stock: every card but KS, drawn in suit order; KS in the column
    layout = Layout(columns=[[C("KS")]], face_down=[0], stock=list(range(51)), foundations=[])
    r = solve(rules, layout=layout)
    lines = S.readable(rules, layout, r.moves)
    assert [i for i, _ in lines][-1] == len(r.moves)
    assert len(lines) == S.count_plays(r.moves) == 52
    assert lines[0][1] == "draw to AC (1 tap), AC to foundation"
    assert lines[-1][1] == "KS from t1 to foundation"
    # a run of taps that ends in no play is still listed
    assert S.readable(rules, layout, ["s>w", "s>w"]) == [(2, "tap the stock (2 taps)")]
