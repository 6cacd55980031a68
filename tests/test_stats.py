"""Statistics and comparisons over result files (synthetic rows: no solver needed)."""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from harpsolve import stats as st
from harpsolve import sweep as sw
from harpsolve.cli import main
from harpsolve.rules import get_rules

BUDGETS = sw.Budgets(max_nodes=1000, timeout=0.0, max_memory=1 << 24, heuristic="h")


def write(folder, statuses, variant="easy-harp", overrides=None, budgets=BUDGETS, started="2026-01-01T00:00:00+00:00",
          ended="2026-01-01T00:01:40+00:00", proofs=None):
    """Write one result file: ``statuses`` maps deal -> status; nodes = 10 * deal; ``proofs``
    maps deal -> proof text."""
    rules = get_rules(variant, overrides)
    rows = [sw.make_row(rules, d, budgets, s, nodes=10 * d, states=5 * d, seconds=d / 1000,
                        solution_length=100 + d if s == "solved" else None,
                        reason={"unknown": "nodes", "error": "boom"}.get(s, ""), proof=(proofs or {}).get(d))
            for d, s in statuses.items()]
    # the metadata a sweep writes (sweep() and ResultStore), with a fixed run and machine
    run = dict(sw.run_metadata("local", 2, f"harpsolve sweep {variant} --out {folder}"),
               run_id=f"{variant}-{started}", started=started, ended=ended, cpu="Test CPU",
               rules=rules.label, rules_fingerprint=rules.fingerprint())
    os.makedirs(folder, exist_ok=True)
    return sw.write_atomic(sw.store.make_table(rows, [run], sw.store.rules_meta(rules)), str(folder))


def mixed(n_solved=60, n_unsolvable=20, n_unknown=15, n_error=5):
    kinds = ["solved"] * n_solved + ["unsolvable"] * n_unsolvable + ["unknown"] * n_unknown + ["error"] * n_error
    return {d: s for d, s in enumerate(kinds, start=1)}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ---- Wilson ---------------------------------------------------------------------------
