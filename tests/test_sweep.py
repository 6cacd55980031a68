"""Sweeps: deal ranges, real sweeps into Parquet, resume after kill -9, worker
crashes, the Dask engine."""
from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pandas as pd
import pyarrow.parquet as pq
import pytest

from harpsolve import sweep as sw
from harpsolve.search.settings import SettingsError, parse_size
from harpsolve.rules import get_rules

VARIANT = "klondike-3"        # fast; its first deals are solved, unsolvable and unknown at 20 000 nodes
NODES = 20_000
BUDGETS = dict(max_nodes=NODES)


HOOKS = str(pathlib.Path(__file__).with_name("sweep_hooks.py"))  # the CLI with crashing/dawdling workers


def cli(*args, env=None, hooks=False, **kw):
    e = dict(os.environ, **(env or {}))
    start = [HOOKS] if hooks else ["-m", "harpsolve.cli"]
    return subprocess.run([sys.executable, *start, *args], capture_output=True, text=True,
                          env=e, timeout=240, **kw)


def rows(folder) -> pd.DataFrame:
    """Every live row of a folder, duplicates kept (not best_rows)."""
    return sw.load_results([folder]).frame


# ---- ranges and sizes -----------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("1-5", [1, 2, 3, 4, 5]),
    ("5,17,100-103", [5, 17, 100, 101, 102, 103]),
    (" 3 , 1-2 ", [1, 2, 3]),
    ("4,4,2-4", [2, 3, 4]),
    ("999999", [999999]),
])
def test_parse_range(text, expected):
    assert sw.parse_range(text) == expected


def test_default_range_is_every_deal():
    deals = sw.parse_range(sw.DEFAULT_RANGE)
    assert len(deals) == 999_999 and deals[0] == 1 and deals[-1] == 999_999


@pytest.mark.parametrize("text, words", [
    ("", "empty"), ("  ", "empty"), ("0-5", "1 to 999999"), ("1-1000000", "1 to 999999"),
    ("5-1", "backwards"), ("abc", "not N or N-M"), ("1-2-3", "not N or N-M"), ("1,,2", "not N or N-M"),
    ("-5", "not N or N-M"),
])
def test_parse_range_errors(text, words):
    with pytest.raises(sw.SweepError, match=words):
        sw.parse_range(text)


def test_format_range_round_trip():
    deals = [1, 2, 3, 7, 9, 10, 20]
    assert sw.format_range(deals) == "1-3,7,9-10,20"
    assert sw.parse_range(sw.format_range(deals)) == deals


@pytest.mark.parametrize("text, n", [("1024", 1024), ("512M", 512 << 20), ("2G", 2 << 30), ("1.5k", 1536),
                                     ("2GiB", 2 << 30), ("64mb", 64 << 20)])
