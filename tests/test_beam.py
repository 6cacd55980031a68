"""Beam search (search/beam.py): its wins replay, it never proves, slicing and growing its
arrays change nothing, and in the portfolio it is a solutions-only row."""
from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from harpsolve.deals import deal_layout
from harpsolve.reference import replay
from harpsolve.rules import get_rules
from harpsolve.search import beam, engine, restarts
from harpsolve.search.shortcut import line_tokens
from harpsolve.solver import ALL_CUTS, solve
from harpsolve.state import pack

from positions import deadlock_candidate, endgame, solutions_only_wins


def one_beam(rules, layout, width=16, ws=3, nodes=400_000, slice_nodes=0, stall=0, aggressive=False):
    """One beam run to its end (or ``nodes``), in slices of ``slice_nodes`` (0: one call);
    ``aggressive``: movegen's aggressive rule on (beam.aggressive_for)."""
    p = restarts.run_params(rules, ws, 1, streamlined=False, aggressive=aggressive)
    s = beam.BeamSearch(pack(layout, rules), p, width, stall=stall)
    while True:
        step = min(slice_nodes, nodes - s.nodes) if slice_nodes else nodes - s.nodes
        status, why = s.advance(step)
        if status is not None or s.nodes >= nodes:
            return s, p, status, why


@pytest.mark.parametrize("variant,deal", [("easy-harp", 1), ("harp", 13), ("big-harp", 21)])
def test_a_beam_win_replays(variant, deal):
    """Deals a beam of 16 wins (measured); the line, as tokens, wins in the reference engine."""
    rules = get_rules(variant)
    layout = deal_layout(rules, deal)
    s, p, status, _ = one_beam(rules, layout, nodes=2_000_000)
    assert status == "solved"
    assert replay(rules, layout, line_tokens(pack(layout, rules), s.line(), p)).won


def test_slices_and_growth_change_nothing(monkeypatch):
    """The kernel resumes exactly: a beam run in slices of 777 children finds the same line in
    the same nodes as one run in one call, and so does one whose table and history start tiny
    (they grow many times on the way)."""
    rules = get_rules("easy-harp")
    layout = deal_layout(rules, 1)
    whole = one_beam(rules, layout)[0]
    sliced = one_beam(rules, layout, slice_nodes=777)[0]
    monkeypatch.setattr(beam, "INITIAL_TABLE", 1 << 6)
    monkeypatch.setattr(beam, "TABLE_PER_WIDTH", 1)
    monkeypatch.setattr(beam, "INITIAL_HISTORY", 8)
    small = one_beam(rules, layout)[0]
    assert whole.final == ("solved", "")
    for other in (sliced, small):
        assert (other.final, other.nodes, other.states, other.line()) == (
            whole.final, whole.nodes, whole.states, whole.line())
    assert small.t.shape[0] > 2 << 6 and small.hpar.shape[0] > 8  # both grew



@pytest.mark.parametrize("variant,deal,nodes", [("easy-harp", 1, 400_000), ("big-harp", 21, 150_000),
                                                ("harp", 7, 150_000)])
def test_batches_of_children_are_the_search_one_child_at_a_time(monkeypatch, variant, deal, nodes):
    """``_beam`` makes and fingerprints a batch of children before it claims them (their table
    misses overlap).  A batch of 1 is the search that makes and claims one child at a time: every
    batch size, in slices that end inside batches and with a table that grows inside them, gives
    the same result, nodes, states and line, and the same beam array (every depth's kept
    positions are written into it in turn; ``ctr[C_NCUR]`` is saved only when a call returns)."""
    rules = get_rules(variant)
    layout = deal_layout(rules, deal)
    monkeypatch.setattr(beam, "KIDS", 1)
    one = one_beam(rules, layout, nodes=nodes)[0]
    want = (one.final, one.nodes, one.states, one.line(), one.cur.tobytes())
    for kids, slice_nodes, small in ((32, 0, False), (3, 101, False), (32, 777, True), (7, 0, True)):
        monkeypatch.setattr(beam, "KIDS", kids)
        monkeypatch.setattr(beam, "INITIAL_TABLE", 1 << 6 if small else 1 << 14)
        monkeypatch.setattr(beam, "TABLE_PER_WIDTH", 1 if small else 1 << 12)
        s = beam.BeamSearch(pack(layout, rules), one.p, 16)
        while s.nodes < nodes:
            before, step = s.nodes, min(slice_nodes or nodes, nodes - s.nodes)
            status, why = s.advance(step)
            if status is not None:
                break
            assert (why, s.nodes) == ("nodes", before + step)  # a slice is never overrun
        got = (s.final, s.nodes, s.states, s.line(), s.cur.tobytes())
        assert got == want, (kids, slice_nodes, small)


