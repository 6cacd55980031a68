"""The engine schedule (search/engine.py): outcomes name their engine and proof, rows that
may only find solutions never prove, and a budget only decides where the search stops."""
from __future__ import annotations

import itertools
import json
import random
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from harpsolve.reference import replay
from harpsolve.rules import VARIANTS, get_rules
from harpsolve.search import engine
from harpsolve.solver import ALL_CUTS, solve

from positions import deadlock_candidate, endgame, solutions_only_wins

PROOFS = ("exhausted", "exhausted: arrangement-free")


def test_schedules_are_tables_of_known_engines():
    for sched in engine.SCHEDULES.values():
        assert sched.mode in ("rounds", "phases")
        assert sched.entries
        for e in sched.entries:
            assert e.engine in engine.ENGINES
            assert e.concludes in engine.CONCLUDES
            assert e.weight >= 0 and e.cap >= 0 and e.total >= 0 and e.first_round >= 0
            assert e.column_moves in ("", "single", "runs") and e.passes in ("", "limited", "unlimited")
            assert e.weight > 0 or e.cap > 0, "a row with neither share nor cap never runs"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_portfolio_row_runs_at_most_once_a_round(variant):
    """Rows of one engine with game conditions (the beam: single cards without a pass limit,
    or any game with one) never both run in one game; the climb runs first where runs move,
    and not in the single-card games (where the beams win what it won)."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    names = [e.engine for e in engine.PORTFOLIO.entries if e.applies(pos)]
    assert len(names) == len(set(names)), names
    if rules.column_moves == "runs":
        assert names.index("climb") < names.index("restarts"), names
    else:
        assert "climb" not in names, names


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_under_a_pass_limit_the_beams_run_before_the_restarts(variant):
    """In each round the beam row comes before the restarts where passes are limited (the
    beams win most of those deals at a fifth of the restarts' cost a node), after them
    elsewhere (the restarts win most easy-harp deals in a few thousand nodes)."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    names = [e.engine for e in engine.PORTFOLIO.entries if e.applies(pos)]
    if "beam" in names and "restarts" in names:
        assert (names.index("beam") < names.index("restarts")) == (rules.passes > 0), names


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_where_runs_move_under_a_pass_limit_the_beams_run_before_the_arrangement_free_engine(variant):
    """The portfolio's order by rules fields: under a pass limit with runs (big-harp) the beam
    row comes before ``afree-both`` (the first beam wins the median deal); where runs move
    without one there is no beam row, and the climb is first wherever it runs."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    names = [e.engine for e in engine.PORTFOLIO.entries if e.applies(pos) and e.engine not in ("dead-end", "lock")]
    if "afree-both" in names and "beam" in names:
        assert names.index("beam") < names.index("afree-both"), names
        assert rules.passes > 0 and rules.column_moves == "runs"
    if "climb" in names:
        assert names[0] == "climb" or names[:2] == ["wastar", "climb"], names


@pytest.mark.parametrize("variant,share", [("easy-harp", (32.0, 0)), ("harp", (512.0, 0)), ("bakers-game", (32.0, 0)),
                                           ("big-harp", (512.0, engine.RUNS_BEAM_TOTAL)), ("endless-harp", None),
                                           ("klondike-1", None), ("klondike-3", None)])
def test_each_game_gets_its_beam_row(variant, share):
    """The beam rows split by rules fields: single cards without a pass limit, any game with
    one (stopped at RUNS_BEAM_TOTAL where runs move), none where runs move without one."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    rows = [(e.weight, e.total) for e in engine.PORTFOLIO.entries if e.engine == "beam" and e.applies(pos)]
    assert rows == ([share] if share else [])


@pytest.mark.parametrize("variant,shares", [("klondike-3", [48.0]), ("endless-harp", [48.0]), ("big-harp", [16.0]),
                                            ("easy-harp", [16.0]), ("harp", [16.0])])
def test_each_game_gets_its_weaker_game_row(variant, shares):
    """The weaker-game rows (arrangement-free engine) split by rules fields: 48 shares where runs
    move without a pass limit, 16 elsewhere (benchmarks/README, twenty-second session)."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    assert [e.weight for e in engine.PORTFOLIO.entries if e.engine == "relax" and e.applies(pos)] == shares


@pytest.mark.parametrize("variant", ["easy-harp", "harp", "bakers-game", "big-harp", "endless-harp", "klondike-1",
                                     "klondike-3"])
def test_the_restarts_stop_at_their_total_where_runs_move(variant):
    """One restarts row a game, by rules fields: whole where single cards move, stopped after
    RUNS_RESTARTS_TOTAL nodes where runs move."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    rows = [(e.weight, e.total) for e in engine.PORTFOLIO.entries if e.engine == "restarts" and e.applies(pos)]
    assert rows == [(4.0, engine.RUNS_RESTARTS_TOTAL if rules.column_moves == "runs" else 0)]


def test_a_row_stops_for_good_at_its_total():
    """A row with a total runs until its nodes reach it, then never again: with no budget the
    schedule ends there, unknown ("nodes"), having spent the total and at most one slice more."""
    from harpsolve.deals import deal_layout

    rules = get_rules("big-harp")
    # a deal the beams do not win in 40 000 nodes, nor in 400 000 (measured, forty-first
    # session: of 60 141-60 199 they now win every one within 400 000)
    pos = engine.Position(rules, deal_layout(rules, 30701), cuts=ALL_CUTS)
    total = 40_000
    sched = engine.Schedule("t", "rounds", (engine.Entry("beam", engine.SOLUTIONS, 4.0, total=total),))
    out = engine.run(pos, sched)
    assert out.status == "unknown" and out.reason == "nodes"
    assert total <= out.nodes <= total + 4 * engine.BASE_SLICE * 8


def test_a_row_waits_for_its_first_round(monkeypatch):
    """A row with a first round is not advanced before it; from then on it gets that round's
    share, as if it had run all along (two stand-in engines count the calls)."""
    from harpsolve.deals import deal_layout

    calls = []

    class Counter(engine.Engine):
        name = "counter"

        def advance(self, nodes, deadline):
            calls.append((self.name, nodes))
            self.nodes += nodes
            return engine.Outcome("unknown", self.name, reason="nodes")

    class Waiter(Counter):
        name = "waiter"

    monkeypatch.setitem(engine.ENGINES, "counter", Counter)
    monkeypatch.setitem(engine.ENGINES, "waiter", Waiter)
    rules = get_rules("easy-harp")
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    sched = engine.Schedule("t", "rounds", (engine.Entry("counter", engine.SOLUTIONS, 1.0),
                                            engine.Entry("waiter", engine.PROOFS, 2.0, first_round=2)))
    out = engine.run(pos, sched, max_nodes=20 * engine.BASE_SLICE)
    assert out.status == "unknown"
    base = engine.BASE_SLICE
    # rounds 0-2: the counter's 1, 2, 4 slices; the waiter's round-2 share (weight 2); round 3:
    # the counter gets what is left of 20 slices (5), and the budget ends before the waiter
    assert calls == [("counter", base), ("counter", 2 * base), ("counter", 4 * base), ("waiter", 8 * base),
                     ("counter", 5 * base)], calls


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_weaker_game_proofs_wait_only_where_single_cards_move(variant):
    """The relaxation rows wait for round 2 in the single-card games (where they almost never
    conclude) and run from the first round where runs move; of the others only the lock test
    waits (for round 1: tests/test_lock.py)."""
    from harpsolve.deals import deal_layout

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1), cuts=ALL_CUTS)
    waits = {e.engine: e.first_round for e in engine.PORTFOLIO.entries if e.applies(pos)}
    assert waits["relax"] == waits["relax-dfs"] == (2 if rules.column_moves == "single" else 0)
    assert all(w == 0 for name, w in waits.items() if not name.startswith("relax") and name != "lock")