def test_parse_size(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("text", ["", "12X", "G", "-5M", "0", "9000000T", 1 << 60])
def test_parse_size_errors(text):
    with pytest.raises(SettingsError, match="bad size"):
        parse_size(text)


def test_budgets_take_the_solver_defaults():
    from harpsolve import solver

    b = sw.Budgets.make({})
    assert b.max_nodes == solver.DEFAULT_MAX_NODES and b.max_memory == solver.DEFAULT_MAX_MEMORY
    assert b.heuristic in solver.HEURISTICS and b.timeout == 0.0
    with pytest.raises(SettingsError, match="heuristic"):
        sw.Budgets.make({"heuristic": "no-such"})
    with pytest.raises(SettingsError, match="--weight goes with"):
        sw.Budgets.make({"algorithm": "dfs", "weight": 3})
    assert sw.Budgets.make({"algorithm": "wastar"}).weight == 2.0


# ---- a real sweep -----------------------------------------------------------------
@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "out"
    summary = sw.sweep(VARIANT, "1-30", out, budgets=BUDGETS, workers=2, progress=False, chunk_size=4)
    return out, summary


def test_sweep_writes_one_row_per_deal(swept):
    out, summary = swept
    df = rows(out)
    assert sorted(df["deal"]) == list(range(1, 31))
    assert summary.new == 30 and summary.skipped == 0 and sum(summary.counts.values()) == 30
    assert set(df["status"]) <= set(sw.STATUSES)
    rules = get_rules(VARIANT)
    assert (df["rules_fingerprint"] == rules.fingerprint()).all() and (df["rules"] == VARIANT).all()
    assert (df["schema_version"] == sw.SCHEMA_VERSION).all() and (df["max_nodes"] == NODES).all()
    solved = df[df["status"] == "solved"]
    assert solved["solution_length"].notna().all() and df.loc[df["status"] != "solved", "solution_length"].isna().all()
    assert (df.loc[df["status"] == "unknown", "reason"] != "").all()
    # every verdict names the engine that reached it, every "unsolvable" its proof
    decided = df[df["status"].isin(("solved", "unsolvable"))]
    assert len(decided) and decided["engine"].notna().all() and (decided["engine"] != "").all()
    assert df.loc[df["status"] == "unsolvable", "proof"].notna().all()
    assert df.loc[df["status"] != "unsolvable", "proof"].isna().all()


def test_sweep_folder_is_merged_and_carries_run_metadata(swept):
    out, _ = swept
    files = [n for n in os.listdir(out) if n.endswith(".parquet")]
    assert len(files) == 1, "a finished sweep leaves one merged file"
    meta = pq.read_schema(out / files[0]).metadata
    assert meta[b"harpsolve.schema_version"] == str(sw.SCHEMA_VERSION).encode() == b"3"
    import json

    (run,) = json.loads(meta[b"harpsolve.runs"])
    for key in ("started", "ended", "command", "cpu", "numba", "numpy", "python", "harpsolve", "workers"):
        assert run[key], key
    assert pq.ParquetFile(out / files[0]).metadata.row_group(0).column(0).compression == "ZSTD"
    # the code's commit: this checkout's HEAD (tests run from a git checkout), "+changes" if
    # the package differs from it
    import subprocess

    head = subprocess.run(["git", "-C", os.path.dirname(sw.__file__), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert run["code"].split("+")[0] == head[:12] and run["code"] in (head[:12], head[:12] + "+changes")


def test_result_files_encode_columns_for_size(swept, tmp_path):
    """The merged file uses store.COLUMN_ENCODING (deal numbers as differences, seconds split
    by byte, counts plain, the rest dictionaries), reads back the same, and is smaller than
    with pyarrow's defaults."""
    out, _ = swept
    (name,) = [n for n in os.listdir(out) if n.endswith(".parquet")]
    meta = pq.ParquetFile(out / name).metadata.row_group(0)
    enc = {meta.column(i).path_in_schema: set(meta.column(i).encodings) for i in range(meta.num_columns)}
    assert "DELTA_BINARY_PACKED" in enc["deal"] and "BYTE_STREAM_SPLIT" in enc["seconds"]
    assert "PLAIN" in enc["nodes"] and not enc["nodes"] & {"RLE_DICTIONARY", "PLAIN_DICTIONARY"}
    assert enc["status"] & {"RLE_DICTIONARY", "PLAIN_DICTIONARY"}
    # the same rows, many times over with other deal numbers, seconds and counts (a seeded
    # stand-in for a sweep's file): they read back the same, in fewer bytes than with the defaults
    import numpy as np
    import pyarrow as pa
    from harpsolve.sweep.store import write_parquet

    table = pq.read_table(out / name).replace_schema_metadata(None)
    big = pa.concat_tables([table] * 100)
    rng = np.random.default_rng(0)
    n = big.num_rows
    big = big.set_column(big.column_names.index("deal"), "deal", pa.array(np.arange(1, n + 1), pa.int32()))
    big = big.set_column(big.column_names.index("seconds"), "seconds", pa.array(rng.lognormal(-5, 1.5, n)))
    big = big.set_column(big.column_names.index("nodes"), "nodes", pa.array(rng.integers(1, 10**6, n)))
    ours, plain = tmp_path / "ours.parquet", tmp_path / "defaults.parquet"
    with open(ours, "wb") as f:
        write_parquet(big, f)
    pq.write_table(big, plain, compression="zstd")
    assert pq.read_table(ours).equals(big) and pq.read_table(plain).equals(big)
    assert os.path.getsize(ours) < 0.8 * os.path.getsize(plain)


def test_rewrite_results_keeps_rows_metadata_and_names(swept, tmp_path, monkeypatch):
    """benchmarks/rewrite_results.py rewrites a result file with today's writer (here, row groups
    of 8 rows): the same name, rows and metadata; a rewrite that would read back differently is
    refused and leaves the file as it was."""
    import importlib.util
    import shutil

    import harpsolve.sweep.store as store

    spec = importlib.util.spec_from_file_location(
        "rewrite_results", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                        "benchmarks", "rewrite_results.py"))
    rr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rr)
    out, _ = swept
    folder = tmp_path / "out"
    shutil.copytree(out, folder)
    (name,) = [n for n in os.listdir(folder) if n.endswith(".parquet")]
    path = str(folder / name)
    before = pq.read_table(path)
    monkeypatch.setattr(store, "ROW_GROUP_ROWS", 8)
    assert rr.main([str(folder)]) == 0
    after = pq.read_table(path)
    assert after.equals(before) and after.schema.equals(before.schema, check_metadata=True)
    assert pq.ParquetFile(path).metadata.num_row_groups == -(-before.num_rows // 8) > 1
    assert sorted(os.listdir(folder)) == sorted(os.listdir(out))
    real = store.write_parquet
    monkeypatch.setattr(store, "write_parquet", lambda t, f: real(t.slice(1), f))  # a row lost
    kept = open(path, "rb").read()
    with pytest.raises(SystemExit, match="reads back differently"):
        rr.rewrite(path)
    assert open(path, "rb").read() == kept and sorted(os.listdir(folder)) == sorted(os.listdir(out))


def test_sweep_rows_match_single_solves(swept):
    from harpsolve.solver import solve

    out, _ = swept
    df = rows(out).set_index("deal")
    picks = {1, 2, 3} | {int(df.index[df["status"] == s][0]) for s in ("solved", "unsolvable", "unknown")
                        if (df["status"] == s).any()}
    for deal in sorted(picks):
        r = solve(VARIANT, deal, max_nodes=NODES)
        assert (r.status, r.nodes, r.states) == (df.at[deal, "status"], df.at[deal, "nodes"], df.at[deal, "states"])


def test_resume_skips_finished_deals(swept, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(swept[0], out)
    again = sw.sweep(VARIANT, "1-30", out, budgets=BUDGETS, workers=1, progress=False)
    assert again.new == 0 and again.skipped == 30
    more = sw.sweep(VARIANT, "25-34", out, budgets=BUDGETS, workers=1, progress=False)
    assert (more.new, more.skipped) == (4, 6)
    df = rows(out)
    assert sorted(df["deal"]) == list(range(1, 35))
    # a bigger budget keeps proofs and solutions and retries only the unknown deals
    unknown = set(df.loc[(df["deal"] <= 30) & (df["status"] == "unknown"), "deal"])
    bigger = sw.sweep(VARIANT, "1-30", out, budgets=dict(max_nodes=NODES + 1), workers=1, progress=False)
    assert bigger.new == len(unknown)
    assert len(sw.best_rows(rows(out))) == 34
    # ...and a smaller budget retries nothing: the bigger budget's unknowns cover it
    smaller = sw.sweep(VARIANT, "1-30", out, budgets=dict(max_nodes=NODES - 1), workers=1, progress=False)
    assert (smaller.new, smaller.skipped) == (0, 30)
    unlimited_time = sw.sweep(VARIANT, "1-30", out, budgets=dict(max_nodes=NODES, timeout=5.0), workers=1,
                              progress=False)
    assert unlimited_time.new == 0, "no time limit (0) covers any time limit"


def test_folder_refuses_other_rules(swept):
    with pytest.raises(sw.SweepError, match="holds results for klondike-3"):
        sw.sweep(VARIANT, "1-3", swept[0], overrides=["takeback=false"], budgets=BUDGETS, progress=False)


def test_second_sweep_into_a_busy_folder_is_refused(tmp_path):
    rules = get_rules(VARIANT)
    b = sw.Budgets(NODES, 0.0, 1 << 20, "x")
    first = sw.ResultStore(tmp_path, rules, b, {})
    try:
        with pytest.raises(sw.SweepError, match="another sweep"):
            sw.ResultStore(tmp_path, rules, b, {})
    finally:
        first.close()


def test_half_written_and_replaced_files_are_ignored(swept, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(swept[0], out)
    (merged,) = [n for n in os.listdir(out) if n.endswith(".parquet")]
    replaced = sw.read_meta(str(out / merged)).replaces
    assert replaced, "the merged file names the files it replaced"
    # a merge whose deletions never happened, and a write cut short by kill -9
    shutil.copy(out / merged, out / replaced[0])
    (out / f".{sw.store.new_name()}.tmp").write_bytes(b"PAR1 half a file")
    df = rows(out)
    assert len(df) == 30 and df["deal"].is_unique
    summary = sw.sweep(VARIANT, "1-30", out, budgets=BUDGETS, progress=False)
    assert summary.new == 0
    assert sorted(os.listdir(out)) == [".lock", merged]


# ---- kill -9 and worker crashes -------------------------------------------------------
def test_kill_minus_nine_then_resume_loses_and_repeats_nothing(tmp_path):
    out = tmp_path / "out"
    args = ["sweep", VARIANT, "1-60", "--out", str(out), "--max-nodes", str(NODES), "--workers", "2",
            "--chunk-size", "3"]
    env = dict(os.environ, HARPSOLVE_TEST_DELAY="0.1")
    proc = subprocess.Popen([sys.executable, HOOKS, *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.is_dir() and any(n.endswith(".parquet") for n in os.listdir(out)):
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    before = rows(out)
    assert 0 < len(before) < 60 and before["deal"].is_unique

    res = cli(*args)
    assert res.returncode == 0, res.stderr
    assert f"({60 - len(before)} new, {len(before)} already done)" in res.stdout
    assert "deal/s" in res.stderr and "win " in res.stderr and "decided-only" in res.stderr  # the progress bar
    after = rows(out)
    assert sorted(after["deal"]) == list(range(1, 61)), "exactly the range, no duplicates"
    kept = after.set_index("deal").loc[before["deal"], "status"]
    assert list(kept) == list(before["status"])


def test_worker_crash_is_retried_once_then_recorded(tmp_path):
    out = tmp_path / "out"
    # deal 9 kills its worker the first time only: the retry classifies it
    res = cli("sweep", VARIANT, "1-12", "--out", str(out), "--max-nodes", str(NODES), "--workers", "2",
              "--chunk-size", "4", "--no-progress",
              env={"HARPSOLVE_TEST_CRASH": "9", "HARPSOLVE_TEST_CRASH_ONCE": str(tmp_path / "crashed")}, hooks=True)
    assert res.returncode == 0, res.stderr
    df = rows(out).set_index("deal")
    assert sorted(df.index) == list(range(1, 13))
    assert df.at[9, "status"] != "error"          # crashed once, retried, solved or classified
    assert (tmp_path / "crashed.9").exists()

    # deal 3 kills its worker every time: an error row after one retry
    out2 = tmp_path / "out2"
    res = cli("sweep", VARIANT, "1-12", "--out", str(out2), "--max-nodes", str(NODES), "--workers", "2",
              "--chunk-size", "4", "--no-progress", env={"HARPSOLVE_TEST_CRASH": "3"}, hooks=True)
    assert res.returncode == 0, res.stderr
    assert "error 1" in res.stdout
    df = rows(out2).set_index("deal")
    assert sorted(df.index) == list(range(1, 13))
    assert df.at[3, "status"] == "error"
    assert "killed by SIGKILL twice" in df.at[3, "reason"]
    assert (df.drop(index=3)["status"] != "error").all()
    # without the crash, a resume retries the error deal and the best row wins
    res = cli("sweep", VARIANT, "1-12", "--out", str(out2), "--max-nodes", str(NODES), "--no-progress")
    assert "(1 new, 11 already done)" in res.stdout and "error 0" in res.stdout
    assert sw.best_rows(rows(out2)).set_index("deal").at[3, "status"] != "error"


# ---- Dask -----------------------------------------------------------------------------
def test_dask_local_cluster_gives_the_same_rows(swept, tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    # the run records the CPU model its Dask workers report (asked of them, not of this process)
    monkeypatch.setattr(sw.engines, "cpu_model", lambda: "Dask CPU")
    out = tmp_path / "dask"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        summary = sw.sweep(VARIANT, "1-30", out, budgets=BUDGETS, engine="dask",
                           scheduler=cluster.scheduler_address, progress=False, chunk_size=7)
    assert summary.new == 30
    cols = ["deal", "status", "nodes", "states", "solution_length", "rules_fingerprint", "max_nodes"]
    a = rows(swept[0])[cols].sort_values("deal").reset_index(drop=True)
    b = rows(out)[cols].sort_values("deal").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    run = sw.load_results([out]).runs[-1]
    assert run["engine"].startswith("dask ") and run["workers"] == 1 and run["cpu"] == "Dask CPU"
    # resume works the same way on this engine
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        again = sw.sweep(VARIANT, "1-32", out, budgets=BUDGETS, engine="dask",
                         scheduler=cluster.scheduler_address, progress=False)
    assert (again.new, again.skipped) == (2, 30)


# ---- CLI errors -----------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["sweep", VARIANT, "5-1", "--out", "{tmp}/x"], "runs backwards"),
    (["sweep", "no-such", "1-5", "--out", "{tmp}/x"], "unknown variant"),
    (["sweep", VARIANT, "1-5", "--out", "{tmp}/file"], "is a file"),
    (["sweep", VARIANT, "1-5", "--out", "{tmp}/x", "--max-memory", "lots"], "bad size"),
    (["sweep", VARIANT, "1-5", "--out", "{tmp}/x", "--heuristic", "nope"], "unknown heuristic"),
    (["sweep", VARIANT, "1-5", "--out", "{tmp}/x", "--workers", "0"], "at least 1"),
])
def test_sweep_cli_errors_are_one_line(tmp_path, args, words):
    from click.testing import CliRunner

    from harpsolve.cli import main

    (tmp_path / "file").write_text("")
    res = CliRunner().invoke(main, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert res.exit_code == 2, res.output
    assert words in res.output and len(res.output.strip().splitlines()) == 1