def test_a_beam_s_table_starts_by_its_width():
    """Wide beams start with a wide table (no rehash after rehash); any width gives a power of two."""
    rules = get_rules("harp")
    root = pack(deal_layout(rules, 2), rules)
    p = restarts.run_params(rules, 3, 1, streamlined=False)
    for width, slots in ((1, beam.INITIAL_TABLE), (3, 4 * beam.TABLE_PER_WIDTH), (16, 16 * beam.TABLE_PER_WIDTH)):
        s = beam.BeamSearch(root, p, width)
        assert s.t.shape[0] == 2 * max(slots, beam.INITIAL_TABLE)
        assert s.advance(2_000)[0] in (None, "solved", "ended")


def test_a_dead_position_ends_the_beam_and_is_no_proof():
    """On a position the complete search proves lost, every line ends ("empty"), and the
    portfolio row, solutions only, still says unknown."""
    rules = get_rules("klondike-1")
    for seed in range(200):
        dead = deadlock_candidate(rules, random.Random(seed), 10)
        if solve(rules, layout=dead, algorithm="dfs", max_nodes=200_000).status == "unsolvable" \
                and one_beam(rules, dead, width=4)[0].dropped:
            break
    else:
        pytest.fail("no dead position with some play in it among the candidates")
    s, _, status, why = one_beam(rules, dead, width=4)
    assert (status, why) == ("ended", "empty")
    pos = engine.Position(rules, dead, cuts=ALL_CUTS)
    only = engine.Schedule("t", "rounds", (engine.Entry("beam", engine.BOTH, 1.0),))
    eng = engine.Beam(pos, engine.Memory(1 << 30))
    out = eng.advance(50_000, None)
    assert out.status == "unknown" and out.proof is None
    # with no budget the row still stops: a beam wide enough to drop nothing has made every
    # reachable position, and the engine is done
    out = engine.run(pos, only, max_nodes=0)
    assert out.status == "unknown" and out.proof is None
    wide = one_beam(rules, dead, width=beam.MAX_WIDTH)[0]
    assert wide.final == ("ended", "empty") and not wide.dropped


def test_the_beam_row_wins_endgames_that_replay():
    """The engine's wins (its runs, one after another) are solutions that replay."""
    won = 0
    for k, variant in enumerate(["easy-harp", "harp", "klondike-3", "big-harp"] * 2):
        rules = get_rules(variant)
        layout = endgame(rules, random.Random(300 + k), 30)
        pos = engine.Position(rules, layout, cuts=ALL_CUTS)
        out = engine.Beam(pos, engine.Memory(1 << 30)).advance(300_000, None)
        assert out.status in ("solved", "unknown")
        if out.status == "solved":
            won += 1
            assert out.engine.startswith("beam w") and replay(rules, layout, out.tokens).won
    assert won >= 4, "too few wins to check anything"


def test_the_runs_widen_by_round():
    rules = get_rules("harp")
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    eng = engine.Beam(pos, engine.Memory(1 << 30))
    names = []
    for _ in range(3 * len(beam.SETS)):
        eng._next()
        names.append(eng.cur[0])
    assert names[0] == f"beam w{beam.FIRST_WIDTH}.{beam.SETS[0]}"
    assert names[len(beam.SETS)] == f"beam w{beam.FIRST_WIDTH << beam.GROWTH}.{beam.SETS[0]}"
    assert all(eng.cur[2] == beam.RUN_NODES * int(n.split("w")[1].split(".")[0]) for n in names[-1:])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["easy-harp", "harp", "klondike-3", "big-harp", "klondike-1"]),
       seed=st.integers(0, 2**32), left=st.integers(6, 22), deadlock=st.booleans(), takeback=st.booleans(),
       stall=st.sampled_from([0, 0, 2, beam.STALL_DEPTHS]), aggressive=st.booleans())
