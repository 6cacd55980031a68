"""`harpsolve verify`: exit 0 for a winning solution, 1 for an illegal move or
an unfinished game (one line saying which move and why), 2 for a file that is
not a valid solution (one line, never a traceback)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from harpsolve.cards import parse_card
from harpsolve.cli import main
from harpsolve.reference import SolutionError, load_solution

# Everything on the foundations but KD (hidden under KS QH in column 1), KS,
# QH and KH (the stock): spades K+Q, hearts K+J, diamonds K+Q, clubs K+K.
LAYOUT = {
    "columns": [["KD", "KS", "QH"]] + [[] for _ in range(8)],
    "face_down": [1] + [0] * 8,
    "stock": ["KH"],
    "cells": [],
    "foundations": ["KC", "KC", "KD", "QD", "KH", "JH", "KS", "QS"],
}
MOVES = ["t1>t2*2", "s>w", "w>t3", "t2>f", "f>t2:QH", "t2>f", "t3>f", "t2>f", "t1>f"]


def solution(**changes) -> dict:
    d = {"variant": "easy-harp", "deal": None, "status": "solved", "layout": json.loads(json.dumps(LAYOUT)),
         "moves": list(MOVES), "score": 60, "nodes": 10, "seconds": 0.001}
    d.update(changes)
    return d


@pytest.fixture
def verify(tmp_path):
    runner = CliRunner()

    def run(content, name="sol.json"):
        path = tmp_path / name
        if isinstance(content, (dict, list)):
            content = json.dumps(content)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return runner.invoke(main, ["verify", str(path)])

    return run


def one_line(res) -> str:
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    return lines[0]


def test_good_solution(verify):
    res = verify(solution())
    assert res.exit_code == 0
    assert one_line(res) == "won in 9 moves, score 60"


def test_score_only_for_easy_harp(verify):
    res = verify(solution(variant="harp", score=None))
    assert res.exit_code == 1 and one_line(res) == "move 1 (t1>t2*2): only the top card moves between columns in harp"
    res = verify(solution(variant="harp", rules={"king_runs": True}, score=None))
    assert res.exit_code == 0 and one_line(res) == "won in 9 moves"


def test_illegal_move(verify):
    sol = solution()
    sol["moves"][2] = "w>t1"
    res = verify(sol)
    assert res.exit_code == 1
    assert one_line(res) == "move 3 (w>t1): KH does not go on KD"


def test_rule_override_makes_a_move_illegal(verify):
    res = verify(solution(rules={"takeback": False}))
    assert res.exit_code == 1
    assert one_line(res).startswith("move 5 (f>t2:QH): easy-harp[takeback=false] does not let")
    res = verify(solution(rules="easy-harp[takeback=false]"))
    assert res.exit_code == 1 and one_line(res).startswith("move 5 (f>t2:QH)")
    res = verify(solution(rules={"passes": 4, "columns": list(range(1, 10))}))
    assert res.exit_code == 0


def test_not_won(verify):
    res = verify(solution(moves=MOVES[:-1]))
    assert res.exit_code == 1
    assert one_line(res) == "not won: all 8 moves are legal but 1 cards are not on the foundations"


def test_wrong_score_claim(verify):
    res = verify(solution(score=1220))
    assert res.exit_code == 1 and "scores 60, not the 1220" in one_line(res)


def _with_layout(**changes) -> dict:
    sol = solution()
    sol["layout"].update(changes)
    return sol


BAD_FILES = {
    "malformed-json": ("{not json", "not valid JSON"),
    "binary": (b"\xff\xfe\x00garbage", "not a text file"),
    "not-an-object": ([1, 2], "JSON object"),
    "no-layout": ({"variant": "easy-harp", "moves": []}, "no 'layout'"),
    "unknown-variant": (solution(variant="easy-harpe"), "unknown variant"),
    "unknown-card": (_with_layout(stock=["KX"]), "unknown card"),
    "wrong-card-count": (_with_layout(stock=[]), "holds 103 cards"),
    "duplicate": (_with_layout(stock=["KS"]), "appears 3 times"),
    "wrong-columns": (_with_layout(columns=[["KD", "KS", "QH"]], face_down=[1]), "9 columns"),
    "bad-token": (solution(moves=["t1>t2*2", "t1=>f"]), "move 2"),
    "moves-not-a-list": (solution(moves="t1>f"), "'moves' must be a list"),
    "bad-override": (solution(rules={"colour": "red"}), "unknown rule"),
    "override-of-another-variant": (solution(rules="harp[passes=3]"), "does not describe"),
    "score-not-a-number": (solution(score="1245"), "'score' must be a whole number"),
    "status-unknown-word": (solution(status="won"), "'status' must be solved"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_exit_2_with_one_line(verify, case):
    content, words = BAD_FILES[case]
    res = verify(content)
    assert res.exit_code == 2
    line = one_line(res)
    assert line.startswith("harpsolve: error:") and words in line, line


def test_missing_file(tmp_path):
    res = CliRunner().invoke(main, ["verify", str(tmp_path / "nope.json")])
    assert res.exit_code == 2 and "cannot read" in one_line(res)


def test_load_solution_returns_the_parts(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(solution(rules={"passes": 5})))
    rules, layout, tokens, meta = load_solution(path)
    assert rules.passes == 5 and rules.name == "easy-harp"
    assert tokens == MOVES and layout.stock == [parse_card("KH")] and layout.face_down[0] == 1
    assert meta == {"deal": None, "status": "solved", "score": 60, "nodes": 10, "seconds": 0.001}
    path.write_text("[]")
    with pytest.raises(SolutionError):
        load_solution(path)


def test_real_process_prints_no_traceback(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_with_layout(stock=["KX"])))
    proc = subprocess.run([sys.executable, "-m", "harpsolve.cli", "verify", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    good = tmp_path / "good.json"
    good.write_text(json.dumps(solution()))
    proc = subprocess.run([sys.executable, "-m", "harpsolve.cli", "verify", str(good)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "won in 9 moves, score 60"
