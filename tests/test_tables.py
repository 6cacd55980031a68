"""The published tables: lookup and deal picking (harpsolve/tables.py), on a small synthetic
results folder written here, plus one check against the committed results/easy-harp table."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from harpsolve import sweep as sw
from harpsolve import tables as tb
from harpsolve.rules import get_rules

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANT = "easy-harp"
SMALL = sw.Budgets(max_nodes=1000, timeout=0.0, max_memory=1 << 20, heuristic="lookahead")
BIG = sw.Budgets(max_nodes=5000, timeout=0.0, max_memory=1 << 20, heuristic="lookahead")
N = 60


def _write(folder, rows, budgets, version1=False):
    """One result file in ``folder`` from rows, the way a sweep writes them (``version1``: as
    schema version 1 wrote them, without the ``engine`` and ``proof`` columns)."""
    rules = get_rules(VARIANT)
    store = sw.ResultStore(folder, rules, budgets, {"run_id": "test", "started": "", "ended": ""})
    try:
        if not version1:
            for r in rows:
                store.add(r)
            store.flush()
        else:
            t = sw.store.make_table(rows, [store.run], store.rules_meta).drop_columns(["engine", "proof"])
            meta = dict(t.schema.metadata)
            meta[sw.schema.META_VERSION] = b"1"
            sw.write_atomic(t.replace_schema_metadata(meta), store.out)
    finally:
        store.close()


def _row(deal, budgets, status, nodes, length=None, proof=None):
    rules = get_rules(VARIANT)
    return sw.make_row(rules, deal, budgets, status, solution_length=length, nodes=nodes,
                       reason="nodes" if status == "unknown" else "", proof=proof)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """results/easy-harp with deals 1..N: first run at 1000 nodes, then deals 1..5 rerun at 5000.

    Deal d (first run): solved with nodes 10*d for d % 4 != 0, unknown for d % 8 == 0,
    unsolvable for d % 8 == 4.  Rerun: deals 1, 2 solved again (other nodes), deal 3 unknown
    at the bigger budget, deal 8 (unknown before) solved.  The first run's file is of schema
    version 1 (no ``engine``/``proof`` columns); deal 4's rerun row carries a proof."""
    root = tmp_path_factory.mktemp("tables") / "results"
    out = root / VARIANT
    first = []
    for d in range(1, N + 1):
        if d % 8 == 0:
            first.append(_row(d, SMALL, "unknown", 1000))
        elif d % 8 == 4:
            first.append(_row(d, SMALL, "unsolvable", 7 * d))
        else:
            first.append(_row(d, SMALL, "solved", 10 * d, length=100 + d))
    _write(out, first, SMALL, version1=True)
    _write(out, [_row(1, BIG, "solved", 11, 201), _row(2, BIG, "solved", 22, 202), _row(3, BIG, "unknown", 5000),
                 _row(8, BIG, "solved", 4321, 308)], BIG)
    _write(out, [_row(4, BIG, "unsolvable", 99, proof="exhausted")], BIG)
    return root


def _expected(root):
    """Best rows by the pandas reference (sweep.best_rows)."""
    return sw.best_rows(sw.load_results([root / VARIANT]).frame).set_index("deal")


def test_lookup_agrees_with_best_rows(folder):
    rules = get_rules(VARIANT)
    ref = _expected(folder)
    got = tb.lookup(rules, range(1, N + 1), folder)
    assert [a.deal for a in got.answers] == list(range(1, N + 1))
    for a in got.answers:
        r = ref.loc[a.deal]
        assert a.status == r["status"] and a.nodes == r["nodes"] and a.max_nodes == r["max_nodes"], a
        if a.status == "solved":
            assert a.solution_length == r["solution_length"]
        else:
            assert a.solution_length is None
    by = {a.deal: a for a in got.answers}
    # the rerun wins where it decided or ran the bigger budget; a decided row beats a later unknown
    assert (by[1].nodes, by[1].solution_length) == (11, 201)
    assert by[3].status == "solved" and by[3].nodes == 30
    assert by[8].status == "solved" and by[16].status == "unknown" and by[16].reason == "nodes"
    assert by[4].proof == "exhausted" and by[12].proof is None and by[12].status == "unsolvable"


def test_lookup_text_says_what_it_knows(folder):
    rules = get_rules(VARIANT)
    text = tb.lookup(rules, [4, 12, 16, 7, N + 1], folder).text().splitlines()
    assert "unsolvable (exhausted)" in text[0] and "(exhausted)" not in text[1]
    assert "unknown: not decided within 1,000 nodes" in text[2]
    assert "solved in 107 moves; 70 nodes" in text[3]
    assert f"deal {N + 1}" in text[4] and "not in the tables" in text[4]