def test_a_beam_that_drops_nothing_agrees_with_the_complete_search(variant, seed, left, deadlock, takeback, stall,
                                                                   aggressive):
    """Cross-check with the complete depth-first search on random small positions: a beam
    never wins a position the search proves lost, and one wide enough to drop nothing
    searches the whole graph, so it wins exactly the positions the search solves.  With the
    stall rule on (``stall``) a run may end early ("stalled"): never as "empty", never a win
    the search does not confirm.  With the aggressive rule (``aggressive``) a beam searches
    part of the graph: its wins are still the search's, and its end proves nothing."""
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    # the deadlock candidates from rank 6 up are lost about half the time (measured)
    layout = deadlock_candidate(rules, rng, 6) if deadlock else endgame(rules, rng, left)
    plain = solve(rules, layout=layout, algorithm="dfs", max_nodes=1_000_000)
    assume(plain.status != "unknown")
    s, p, status, why = one_beam(rules, layout, width=beam.MAX_WIDTH, nodes=1_000_000, stall=stall,
                                 aggressive=aggressive)
    assert why != "stalled" or stall > 0
    if status == "solved":
        assert plain.status == "solved"
        assert replay(rules, layout, line_tokens(pack(layout, rules), s.line(), p)).won
    elif not s.dropped and why == "empty" and not aggressive:
        assert plain.status == "unsolvable"


def test_the_beam_algorithm_solves_through_solve_and_never_proves():
    """``algorithm="beam"`` (the beam searches alone, every game): a win comes back through
    ``solve``, replayed; a position the complete search proves lost stays unknown."""
    won = solutions_only_wins("beam", ["endless-harp", "klondike-1", "harp", "big-harp"], 700, 30, 300_000)
    assert won >= 2, "too few wins to check anything"
    rules = get_rules("klondike-1")
    dead = 0
    for seed in range(200):
        lost = deadlock_candidate(rules, random.Random(seed), 10)
        if solve(rules, layout=lost, algorithm="dfs", max_nodes=200_000).status != "unsolvable":
            continue
        dead += 1
        r = solve(rules, layout=lost, algorithm="beam", max_nodes=0)
        # its one proof is the dead-end test's
        assert r.status == "unknown" or (r.status == "unsolvable" and r.proof.startswith("dead end: "))
    assert dead >= 3, "too few lost positions to check anything"


def select_by_hand(keys, sigs, keep, cap):
    """search/beam.py ``_select`` written plainly: children in key order (ties: the earlier
    first); a child is crowded when ``cap`` earlier ones of that order share its signature;
    the uncrowded first, then the crowded, the first ``keep`` of them."""
    order = sorted(range(len(keys)), key=lambda i: (keys[i], i))
    if not cap or len(keys) <= keep:
        return order[:keep]
    seen: dict[int, int] = {}
    free, crowded = [], []
    for i in order:
        seen[sigs[i]] = seen.get(sigs[i], 0) + 1
        (free if seen[sigs[i]] <= cap else crowded).append(i)
    return (free + crowded)[:keep]


@settings(max_examples=200, deadline=None)
@given(kids=st.lists(st.tuples(st.integers(-50, 50), st.integers(0, 5).map(lambda s: s * 40503 % (1 << 24))),
                         min_size=1, max_size=60),
       keep=st.integers(1, 20), cap=st.integers(0, 3))
