"""`harpsolve sweep VARIANT --layouts DIR_OR_GLOB`: one row per layout file, keyed by file name
and content hash instead of a deal number; the same resume and the same statistics."""
from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from harpsolve import stats as st
from harpsolve import sweep as sw
from harpsolve.deals import deal_layout
from harpsolve.layout import render  # noqa: F401 - the layout module must import cleanly
from harpsolve.rules import get_rules

VARIANT = "klondike-3"
NODES = 5_000
BUDGETS = dict(max_nodes=NODES)


def _files(folder, deals=(1, 2, 3, 4)):
    """Deal d's layout as a file: JSON for odd d, the text form for even d; deal 4 in a subfolder."""
    rules = get_rules(VARIANT)
    os.makedirs(folder / "sub", exist_ok=True)
    names = {}
    for d in deals:
        layout = deal_layout(rules, d)
        name = f"sub/deal{d}.txt" if d == 4 else f"deal{d}.json" if d % 2 else f"deal{d}.txt"
        (folder / name).write_text(layout.to_json() if d % 2 else layout.to_text())
        names[name] = d
    return names


def _rows(out):
    return sw.load_results([out]).frame


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    base = tmp_path_factory.mktemp("layouts")
    names = _files(base / "games")
    out = base / "out"
    summary = sw.sweep(VARIANT, out=out, layouts=base / "games", budgets=BUDGETS, workers=1, progress=False)
    return base, names, out, summary


def test_one_row_per_layout_file_keyed_by_name_and_hash(swept):
    base, names, out, summary = swept
    assert summary.deals == 4 and summary.new == 4 and summary.skipped == 0
    df = _rows(out)
    assert sorted(df["layout_file"]) == sorted(names) and df["deal"].isna().all()
    rules = get_rules(VARIANT)
    budgets = sw.Budgets.make(BUDGETS)
    for r in df.itertuples():
        d = names[r.layout_file]
        assert r.layout_hash == sw.layout_hash(deal_layout(rules, d))
        # the same position solved by its deal number gives the same verdict and effort
        ref = sw.solve_row(rules, d, budgets)
        assert (r.status, r.nodes, r.states) == (ref["status"], ref["nodes"], ref["states"]), r.layout_file


def test_json_and_text_of_one_position_hash_alike(tmp_path):
    rules = get_rules(VARIANT)
    layout = deal_layout(rules, 7)
    (tmp_path / "a.json").write_text(layout.to_json(indent=2))
    (tmp_path / "b.txt").write_text(layout.to_text())
    (tmp_path / "c.txt").write_text(deal_layout(rules, 8).to_text())
    jobs = sw.layout_jobs(tmp_path, rules)
    assert [j.name for j in jobs] == ["a.json", "b.txt", "c.txt"]
    assert jobs[0].hash == jobs[1].hash != jobs[2].hash


def test_resume_skips_finished_files_and_solves_changed_or_new_ones(swept, tmp_path):
    import shutil

    base, names, out, _ = swept
    games, copy = tmp_path / "games", tmp_path / "out"
    shutil.copytree(base / "games", games)
    shutil.copytree(out, copy)
    again = sw.sweep(VARIANT, out=copy, layouts=games, budgets=BUDGETS, workers=1, progress=False)
    assert (again.new, again.skipped) == (0, 4)
    rules = get_rules(VARIANT)
    (games / "deal1.json").write_text(deal_layout(rules, 9).to_json())     # edited: another position
    (games / "deal5.txt").write_text(deal_layout(rules, 5).to_text())      # new
    third = sw.sweep(VARIANT, out=copy, layouts=games, budgets=BUDGETS, workers=1, progress=False)
    assert (third.new, third.skipped, third.deals) == (2, 3, 5)
    df = _rows(copy)
    assert len(df) == 6 and (df["layout_file"] == "deal1.json").sum() == 2   # the old row stays, keyed apart
    best = sw.best_rows(df)
    assert len(best) == 6, "best_rows keys layout rows by file and hash"
    # a glob names a subset; names stay relative to the folder before the first wildcard
    jobs = sw.layout_jobs(str(games / "*.txt"), rules)
    assert [j.name for j in jobs] == ["deal2.txt", "deal5.txt"]
    jobs = sw.layout_jobs(str(games / "**" / "*.txt"), rules)
    assert [j.name for j in jobs] == ["deal2.txt", "deal5.txt", os.path.join("sub", "deal4.txt")]


def test_stats_and_compare_read_layout_rows(swept, tmp_path):
    base, names, out, _ = swept
    (g,) = st.summarize(sw.load_results([out]))
    assert (g["deals"], g["layouts"], g["first_deal"]) == (4, 4, None)
    assert g["solved"] + g["unsolvable"] + g["unknown"] + g["error"] == 4
    assert all(isinstance(h["deal"], str) and "#" in h["deal"] for h in g["hardest"])
    text = st.render([g], "table")
    assert "4 layout files" in text
    md = st.render([g], "markdown")
    assert "| 4 layout files |" in md
    c = st.compare(out, out)
    assert c.common == 4 and not c.conflicts and len(c.differences) == 0


def test_best_rows_and_conflicts_with_layout_rows():
    rows = [dict(rules_fingerprint="f", deal=None, layout_file="a", layout_hash="1", status="unknown", max_nodes=10,
                 timeout=0.0),
            dict(rules_fingerprint="f", deal=None, layout_file="a", layout_hash="1", status="unknown", max_nodes=99,
                 timeout=0.0),
            dict(rules_fingerprint="f", deal=None, layout_file="a", layout_hash="2", status="solved", max_nodes=10,
                 timeout=0.0),
            dict(rules_fingerprint="f", deal=None, layout_file="b", layout_hash="1", status="solved", max_nodes=10,
                 timeout=0.0),
            dict(rules_fingerprint="f", deal=None, layout_file="b", layout_hash="1", status="unsolvable",
                 max_nodes=10, timeout=0.0),
            dict(rules_fingerprint="f", deal=3, layout_file=None, layout_hash=None, status="solved", max_nodes=10,
                 timeout=0.0)]
    df = pd.DataFrame(rows)
    best = sw.best_rows(df)
    assert len(best) == 4
    a1 = best[(best["layout_file"] == "a") & (best["layout_hash"] == "1")]
    assert a1["max_nodes"].tolist() == [99]
    assert sw.conflicts(df) == [("f", ("b", "1"))]


def test_layout_errors_are_one_line(tmp_path):
    rules = get_rules(VARIANT)
    with pytest.raises(sw.SweepError, match="no layout files"):
        sw.layout_jobs(tmp_path, rules)
    (tmp_path / "bad.txt").write_text("this is not a layout\n")
    with pytest.raises(sw.SweepError, match="bad.txt"):
        sw.layout_jobs(tmp_path, rules)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "harpsolve.cli", *args], capture_output=True, text=True,
                              timeout=120)

    r = cli("sweep", VARIANT, "1-5", "--layouts", str(tmp_path), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "not both" in r.stderr
    r = cli("sweep", VARIANT, "--layouts", str(tmp_path), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "bad.txt" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_sweep_layouts(tmp_path):
    _files(tmp_path / "games", deals=(1, 2))
    args = [sys.executable, "-m", "harpsolve.cli", "sweep", VARIANT, "--layouts", str(tmp_path / "games" / "*"),
            "--out", str(tmp_path / "out"), "--max-nodes", str(NODES), "-j", "1", "--no-progress"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "2 layouts (2 new, 0 already done)" in r.stdout
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert "2 layouts (0 new, 2 already done)" in r.stdout

