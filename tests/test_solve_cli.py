"""`harpsolve solve`: statuses and exit codes, --json/--out/--show, --layout files,
bad input as one line, and a --help that never imports numba."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from click.testing import CliRunner

from harpsolve.cli import EXIT_UNKNOWN, EXIT_UNSOLVABLE, main
from harpsolve.layout import Layout
from harpsolve.reference import Game, replay
from harpsolve.rules import get_rules

# Four cards from a win (klondike-1): KS must go to the empty t2 to free TS,
# then JS and QS come from the stock.
SMALL_LAYOUT = """\
# klondike-1, nearly won
t1: TS | KS
t2:
t3:
t4:
t5:
t6:
t7:
stock: JS QS
foundations: KC KD KH 9S
"""


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(main, [str(a) for a in args], input=input)

    return invoke


def _stderr(res) -> str:
    try:
        return res.stderr
    except ValueError:  # click < 8.2 mixes stderr into output
        return res.output


def _stdout(res) -> str:
    try:
        return res.stdout
    except ValueError:
        return res.output


@pytest.mark.parametrize("variant,deal", [("bakers-game", 1), ("klondike-1", 2)])
def test_solved_deal_exit_0_and_json_replays_to_a_win(run, variant, deal):
    res = run("solve", variant, deal)
    assert res.exit_code == 0, res.output
    lines = _stdout(res).splitlines()
    assert lines[0].startswith(f"{variant} deal {deal} (EH1-N-")
    assert lines[1].startswith("solved: ") and lines[2].startswith("nodes ")
    assert lines[3].startswith("plays ") and lines[4].split()[0] == "1."

    res = run("solve", variant, deal, "--json")
    assert res.exit_code == 0
    doc = json.loads(_stdout(res))
    assert doc["variant"] == variant and doc["deal"] == deal and doc["status"] == "solved"
    assert {"layout", "moves", "nodes", "states", "seconds"} <= set(doc)
    rules = get_rules(variant)
    rep = replay(rules, Layout.from_dict(doc["layout"]), doc["moves"])
    assert rep.ok and rep.won
    # the plays listed are the solution's, and the summary counts its moves and plays
    from harpsolve.solution import readable

    listed = [line.split(". ", 1)[1] for line in lines[4:]]
    assert listed == [text for _, text in readable(rules, Layout.from_dict(doc["layout"]), doc["moves"])]
    plays = sum(m not in ("s>w", "w>s") for m in doc["moves"])
    assert lines[1].startswith(f"solved: {len(doc['moves'])} moves ({plays} plays")


def test_easy_harp_reports_the_replayed_score(run):
    res = run("solve", "easy-harp", "5", "--json")
    assert res.exit_code == 0
    doc = json.loads(_stdout(res))
    rep = replay(get_rules("easy-harp"), Layout.from_dict(doc["layout"]), doc["moves"])
    assert rep.won and doc["score"] == rep.score >= 1220
    assert f"score {rep.score}" in _stdout(run("solve", "easy-harp", "5")).splitlines()[1]


def test_out_file_verifies(run, tmp_path):
    out = tmp_path / "k1-2.json"
    res = run("solve", "klondike-1", "2", "--rule", "takeback=false", "--out", out)
    assert res.exit_code == 0 and out.exists()
    doc = json.loads(out.read_text())
    assert doc["rules"] == {"takeback": False}
    assert run("verify", out).exit_code == 0


def test_show_prints_every_board_and_cells_for_bakers_game(run):
    res = run("solve", "klondike-1", "2", "--show")
    assert res.exit_code == 0
    text = _stdout(res)
    n = json.loads(_stdout(run("solve", "klondike-1", "2", "--json")))["moves"]
    plays = sum(m not in ("s>w", "w>s") for m in n)
    assert text.count("\nfoundations: ") == plays + 1  # the start and after each play
    assert "\nstart\n" in text and f"\nplay {plays}: " in text
    assert text.rstrip().endswith("won")

    res = run("solve", "bakers-game", "1", "--show-every", "100")
    assert res.exit_code == 0
    text = _stdout(res)
    plays = int(text.splitlines()[1].split()[3].lstrip("("))  # bakers-game: no stock, every move a play
    assert plays == int(text.splitlines()[1].split()[1])
    boards = 1 + -(-plays // 100)
    assert text.count("\ncells: ") == boards and text.count("\nfoundations: ") == boards
    assert ("\nplays 1-100: " in text or plays < 100) and text.rstrip().endswith("won")
    assert text.rstrip().endswith("cells: -- -- -- --\n\nwon")  # the last board: empty cells


def test_layout_text_and_json_files(run, tmp_path):
    small = tmp_path / "small.txt"
    small.write_text(SMALL_LAYOUT)
    res = run("solve", "klondike-1", "--layout", small, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(_stdout(res))
    assert doc["deal"] is None and doc["status"] == "solved"
    assert replay(get_rules("klondike-1"), Layout.from_text(SMALL_LAYOUT), doc["moves"]).won
    assert run("solve", "klondike-1", "--layout", "-", input=SMALL_LAYOUT).exit_code == 0

    # `deal --json` output names its variant and rules, so VARIANT may be left out
    dealt = tmp_path / "deal.json"
    dealt.write_text(_stdout(run("deal", "klondike-1", "2", "--json", "--rule", "takeback=false")))
    res = run("solve", "--layout", dealt)
    assert res.exit_code == 0, res.output
    assert _stdout(res).startswith(f"klondike-1[takeback=false] layout {dealt}\nsolved: ")


def test_unsolvable_exit_10_agrees_with_the_reference_engine(run):
    # klondike-3 deal 2: no card ever plays; the reference engine reaches only
    # the turns of the stock.
    res = run("solve", "klondike-3", "2")
    assert res.exit_code == EXIT_UNSOLVABLE == 10
    assert _stdout(res).splitlines()[1].startswith("unsolvable: ")
    from harpsolve.deals import deal_layout

    rules = get_rules("klondike-3")
    start = Game(rules, deal_layout(rules, 2))
    seen, todo = {start.key()}, [start.to_layout()]
    while todo:
        g = Game(rules, todo.pop(), check=False)
        for m in g.legal_moves():
            h = Game(rules, g.to_layout(), check=False, undo=False)
            h.apply(m)
            assert not h.is_won()
            if h.key() not in seen:
                seen.add(h.key())
                todo.append(h.to_layout())
        assert len(seen) < 5000


def test_budget_gives_unknown_exit_11(run):
    res = run("solve", "easy-harp", "1", "--max-nodes", "1", "--json")
    assert res.exit_code == EXIT_UNKNOWN == 11
    doc = json.loads(_stdout(res))
    assert doc["status"] == "unknown" and doc["reason"] == "nodes" and doc["moves"] == []
    res = run("solve", "easy-harp", "1", "--max-nodes", "1")
    assert res.exit_code == 11
    assert _stdout(res).splitlines()[1] == "unknown: the node budget ran out (1 nodes)"


def test_no_budget_option_gives_one_deal_the_solve_default(run, monkeypatch):
    """`solve` without --max-nodes searches SOLVE_MAX_NODES (a person waiting for one deal), not the
    sweeps' DEFAULT_MAX_NODES.  The default is shrunk here so that the
    deal runs out of it and the summary names the budget."""
    from harpsolve.search import settings

    monkeypatch.setattr(settings, "SOLVE_MAX_NODES", 7)
    res = run("solve", "easy-harp", "1")
    assert res.exit_code == 11
    assert _stdout(res).splitlines()[1] == "unknown: the node budget ran out (7 nodes)"
    assert run("solve", "easy-harp", "1", "--max-nodes", "0").exit_code == 0  # 0 = no limit, as before


@pytest.mark.parametrize(
    "args,message",
    [
        (["solve", "klondike", "1"], "unknown variant 'klondike'"),
        (["solve", "easy-harp", "EH1-N-AA"], "deal code"),
        (["solve", "easy-harp", "0"], "deal number"),
        (["solve", "easy-harp", "5", "--rule", "speed=3"], "unknown rule 'speed'"),
        (["solve", "easy-harp", "5", "--rule", "passes"], "name=value"),
        (["solve", "easy-harp", "5", "--max-memory", "2X"], "--max-memory"),
        (["solve", "easy-harp", "5", "--heuristic", "greedy"], "unknown heuristic 'greedy'"),
        (["solve", "easy-harp", "5", "--max-nodes", "-5"], "--max-nodes"),
        (["solve", "easy-harp", "5", "--show-every", "0"], "--show-every"),
        (["solve", "easy-harp", "5", "--show", "--json"], "one of --json and --show"),
        (["solve", "easy-harp"], "give a deal"),
        (["solve"], "give a VARIANT"),
        (["solve", "easy-harp", "--layout", "/no/such/file.txt"], "cannot read /no/such/file.txt"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run, args, message):
    res = run(*args)
    assert res.exit_code == 2, res.output
    text = _stderr(res)
    assert text.count("\n") == 1 and message in text and "Traceback" not in text
    assert text.startswith("harpsolve: error: ")


@pytest.mark.parametrize(
    "content,message",
    [
        (SMALL_LAYOUT.replace("stock: JS QS", "stock: JS JS"), "card JS appears 2 times"),
        (SMALL_LAYOUT.replace("stock: JS QS", "stock: JS"), "holds 51 cards"),
        (SMALL_LAYOUT.replace("QS", "QX"), "unknown card 'QX'"),
        ("t1: TS | KS\nbogus: 1\n", "unknown line 'bogus'"),
        ('{"columns": [["KS"]', "not valid JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\xff", "not a text file"),
    ],
)
def test_bad_layout_file_is_one_line_and_exit_2(run, tmp_path, content, message):
    path = tmp_path / "bad-layout"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    res = run("solve", "klondike-1", "--layout", path)
    assert res.exit_code == 2, res.output
    text = _stderr(res)
    assert text.count("\n") == 1 and message in text and str(path) in text and "Traceback" not in text


def test_layout_without_variant_needs_a_json_variant(run, tmp_path):
    small = tmp_path / "small.txt"
    small.write_text(SMALL_LAYOUT)
    res = run("solve", "--layout", small)
    assert res.exit_code == 2 and "give the VARIANT" in _stderr(res)


def test_every_heuristic_the_solver_knows_is_offered_and_no_other(run):
    from harpsolve.solver import HEURISTICS

    help_text = " ".join(run("solve", "--help").output.split())
    assert all(name in help_text for name in HEURISTICS)
    res = run("solve", "klondike-1", "1", "--heuristic", "no-such")
    assert res.exit_code == 2 and "no-such" in _stderr(res) and all(n in _stderr(res) for n in HEURISTICS)


# ---- real processes -------------------------------------------------------------------------
def _harpsolve(*args, env=None):
    script = pathlib.Path(sys.executable).with_name("harpsolve")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "harpsolve.cli"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120, env=env)


def test_help_does_not_import_numba():
    code = "import sys, harpsolve.cli; assert 'numba' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0
    # The real entry point, with Python's import log: numba must not appear.
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    for args in (["--help"], ["solve", "--help"]):
        res = _harpsolve(*args, env=env)
        assert res.returncode == 0 and "Usage: harpsolve" in res.stdout
        assert "import time:" in res.stderr  # the log is there ...
        assert "numba" not in res.stderr      # ... and never mentions numba
    assert "Exit status:" in _harpsolve("solve", "--help").stdout


def test_subprocess_exit_codes_and_quiet_broken_pipe():
    res = _harpsolve("solve", "klondike-3", "2")
    assert res.returncode == 10 and res.stderr == ""
    bad = _harpsolve("solve", "bakers-game", "1", "--rule", "cells=x")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    # a reader that stops early (`| head -1`) is not an error
    script = pathlib.Path(sys.executable).with_name("harpsolve")
    cmd = f"{script if script.exists() else sys.executable + ' -m harpsolve.cli'} solve bakers-game 1 --show | head -1"
    res = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert res.stdout == "bakers-game deal 1 (EH1-N-AAAAAAB)\n"
    assert res.returncode == 0 and res.stderr == ""


def test_a_layout_files_rules_are_used_or_the_clash_refused(run, tmp_path):
    dealt = tmp_path / "deal-h.json"
    dealt.write_text(_stdout(run("deal", "harp", "3", "--json", "--rule", "passes=2")))
    res = run("solve", "harp", "--layout", dealt, "--max-nodes", "1000", "--json")
    assert res.exit_code in (0, 11), res.output
    assert json.loads(_stdout(res))["rules"] == {"passes": 2}  # the file's pass limit, not harp's 4
    res = run("solve", "easy-harp", "--layout", dealt, "--max-nodes", "1000")
    assert res.exit_code == 2 and "holds a harp layout, not easy-harp" in res.output


def test_a_lock_proof_is_put_in_words_and_named_in_the_json(run):
    """endless-harp 35423 (search/lock.py's example): exit 10, the proof in words, and the
    proof's own text in the JSON."""
    res = run("solve", "endless-harp", "35423")
    assert res.exit_code == EXIT_UNSOLVABLE
    assert _stdout(res).splitlines()[1] == ("unsolvable: JD JH can leave their columns only for their foundations, "
                                            "which can never reach them (a lock); engine lock")
    doc = json.loads(_stdout(run("solve", "endless-harp", "35423", "--json")))
    assert (doc["status"], doc["engine"], doc["proof"]) == ("unsolvable", "lock", "lock: JD JH")