def test_other_rules_and_variants_are_not_in_the_tables(folder):
    other = get_rules(VARIANT, ["passes=3"])
    (a,) = tb.lookup(other, [1], folder).answers
    assert a.status is None and other.fingerprint() in a.why_not and get_rules(VARIANT).fingerprint() in a.why_not
    (b,) = tb.lookup(get_rules("klondike-3"), [1], folder).answers
    assert b.status is None and "no table for klondike-3" in b.why_not
    with pytest.raises(tb.TablesError, match="not in the tables"):
        tb.pick_deals(other, results=folder)


def test_results_path_forms(folder, monkeypatch):
    rules = get_rules(VARIANT)
    direct = tb.lookup(rules, [5], folder / VARIANT).answers[0]      # one sweep folder
    via_root = tb.lookup(rules, [5], folder).answers[0]              # a folder of variant folders
    monkeypatch.setenv(tb.RESULTS_ENV, str(folder))
    via_env = tb.lookup(rules, [5], None).answers[0]
    assert direct == via_root == via_env and direct.status == "solved"
    with pytest.raises(tb.TablesError, match="no such folder"):
        tb.lookup(rules, [5], folder / "nope")


def test_default_results_folder_is_the_repositorys(monkeypatch):
    monkeypatch.delenv(tb.RESULTS_ENV, raising=False)
    assert os.path.samefile(tb.results_root(), os.path.join(REPO, "results"))


@pytest.mark.parametrize("seed", range(30))
def test_best_indices_agrees_with_best_rows(seed):
    """The numpy best-row choice used by lookup equals sweep.best_rows on random row sets."""
    rng = random.Random(seed)
    statuses = ["solved", "unsolvable", "unknown", "error"]
    rows = [dict(deal=rng.randint(1, 6), status=rng.choice(statuses), max_nodes=rng.choice([0, 100, 1000]),
                 timeout=rng.choice([0.0, 1.0, 5.0]), nodes=i, rules_fingerprint="x") for i in range(25)]
    df = pd.DataFrame(rows)
    ref = sw.best_rows(df)
    rank = np.array([tb._RANK[s] for s in df["status"]], dtype=np.int8)
    idx = tb.best_indices(df["deal"].to_numpy(), rank, df["max_nodes"].to_numpy(), df["timeout"].to_numpy(),
                          np.arange(len(df)))
    assert df["nodes"].to_numpy()[idx].tolist() == ref["nodes"].tolist()


# ---- grades and picking -------------------------------------------------------------
def test_grades_come_from_the_solved_deals_percentiles(folder):
    rules = get_rules(VARIANT)
    ref = _expected(folder)
    solved = ref[ref["status"] == "solved"]["nodes"].to_numpy()
    g = tb.grading(tb.open_table(rules, folder), rules)
    assert g.solved == len(solved)
    assert np.allclose(g.cuts, np.percentile(solved, [50, 80, 95]))
    names = [g.grade(n) for n in solved]
    counts = {name: names.count(name) for name in tb.GRADE_NAMES}
    # every deal in exactly one grade, at most the median in easy, ...
    assert sum(counts.values()) == len(solved)
    assert counts["easy"] == int((solved <= g.cuts[0]).sum())
    assert counts["extreme"] == int((solved > g.cuts[2]).sum()) > 0
    # on the cut points themselves, just above and just below them
    for i, cut in enumerate(g.cuts):
        assert (g.grade(cut), g.grade(cut + 1), g.grade(cut - 0.5)) == \
            (tb.GRADE_NAMES[i], tb.GRADE_NAMES[i + 1], tb.GRADE_NAMES[i if cut - 0.5 > (g.cuts[i - 1] if i else -1) else i - 1])
    assert (g.grade(0), g.grade(10**12)) == ("easy", "extreme")