def test_a_depth_keeps_the_best_of_each_stock_signature_first(kids, keep, cap):
    """The selection of a depth (STOCK_CAP): the same children, in the same order, as the
    rule written plainly, for random keys, signatures, widths and caps."""
    import numpy as np

    n = len(kids)
    keys = np.array([k for k, _ in kids], np.int64)
    sigs = np.array([s for _, s in kids], np.int64)
    ckey, csig = keys.copy(), sigs.copy()
    cpar, cmove = np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64) * 7
    k = beam._select(ckey, cpar, cmove, csig, n, keep, cap, beam.select_scratch(n))
    want = select_by_hand(list(keys), list(sigs), keep, cap)
    assert k == len(want)
    assert list(cpar[:k]) == want and list(cmove[:k]) == [7 * i for i in want]
    assert list(ckey[:k]) == [keys[i] for i in want] and list(csig[:k]) == [sigs[i] for i in want]


def test_the_stock_signature_packs_as_documented():
    """``_stock_sig``: recycles << 16 | talon length << 8 | waste size (the beam's crowding)."""
    from harpsolve.state import O_RECYC, O_TLEN, O_TPTR

    rules = get_rules("big-harp")
    st_ = pack(deal_layout(rules, 1), rules)
    st_[O_RECYC], st_[O_TLEN], st_[O_TPTR] = 2, 41, 17
    assert beam._stock_sig(st_) == (2 << 16) | (41 << 8) | 17


@pytest.mark.parametrize("variant,rule,stock_sets", [
    ("big-harp", {}, True), ("harp", {}, False), ("easy-harp", {}, False), ("endless-harp", {}, False),
    ("klondike-3", {}, False), ("harp", {"draw": 3}, True), ("big-harp", {"passes": 0}, False),
    ("klondike-3", {"passes": 3}, True)])
def test_the_beams_weight_sets_follow_draw_and_pass_limit(variant, rule, stock_sets):
    """``sets_for``: the stock-dear sets where draw 3 meets a pass limit, by rules fields (an
    override moves a game across), and the engine's runs take the game's sets in turn, from
    FIRST_WIDTH."""
    rules = get_rules(variant, rule)
    sets = beam.sets_for(rules)
    assert sets == (beam.STOCK_SETS if stock_sets else beam.SETS)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    eng = engine.Beam(pos, engine.Memory(1 << 30))
    names = []
    for _ in range(len(sets) + 1):
        eng._next()
        names.append(eng.cur[0])
    first = beam.FIRST_WIDTH
    assert first == 4
    assert names == [f"beam w{first}.{k}" for k in sets] + [f"beam w{first << beam.GROWTH}.{sets[0]}"]


def test_a_beam_too_wide_for_the_selection_order_is_refused():
    """``_select`` packs (key, index) into one int64 with ORDER_BITS for the index: a beam
    whose candidates would not fit is refused up front rather than mis-ordered."""
    import numpy as np

    from harpsolve.search import restarts

    rules = get_rules("harp")
    root = pack(deal_layout(rules, 1), rules)
    p = restarts.run_params(rules, beam.SETS[0], 1, streamlined=False)
    widest = int(beam.ORDER_SHIFT) // beam.CANDIDATES
    with pytest.raises(ValueError):
        beam.BeamSearch(root, p, widest + 1)
    assert beam.BeamSearch(root, p, 4).width == 4
    assert np.iinfo(np.int64).max // beam.ORDER_SHIFT > 2 ** 40  # room for any feature key


@pytest.mark.parametrize("variant,deals", [("easy-harp", range(1, 13)), ("harp", range(1, 5)), ("big-harp", range(60001, 60005))])
def test_a_beam_line_has_no_loop_and_no_detour(variant, deals):
    """The Beam engine writes its line without cutting loops or detours (engine.Beam): each
    position a beam makes is entered in its table when made, so no later position of its
    line is one move from an earlier one but the next.  The cutters leave such lines alone."""
    from harpsolve.search.shortcut import shortcut, shorten

    rules = get_rules(variant)
    checked = 0
    for deal in deals:
        layout = deal_layout(rules, deal)
        for ws in beam.sets_for(rules):
            s, p, status, _ = one_beam(rules, layout, width=16, ws=ws, nodes=300_000)
            if status == "solved":
                root = pack(layout, rules)
                line = s.line()
                assert shorten(root, line, p) == line
                assert shortcut(root, line, p) == line
                checked += 1
                break
    assert checked >= 2, "too few beam wins to check anything"


