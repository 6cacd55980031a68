"""The light CLI commands: variants and deal (no numba needed)."""
from __future__ import annotations

import datetime
import json
import pathlib
import subprocess
import sys

import pytest
from click.testing import CliRunner

from harpsolve.cli import main
from harpsolve.deals import daily_deal, deal_layout
from harpsolve.layout import Layout
from harpsolve.rules import RULE_FIELDS, VARIANTS, get_rules


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(main, list(args))

    return invoke


def test_variants_lists_every_variant(run):
    res = run("variants")
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert [line.split()[0] for line in lines] == list(VARIANTS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


def test_variants_describes_overridden_rules_from_their_fields(run):
    res = run("variants", "bakers-game", "--rule", "cells=2")
    assert res.exit_code == 0, res.output
    head = res.output.splitlines()[0]
    assert "2 free cells" in head and "4 free cells" not in head
    assert run("variants", "bakers-game").output.splitlines()[0].endswith(VARIANTS["bakers-game"].description)


def test_variants_shows_every_field(run):
    res = run("variants", "bakers-game", "--rule", "cells=3")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("bakers-game[cells=3]: ")
    fields = {line.split()[0]: line.split()[1] for line in res.output.splitlines()[1:-1]}
    assert list(fields) == list(RULE_FIELDS)
    assert fields["cells"] == "3" and fields["deal"] == "ms" and fields["columns"] == "7,7,7,7,6,6,6,6"
    assert get_rules("bakers-game", ["cells=3"]).fingerprint() in res.output


def test_deal_easy_harp_5(run):
    res = run("deal", "easy-harp", "5")
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[0] == "easy-harp deal 5 (EH1-N-AAAAAAF)"
    assert lines[1].split() == [f"t{i}" for i in range(1, 10)]
    assert "stock: 59 cards, next " in res.output
    assert run("deal", "easy-harp", "eh1-n-aaaaaaf").output == res.output


def test_deal_bakers_game_617_first_row(run):
    res = run("deal", "bakers-game", "617")
    assert res.exit_code == 0
    assert res.output.splitlines()[2].split() == "7D AD 5C 3S 5S 8C 2D AH".split()
    assert "cells: -- -- -- --" in res.output


def test_deal_json(run):
    res = run("deal", "harp", "617", "--json", "--rule", "passes=2")
    assert res.exit_code == 0
    d = json.loads(res.output)
    assert (d["variant"], d["rules"], d["deal"], d["code"]) == ("harp", "harp[passes=2]", 617, "EH1-N-AAAAAXT")
    rules = get_rules("harp", ["passes=2"])
    assert Layout.from_dict(d).validate(rules) == deal_layout(rules, 617)
    assert set(d["layout"]) >= {"columns", "face_down", "stock", "cells", "foundations"}


def test_deal_text_reads_back(run):
    res = run("deal", "endless-harp", "daily:2026-11-30", "--text")
    assert res.exit_code == 0
    rules = VARIANTS["endless-harp"]
    number = daily_deal(datetime.date(2026, 11, 30))
    assert res.output.startswith(f"# endless-harp deal {number} ")
    assert Layout.from_text(res.output).validate(rules) == deal_layout(rules, number)


def test_deal_daily(run):
    res = run("deal", "klondike-3", "daily", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["deal"] == daily_deal()


@pytest.mark.parametrize(
    "args, message",
    [
        (["deal", "easy-hrap", "5"], "unknown variant 'easy-hrap'"),
        (["deal", "easy-harp", "0"], "deal number must be 1"),
        (["deal", "easy-harp", "1000000"], "deal number must be 1"),
        (["deal", "easy-harp", "EH1-N-AAAA"], "7 letters"),
        (["deal", "easy-harp", "XY1-N-AAAAAAF"], "not a deal"),
        (["deal", "easy-harp", "EH1-N-ZZZZZZZ"], "names deal"),
        (["deal", "easy-harp", "daily:yesterday"], "YYYY-MM-DD"),
        (["deal", "easy-harp", "5", "--rule", "passes=lots"], "whole number"),
        (["deal", "easy-harp", "5", "--rule", "passes"], "name=value"),
        (["deal", "easy-harp", "5", "--rule", "speed=3"], "unknown rule 'speed'"),
        (["deal", "easy-harp", "5", "--rule", "deal=ms"], "one-deck"),
        (["deal", "easy-harp", "5", "--json", "--text"], "one of --json and --text"),
        (["variants", "klondike"], "unknown variant 'klondike'"),
        (["variants", "--rule", "passes=2"], "needs a VARIANT"),
        (["deal", "easy-harp", "-5"], "deal number must be 1"),
        (["solve", "easy-harp", "-5"], "deal number must be 1"),
        (["solve", "easy-harp", "5", "--timeout", "nan"], "--timeout takes seconds >= 0"),
        (["solve", "easy-harp", "5", "--timeout", "-1"], "--timeout takes seconds >= 0"),
        (["sweep", "easy-harp", "1-2", "--out", "never-made", "--timeout", "inf"], "--timeout takes seconds"),
        (["bench", "easy-harp", "1-2", "--timeout", "-1"], "--timeout takes seconds >= 0"),
        (["stats", "results", "--hardest", "-3"], "--hardest takes a number of deals >= 0"),
        (["compare", "results", "results", "--limit", "-1"], "--limit takes a number of deals >= 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run, args, message):
    res = run(*args)
    assert res.exit_code == 2
    text = _stderr(res)
    assert text.count("\n") == 1 and message in text and "Traceback" not in text
    assert text.startswith("harpsolve: error: ")


def _stderr(res) -> str:
    try:
        return res.stderr
    except ValueError:  # click < 8.2 mixes stderr into output by default
        return res.output


# ---- real processes -------------------------------------------------------------------------
def _harpsolve(*args):
    """Run the installed ``harpsolve`` script (or ``python -m harpsolve.cli`` without one)."""
    script = pathlib.Path(sys.executable).with_name("harpsolve")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "harpsolve.cli"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=60)


def test_subprocess_deal_and_error():
    ok = _harpsolve("deal", "easy-harp", "5")
    assert ok.returncode == 0 and ok.stdout.startswith("easy-harp deal 5 (EH1-N-AAAAAAF)\n")
    ok = _harpsolve("deal", "bakers-game", "617")
    assert ok.returncode == 0 and "7D  AD  5C  3S  5S  8C  2D  AH" in ok.stdout
    bad = _harpsolve("deal", "bakers-game", "EH1-N-BAD")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_cli_does_not_import_numba():
    code = (
        "import sys, harpsolve.cli\n"
        "from click.testing import CliRunner\n"
        "assert 'numba' not in sys.modules\n"
        "for args in (['variants'], ['variants', 'easy-harp'], ['deal', 'easy-harp', '5', '--json']):\n"
        "    assert CliRunner().invoke(harpsolve.cli.main, args).exit_code == 0\n"
        "assert 'numba' not in sys.modules, 'the light commands imported numba'\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr


def test_a_closed_pipe_ends_quietly():
    """`harpsolve deal easy-harp 5 | head -1`: the reader is gone before we
    write; exit as a process ended by SIGPIPE does, with nothing on stderr."""
    script = pathlib.Path(sys.executable).with_name("harpsolve")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "harpsolve.cli"]
    p = subprocess.Popen([*cmd, "deal", "easy-harp", "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # before the child has imported anything: its first write fails
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 141 and err == ""