@pytest.mark.parametrize("variant,deal", [("klondike-3", 5), ("easy-harp", 1), ("endless-harp", 3),
                                          ("klondike-1", 3), ("harp", 5), ("klondike-3", 2),
                                          ("big-harp", 60101)])
def test_a_bigger_budget_decides_the_same_way_in_the_same_nodes(variant, deal):
    """The portfolio's rounds do not depend on the budget: whatever a budget decides, any
    bigger budget (and no budget) decides identically -- same status, engine, nodes."""
    small = solve(variant, deal, max_nodes=300_000)
    assert small.status != "unknown", "pick a deal the portfolio decides within the small budget"
    for bigger in (small.nodes + 1, 2 * small.nodes + 7, 3_000_000, 0):
        r = solve(variant, deal, max_nodes=bigger)
        assert (r.status, r.engine, r.proof, r.nodes, r.moves) == (
            small.status, small.engine, small.proof, small.nodes, small.moves), bigger


def test_the_budget_cut_short_is_unknown():
    small = solve("easy-harp", 1, max_nodes=300_000)
    r = solve("easy-harp", 1, max_nodes=small.nodes - 1)
    assert r.status == "unknown" and r.reason == "nodes" and r.nodes <= small.nodes - 1


def test_a_solutions_only_row_never_proves():
    """The same complete search listed for solutions only: its exhausted graph is no verdict."""
    rules = get_rules("klondike-3")
    from harpsolve.deals import deal_layout

    pos = engine.Position(rules, deal_layout(rules, 2), cuts=0)
    proving = engine.Schedule("t", "rounds", (engine.Entry("dfs", engine.BOTH, 1.0),))
    finding = engine.Schedule("t", "rounds", (engine.Entry("dfs", engine.SOLUTIONS, 1.0),))
    assert engine.run(pos, proving).status == "unsolvable"
    out = engine.run(pos, finding)
    assert out.status == "unknown" and out.proof is None