def progress_by_hand(rules, st_) -> int:
    """search/beam.py ``_progress`` from the unpacked position: foundation cards (a place's
    height is its top card's rank, 1-13), less the cards face down and in stock and waste."""
    from harpsolve.cards import rank_of
    from harpsolve.state import unpack

    lay = unpack(st_, rules)
    return sum(rank_of(c) for c in lay.foundations) - sum(lay.face_down) - len(lay.stock) - len(lay.waste)


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(["easy-harp", "big-harp", "klondike-3", "bakers-game"]),
       seed=st.integers(0, 2**32), left=st.integers(1, 60), walk=st.integers(0, 30))
def test_progress_is_foundations_less_hidden_and_talon(variant, seed, left, walk):
    """``_progress`` (the stall rule's measure) against the same count made from the
    unpacked position, on random endgames and random walks from them."""
    from positions import random_walk

    from harpsolve.reference import Game

    rules = get_rules(variant)
    rng = random.Random(seed)
    layout = endgame(rules, rng, min(left, rules.decks * 52))
    st_ = pack(layout, rules)
    assert beam._progress(st_) == progress_by_hand(rules, st_)
    g = Game(rules, layout, check=False, undo=False)
    for tok in random_walk(rules, layout, rng, walk):
        g.apply(tok)
    st2 = pack(g.to_layout(), rules)
    assert beam._progress(st2) == progress_by_hand(rules, st2)


def kept_best_progress(rules, s, root, p) -> list[int]:
    """The best progress of each depth's kept positions, depth 0 (the root) to ``s.depth``,
    rebuilt from the beam's history (``hstart``/``hpar``/``hmove``) by the move generator and
    counted by ``progress_by_hand``: the kernel's own running record is not read."""
    import numpy as np

    from harpsolve import movegen as mg
    from harpsolve.state import O_OBLIG

    buf = np.zeros(256, np.int64)
    start = root.copy()
    mg._auto(start, p, buf)
    prev, best = [start], [progress_by_hand(rules, start)]
    for d in range(1, s.depth + 1):
        cur = []
        for h in range(int(s.hstart[d]), int(s.hstart[d + 1])):
            x = prev[int(s.hpar[h])].copy()
            mg._apply(x, int(s.hmove[h]), p)
            if x[O_OBLIG] == 0:
                mg._auto(x, p, buf)
            cur.append(x)
        best.append(max(progress_by_hand(rules, x) for x in cur))
        prev = cur
    return best


@pytest.mark.parametrize("deal,ws,stall", [(60001, 8, 6), (60002, 9, 10), (60003, 2, 4)])
def test_a_run_ends_stalled_where_its_progress_stopped_growing(deal, ws, stall):
    """The stall rule (STALL_DEPTHS), recomputed from the beam's history: a big-harp run with
    ``stall`` ends ("ended", "stalled") at the first depth that is ``stall`` depths past the
    depth that first reached the best progress so far, and not before; up to there it is the
    very search a run without the rule makes (same nodes, states and kept positions)."""
    rules = get_rules("big-harp")
    root = pack(deal_layout(rules, deal), rules)
    p = restarts.run_params(rules, ws, 1, streamlined=False)
    s = beam.BeamSearch(root, p, 16, stall=stall)
    assert s.advance(400_000) == ("ended", "stalled")
    best = kept_best_progress(rules, s, root, p)
    record, at, want = best[0], 0, None
    for d in range(1, len(best)):
        if best[d] > record:
            record, at = best[d], d
        elif d - at >= stall:
            want = d
            break
    assert want == s.depth
    free = beam.BeamSearch(root, p, 16)
    assert free.advance(s.nodes) == (None, "nodes")
    n = int(s.ctr[beam.C_NCUR])
    assert (free.depth, free.nodes, free.states, int(free.ctr[beam.C_NCUR])) == (s.depth, s.nodes, s.states, n)
    assert free.cur[:n].tobytes() == s.cur[:n].tobytes()