@pytest.mark.parametrize("k, n, lo, hi", [  # Newcombe (1998), Stat. Med. 17:857, table I, method 3
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_published_values(k, n, lo, hi):
    a, b = st.wilson(k, n)
    assert a == pytest.approx(lo, abs=5e-5) and b == pytest.approx(hi, abs=5e-5)


def test_wilson_edges():
    assert all(math.isnan(x) for x in st.wilson(0, 0))
    assert st.wilson(10, 10)[1] == 1.0 and st.wilson(0, 10)[0] == 0.0
    lo, hi = st.wilson(819_600, 1_000_000)
    assert lo < 0.8196 < hi and hi - lo < 0.0016
    with pytest.raises(ValueError):
        st.wilson(11, 10)


# ---- summaries ------------------------------------------------------------------------
def test_summary_counts_rates_and_bounds(tmp_path):
    write(tmp_path, mixed())
    (g,) = st.summarize(sw.load_results([tmp_path]))
    assert (g["deals"], g["solved"], g["unsolvable"], g["unknown"], g["error"]) == (100, 60, 20, 15, 5)
    assert g["rate"] == 0.75 and g["ci"] == st.wilson(60, 80)
    assert g["lower"] == 0.6 and g["lower_ci"] == st.wilson(60, 100)
    assert g["upper"] == 0.8 and g["upper_ci"] == st.wilson(80, 100)
    assert g["nodes"]["max"] == 950 and g["nodes"]["median"] == 480  # non-error deals 1..95
    assert g["solution_length"] == {"median": 130, "p90": 154, "p99": 159, "max": 160}
    assert [h["deal"] for h in g["hardest"]] == [80, 79, 78, 77, 76]  # decided deals only
    assert g["wall_seconds"] == 100 and g["machines"] == ["Test CPU (2 workers)"]


def test_best_row_per_deal(tmp_path):
    write(tmp_path, {1: "unknown", 2: "error", 3: "solved", 4: "unknown"})
    write(tmp_path, {1: "solved", 2: "unknown", 3: "unknown"})
    write(tmp_path, {4: "unknown"}, budgets=sw.Budgets(5000, 0.0, 1 << 24, "h"))
    write(tmp_path, {4: "unknown"})
    best = sw.best_rows(sw.load_results([tmp_path]).frame).set_index("deal")
    assert list(best["status"]) == ["solved", "unknown", "solved", "unknown"]
    assert best.at[4, "max_nodes"] == 5000, "the bigger budget's unknown row wins"


def test_by_rules_and_by_variant(tmp_path):
    write(tmp_path / "a", {1: "solved", 2: "unsolvable"})
    write(tmp_path / "b", {1: "solved", 2: "solved"}, overrides=["takeback=false"])
    res = sw.load_results([tmp_path])
    assert [g["group"] for g in st.summarize(res, "rules")] == ["easy-harp", "easy-harp[takeback=false]"]
    (v,) = st.summarize(res, "variant")
    assert (v["group"], v["deals"], v["solved"]) == ("easy-harp", 4, 3)


def test_formats(tmp_path):
    write(tmp_path, mixed())
    table = run("stats", tmp_path)
    assert table.exit_code == 0, table.output
    assert "75.00%" in table.stdout and "hardest   80 (800 nodes, unsolvable)" in table.stdout
    rows = list(csv.DictReader(io.StringIO(run("stats", tmp_path, "--format", "csv").stdout)))
    assert len(rows) == 1 and float(rows[0]["rate"]) == 0.75 and rows[0]["unknown"] == "15"
    (j,) = json.loads(run("stats", tmp_path, "--format", "json").stdout)
    assert j["rate"] == 0.75 and j["ci"] == list(st.wilson(60, 80)) and j["error"] == 5
    md = run("stats", tmp_path, "--format", "markdown").stdout.splitlines()
    assert md[0].startswith("| rules |") and md[1].startswith("|---|") and "75.00%" in md[2]
    assert "| 1–100 |" in md[2] and "100.0 s" in md[2] and "Test CPU (2 workers)" in md[2]


def test_plots(tmp_path):
    pytest.importorskip("matplotlib")
    write(tmp_path / "r", mixed())
    res = run("stats", tmp_path / "r", "--plot", tmp_path / "plots")
    assert res.exit_code == 0, res.output
    names = sorted(os.listdir(tmp_path / "plots"))
    assert names == ["running_rate.png", "solution_length.png", "solve_times.png", "win_rate.png"]
    assert all(open(tmp_path / "plots" / n, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for n in names)


# ---- bad files ------------------------------------------------------------------------
def _bad_file(tmp_path, kind):
    path = tmp_path / "results-00000000000000000001-1-0.parquet"
    if kind == "corrupt":
        path.write_bytes(b"PAR1 this is not parquet at all PAR1")
    elif kind == "truncated":
        good = write(tmp_path / "g", {1: "solved"})
        path.write_bytes(open(good, "rb").read()[:200])
    elif kind == "version":
        t = pa.table({c: [1] for c in sw.schema.NAMES}).replace_schema_metadata({sw.schema.META_VERSION: b"99"})
        pq.write_table(t, path)
    elif kind == "foreign":
        pq.write_table(pa.table({"x": [1, 2]}), path)
    return path


@pytest.mark.parametrize("kind, words", [
    ("corrupt", "not a readable Parquet result file"), ("truncated", "not a readable Parquet result file"),
    ("version", "schema version 99"), ("foreign", "not a harpsolve result file"),
])
def test_bad_result_files_are_one_line_errors(tmp_path, kind, words):
    path = _bad_file(tmp_path, kind)
    for args in (["stats", path], ["stats", tmp_path], ["compare", path, path]):
        res = run(*args)
        assert res.exit_code == 2, res.output
        assert words in res.output and len(res.output.strip().splitlines()) == 1, res.output


def test_resuming_into_a_folder_with_a_bad_file_is_refused(tmp_path):
    _bad_file(tmp_path, "version")
    with pytest.raises(sw.ResultFileError, match="schema version 99"):
        sw.ResultStore(tmp_path, get_rules("easy-harp"), BUDGETS, {})


def test_missing_paths(tmp_path):
    res = run("stats", tmp_path / "nope")
    assert res.exit_code == 2 and "no such file or folder" in res.output
    res = run("stats", tmp_path)
    assert res.exit_code == 2 and "no result files" in res.output


# ---- compare --------------------------------------------------------------------------
def test_compare_flags_solved_against_unsolvable_under_the_same_rules(tmp_path):
    write(tmp_path / "a", {1: "solved", 2: "unsolvable", 3: "unknown", 4: "solved", 5: "solved"})
    write(tmp_path / "b", {1: "solved", 2: "unsolvable", 3: "solved", 4: "unknown", 5: "unsolvable", 6: "solved"})
    c = st.compare(tmp_path / "a", tmp_path / "b")
    assert c.same_rules and (c.common, c.only_a, c.only_b) == (5, 0, 1)
    assert c.conflicts == [5]
    assert list(c.differences["deal"]) == [3, 4, 5]
    assert c.table.loc["solved", "solved"] == 1 and c.table.loc["solved", "unsolvable"] == 1
    assert c.table.values.sum() == 5
    res = run("compare", tmp_path / "a", tmp_path / "b")
    assert res.exit_code == 1
    assert "CONFLICT" in res.stdout and "<-- CONFLICT" in res.stdout and "status differs on 3 deal(s)" in res.stdout
    # the contingency table: one header line (A's statuses down, B's across), then one row per status
    table = res.stdout.split("\n\n")[1].splitlines()
    assert table[0].split() == ["A", "\\", "B", "solved", "unsolvable", "unknown", "error"]
    assert [row.split()[0] for row in table[1:]] == ["solved", "unsolvable", "unknown", "error"]


def test_compare_under_different_rules_is_no_conflict(tmp_path):
    write(tmp_path / "a", {1: "solved", 2: "unsolvable"})
    write(tmp_path / "b", {1: "unsolvable", 2: "unsolvable"}, overrides=["takeback=false"])
    res = run("compare", tmp_path / "a", tmp_path / "b")
    assert res.exit_code == 0, res.output
    assert "different rules" in res.stdout and "CONFLICT" not in res.stdout


def test_compare_needs_one_rules_set_per_side(tmp_path):
    write(tmp_path / "a", {1: "solved"})
    write(tmp_path / "a" / "sub", {1: "solved"}, overrides=["takeback=false"])
    write(tmp_path / "b", {1: "solved"})
    res = run("compare", tmp_path / "a", tmp_path / "b")
    assert res.exit_code == 2 and "2 rules sets" in res.output


def test_stats_warns_about_a_conflict_inside_one_folder(tmp_path):
    write(tmp_path, {1: "solved", 2: "solved"})
    write(tmp_path, {1: "unsolvable"})
    res = run("stats", tmp_path)
    assert res.exit_code == 0 and "WARNING" in res.stderr and "solver bug" in res.stderr


# ---- results/README.md generator ------------------------------------------------------
def _results_table():
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks",
                        "results_table.py")
    spec = importlib.util.spec_from_file_location("results_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_results_readme_generator(tmp_path):
    rt = _results_table()
    assert "No sweeps are committed yet" in rt.page(str(tmp_path))
    write(tmp_path / "easy-harp", mixed())
    assert rt.main([str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "| `easy-harp` | 1–100 | 60 | 20 | 15 | 5 | [50.20, 86.66] | 75.00%* |" in text and "Test CPU" in text
    # what the folder holds on disk: its file, 100 rows, and their bytes
    (files_row,) = [ln for ln in text.splitlines() if ln.startswith("| `easy-harp` | 1 | 100 |")]
    size = sum(os.path.getsize(tmp_path / "easy-harp" / n) for n in os.listdir(tmp_path / "easy-harp")
               if n.endswith(".parquet"))
    assert files_row.endswith(f"| {size / 1e6:.2f} | {size / 100:.1f} |")
    assert rt.main([str(tmp_path), "--check"]) == 0
    # ... and the folder's grade file, which --check holds current too
    grades = tmp_path / "easy-harp" / "grades.json"
    kept = grades.read_text()
    grades.write_text(kept.replace('"solved": ', '"solved": 1'))
    assert rt.main([str(tmp_path), "--check"]) == 1
    assert rt.main([str(tmp_path)]) == 0 and grades.read_text() == kept
    assert rt.main([str(tmp_path), "--check"]) == 0
    write(tmp_path / "easy-harp", {101: "solved"})
    assert rt.main([str(tmp_path), "--check"]) == 1


def test_results_commands_come_from_every_folders_rows(tmp_path):
    rt = _results_table()
    write(tmp_path / "easy-harp", mixed())
    # two more deals at a bigger budget: most deals' budget stays the command's
    write(tmp_path / "easy-harp", {101: "solved", 102: "unknown"}, budgets=dataclasses.replace(BUDGETS, max_nodes=5000))
    write(tmp_path / "bakers", {d: "solved" for d in range(1, 11)}, variant="bakers-game", overrides=["cells=2"])
    assert rt.commands(str(tmp_path), "res") == [
        "harpsolve sweep bakers-game 1-10 --out res/bakers --rule cells=2 --max-nodes 1000",
        "harpsolve sweep easy-harp 1-102 --out res/easy-harp --max-nodes 1000",
    ]
    assert rt.main([str(tmp_path), "--stdout"]) == 0


# ---- rates that read right when unknowns are many -------------------------------------
def _row_of(text, name):
    """The table row of ``name`` (the first line naming it: the detail block comes later)."""
    return [ln for ln in text.splitlines() if ln.startswith(name + " ") or ln.startswith(f"| `{name}`")][0]


def test_bounds_are_the_headline_and_the_decided_only_rate_is_labelled(tmp_path):
    write(tmp_path / "many", mixed())                                     # 20 % undecided
    write(tmp_path / "few", {d: "solved" if d % 4 else "unsolvable" for d in range(1, 200)} | {200: "unknown"},
          variant="klondike-3")                                           # 0.5 % undecided
    write(tmp_path / "none", {1: "solved", 2: "unsolvable"}, variant="harp")
    groups = {g["group"]: g for g in st.summarize(sw.load_results([tmp_path]))}
    many, few, none = groups["easy-harp"], groups["klondike-3"], groups["harp"]
    h = st.headline(many)
    assert h.startswith(f"win rate {st._bounds(many)} %") and "whatever the 20 undecided" in h
    assert "decided-only rate 75.00%" in h and "not the win rate: 20.0% of the deals are undecided" in h
    h = st.headline(few)
    assert h.startswith(f"win rate {st._bounds(few)} %") and "decided-only rate" in h and "not the win rate" not in h
    assert st.headline(none).startswith("win rate 50.00% ") and "every deal decided" in st.headline(none)
    for fmt in ("table", "markdown"):
        text = st.render(list(groups.values()), fmt)
        line = _row_of(text, "easy-harp")
        # the bounds come first on the row; the decided-only rate is starred above 1 % undecided
        assert line.index(st._bounds(many)) < line.index("75.00%*")
        assert "decided-only" in text.splitlines()[0]
        few_line = _row_of(text, "klondike-3")
        assert st._bounds(few) in few_line and f"{100 * few['rate']:.2f}%*" not in few_line
        assert "* more than 1%" in text
    (row,) = [r for r in csv.DictReader(io.StringIO(st.render([many], "csv")))]
    assert float(row["bounds_low"]) == many["lower_ci"][0] and float(row["bounds_high"]) == many["upper_ci"][1]
    assert list(row).index("bounds_low") < list(row).index("rate") and float(row["undecided"]) == 0.2


def test_every_plot_has_a_title_with_n_and_unknown_times_drawn_apart(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    write(tmp_path, mixed())
    res = sw.load_results([tmp_path])
    groups = st.summarize(res)
    figs = st.figures(res, groups)
    try:
        assert sorted(figs) == sorted(st.PLOTS)
        for name, fig in figs.items():
            (ax,) = fig.axes
            assert "n=" in ax.get_title(), name
        ax = figs["solve_times.png"].axes[0]
        labels = ax.get_legend_handles_labels()[1]
        assert labels == ["easy-harp decided (n=80)", "easy-harp unknown (n=15)"]
        dashed = [p for p in ax.patches if p.get_linestyle() not in ("-", "solid", (0.0, None))]
        assert len(dashed) == 1 and "15 unknown" in ax.get_title()
        texts = [t.get_text() for t in figs["win_rate.png"].axes[0].texts]
        lo, hi = groups[0]["lower_ci"][0], groups[0]["upper_ci"][1]
        assert any(f"{100 * lo:.2f} .. {100 * hi:.2f} %" in t and "n=100" in t for t in texts)
        assert any(t.startswith("decided-only 75.00 %") and "n=80" in t for t in texts)
    finally:
        plt.close("all")


def test_progress_shows_the_bounds_before_the_decided_only_rate():
    p = sw.Progress(10, {}, False, "x")
    assert p.rate_text() == "win -"
    for status in ["solved"] * 3 + ["unsolvable"]:
        p.update(status)
    assert p.rate_text() == "win 75.0%"
    p.update("unknown")
    assert p.rate_text() == "win 60.0-80.0% (decided-only 75.0%) unknown 1"


def test_progress_says_it_compiles_until_a_worker_is_warm_and_times_from_then(capsys):
    import time

    p = sw.Progress(10, {1: "solved", 2: "unsolvable"}, True, "klondike-3")
    time.sleep(0.3)  # the workers compiling
    p.bar.refresh()
    warming = capsys.readouterr().err
    assert "klondike-3: compiling the solver (first run only)" in warming and "2/10" in warming
    assert "<" not in warming and "?" not in warming, "no rate or ETA while compiling"
    p.started()
    assert p.bar.format_dict["elapsed"] < 0.3, "the clock starts when a worker is warm"
    assert p.bar.n == p.bar.initial == 2
    p.update("solved")
    p.bar.refresh()
    p.close()
    ran = capsys.readouterr().err
    assert "compiling" not in ran.splitlines()[-1] and "3/10" in ran and "deal/s" in ran


def test_one_worker_is_singular():
    assert st._workers(1) == "1 worker" and st._workers(2) == "2 workers"


def test_stats_count_the_proofs_of_the_unsolvable_deals(tmp_path):
    """Dead ends of every card are one kind, locks of every card set another; rows without a
    proof are "not recorded"."""
    statuses = {1: "unsolvable", 2: "unsolvable", 3: "unsolvable", 4: "unsolvable", 5: "solved", 6: "unknown",
                7: "unsolvable", 8: "unsolvable"}
    proofs = {1: "dead end: 7C", 2: "dead end: AS", 3: "exhausted: arrangement-free", 7: "lock: JD JH", 8: "lock: QS"}
    write(tmp_path, statuses, variant="klondike-3", proofs=proofs)
    (g,) = st.summarize(sw.load_results([tmp_path]))
    assert g["proofs"] == {"dead end": 2, "lock": 2, "exhausted: arrangement-free": 1, "not recorded": 1}
    text = st.render([g])
    assert "proofs    dead end 2; lock 2; exhausted: arrangement-free 1; not recorded 1" in text
    assert "dead end: 2" in st.to_csv([g])