@pytest.mark.parametrize("variant", ["klondike-3", "big-harp"])
def test_the_arrangement_free_row_searches_in_both_orders(variant):
    """The portfolio's arrangement-free row (``afree-both``) runs the rules' own move order and the
    other (``afree.other_order``) over one shared table, and may conclude both ways."""
    from harpsolve.deals import deal_layout
    from harpsolve.search import afree

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, 1))
    rows = {e.engine: e for e in engine.PORTFOLIO.entries}
    assert rows["afree-both"].concludes == engine.BOTH and "afree" not in rows and "afree-other" not in rows
    eng = engine.ENGINES["afree-both"](pos, engine.Memory(1 << 30))
    try:
        # the other order's search is made at its first turn, after the first order's share
        assert [name for _, name in eng.searches] == ["afree"]
        out = eng.advance(2_000, None)
        assert out.status == "unknown"  # (deal 1: some 7 000 000 states)
        assert [name for _, name in eng.searches] == ["afree", "afree-other"]
        orders = [afree.default_order(rules), afree.other_order(rules)]
        for (s, _), order in zip(eng.searches, orders):
            pri = s.pr.q[afree.Q_PRI:afree.Q_PRI + 6]
            assert [int(pri[k]) for k in order] == list(range(6))
            assert s.table is eng.table
        a, b = (s.nodes - 1 for s, _ in eng.searches)  # (each search's root counts one)
        assert a + b == eng.nodes == 2_000 and b == 2_000 * engine.OTHER_SHARE
    finally:
        eng.close()


def test_outcome_names_engine_and_proof_in_the_json():
    r = solve("klondike-3", 2)  # a dead deal (decided at once)
    assert r.status == "unsolvable"
    d = json.loads(json.dumps(r.to_dict()))
    assert d["engine"] == r.engine and d["proof"] == r.proof
    assert r.proof in PROOFS or r.proof.startswith(("relaxed: ", "dead end: "))
    s = solve("klondike-1", 3)
    assert s.solved and s.engine and s.to_dict()["engine"] == s.engine and "proof" not in s.to_dict()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["klondike-1", "klondike-3", "endless-harp", "big-harp", "easy-harp", "harp"]),
       seed=st.integers(0, 2**32), left=st.integers(6, 26), deadlock=st.booleans(), takeback=st.booleans())
def test_portfolio_agrees_with_the_complete_search(variant, seed, left, deadlock, takeback):
    """Every engine of the portfolio, whichever decides, agrees with the plain complete
    depth-first search on random small positions; every solution replays."""
    rules = get_rules(variant, {"takeback": takeback})
    rng = random.Random(seed)
    layout = deadlock_candidate(rules, rng, 11 if rules.decks == 2 else 10) if deadlock else endgame(rules, rng, left)
    plain = solve(rules, layout=layout, algorithm="dfs", max_nodes=1_000_000)
    port = solve(rules, layout=layout, max_nodes=1_000_000)
    assume("unknown" not in (plain.status, port.status))  # too big: hypothesis draws another
    assert port.status == plain.status, (port.engine, port.proof)
    if port.status == "unsolvable":
        assert port.proof
    if port.solved:
        rep = replay(rules, layout, port.moves)
        assert rep.ok and rep.won


def test_an_unpolished_solution_replays_and_polishing_only_shortens():
    """Sweeps and bench keep the search's line (``polish=False``); ``solve`` polishes it for a
    reader.  Both replay to a win (``solve`` verifies every solution), and the polished line is
    never the longer."""
    for variant, deal in (("easy-harp", 1), ("klondike-3", 5), ("bakers-game", 1)):
        raw = solve(variant, deal, polish=False)
        fine = solve(variant, deal)
        assert raw.solved and fine.solved and (raw.engine, raw.nodes) == (fine.engine, fine.nodes)
        assert len(fine.moves) <= len(raw.moves)
        rep = replay(raw.rules, raw.layout, raw.moves)
        assert rep.ok and rep.won