@pytest.mark.parametrize("variant,rule,on", [
    ("big-harp", {}, True), ("harp", {}, False), ("easy-harp", {}, False), ("endless-harp", {}, False),
    ("klondike-3", {}, False), ("harp", {"draw": 3}, True), ("big-harp", {"passes": 0}, False),
    ("endless-harp", {"passes": 3}, True)])
def test_the_stall_rule_follows_draw_and_pass_limit(variant, rule, on):
    """``stall_for``: runs end early only where draw 3 meets a pass limit, by rules fields (an
    override moves a game across); the engine's runs get it, and a stalled run is not the
    engine's end: the next run starts."""
    rules = get_rules(variant, rule)
    assert beam.stall_for(rules) == (beam.STALL_DEPTHS if on else 0)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    eng = engine.Beam(pos, engine.Memory(1 << 30))
    eng._next()
    assert eng.cur[3].ctr[beam.C_STALL] == beam.stall_for(rules)
    if on:
        first = eng.cur
        assert eng._verdict("ended", "stalled") is None and not eng.done
        eng.cur = None
        eng._next()
        assert eng.cur is not first


@pytest.mark.parametrize("variant,rule,on", [
    ("big-harp", {}, True), ("endless-harp", {}, True), ("klondike-3", {}, True), ("klondike-1", {}, True),
    ("harp", {}, False), ("easy-harp", {}, False), ("bakers-game", {}, False),
    ("harp", {"column_moves": "runs"}, True), ("big-harp", {"column_moves": "single"}, False)])
def test_the_beams_aggressive_rule_follows_run_moves(variant, rule, on):
    """``aggressive_for``: the beams split a run only when the uncovered card goes home where
    runs move, by rules field (an override moves a game across); the engine's runs get it,
    and the other engines' vectors do not."""
    from harpsolve.state import P_AGGRESSIVE

    rules = get_rules(variant, rule)
    assert beam.aggressive_for(rules) == on
    assert beam.run_params(rules, 3, 1)[P_AGGRESSIVE] == on
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    eng = engine.Beam(pos, engine.Memory(1 << 30))
    eng._next()
    assert eng.cur[1][P_AGGRESSIVE] == on
    assert restarts.run_params(rules, 3, 1, streamlined=False)[P_AGGRESSIVE] == 0
    assert pos.p[P_AGGRESSIVE] == 0


def kept_by_hand(st, p, m) -> bool:
    """movegen's aggressive rule where runs move, written plainly: a column-to-column move of
    ``n`` cards from column ``c`` is kept when it uncovers a hidden card, empties the column,
    or leaves on top a card that a foundation place takes (rank one above the place's)."""
    import numpy as np

    from harpsolve import movegen as mg
    from harpsolve.state import MAXLEN, O_COLS, O_DOWN, O_FOUND, O_LEN, P_DECKS

    if mg._kind(m) != mg.M_COL_COL:
        return True
    c, n = int(mg._a(m)), int(mg._n(m))
    ln, down = int(st[O_LEN + c]), int(st[O_DOWN + c])
    j = ln - n
    if (j == down and down > 0) or j == 0:
        return True
    under = int(st[O_COLS + MAXLEN * c + j - 1])
    decks = int(p[P_DECKS])
    suit, rank = under // 13, under % 13 + 1
    return any(int(np.int64(st[O_FOUND + suit * decks + k])) == rank - 1 for k in range(decks))


