"""`harpsolve bench`, `solve --shortest/--best-score/--algorithm`, and sweeps with an algorithm."""
from __future__ import annotations

import json
import random

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from harpsolve import sweep as sw
from harpsolve.bench import BenchError, Setting, bench, make_settings
from harpsolve.cli import main
from harpsolve.reference import replay
from harpsolve.rules import get_rules

from positions import endgame


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(main, [str(a) for a in args])

    return invoke


def test_settings_are_every_heuristic_with_every_algorithm():
    s = make_settings("static,lookahead", "dfs,climb,astar,wastar", "2,4")
    assert [x.label for x in s] == ["static/dfs", "lookahead/dfs", "static/climb", "lookahead/climb", "astar",
                                    "wastar w=2", "wastar w=4"]
    assert make_settings(None, None)[0] == Setting()
    for bad in (dict(heuristics="greedy"), dict(algorithms="bfs"), dict(algorithms="wastar", weights="0.5"),
                dict(algorithms="wastar", weights="x")):
        with pytest.raises(BenchError):
            make_settings(**bad)


def test_bench_compares_settings_on_the_same_deals():
    settings = make_settings("static,lookahead", "dfs") + [Setting(algorithm="wastar", weight=3, cost="moves")]
    b = bench("klondike-1", [1, 2, 3, 4], settings, max_nodes=50_000)
    assert len(b.rows) == 12 and not b.conflicts
    assert set(b.warmup) == {s.label for s in settings}
    summary = b.summary()
    assert [g["setting"] for g in summary] == [s.label for s in settings]
    assert summary[0]["time_ratio"] == pytest.approx(1.0)
    for g in summary:
        assert g["solved"] + g["unsolvable"] + g["unknown"] == 4
    table = b.table()
    assert "static/dfs" in table and "time x" in table and "wastar w=3 moves" in table


def test_bench_cli_prints_the_table_and_writes_parquet(run, tmp_path):
    out = tmp_path / "b.parquet"
    r = run("bench", "klondike-3", "1-4", "--heuristic", "static,lookahead,weighted", "--algorithm", "dfs",
            "--max-nodes", "20000", "--out", out, "--no-progress")
    assert r.exit_code == 0, r.output
    assert "warm-up" in r.output and "lookahead/dfs" in r.output and "ms p90" in r.output
    t = pq.read_table(out)
    df = t.to_pandas()
    assert len(df) == 12 and set(df["setting"]) == {"static/dfs", "lookahead/dfs", "weighted/dfs"}
    meta = json.loads(t.schema.metadata[b"harpsolve.bench"])
    assert meta["rules"] == "klondike-3" and meta["budgets"]["max_nodes"] == 20000 and "cpu" in meta


@pytest.mark.parametrize("args, words", [
    (["bench", "klondike-1", "1-3", "--heuristic", "greedy"], "unknown heuristic 'greedy'"),
    (["bench", "klondike-1", "1-3", "--algorithm", "bfs"], "unknown algorithm 'bfs'"),
    (["bench", "klondike-1", "0-3"], "1 to 999999"),
    (["bench", "klondike-1", "1-3", "--algorithm", "astar", "--cost", "score"], "has none"),
    (["solve", "klondike-1", "1", "--best-score"], "needs the easy-harp score"),
    (["solve", "klondike-1", "1", "--weight", "2"], "--weight goes with --algorithm wastar"),
    (["solve", "klondike-1", "1", "--algorithm", "wastar", "--weight", "0.5"], ">= 1"),
    (["solve", "klondike-1", "1", "--algorithm", "bfs"], "unknown algorithm"),
    (["solve", "klondike-1", "1", "--cost", "moves"], "--cost goes with"),
    (["solve", "klondike-1", "1", "--shortest", "--best-score"], "choose one"),
    (["sweep", "klondike-1", "1-3", "--out", "x", "--algorithm", "bfs"], "unknown algorithm"),
    (["sweep", "klondike-1", "1-3", "--out", "x", "--weight", "3"], "--weight goes with"),
])
def test_bad_options_are_one_line_errors(run, args, words):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert words in r.output and "Traceback" not in r.output