def test_without_the_shortcut_the_line_still_wins_and_is_no_shorter():
    """``shortcut=False`` (the default without the polish: sweeps, bench, the sampling player's
    world solves) writes the search's line with its
    loops cut but not its detours: the same search, a line that replays to a win, never shorter
    than the shortcut one.  (Deals whose line the shortcut shortens, so that the two differ.)"""
    differ = 0
    for variant, deal in (("easy-harp", 1), ("easy-harp", 2), ("klondike-3", 5), ("bakers-game", 1)):
        cut = solve(variant, deal, polish=False, shortcut=True)
        raw = solve(variant, deal, polish=False, shortcut=False, verify=True)
        assert raw.solved and (raw.engine, raw.nodes) == (cut.engine, cut.nodes)
        assert solve(variant, deal, polish=False).moves == raw.moves  # no polish: no shortcut either
        assert len(raw.moves) >= len(cut.moves)
        differ += len(raw.moves) > len(cut.moves)
    assert differ  # the comparison means something only where the shortcut did cut


@pytest.mark.parametrize("variant,deal", [("klondike-3", 1), ("big-harp", 1), ("easy-harp", 3), ("bakers-game", 1)])
def test_under_a_deadline_every_engine_reads_the_clock_within_a_slice(variant, deal):
    """A --timeout is overrun by at most one slice of DEADLINE_SLICE nodes (about a
    millisecond): with the deadline already past, no engine searches more than that before it
    looks at the clock -- the climb, which reads no clock, gets the nodes that fit in the time
    left (none); weighted A*, afree and the depth-first searches stop after one slice."""
    from harpsolve.deals import deal_layout
    from harpsolve.search import astar
    from harpsolve.search.settings import DEADLINE_SLICE
    from harpsolve.solver import ALL_CUTS

    rules = get_rules(variant)
    pos = engine.Position(rules, deal_layout(rules, deal), cuts=ALL_CUTS)
    ran = []
    for e in engine.PORTFOLIO.entries:
        if not e.applies(pos):
            continue
        eng = engine.ENGINES[e.engine](pos, engine.Memory(1 << 30))
        try:
            eng.advance(1_000_000, time.perf_counter() - 1.0)
        finally:
            eng.close()
        ran.append(e.engine)
        # a slice ends after the node that crosses it: A* counts the children it generates
        assert eng.nodes <= DEADLINE_SLICE + astar.MAX_MOVES, (e.engine, eng.nodes)
    assert len(ran) >= 4, ran


# ---- rollouts (algorithm "rollout"): the sampling player as a solution finder ---------------
def test_rollouts_find_solutions_that_replay_and_never_prove():
    """The rollout search wins small endgames with the default player's games; each win is a
    solution the solver replays (solve raises otherwise); a lost game is never a proof."""
    won = solutions_only_wins("rollout", ["easy-harp", "klondike-3", "harp", "klondike-1"] * 2, 100, 22, 400_000)
    assert won >= 3, "too few wins to check anything"


def test_rollouts_stop_at_their_budget_and_after_their_games(monkeypatch):
    """A game stops once the player's solves have used the slice (overrun: one decision's
    solves at most), and the search gives up after ROLLOUT_GAMES games, even with no budget:
    a dead position ends unknown."""
    from harpsolve.player import DEFAULT_BOOST, DEFAULT_MAX_NODES, DEFAULT_SAMPLES

    rules = get_rules("klondike-1")
    one_decision = DEFAULT_SAMPLES * DEFAULT_MAX_NODES * DEFAULT_BOOST
    layout = endgame(rules, random.Random(5), 45)
    r = solve(rules, layout=layout, algorithm="rollout", max_nodes=3_000)
    assert r.status in ("solved", "unknown") and r.nodes <= 3_000 + one_decision
    monkeypatch.setattr(engine, "ROLLOUT_GAMES", 3)
    for seed in range(40):  # a small dead position: every game ends with no move left
        dead = deadlock_candidate(rules, random.Random(seed), 10)
        if solve(rules, layout=dead, algorithm="dfs", max_nodes=200_000).status == "unsolvable":
            break
    else:
        pytest.fail("no dead position among the candidates")
    pos = engine.Position(rules, dead)
    out = engine.run(pos, engine.ROLLOUT, max_nodes=0)
    assert out.status == "unknown" and out.proof is None


