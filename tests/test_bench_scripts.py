"""The benchmark scripts still run against the code they measure (a changed signature
in harpsolve broke bench_solution_length.py once without a test noticing)."""
from __future__ import annotations

import importlib.util
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(BENCH, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_solution_length_bench_measures_the_shortening():
    from harpsolve import solver

    bench = _script("bench_solution_length")
    original = solver.shorten_tokens
    rows = bench.measure("klondike-1", [3, 5], 200_000)
    assert solver.shorten_tokens is original  # the recording hook is taken out again
    assert rows, "neither deal was solved: pick deals the solver decides at this budget"
    for r in rows:
        assert r["after"] <= r["before"] and r["plays_after"] <= r["plays_before"]
        assert r["shorten_s"] >= 0


def test_afree_bench_compares_with_and_without_deferral(capsys):
    """bench_afree.py --against no-defer runs both searches on the same deals and reports the
    states of each; it exits 0 when they agree (klondike-1 deal 66 is unsolvable either way)."""
    bench = _script("bench_afree")
    assert bench.main(["--variant", "klondike-1", "--deals", "66", "--nodes", "0", "--against", "no-defer",
                       "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith(("afree ", "no-defer"))}
    states = {k: int(v.split("states")[1].replace(",", "")) for k, v in lines.items()}
    assert "unsolvable      1" in lines["afree"] and "unsolvable      1" in lines["no-defer"]
    assert states["afree"] < states["no-defer"]


def test_afree_bench_compares_two_move_orders(capsys):
    """bench_afree.py --against order runs afree in the rules' order and in the one given, on
    the same deals; a bad --order is refused.  (big-harp deal 2 is solved in either order.)"""
    bench = _script("bench_afree")
    assert bench.main(["--variant", "big-harp", "--deals", "2", "--nodes", "200000", "--against", "order",
                       "--order", "CFL,TF,RV,CFP,TC,TB", "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith(("afree ", "order "))}
    assert "solved      1" in lines["afree"] and "solved      1" in lines["order"]
    assert bench.main(["--variant", "big-harp", "--deals", "2", "--against", "order", "--order", "TF,TC"]) == 2


def test_afree_bench_cross_checks_the_complete_dfs(capsys):
    """bench_afree.py --against dfs runs afree and the complete depth-first search of the real
    game on the same deals and counts the deals both decide (klondike-3 deals 1-3 at 20 000
    nodes: both decide two of them, one solved and one unsolvable)."""
    bench = _script("bench_afree")
    assert bench.main(["--variant", "klondike-3", "--deals", "1-3", "--nodes", "20000", "--against", "dfs",
                       "--solver-nodes", "20000", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "dfs at 20000 nodes" in out and "disagreements / bad solutions: 0" in out
    both = int(next(line for line in out.splitlines() if line.startswith("decided by both")).split()[-1])
    assert both >= 1


def test_afree_bench_cross_checks_the_table_of_other_engines(tmp_path, capsys):
    """bench_afree.py --against table compares afree with a results folder's verdicts that no
    arrangement-free engine gave, and exits 1 when one contradicts afree.  klondike-1 deal 66
    is unsolvable (afree exhausts it; the no-defer test above): a table row from the
    depth-first search that says so agrees; a forged "solved" row is caught; a row from afree
    itself is not a cross-check and is left out."""
    from harpsolve.rules import get_rules
    from harpsolve.search.settings import SearchSettings
    from harpsolve.sweep import store
    from harpsolve.sweep.schema import make_row

    bench = _script("bench_afree")
    rules = get_rules("klondike-1")
    b = SearchSettings()

    def folder(name, status, engine):
        f = tmp_path / name
        f.mkdir()
        rows = [make_row(rules, 66, b, status, engine=engine, solution_length=9 if status == "solved" else None)]
        store.write_atomic(store.make_table(rows, [], store.rules_meta(rules)), str(f))
        return str(f)

    args = ["--variant", "klondike-1", "--deals", "66", "--nodes", "0", "--against", "table", "--quiet", "--table"]
    assert bench.main(args + [folder("agrees", "unsolvable", "dfs")]) == 0
    out = capsys.readouterr().out
    assert "decided by both: 1" in out and "disagreements / bad solutions: 0" in out
    assert bench.main(args + [folder("forged", "solved", "dfs")]) == 1
    assert "deal 66: afree unsolvable, table solved" in capsys.readouterr().out
    assert bench.main(args + [folder("own", "solved", "afree")]) == 0
    assert "decided by both: 0" in capsys.readouterr().out


def test_schedule_bench_runs_the_settings_side_by_side(capsys):
    """bench_schedule.py plays the portfolio with one row's share changed, on the same deals."""
    bench = _script("bench_schedule")
    assert bench.main(["klondike-3", "--weights", "0.5,8,8/2000", "--deals", "1-5", "--every", "2",
                       "--max-nodes", "50000", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "3 deals" in out
    assert "relax weight 0.5: unknown" in out and "relax weight 8: unknown" in out
    assert "relax weight 8/2000: unknown" in out
    assert bench.main(["klondike-3", "--row", "nonesuch", "--deals", "1"]) == 2


def test_restarts_bench_measures_every_configuration(capsys):
    """bench_restarts.py runs each configuration alone and replays the schedule on those
    figures; easy-harp deal 3 is solved by some configuration within 5 000 nodes."""
    from harpsolve.search import restarts

    bench = _script("bench_restarts")
    assert bench.main(["easy-harp", "--deals", "3", "--cap", "5000", "--seeds", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("set ")]
    assert len(rows) == 2 * len(restarts.WEIGHT_SETS)  # one seed: every set, plain and streamlined
    assert "solved by at least one run: 1" in out
    replayed = next(line for line in out.splitlines() if line.startswith("restarts.Runs"))
    assert "solved    1" in replayed


def test_player_bench_plays_every_setting_on_every_deal(capsys, tmp_path):
    bench = _script("bench_player")
    csv_path = tmp_path / "players.csv"
    assert bench.main(["klondike-1", "--deals", "2-3", "--policy", "rules,hop,hop-action", "--samples", "2",
                       "--max-nodes", "300", "--scout", "0,1", "--quiet", "--csv", str(csv_path)]) == 0
    out = capsys.readouterr().out
    from harpsolve.player import PlaySettings

    # a row: the label, then won, rate, the interval (two fields), s median, s mean, solves, nodes
    rows = {" ".join(line.split()[:-8]): line.split()[-8:] for line in out.splitlines()
            if line.startswith(("rules ", "hop"))}
    sampling = [PlaySettings(p, samples=2, max_nodes=300, scout=scout) for p in ("hop", "hop-action") for scout in (0, 1)]
    assert set(rows) == {PlaySettings("rules").label} | {s.label for s in sampling}
    assert all(int(fields[0]) <= 2 for fields in rows.values())  # won, of two games
    import pandas as pd

    table = pd.read_csv(csv_path)
    assert set(table["label"]) == set(rows) and (table["games"] == 2).all()
    assert {lab: str(w) for lab, w in zip(table["label"], table["won"])} == {lab: f[0] for lab, f in rows.items()}


def test_weaker_games_bench_finds_the_lost_deals_and_flags_a_contradiction(tmp_path, capsys):
    """bench_weaker.py searches each weaker game alone: klondike-3 deal 21 is lost under draw 1
    (tests/test_relax.py), deal 1 of that game is won.  A results folder that calls deal 21
    solved is a contradiction, and the script exits 1; --game refuses a game that is not
    more permissive."""
    import pytest

    from harpsolve.rules import get_rules
    from harpsolve.search.settings import SearchSettings
    from harpsolve.sweep import store
    from harpsolve.sweep.schema import make_row

    bench = _script("bench_weaker")
    assert bench.main(["klondike-3", "--deals", "20-21", "--states", "300000"]) == 0
    out = capsys.readouterr().out
    assert "klondike-3 [draw=1], 2 deals" in out and "proved unsolvable 1 [21]" in out and "won 1" in out
    rules = get_rules("klondike-3")
    rows = [make_row(rules, 21, SearchSettings(), "solved", engine="dfs", solution_length=9)]
    store.write_atomic(store.make_table(rows, [], store.rules_meta(rules)), str(tmp_path))
    assert bench.main(["klondike-3", "--deals", "21", "--table", str(tmp_path), "--states", "300000"]) == 1
    assert "CONTRADICTION: deal 21" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["klondike-1", "--deals", "1", "--game", "draw=3"])


def test_beam_bench_wins_and_replays(capsys):
    """bench_beam.py: easy-harp deals 3-4 are won by a beam of 16 (measured), with the stock cap
    and without, each win replayed; one summary per cap."""
    bench = _script("bench_beam")
    assert bench.main(["easy-harp", "--deals", "3-4", "--widths", "16", "--sets", "3", "--nodes", "400000",
                       "--caps", "0,1"]) == 0
    out = capsys.readouterr().out
    assert out.count("won 2: 2 at width 16") == 2
    assert "stock cap 0," in out and "stock cap 1," in out


def test_childkeys_bench_compares_both_ways(capsys):
    """bench_childkeys.py keys the same children in full and column by column, and exits 0
    only when both ways give the same fingerprints and keys."""
    bench = _script("bench_childkeys")
    assert bench.main(["--variants", "harp", "--deals", "2", "--repeats", "1"]) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("harp ")]
    assert len(row) == 1 and int(row[0].split()[2].replace(",", "")) > 0


def test_ab_bench_interleaves_two_checkouts_and_flags_contradictions():
    """bench_ab.py runs one worker process per version on the same deals in turn (here the
    same checkout twice: the same statuses and nodes, exit 0); a deal one version solves and
    the other proves unsolvable is flagged and fails the run."""
    bench = _script("bench_ab")
    here = os.path.dirname(BENCH)
    a, b = (bench.Version(label, here, 20_000) for label in ("A", "B"))
    try:
        lines, status = bench.compare("bakers-game", [1, 2], a, b, warm=1)
    finally:
        a.close(), b.close()
    assert status == 0 and lines[-1].startswith("ratio of means B / A: ")
    assert [r[:3] for r in a.rows] == [r[:3] for r in b.rows] and len(a.rows) == 2
    assert bench.parse_deals("10-20/5") == [10, 15, 20]

    class Stub:
        def __init__(self, label, status):
            self.label, self.status, self.rows = label, status, []

        def solve(self, variant, deal):
            return [str(deal), self.status, "10", "0.001", "x"]

    lines, status = bench.compare("bakers-game", [7], Stub("A", "solved"), Stub("B", "unsolvable"), warm=0)
    assert status == 1 and "CONTRADICTION" in lines[-1]
    lines, status = bench.compare("bakers-game", [7], Stub("A", "solved"), Stub("B", "unknown"), warm=0)
    assert status == 0 and lines[-1].startswith("deal 7: A solved")
    # the columns: B left its one deal unknown, so all of its time went there and no deal is decided
    assert lines[2].split()[-2:] == ["1.00", "0.0%"] and lines[3].split()[-3:] == ["1", "nan", "100.0%"]


def test_ab_bench_times_a_kernel_in_two_checkouts():
    """bench_ab.py --kernel: the same kernel on the same deals in both versions, in turn, makes
    the same number of children (exit 0) and reports nanoseconds a child; a version whose
    search differs (forged here: another width) is reported and fails the run."""
    bench = _script("bench_ab")
    here = os.path.dirname(BENCH)
    for kind in ("beam", "dfs"):
        a, b = (bench.Version(label, here, None, bench.KERNEL_WORKER) for label in ("A", "B"))
        try:
            lines, status = bench.compare_kernel("harp", [1, 2], a, b, kind, 4, 2_000, 2)
        finally:
            a.close(), b.close()
        assert status == 0 and lines[-1].startswith("ratio of the fastest B / A: "), lines
        assert a.rows[-1][0] == b.rows[-1][0] and 0 < int(a.rows[-1][0]) <= 4_000  # a search may end sooner

    class Stub:
        def __init__(self, label, children):
            self.label, self.children, self.rows = label, children, []

        def kernel(self, variant, kind, width, nodes, deals):
            self.rows.append([str(self.children), "0.001"])
            return 1e9 * 0.001 / self.children

    lines, status = bench.compare_kernel("harp", [1], Stub("A", 4_000), Stub("B", 3_999), "beam", 4, 2_000, 2)
    assert status == 1 and "not the same search" in lines[-1]


def test_portfolio_sim_replays_the_solver_node_for_node(tmp_path, capsys):
    """bench_portfolio_sim.py: what each engine does alone, replayed through the rounds,
    gives the solver's own winning engine and node count (``--check``, exit 0), and a
    setting's cost is reported relative to the stock schedule's."""
    bench = _script("bench_portfolio_sim")
    runs = tmp_path / "runs.jsonl"
    assert bench.main(["collect", "easy-harp", "1-12/2", "--out", str(runs)]) == 0
    assert bench.main(["replay", str(runs), "--check", "6", "--restarts", "4", "--beam", "32"]) == 0
    out = capsys.readouterr().out
    assert "check: 6 of 6 deals reproduced" in out
    assert "restarts 4 beam 32 order 4.10,4.2,4.3,16.10,16.2,16.3: 1.000" in out


def test_portfolio_rows_sim_replays_every_row(tmp_path, capsys):
    """bench_portfolio_sim.py collect-rows / replay-rows: every row of the portfolio alone
    (the arrangement-free engine, the weaker games, the climb...), replayed through the
    rounds, gives the solver's own node count and verdict (``--check``, exit 0); a changed
    weight is reported against the stock schedule, and the climb's (replayed as recorded)
    cannot change."""
    import pytest

    from harpsolve.search import engine

    bench = _script("bench_portfolio_sim")
    runs = tmp_path / "rows.jsonl"
    assert bench.main(["collect-rows", "klondike-3", "1-8/2", "--out", str(runs), "--cap", "200000"]) == 0
    beam = next(i for i, e in enumerate(engine.PORTFOLIO.entries) if e.engine == "beam")
    assert bench.main(["replay-rows", str(runs), "--variant", "klondike-3", "--budget", "200000",
                       "--check", "4", "--set", f"{beam}=32"]) == 0
    out = capsys.readouterr().out
    assert "check: 4 of 4 deals reproduced" in out
    assert f"{beam}=32: mean" in out
    climb = next(i for i, e in enumerate(engine.PORTFOLIO.entries) if e.engine == "climb")
    with pytest.raises(SystemExit):
        bench.main(["replay-rows", str(runs), "--variant", "klondike-3", "--set", f"{climb}=2"])


def test_tables_check_orders_the_games_by_their_rules_and_flags_a_contradiction(tmp_path, capsys):
    """check_tables.py pairs the games by their rules fields (every move of the stronger game
    exists in the weaker; scoring allows no move), and exits 1 when a deal solved in the
    stronger game's table is proved unsolvable in the weaker one's.  Forged tables: klondike-3
    deal 21 solved against klondike-1 deal 21 unsolvable is a contradiction; the other way
    round is not (a deal lost under draw 3 may be won under draw 1), and a klondike-3 deal
    unknown where klondike-1 proves it is reported as one the stronger table could take."""
    from harpsolve.rules import VARIANTS, get_rules
    from harpsolve.search.settings import SearchSettings
    from harpsolve.sweep import store
    from harpsolve.sweep.schema import make_row

    check = _script("check_tables")
    assert sorted(check.ordered_pairs(list(VARIANTS))) == [
        ("big-harp", "endless-harp"), ("harp", "easy-harp"), ("klondike-3", "klondike-1")]

    def tables(root, k3, k1):
        for name, rows in (("klondike-3", k3), ("klondike-1", k1)):
            rules = get_rules(name)
            f = root / name
            f.mkdir(parents=True)
            made = [make_row(rules, d, SearchSettings(), st, engine="dfs",
                             solution_length=9 if st == "solved" else None) for d, st in rows]
            store.write_atomic(store.make_table(made, [], store.rules_meta(rules)), str(f))
        return str(root)

    ok = tables(tmp_path / "ok", [(21, "unsolvable"), (22, "unknown"), (23, "solved")],
                [(21, "solved"), (22, "unsolvable"), (23, "solved")])
    assert check.main(["--results", ok]) == 0
    out = capsys.readouterr().out
    assert "klondike-3 (stronger) against klondike-1: 3 deals in both tables, 2 decided in both" in out
    assert "1 unknown in klondike-3 and proved unsolvable in klondike-1: [22]" in out and "contradictions 0" in out
    bad = tables(tmp_path / "bad", [(21, "solved")], [(21, "unsolvable")])
    assert check.main(["--results", bad]) == 1
    assert "CONTRADICTION: deal 21 is solved in klondike-3 and proved unsolvable in klondike-1" in capsys.readouterr().out


def test_lock_check_flags_a_locked_deal_the_table_calls_solved(tmp_path, capsys):
    """check_lock.py against forged endless-harp tables: deal 35423 (locked) unknown in the table
    is reported as decided, solved in it is a contradiction (exit 1); deal 1 (no lock) is
    neither; Baker's Game is left out (cells)."""
    from harpsolve.rules import get_rules
    from harpsolve.search.settings import SearchSettings
    from harpsolve.sweep import store
    from harpsolve.sweep.schema import make_row

    check = _script("check_lock")
    rules = get_rules("endless-harp")

    def table(root, status):
        f = root / "endless-harp"
        f.mkdir(parents=True)
        made = [make_row(rules, d, SearchSettings(), st, engine="dfs", solution_length=9 if st == "solved" else None)
                for d, st in ((1, "solved"), (35423, status))]
        store.write_atomic(store.make_table(made, [], store.rules_meta(rules)), str(f))
        return str(root)

    assert check.main(["--results", table(tmp_path / "ok", "unknown"), "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert "endless-harp: 2 deals" in out and "fires on 1 (0 proved unsolvable in the table, 1 unknown" in out
    assert "decided: deal 35423 (unknown in the table): lock: JD JH" in out
    assert check.main(["--results", table(tmp_path / "bad", "solved"), "-j", "1"]) == 1
    assert "CONTRADICTION: endless-harp deal 35423 is solved in the table" in capsys.readouterr().out
    assert check.main(["bakers-game", "--results", str(tmp_path / "ok"), "-j", "1"]) == 0
    assert "bakers-game: the lock test does not apply" in capsys.readouterr().out


def test_lock_check_walks_search_every_lock_and_flag_a_won_one(monkeypatch, capsys):
    """check_lock.py --walks: every position the test calls lost is searched; a won one is a
    contradiction (exit 1).  With the test forged to call every position lost, the first
    positions of klondike-1 deal 2 (won in 128 nodes) are won."""
    import harpsolve.search.lock as lock_module

    check = _script("check_lock")
    monkeypatch.setattr(check, "WALK_MOVES", 6)
    monkeypatch.setattr(check, "WALK_NODES", 200_000)
    assert check.walks(["klondike-1"], 1) == 0
    assert "klondike-1: 2 positions of random walks from deals 1-1; the lock test fires on 0" in capsys.readouterr().out
    monkeypatch.setattr(lock_module, "lock", lambda rules, layout: "lock: forged")
    assert check.walks(["klondike-1"], 2) == 1
    assert "CONTRADICTION: klondike-1 deal 2 after 1 random moves: lock: forged, but won" in capsys.readouterr().out


def test_sweep_rows_reports_what_a_folder_gained_since_a_commit(tmp_path, capsys):
    """sweep_rows.py counts as new only the rows the committed folder lacks (a file rewritten by
    a merge is not new), groups them by budget, and reports the table's best rows: a deal
    unknown at 20 000 000 nodes and solved in the retry at 50 000 000 leaves the unknown list."""
    import subprocess

    from harpsolve.rules import get_rules
    from harpsolve.search.settings import SearchSettings
    from harpsolve.sweep import store
    from harpsolve.sweep.schema import make_row

    rules = get_rules("klondike-3")
    folder = tmp_path / "results" / "klondike-3"
    folder.mkdir(parents=True)

    def write(rows):
        made = [make_row(rules, d, SearchSettings(max_nodes=n), st, engine="afree" if st != "unknown" else None,
                         proof="exhausted: arrangement-free" if st == "unsolvable" else None,
                         solution_length=9 if st == "solved" else None) for d, n, st in rows]
        store.write_atomic(store.make_table(made, [], store.rules_meta(rules)), str(folder))

    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write([(1, 20_000_000, "solved"), (2, 20_000_000, "unknown")])
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "first"], check=True)
    for old in folder.glob("results-*.parquet"):  # as a sweep's merge does: the old rows in a new file
        old.unlink()
    write([(1, 20_000_000, "solved"), (2, 20_000_000, "unknown"),
           (3, 20_000_000, "unsolvable"), (4, 20_000_000, "unknown"), (2, 50_000_000, "solved")])
    rows = _script("sweep_rows")
    assert rows.main(["klondike-3", "--since", "HEAD", "--results", str(tmp_path / "results"),
                      "--repo", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "klondike-3: 3 rows new since HEAD (of 5)" in out
    assert "portfolio, 20,000,000 nodes: 2 rows, deals 3-4: unsolvable 1, unknown 1" in out
    assert "proofs: exhausted: arrangement-free 1" in out and "unknown: 1 [4]" in out
    assert "portfolio, 50,000,000 nodes: 1 rows, deals 2-2: solved 1" in out
    assert "table: 4 deals (solved 2, unsolvable 1, unknown 1), bounds [50.000, 75.000] %" in out
    assert "unknown deals: [4]" in out
    assert rows.main(["klondike-1", "--since", "HEAD", "--results", str(tmp_path / "results")]) == 2


def test_profile_jit_finds_the_reference_counts_and_disassembles_a_hot_address():
    """profile_jit.py's reading of the dumped code: numba's NRT_incref / NRT_decref found by
    their instructions wherever they lie, and the instructions up to a sampled address
    decoded from the dump (the perf recording itself needs perf: not run here)."""
    import shutil

    prof = _script("profile_jit")
    filler = bytes.fromhex("90") * 40  # nops
    code = filler + prof.INCREF + bytes.fromhex("90") * 6 + prof.DECREF + bytes.fromhex("7401c3") + filler
    base = 0x7F0000001000
    found = prof.nrt_ranges([(base, code)])
    assert [(lo - base, name) for lo, _, name in found] == [(40, "NRT_incref"), (56, "NRT_decref")]
    if shutil.which("objdump"):
        lines = prof.disassemble([(base, code)], base + 40 + 5, 3)  # the lock incq
        assert lines and "lock incq" in lines[-1] and lines[-1].strip().startswith(f"{base + 45:x}:")
    assert prof.parse_deals("1-10/3") == [1, 4, 7, 10]


def _fake_lonerun(tmp_path, verdicts: dict) -> str:
    """An executable that speaks lonerun's protocol (benchmarks/lonelybot/src/main.rs) and
    answers ``verdicts[deal]`` for every deal, checking that the seed it gets is a permutation
    number (below 52!) and that the draw is the game's."""
    path = tmp_path / "lonerun"
    path.write_text(f"""#!{sys.executable}
import math, sys
verdicts = {verdicts!r}
for line in sys.stdin:
    label, draw, seed, limit = line.split()
    assert 0 <= int(seed) < math.factorial(52) and draw == "3"
    print(label, verdicts[int(label)], 7, 0.5, flush=True)
""")
    path.chmod(0o755)
    return str(path)


def test_lonelybot_seed_is_the_layout_that_lonelybot_deals():
    """bench_lonelybot.exact_seed is the inverse of lonelybot's exact_shuffle (its algorithm in
    shuffle_of): the card array it makes is the layout's columns, bottom first, then the stock
    in dealing order, in lonelybot's card numbering.  Deal 1's seed is pinned: lonelybot,
    given it, agreed with harpsolve's verdicts (benchmarks/README, thirty-second session)."""
    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules

    bench = _script("bench_lonelybot")
    rules = get_rules("klondike-3")
    for deal in (1, 2, 77, 999_999):
        lay = deal_layout(rules, deal)
        cards = bench.shuffle_of(bench.exact_seed(lay))
        flat = [c for col in lay.columns for c in col] + list(lay.stock)
        assert cards == [(c % 13) * 4 + bench.LB_SUIT[c // 13] for c in flat]
        assert [len(col) for col in lay.columns] == list(range(1, 8))
    assert bench.exact_seed(deal_layout(rules, 1)) == \
        55029010634443200838307556050991669710767721397781124461273499795644
    # hearts and diamonds are red in both numberings (lonelybot's suits 0, 1)
    assert sorted(bench.LB_SUIT[s] for s in (1, 2)) == [0, 1]


def test_lonelybot_bench_flags_a_contradiction_and_refuses_other_games(tmp_path, capsys):
    """bench_lonelybot.py solves each deal with harpsolve and asks lonerun (faked here): the
    same verdicts exit 0, a deal one solves and the other proves unsolvable exits 1, said on
    stderr at once and listed at the end; a game lonelybot does not play, or a binary that is
    not there, is one line, exit 2."""
    bench = _script("bench_lonelybot")
    good = _fake_lonerun(tmp_path, {3: "solved"})
    assert bench.main(["klondike-3", "3", "--lonelybot", good, "--warm", "0"]) == 0
    out = capsys.readouterr().out
    assert "decided by both: 1; contradictions: 0" in out and "| lonelybot | 1 | 0 | 0 |" in out
    bad = tmp_path / "other"
    bad.mkdir()
    bad = _fake_lonerun(bad, {3: "unsolvable"})
    assert bench.main(["klondike-3", "3", "--lonelybot", bad, "--warm", "0"]) == 1
    out, err = capsys.readouterr()
    # in the closing table, and on stderr the moment it was found (a long run says it at once)
    assert "deal 3: harpsolve solved, lonelybot unsolvable  <-- CONTRADICTION" in out
    assert "deal 3: harpsolve solved, lonelybot unsolvable  <-- CONTRADICTION" in err
    assert bench.main(["harp", "3", "--lonelybot", good]) == 2
    assert "one-deck" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="cannot run"):
        bench.main(["klondike-3", "3", "--lonelybot", str(tmp_path / "missing")])


def test_lonelybot_bench_checks_a_table(tmp_path, capsys):
    """bench_lonelybot.py --table compares lonerun's verdicts with a results folder's best rows
    (no solving): a row that agrees exits 0, a forged one exits 1, and the deals the folder does
    not hold are left out; the rows go to --csv with the row's proof."""
    from harpsolve.rules import get_rules
    from harpsolve.search.settings import SearchSettings
    from harpsolve.sweep import store
    from harpsolve.sweep.schema import make_row

    bench = _script("bench_lonelybot")
    rules = get_rules("klondike-3")
    folder = tmp_path / "k3"
    folder.mkdir()
    rows = [make_row(rules, 2, SearchSettings(), "unsolvable", engine="afree", proof="exhausted: arrangement-free"),
            make_row(rules, 3, SearchSettings(), "solved", engine="climb", solution_length=90)]
    store.write_atomic(store.make_table(rows, [], store.rules_meta(rules)), str(folder))
    agree = _fake_lonerun(tmp_path, {2: "unsolvable", 3: "solved"})
    csv_path = tmp_path / "rows.csv"
    assert bench.main(["klondike-3", "1-3", "--lonelybot", agree, "--table", str(folder), "--csv", str(csv_path)]) == 0
    assert "2 deals (1-3)" in capsys.readouterr().out
    lines = csv_path.read_text().splitlines()
    assert lines[1].startswith("2,unsolvable,") and "exhausted: arrangement-free" in lines[1] and len(lines) == 3
    other = tmp_path / "other"
    other.mkdir()
    forged = _fake_lonerun(other, {2: "solved", 3: "solved"})
    assert bench.main(["klondike-3", "1-3", "--lonelybot", forged, "--table", str(folder)]) == 1
    assert "deal 2: harpsolve unsolvable, lonelybot solved  <-- CONTRADICTION" in capsys.readouterr().out