def aggressive_walk(variant, deal, seed, steps) -> int:
    """Check the aggressive move lists along a random kernel walk from a real deal (below);
    returns how many moves the rule dropped on the way."""
    import numpy as np

    from harpsolve import movegen as mg
    from harpsolve.state import O_OBLIG, P_AGGRESSIVE

    rules = get_rules(variant)
    p = restarts.run_params(rules, 3, 1, streamlined=False)
    pa = p.copy()
    pa[P_AGGRESSIVE] = 1
    st_ = pack(deal_layout(rules, deal), rules)
    buf = np.zeros(256, np.int64)
    mg._auto(st_, p, buf)
    rng = random.Random(seed)
    dropped = 0
    for _ in range(steps + 1):
        lists = []
        for q in (p, pa):
            moves = np.zeros(mg.MAX_MOVES, np.int64)
            n = mg._gen(st_, q, moves, np.zeros(mg.MAX_MOVES, np.int32), np.zeros(mg.GEN_WORK, np.int64))
            lists.append([int(m) for m in moves[:n]])
        full, kept = lists
        assert set(kept) <= set(full) and len(set(kept)) == len(kept)
        assert all(mg._kind(m) == mg.M_COL_COL for m in set(full) - set(kept))
        if rules.column_moves == "runs":
            assert sorted(kept) == sorted(m for m in full if kept_by_hand(st_, p, m))
        dropped += len(full) - len(kept)
        if not full:
            break
        mg._apply(st_, np.int64(rng.choice(full)), p)
        if st_[O_OBLIG] == 0:
            mg._auto(st_, p, buf)
    return dropped


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(["big-harp", "endless-harp", "klondike-3", "easy-harp", "harp"]),
       deal=st.integers(1, 999_999), seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_the_aggressive_rule_drops_exactly_the_splits_that_free_nothing(variant, deal, seed, steps):
    """On positions along random kernel walks from real deals: the aggressive move list is the
    full list less some column-to-column moves; where runs move, less exactly those that
    ``kept_by_hand`` rejects (a partial run moved off a face-up card that cannot go home)."""
    aggressive_walk(variant, deal, seed, steps)


def test_the_aggressive_rule_has_splits_to_drop():
    """The check above is not empty: on big-harp walks the rule drops moves."""
    assert sum(aggressive_walk("big-harp", 21 + k, k, 60) for k in range(3)) > 0


# ---- solutions through stronger games (beam.stronger_games, engine.BeamStronger) ----------
@pytest.mark.parametrize("variant", ["easy-harp", "harp", "big-harp", "endless-harp", "bakers-game", "klondike-1",
                                     "klondike-3"])
def test_the_stronger_games_are_the_game_with_the_family_s_pass_limits(variant):
    """``stronger_games``: where the stock has no pass limit, the same game with each of
    STRONGER_PASSES passes and nothing else changed -- games every move of which the real game
    allows (relax._includes), and which the weaker-game row "passes=0" (whose every move is
    checked on random positions in tests/test_relax.py) turns back into the real game; none
    where there is a limit already or no stock.  endless-harp's first is big-harp's rules."""
    from harpsolve.rules import RULE_FIELDS
    from harpsolve.search import relax

    rules = get_rules(variant)
    games = beam.stronger_games(rules)
    if rules.passes != 0 or rules.draw == 0:
        assert games == []
        return
    assert [g.passes for g in games] == list(beam.STRONGER_PASSES) and all(n > 0 for n in beam.STRONGER_PASSES)
    for game in games:
        assert [f for f in RULE_FIELDS if getattr(game, f) != getattr(rules, f)] == ["passes"]
        assert relax._includes(rules, game) and not relax._includes(game, rules)
        back = [row.relax(game) for row in relax.RELAXATIONS if row.changes == (("passes", 0),)]
        assert [g.as_dict() for g in back] == [rules.as_dict()]
    if variant == "endless-harp":
        big = get_rules("big-harp")
        assert all(getattr(games[0], f) == getattr(big, f) for f in RULE_FIELDS)


def test_the_stronger_row_runs_each_width_and_set_in_each_game():
    """engine.BeamStronger's runs: each (width, weight set) of the stronger games' runs, once in
    each game, the kernel vector that game's (its pass limit)."""
    from harpsolve.state import P_PASSES

    rules = get_rules("endless-harp")
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    eng = engine.BeamStronger(pos, engine.Memory(1 << 30))
    k = len(beam.STRONGER_PASSES)
    want = [r for r in itertools.islice(beam.runs_for(beam.stronger_games(rules)[0]), 4) for _ in range(k)]
    got = []
    for width, ws, _ in want:
        eng._next()
        name, p, cap, s = eng.cur
        assert name == f"beam-stronger w{width}.{ws}" and cap == beam.RUN_NODES * width and s.width == width
        got.append(int(p[P_PASSES]))
        assert eng.game.rules.passes == got[-1]
    assert got == list(beam.STRONGER_PASSES) * 4