def test_grade_file_is_used_while_the_files_are_those_it_describes(folder, tmp_path, monkeypatch):
    """The first lookup writes the folder's grade file; the next one takes the cut points from it
    (the solved rows are not read again); a sweep that adds a file makes it stale: graded afresh
    (the new cut points) and rewritten.  A grade file of the wrong shape is ignored."""
    import shutil

    rules = get_rules(VARIANT)
    root = tmp_path / "results"
    shutil.copytree(folder / VARIANT, root / VARIANT)
    (root / VARIANT / tb.GRADES_FILE).unlink(missing_ok=True)
    fresh = tb.grading(tb.open_table(rules, root), rules, tb._solved_nodes(tb.open_table(rules, root), rules)[1])
    first = tb.lookup(rules, [1], root)
    assert first.grading == fresh and (root / VARIANT / tb.GRADES_FILE).exists()
    data = json.loads((root / VARIANT / tb.GRADES_FILE).read_text())
    assert data["grades"][rules.fingerprint()]["files"] == tb.files_signature(tb.open_table(rules, root).files)

    def no_reading(*_a, **_k):
        raise AssertionError("the solved rows were read again")

    with monkeypatch.context() as m:
        m.setattr(tb, "_solved_nodes", no_reading)
        assert tb.lookup(rules, [1, 2], root).grading == fresh
    # a new result file (another sweep run): stale, graded afresh from every solved row
    _write(root / VARIANT, [_row(d, BIG, "solved", 10_000 + d, 400) for d in range(N + 1, N + 40)], BIG)
    t = tb.open_table(rules, root)
    assert not tb.grade_file_current(t, rules)
    now = tb.grading(t, rules, tb._solved_nodes(t, rules)[1])
    assert now != fresh
    with monkeypatch.context() as m:
        calls = []
        real = tb._solved_nodes
        m.setattr(tb, "_solved_nodes", lambda *a: calls.append(1) or real(*a))
        assert tb.lookup(rules, [1], root).grading == now and calls
        calls.clear()
        assert tb.lookup(rules, [1], root).grading == now and not calls
    assert tb.grade_file_current(tb.open_table(rules, root), rules)
    # a grade file of another shape: ignored, graded afresh, rewritten
    (root / VARIANT / tb.GRADES_FILE).write_text('{"format": 1, "grades": {"%s": {"files": 3}}}' % rules.fingerprint())
    assert tb.lookup(rules, [1], root).grading == now
    assert tb.grade_file_current(tb.open_table(rules, root), rules)


def test_grades_without_a_writable_folder_are_computed_each_time(folder, tmp_path, monkeypatch):
    rules = get_rules(VARIANT)
    t = tb.open_table(rules, folder)
    want = tb.grading(t, rules, tb._solved_nodes(t, rules)[1])

    def refuse(*_a, **_k):
        raise OSError("read-only")

    monkeypatch.setattr(tb.os, "replace", refuse)
    moved = tb.Table(str(tmp_path), t.files, t.rules)  # the grade file cannot be put in place there
    assert tb.grading(moved, rules) == want
    assert not tb.grade_file_current(moved, rules, write=True)
    assert not list(tmp_path.iterdir())  # no temporary file left behind
    assert tb.grading(tb.Table(str(tmp_path / "gone"), t.files, t.rules), rules) == want


def test_lookup_reads_only_the_row_groups_of_the_asked_deals(tmp_path, monkeypatch):
    """Result files are written in row groups of ``ROW_GROUP_ROWS``; a lookup reads only the
    groups whose deal range holds an asked deal, and answers as from the whole table."""
    monkeypatch.setattr(sw.store, "ROW_GROUP_ROWS", 16)
    rules = get_rules(VARIANT)
    root = tmp_path / "results"
    rows = [_row(d, SMALL, "solved" if d % 3 else "unsolvable", 5 * d, length=100 + d) for d in range(1, 101)]
    _write(root / VARIANT, rows, SMALL)
    t = tb.open_table(rules, root)
    import pyarrow.parquet as pq

    (f,) = t.files
    pf = pq.ParquetFile(f)
    assert pf.metadata.num_row_groups == 7
    assert tb._row_groups(pf, [5, 40]) == [0, 2]
    ref = _expected(root)
    a = tb.lookup(rules, [5, 40, 99], root)
    for ans in a.answers:
        row = ref.loc[ans.deal]
        assert (ans.status, ans.nodes) == (row["status"], row["nodes"])


@pytest.mark.parametrize("difficulty", tb.GRADE_NAMES)
def test_pick_deals_by_difficulty(folder, difficulty):
    rules = get_rules(VARIANT)
    ref = _expected(folder)
    p = tb.pick_deals(rules, "solved", difficulty, count=3, seed=7, results=folder)
    assert p.deals == sorted(p.deals) and len(p.deals) == min(3, p.pool) and p.seed == 7
    i = tb.GRADE_NAMES.index(difficulty)
    lo = p.grading.cuts[i - 1] if i else -1
    hi = p.grading.cuts[i] if i < 3 else float("inf")
    pool = ref[(ref["status"] == "solved") & (ref["nodes"] > lo) & (ref["nodes"] <= hi)].index.tolist()
    assert p.pool == len(pool) and set(p.deals) <= set(pool)
    again = tb.pick_deals(rules, "solved", difficulty, count=3, seed=7, results=folder)
    assert again.deals == p.deals


