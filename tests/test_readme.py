"""The README's examples are what the code gives: every ```text block that shows a
``harpsolve`` command's output, and the Python example's values."""
from __future__ import annotations

import ast
import pathlib
import re
import shlex

import pytest
from click.testing import CliRunner

from harpsolve.cli import main

TEXT = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()


def _output_blocks():
    """(harpsolve arguments, the lines shown) of each output example: a block that starts with
    ``$ harpsolve ...``, or with a deal's title line (then it is plain ``solve VARIANT N``)."""
    out = []
    for block in re.findall(r"```text\n(.*?)```", TEXT, re.S):
        lines = block.splitlines()
        command = re.match(r"^\$ harpsolve (.+)$", lines[0])
        title = re.match(r"^(\S+) deal (\d+) \(EH1-[A-Z-]+\)$", lines[0])
        if command:
            out.append((shlex.split(command.group(1)), lines[1:]))
        elif title:
            out.append((["solve", *title.groups()], lines))
    assert len(out) >= 3, "the README's output examples went missing"
    return out


def _same(want: str, have: str) -> bool:
    if want.startswith("nodes "):  # the milliseconds are the machine's
        want, have = want.rsplit(",", 1)[0], have.rsplit(",", 1)[0]
    return want == have


@pytest.mark.parametrize("args,lines", _output_blocks(), ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_readme_output_examples_are_what_the_code_prints(args, lines):
    """The lines shown, in order; ``…`` stands for any number of lines left out."""
    got = CliRunner().invoke(main, args).output.splitlines()
    i, skipping, shown = 0, False, 0
    for want in lines:
        if not want.strip():
            continue
        if want.strip().startswith("…"):
            skipping = True
            continue
        while skipping and i < len(got) and not _same(want, got[i]):
            i += 1
        assert i < len(got) and _same(want, got[i]), (want, got[i] if i < len(got) else None)
        i, skipping, shown = i + 1, False, shown + 1
    assert shown >= 3


def test_readme_python_example_shows_what_it_returns():
    """Each line ``EXPRESSION  # VALUE`` whose comment is a Python literal gives that value."""
    block = re.search(r"```python\n(.*?)```", TEXT, re.S).group(1)
    scope: dict = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  #")
        try:
            value = ast.literal_eval(comment.strip())
        except (ValueError, SyntaxError):
            exec(code, scope)
            continue
        assert eval(code, scope) == value, line
        checked += 1
    assert checked >= 1, "the Python example shows no value to check"