def test_rollouts_are_deterministic():
    rules = get_rules("easy-harp")
    layout = endgame(rules, random.Random(7), 24)
    a = solve(rules, layout=layout, algorithm="rollout", max_nodes=300_000, polish=False)
    b = solve(rules, layout=layout, algorithm="rollout", max_nodes=300_000, polish=False)
    assert (a.status, a.engine, a.nodes, a.moves) == (b.status, b.engine, b.nodes, b.moves)


@pytest.mark.parametrize("variant", ["easy-harp", "klondike-1", "bakers-game"])
def test_one_shortcut_pass_leaves_nothing_for_a_second(variant):
    """search/shortcut.py makes one pass: on the depth-first searches' lines (loops cut), the
    shortcut of a shortcut line is that line again."""

    from harpsolve.deals import deal_layout
    from harpsolve.search import dfs, restarts
    from harpsolve.search.shortcut import shortcut, shorten
    from harpsolve.state import pack

    rules = get_rules(variant)
    cut = 0
    for deal in range(1, 40):
        root = pack(deal_layout(rules, deal), rules)
        p = restarts.run_params(rules, 10, 1, streamlined=False)
        s = dfs.DfsSearch(root, p, dfs.buffers("test-shortcut"), 1 << 10)
        code, _ = s.advance(20_000)
        if code != dfs.R_SOLVED:
            continue
        line = shorten(root, s.path(), p)
        once = shortcut(root, line, p)
        assert shortcut(root, once, p) == once
        cut += len(once) < len(line)
    assert cut >= 2, "too few lines with a detour to check anything"


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 40), values=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_repeated_positions_are_found_as_a_set_of_bytes_finds_them(rows, values, seed):
    """shortcut._repeats (hash keys, then bytes) against a set of the rows' bytes, on rows of
    few distinct byte values so that equal rows are common."""
    import numpy as np

    from harpsolve.search.shortcut import _repeats
    from harpsolve.state import STATE_BYTES

    rng = np.random.default_rng(seed)
    states = np.zeros((rows, STATE_BYTES), np.uint8)
    states[:, :4] = rng.integers(0, values, (rows, 4))
    assert _repeats(states) == (len({r.tobytes() for r in states}) < rows)


def test_loops_are_cut_as_drop_loops_cuts_them():
    """shortcut.shorten skips drop_loops when no position comes twice: the same line either way,
    on random walks of kernel moves (which come back to positions often) and on the
    depth-first searches' lines (which never do)."""
    import numpy as np

    from harpsolve.deals import deal_layout
    from harpsolve.movegen import GEN_WORK, MAX_MOVES, _apply, _auto, _gen
    from harpsolve.search import dfs, restarts
    from harpsolve.search.shortcut import _walk, shorten
    from harpsolve.solution import drop_loops
    from harpsolve.state import O_OBLIG, kernel_params, pack

    rng = random.Random(7)
    moves, scores, buf = np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.int32), np.zeros(256, np.int64)
    looped = plain = 0
    for variant, deal in itertools.product(["easy-harp", "klondike-1", "big-harp"], range(1, 16)):
        rules = get_rules(variant)
        p = restarts.run_params(rules, 10, 1, streamlined=False)
        root = pack(deal_layout(rules, deal), rules)
        st0 = root.copy()
        _auto(st0, p, buf)
        s = dfs.DfsSearch(root, p, dfs.buffers("test-loops"), 1 << 10)
        lines = [(s.path(), p, st0)] if s.advance(20_000)[0] == dfs.R_SOLVED else []
        # a random walk under the plain kernel vector (the search's cuts end most walks soon)
        p = kernel_params(rules)
        st0 = root.copy()
        _auto(st0, p, buf)
        walk, cur = [], st0.copy()
        for _ in range(150):
            n = _gen(cur, p, moves, scores, np.zeros(GEN_WORK, np.int64))
            if n <= 0:
                break
            m = int(moves[rng.randrange(n)])
            walk.append(m)
            _apply(cur, m, p)
            if cur[O_OBLIG] == 0:
                _auto(cur, p, buf)
        lines.append((walk, p, st0))
        for path, p, st0 in lines:
            states = _walk(st0, np.asarray(path, np.int64), p, buf)
            want = drop_loops(states[0].tobytes(), ((m, states[i + 1].tobytes()) for i, m in enumerate(path)))
            assert shorten(root, path, p) == want
            looped += len(want) < len(path)
            plain += len(want) == len(path)
    assert looped >= 5 and plain >= 5, (looped, plain)