def test_pick_deals_seed_count_and_status(folder):
    rules = get_rules(VARIANT)
    ref = _expected(folder)
    a = tb.pick_deals(rules, count=5, seed=1, results=folder)
    b = tb.pick_deals(rules, count=5, seed=2, results=folder)
    assert a.deals != b.deals                      # these two seeds draw different samples
    fresh = tb.pick_deals(rules, count=5, results=folder)
    assert tb.pick_deals(rules, count=5, seed=fresh.seed, results=folder).deals == fresh.deals
    unknown = tb.pick_deals(rules, "unknown", count=100, results=folder)
    assert unknown.deals == ref.index[ref["status"] == "unknown"].tolist()
    unsolvable = tb.pick_deals(rules, "unsolvable", count=100, results=folder)
    assert unsolvable.deals == ref.index[ref["status"] == "unsolvable"].tolist()
    with pytest.raises(tb.TablesError, match="solved deals only"):
        tb.pick_deals(rules, "unknown", "hard", results=folder)
    with pytest.raises(tb.TablesError, match="--count"):
        tb.pick_deals(rules, count=0, results=folder)


# ---- the command line ---------------------------------------------------------------
def cli(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "harpsolve.cli", *args], capture_output=True, text=True,
                          env=e, timeout=60)


def test_cli_lookup_and_deals(folder):
    r = cli("lookup", VARIANT, "5", "EH1-N-AAAAAAG", "--results", str(folder))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("easy-harp deal 5 (EH1-N-AAAAAAF): solved in 105 moves; 50 nodes")
    assert lines[1].startswith("easy-harp deal 6 (EH1-N-AAAAAAG): solved")
    doc = json.loads(cli("lookup", VARIANT, "8", "--json", "--results", str(folder)).stdout)
    assert doc["answers"][0]["status"] == "solved" and doc["answers"][0]["nodes"] == 4321
    r = cli("deals", VARIANT, "--difficulty", "easy", "--count", "4", "--seed", "3", "--results", str(folder))
    assert r.returncode == 0, r.stderr
    assert [int(x) for x in r.stdout.split()] == tb.pick_deals(get_rules(VARIANT), "solved", "easy", 4, 3,
                                                                  folder).deals
    assert "seed 3" in r.stderr and "easy: nodes <=" in r.stderr


@pytest.mark.parametrize("args, words", [
    (["lookup", VARIANT, "5", "--results", "/no/such/folder"], "no such folder"),
    (["lookup", VARIANT, "0"], "deal number"),
    (["lookup", "no-such-variant", "5"], "variant"),
    (["deals", VARIANT, "--status", "unknown", "--difficulty", "hard"], "solved deals only"),
    (["deals", "klondike-1"], "not in the tables"),
])
def test_cli_bad_input_is_one_line(folder, args, words):
    r = cli(*args, env={tb.RESULTS_ENV: str(folder)} if "--results" not in args else None)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("change, words", [(dict(status="won"), "status 'won'"), (dict(deal=-5), "deal -5")])
def test_rows_no_sweep_writes_are_refused_by_lookup_and_deals(tmp_path, change, words):
    out = tmp_path / "results" / VARIANT
    rows = [_row(d, SMALL, "solved", 10 * d, length=100) for d in (1, 2, 3)]
    rows[1].update(change)
    out.mkdir(parents=True)
    sw.write_atomic(sw.store.make_table(rows, [], sw.store.rules_meta(get_rules(VARIANT))), str(out))
    for args in (["lookup", VARIANT, "1"], ["deals", VARIANT, "--count", "2"]):
        r = cli(*args, "--results", str(tmp_path / "results"))
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_committed_table_answers_easy_harp_5():
    """`harpsolve lookup easy-harp 5` answers what the committed results/easy-harp table holds."""
    folder = os.path.join(REPO, "results", VARIANT)
    if not os.path.isdir(folder):
        pytest.skip("no committed results/easy-harp")
    rules = get_rules(VARIANT)
    frame = sw.load_results([folder]).frame
    ref = sw.best_rows(frame[(frame["deal"] == 5) & (frame["rules_fingerprint"] == rules.fingerprint())])
    r = cli("lookup", VARIANT, "5", "--json", env={tb.RESULTS_ENV: ""})
    assert r.returncode == 0, r.stderr
    (a,) = json.loads(r.stdout)["answers"]
    if ref.empty:  # the rules changed since the sweep: the tables must not answer
        assert a["status"] is None
    else:
        row = ref.iloc[0]
        assert a["status"] == row["status"] and a["nodes"] == row["nodes"]
        if a["status"] == "solved":
            assert a["solution_length"] == row["solution_length"]