def _layout_file(tmp_path, variant, seed, left):
    rules = get_rules(variant)
    layout = endgame(rules, random.Random(seed), left)
    path = tmp_path / "pos.json"
    path.write_text(json.dumps({"variant": variant, "layout": layout.to_dict()}))
    return rules, layout, path


def test_shortest_says_proved_minimal(run, tmp_path):
    rules, layout, path = _layout_file(tmp_path, "klondike-1", 3, 8)
    r = run("solve", "--layout", path, "--shortest", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["optimality"]["proved"] == "minimal" and doc["optimality"]["cost"] == len(doc["moves"])
    assert replay(rules, layout, doc["moves"]).won
    r = run("solve", "--layout", path, "--shortest")
    assert f"shortest: proved minimal ({len(doc['moves'])} moves)" in r.output


def test_shortest_out_of_budget_gives_the_best_found_and_a_bound(run):
    r = run("solve", "bakers-game", "1", "--shortest", "--max-nodes", "40000")
    assert r.exit_code == 0, r.output
    assert "not proved minimal" in r.output and "no solution has fewer than" in r.output


def test_best_score_cli(run, tmp_path):
    rules, layout, path = _layout_file(tmp_path, "easy-harp", 14, 5)
    r = run("solve", "--layout", path, "--best-score")
    assert r.exit_code == 0, r.output
    assert "best score: proved maximal" in r.output
    # deal 2: solved within the budget, not proved maximal (deal 1 is no longer solved by
    # 20 000 nodes since the search applies Keller's rule: a different path, not a lost win)
    r = run("solve", "easy-harp", "2", "--best-score", "--max-nodes", "20000")
    assert r.exit_code == 0, r.output
    assert "not proved maximal" in r.output and "no solution has a clean score above 1515" in r.output


def test_solve_with_weighted_astar(run):
    r = run("solve", "bakers-game", "1", "--algorithm", "wastar", "--weight", "3", "--max-nodes", "300000")
    assert r.exit_code == 0, r.output
    assert "within 3 x the shortest" in r.output


def test_sweep_records_the_algorithm_and_resumes_by_it(tmp_path):
    out = tmp_path / "out"
    budgets = dict(max_nodes=20_000, algorithm="wastar", weight=3)
    s = sw.sweep("bakers-game", "1-3", out, budgets=budgets, workers=1, progress=False)
    assert s.new == 3
    df = sw.load_results([out]).frame
    assert set(df["algorithm"]) == {"wastar"} and set(df["weight"]) == {3.0}
    assert sw.sweep("bakers-game", "1-3", out, budgets=budgets, workers=1, progress=False).new == 0


def test_result_files_from_before_the_algorithm_columns_still_read(tmp_path):
    rules = get_rules("klondike-1")
    b = sw.Budgets(1000, 0.0, 1 << 20, "lookahead")
    rows = [sw.make_row(rules, d, b, "solved", solution_length=100, nodes=5) for d in (1, 2)]
    meta = sw.store.make_table(rows, [sw.run_metadata("local", 1, "harpsolve sweep klondike-1 1-2")],
                               sw.store.rules_meta(rules)).schema.metadata  # what a sweep writes
    table = sw.store.make_table(rows, [], {}).drop(["algorithm", "weight"]).replace_schema_metadata(meta)
    pq.write_table(table, tmp_path / "results-1-1-1.parquet")
    df = sw.load_results([tmp_path]).frame
    assert list(df["algorithm"]) == ["climb", "climb"] and list(df["weight"]) == [0.0, 0.0]
    assert isinstance(df, pd.DataFrame) and isinstance(table, pa.Table)


def test_bench_interrupted_exits_130_in_one_line(run, monkeypatch):
    """Ctrl-C is not an internal error (exit 1): 130, as a shell reports SIGINT, and one line."""
    import harpsolve.bench as hb

    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(hb, "bench", interrupted)
    r = run("bench", "klondike-1", "1-2")
    assert r.exit_code == 130 and "interrupted" in r.output and "Traceback" not in r.output
