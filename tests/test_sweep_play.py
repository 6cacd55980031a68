"""Player sweeps (``sweep --play``): rows won or lost under a fingerprint of their own, resume,
refusals, statistics beside the solver's, and the check that a won game is never contradicted."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from harpsolve import sweep as sw
from harpsolve.cli import main
from harpsolve.deals import deal_layout
from harpsolve.player import PlaySettings, make_policy, play
from harpsolve.reference import replay
from harpsolve.rules import get_rules
from harpsolve.stats import compare, summarize
from harpsolve.sweep import schema, store

VARIANT = "klondike-1"
DEALS = "1-4"  # the rules player wins two of these and loses two (checked below)
RULES_PLAYER = PlaySettings("rules")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("play") / "out"
    summary = sw.sweep(VARIANT, DEALS, out, play=RULES_PLAYER, workers=1, progress=False)
    return out, summary


def test_rows_are_the_games_the_player_plays(played):
    out, summary = played
    df = sw.load_results([out]).frame.sort_values("deal")
    rules = get_rules(VARIANT)
    assert summary.counts == {"won": 2, "lost": 2, "error": 0} and summary.new == 4
    assert set(df["status"]) == {"won", "lost"}
    assert (df["policy"] == RULES_PLAYER.label).all() and (df["algorithm"] == "rules").all()
    assert (df["rules_fingerprint"] == RULES_PLAYER.fingerprint(rules)).all()
    assert RULES_PLAYER.fingerprint(rules) != rules.fingerprint()
    for row in df.itertuples():  # each row is the game `harpsolve play` plays
        g = play(rules, deal_layout(rules, row.deal), make_policy("rules", rules), RULES_PLAYER.max_moves)
        assert row.status == ("won" if g.won else "lost") and row.solution_length == len(g.moves)
        assert (row.reason == g.end) if not g.won else replay(rules, deal_layout(rules, row.deal), g.moves).won


def test_a_player_sweep_resumes_and_keeps_apart_from_other_players_and_the_solver(played, tmp_path):
    out, _ = played
    again = sw.sweep(VARIANT, DEALS, out, play=RULES_PLAYER, workers=1, progress=False)
    assert again.new == 0 and again.skipped == 4
    for other in (None, PlaySettings("hop", samples=2, max_nodes=100), PlaySettings("rules", max_moves=10)):
        with pytest.raises(sw.SweepError, match=re.escape("--play) options of the sweep that wrote it")):
            sw.sweep(VARIANT, DEALS, out, play=other, workers=1, progress=False, budgets=dict(max_nodes=1000))


def test_stats_put_the_player_beside_the_solver(played, tmp_path):
    out, _ = played
    solved = tmp_path / "solved"
    sw.sweep(VARIANT, DEALS, solved, workers=1, progress=False)
    groups = summarize(sw.load_results([out, solved]))
    player = next(g for g in groups if g.get("kind") == "player")
    thoughtful = next(g for g in groups if g.get("kind") != "player")
    assert (player["won"], player["lost"], player["games"]) == (2, 2, 4) and player["rate"] == 0.5
    assert thoughtful["solved"] + thoughtful["unsolvable"] + thoughtful["unknown"] == 4
    assert player["thoughtful"]["deals"] == 4 and player["thoughtful"]["rate"] == thoughtful["rate"]
    r = CliRunner().invoke(main, ["stats", str(out), str(solved)])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith(VARIANT) and RULES_PLAYER.label in x)
    assert "50.00%" in line and "(4 deals)" in line  # the player's rate, and the solver's beside it
    for fmt in ("csv", "json", "markdown"):
        r = CliRunner().invoke(main, ["stats", str(out), str(solved), "--format", fmt])
        assert r.exit_code == 0 and RULES_PLAYER.label in r.output, r.output


def test_a_won_game_against_a_proof_is_a_conflict(tmp_path):
    """compare flags a deal a player won and the solver 'proved' unsolvable (same rules): one
    of the two is a bug.  (Forged rows: no real sweep disagrees.)"""
    rules = get_rules(VARIANT)
    b = sw.Budgets.make({})
    won = [schema.make_row(rules, d, b, "won", solution_length=100, play=RULES_PLAYER) for d in (1, 2)]
    proof = [schema.make_row(rules, 1, b, "unsolvable", proof="exhausted"),
             schema.make_row(rules, 2, b, "solved", solution_length=90)]
    for name, rows_, meta in (("a", won, store.rules_meta(rules, RULES_PLAYER)), ("b", proof, store.rules_meta(rules))):
        (tmp_path / name).mkdir()
        store.write_atomic(store.make_table(rows_, [], meta), str(tmp_path / name))
    c = compare(tmp_path / "a", tmp_path / "b")
    assert c.conflicts == [1] and not c.same_rules
    assert c.table.loc["won", "unsolvable"] == 1 and c.table.loc["won", "solved"] == 1


def test_a_solver_row_is_never_won_and_a_player_row_never_solved(tmp_path):
    rules = get_rules(VARIANT)
    b = sw.Budgets.make({})
    for i, row in enumerate((schema.make_row(rules, 1, b, "won"),
                             schema.make_row(rules, 1, b, "solved", play=RULES_PLAYER))):
        folder = tmp_path / str(i)
        folder.mkdir()
        store.write_atomic(store.make_table([row], [], store.rules_meta(rules)), str(folder))
        with pytest.raises(sw.ResultFileError, match="only a played game, with a policy, is won or lost"):
            sw.load_results([folder])


def test_the_cli_plays_and_refuses_options_that_do_not_go_with_the_choice(tmp_path):
    r = CliRunner().invoke(main, ["sweep", VARIANT, "1-2", "--out", str(tmp_path / "p"), "--play", "hop",
                                  "--samples", "2", "--max-nodes", "200", "-j", "1", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "played by hop samples=2 max_nodes=200 seed=0 max_moves=5000" in r.output and "won " in r.output
    df = sw.load_results([tmp_path / "p"]).frame
    assert set(df["status"]) <= {"won", "lost"} and (df["max_nodes"] == 200).all() and len(df) == 2
    for args, words in (
            (["--play", "rules", "--samples", "3"], "--samples is a setting of --play hop or hop-action, not rules"),
            (["--play", "rules", "--scout"], "--scout is a setting of --play hop or hop-action, not rules"),
            (["--seed", "3"], "--seed is a setting of --play"),
            (["--scout"], "--scout is a setting of --play"),
            (["--boost", "2"], "--boost is a setting of --play"),
            (["--play", "rules", "--boost", "2"], "--boost is a setting of --play hop or hop-action, not rules"),
            (["--play", "hop", "--boost", "0"], "--boost takes a multiple of --max-nodes >= 1"),
            (["--widen", "2"], "--widen is a setting of --play"),
            (["--play", "hop", "--widen", "2"], "--widen is a setting of --play hop-action, not hop"),
            (["--play", "hop-action", "--widen", "-1"], "--widen takes a number of moves >= 0"),
            (["--play", "hop", "--algorithm", "dfs"], "--algorithm is a setting of the solver, not of --play hop"),
            (["--play", "hop", "--samples", "0"], "--samples takes a number of worlds >= 1"),
    ):
        r = CliRunner().invoke(main, ["sweep", VARIANT, "1-2", "--out", str(tmp_path / "x"), *args])
        assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_the_progress_line_of_a_player_sweep_counts_games():
    bar = sw.Progress(4, {1: "won"}, False, "x")
    for s in ("won", "lost", "lost"):
        bar.update(s)
    assert bar.rate_text() == "won 50.0% of 4"


def test_the_dask_engine_plays_the_same_games(played, tmp_path):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "dask"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        summary = sw.sweep(VARIANT, DEALS, out, engine="dask", scheduler=cluster.scheduler_address,
                           progress=False, play=RULES_PLAYER)
    assert summary.new == 4
    cols = ["deal", "status", "solution_length", "reason", "policy", "rules_fingerprint"]
    a = sw.load_results([played[0]]).frame[cols].sort_values("deal").reset_index(drop=True)
    b = sw.load_results([out]).frame[cols].sort_values("deal").reset_index(drop=True)
    assert a.equals(b)


@pytest.mark.parametrize("settings", [PlaySettings("hop"), PlaySettings("rules"),
                                      PlaySettings("hop", samples=3, max_nodes=50, seed=2, max_moves=9)])
def test_a_policy_label_names_its_settings(settings):
    assert PlaySettings.from_label(settings.label) == settings
    with pytest.raises(ValueError):
        PlaySettings("hop", samples=0)


def test_the_results_page_gives_the_command_of_a_player_sweep(played, tmp_path):
    """benchmarks/results_table.py: a committed player folder is rerun with --play and its settings."""
    import importlib.util
    import os
    import shutil

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "results_table.py")
    spec = importlib.util.spec_from_file_location("results_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    shutil.copytree(played[0], tmp_path / "klondike-1-rules")
    assert mod.commands(str(tmp_path), "results") == [
        f"harpsolve sweep {VARIANT} {DEALS} --out results/klondike-1-rules --play rules --max-moves 5000"]
    page = mod.page(str(tmp_path))
    assert "| `klondike-1` | `rules max_moves=5000` | 1–4 | 2 | 2 | 0 | 50.00% |" in page


@pytest.mark.parametrize("settings", [PlaySettings("hop", max_nodes=300), PlaySettings("hop-action", max_nodes=300),
                                      PlaySettings("rules")])
def test_a_player_row_records_the_nodes_per_world(settings):
    """The max_nodes column of a player's row: its nodes per sampled world (0 for a player that
    does not sample)."""
    row = schema.make_row(get_rules(VARIANT), 1, sw.Budgets.make({}), "won", solution_length=10, play=settings)
    assert row["max_nodes"] == (300 if settings.sampling else 0)