class _Ended:
    """A run that ended with every line dead and none dropped (BeamStronger._verdict)."""
    dropped = 0


def test_a_stronger_game_whose_beam_drops_nothing_is_left_and_the_others_go_on():
    """A beam of one stronger game that ends with nothing dropped has made every position that
    game reaches: that game is left, and the row is done only when every game is."""
    rules = get_rules("klondike-3")
    eng = engine.BeamStronger(engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS), engine.Memory(1 << 30))
    left = list(eng.games)
    for g in left:
        eng._next()
        while eng.game is not g:
            eng._next()
        name, p, cap, _ = eng.cur
        eng.cur = (name, p, cap, _Ended())
        assert eng._verdict("ended", "empty") is None
        assert g not in eng.games and all(q[0] is not g for q in eng.queue)
        assert eng.done == (not eng.games)
    assert eng.done


def test_the_stronger_row_s_wins_replay_in_both_games():
    """A win of the stronger row is a line of both games, replayed in each reference engine,
    named with the game it was found in.  In games with a pass limit the row does not apply."""
    won = set()
    for k, variant in enumerate(["endless-harp", "klondike-3", "klondike-1", "easy-harp"] * 3):
        rules = get_rules(variant)
        layout = endgame(rules, random.Random(900 + k), 34, stock_share=0.8)
        pos = engine.Position(rules, layout, cuts=ALL_CUTS)
        assert engine.BeamStronger.applies(pos)
        out = engine.BeamStronger(pos, engine.Memory(1 << 30)).advance(300_000, None)
        assert out.status in ("solved", "unknown") and out.proof is None
        if out.status == "solved":
            game = next(g for g in beam.stronger_games(rules) if out.engine.endswith(f" in {g.label}"))
            won.add(game.passes)
            assert out.engine.startswith("beam-stronger w")
            assert replay(rules, layout, out.tokens).won and replay(game, layout, out.tokens).won
    assert won, "no win to check anything"
    for variant in ("big-harp", "harp", "bakers-game"):
        rules = get_rules(variant)
        assert not engine.BeamStronger.applies(engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["endless-harp", "klondike-3", "klondike-1"]), seed=st.integers(0, 2**32),
       left=st.integers(6, 22), deadlock=st.booleans(), takeback=st.booleans())
def test_the_stronger_beam_row_agrees_with_the_complete_search(variant, seed, left, deadlock, takeback):
    """Cross-check with the complete depth-first search of the real game on random small
    positions: the stronger game's beams never win a position the search proves lost, every
    win replays in the real game, and the row never proves anything."""
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    layout = (deadlock_candidate(rules, rng, 6, stock_share=0.5) if deadlock
              else endgame(rules, rng, left, stock_share=0.8))
    plain = solve(rules, layout=layout, algorithm="dfs", max_nodes=1_000_000)
    assume(plain.status != "unknown")
    out = engine.BeamStronger(engine.Position(rules, layout, cuts=ALL_CUTS), engine.Memory(1 << 30)).advance(
        400_000, None)
    assert out.status in ("solved", "unknown")
    if out.status == "solved":
        assert plain.status == "solved"
        assert replay(rules, layout, out.tokens).won


@pytest.mark.parametrize("variant", ["easy-harp", "harp", "big-harp", "endless-harp", "bakers-game", "klondike-1",
                                     "klondike-3"])
def test_the_beam_schedule_adds_the_stronger_game_where_passes_are_unlimited(variant):
    """``--algorithm beam``: the dead-end test, the lock test where empty columns take kings
    only and there are no cells, the game's own beams, and where the stock has no pass limit
    the stronger game's beams beside them, an equal share each round."""
    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    rows = [(e.engine, e.weight) for e in engine.BEAM.entries if e.applies(pos)]
    want = [("dead-end", 0.0)] + ([("lock", 0.0)] if rules.empty == "king" and not rules.cells else []) + [("beam", 1.0)]
    if rules.passes == 0 and rules.draw > 0:
        want.append(("beam-stronger", 1.0))
    assert rows == want
