"""The result row's one table (harpsolve/sweep/schema.py): versions, the README's column
list, the checks on every row read, and a write that fails."""
from __future__ import annotations

import errno
import json
import pathlib
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from harpsolve import sweep as sw
from harpsolve.cli import main
from harpsolve.rules import get_rules
from harpsolve.sweep import schema, store

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
B = sw.Budgets(max_nodes=1000, timeout=0.0, max_memory=1 << 24, heuristic="lookahead")

# The columns of every schema version, as files of that version were written.  A column added
# to schema.TABLE without a new version changes a line here, and this test fails.
VERSIONS = {
    1: ["schema_version", "variant", "deal", "rules", "rules_fingerprint", "status", "solution_length", "score",
        "nodes", "states", "seconds", "max_nodes", "timeout", "max_memory", "heuristic", "harpsolve_version",
        "reason", "algorithm", "weight", "layout_file", "layout_hash"],
    2: ["engine", "proof"],
    3: ["policy"],
}


def test_every_version_has_its_columns_and_the_newest_is_written():
    have = {}
    for c in schema.TABLE:
        have.setdefault(c.since, []).append(c.name)
    assert have == VERSIONS
    assert schema.SCHEMA_VERSION == max(VERSIONS) and schema.READ_VERSIONS == tuple(map(str, VERSIONS))
    # a column of a later version may be absent from older files: readers need its meaning there
    assert all(c.name in schema.LATER_COLUMNS for c in schema.TABLE if c.since > 1)
    assert [f.name for f in schema.arrow_schema()] == list(schema.NAMES)


def test_make_row_fills_every_column_in_table_order():
    row = sw.make_row(get_rules("klondike-1"), 7, B, "unknown", nodes=5, reason="nodes")
    assert tuple(row) == schema.NAMES
    t = pa.Table.from_pylist([row], schema=schema.arrow_schema())
    assert t.num_rows == 1 and t.column("deal")[0].as_py() == 7


def test_readme_column_list_is_the_schema_table():
    text = README.read_text()
    m = re.search(r"<!-- columns: generated from harpsolve/sweep/schema.py, do not edit -->\n(.*?)\n<!-- columns: end -->",
                  text, re.S)
    assert m, "the README's column list has lost its markers"
    assert m.group(1) == schema.column_table()


# ---- rows no sweep writes are refused ---------------------------------------------------
def _write(folder, rows, rules):
    folder.mkdir(parents=True, exist_ok=True)
    return store.write_atomic(store.make_table(rows, [], store.rules_meta(rules)), str(folder))


@pytest.mark.parametrize("change, words", [
    (dict(status="won"), "status 'won'"),
    (dict(status=None), "status None"),
    (dict(deal=-5), "deal -5"),
    (dict(deal=0), "deal 0"),
    (dict(deal=None), "neither a deal nor a layout file"),
])
def test_a_row_no_sweep_writes_is_refused_in_one_line(tmp_path, change, words):
    rules = get_rules("klondike-1")
    rows = [sw.make_row(rules, d, B, "solved", solution_length=90) for d in (1, 2, 3)]
    rows[1].update(change)
    path = _write(tmp_path / "r", rows, rules)
    with pytest.raises(sw.ResultFileError, match=re.escape(words)) as e:
        sw.load_results([tmp_path / "r"])
    assert "row 2" in str(e.value) and path in str(e.value) and "move it out of the folder" in str(e.value)
    for args in (["stats", str(tmp_path / "r")], ["compare", str(tmp_path / "r"), str(tmp_path / "r")]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0]


def test_layout_rows_and_good_rows_are_read():
    rules = get_rules("klondike-1")
    job = sw.LayoutJob("a.json", "0123456789abcdef", None)
    t = pa.Table.from_pylist([sw.make_row(rules, 4, B, "unsolvable"), sw.make_row(rules, job, B, "solved")],
                             schema=schema.arrow_schema())
    schema.check_rows(t, "x")  # no error
    bad = pa.Table.from_pylist([dict(sw.make_row(rules, job, B, "solved"), layout_hash="nothex")],
                               schema=schema.arrow_schema())
    with pytest.raises(sw.ResultFileError, match="neither a deal nor a layout"):
        schema.check_rows(bad, "x")


def test_metadata_of_the_wrong_shape_is_refused(tmp_path):
    rules = get_rules("klondike-1")
    rows = [sw.make_row(rules, 1, B, "solved", solution_length=90)]
    t = store.make_table(rows, [], store.rules_meta(rules))
    meta = dict(t.schema.metadata)
    meta[schema.META_RULES] = json.dumps({rules.fingerprint(): rules.label}).encode()  # a label, not the fields
    (tmp_path / "r").mkdir()
    pq.write_table(t.replace_schema_metadata(meta), tmp_path / "r" / "results-1-1-1.parquet")
    with pytest.raises(sw.ResultFileError, match="metadata of the wrong shape"):
        sw.load_results([tmp_path / "r"])


def test_folder_refusals_say_how_to_recover(tmp_path):
    out = tmp_path / "out"
    rules = get_rules("klondike-3")
    _write(out, [sw.make_row(rules, 1, B, "solved", solution_length=90)], rules)
    with pytest.raises(sw.SweepError, match=re.escape("another --out folder, or give the --rule (and --play) options")):
        sw.sweep("klondike-3", "1-2", out, overrides=["takeback=false"], budgets=dict(max_nodes=1000), progress=False)
    held = store.ResultStore(out, rules, sw.Budgets.make(dict(max_nodes=1000)), {})
    try:
        with pytest.raises(sw.SweepError, match=r"wait for it to end, or stop it \(kill \d+\) and run this command again"):
            sw.sweep("klondike-3", "1-2", out, budgets=dict(max_nodes=1000), progress=False)
    finally:
        held.close()
    (out / "results-2-2-2.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(sw.ResultFileError, match="not a readable Parquet result file .*; move it out of the folder"):
        sw.sweep("klondike-3", "1-2", out, budgets=dict(max_nodes=1000), progress=False)


# ---- a full disk -------------------------------------------------------------------------
def test_a_full_disk_stops_the_sweep_at_the_first_failed_write(tmp_path, monkeypatch):
    calls = []

    def full(table, folder, name=None):
        calls.append(folder)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "write_atomic", full)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["sweep", "klondike-3", "1-6", "--out", str(out), "--max-nodes", "2000",
                                    "--workers", "1", "--chunk-size", "2", "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and "run the same command again" in lines[0]
    assert len(calls) == 1, "no write is tried after the first one failed"
    assert not [n for n in out.iterdir() if n.name != ".lock"]


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    rules = get_rules("klondike-1")
    t = store.make_table([sw.make_row(rules, 1, B, "solved", solution_length=90)], [], store.rules_meta(rules))

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    with pytest.raises(OSError):
        store.write_atomic(t, str(tmp_path))
    assert list(tmp_path.iterdir()) == []
