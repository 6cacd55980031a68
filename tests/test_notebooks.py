"""The notebooks run (nbclient, on a small sweep made here) and their paired files agree."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PAIRS = sorted(NOTEBOOKS.glob("*.py"))

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")
pytest.importorskip("ipykernel")


def test_there_is_a_notebook():
    assert PAIRS, "notebooks/*.py (jupytext percent format) expected"


@pytest.mark.parametrize("source", PAIRS, ids=[p.stem for p in PAIRS])
def test_paired_ipynb_matches_the_py_and_has_no_outputs(source):
    ipynb = source.with_suffix(".ipynb")
    assert ipynb.exists(), f"run: jupytext --sync {source.relative_to(NOTEBOOKS.parent)}"
    a, b = jupytext.read(source), jupytext.read(ipynb)
    assert [(c.cell_type, c.source) for c in a.cells] == [(c.cell_type, c.source) for c in b.cells], \
        f"{ipynb.name} and {source.name} differ: run jupytext --sync"
    for c in b.cells:
        assert not c.get("outputs"), f"{ipynb.name}: commit it with cleared outputs"


@pytest.fixture(scope="module")
def small_results(tmp_path_factory):
    from harpsolve.sweep import sweep

    from harpsolve.player import PlaySettings

    root = tmp_path_factory.mktemp("results")
    out, played = root / "klondike-3", root / "klondike-3-rules"
    sweep("klondike-3", "1-12", str(out), budgets={"max_nodes": 5_000}, workers=1, progress=False)
    # a player folder too: section 5 reads it, sections 1-4 must leave its groups alone
    sweep("klondike-3", "1-6", str(played), workers=1, progress=False, play=PlaySettings("rules"))
    return f"{out}{os.pathsep}{played}"


@pytest.mark.parametrize("source", PAIRS, ids=[p.stem for p in PAIRS])
def test_notebook_runs_on_small_data(source, small_results, tmp_path, monkeypatch):
    nb = jupytext.read(source)
    figures = tmp_path / "figures"
    monkeypatch.setenv("HARPSOLVE_RESULTS", str(small_results))
    monkeypatch.setenv("HARPSOLVE_SWITCHES", str(tmp_path / "switches"))
    monkeypatch.setenv("HARPSOLVE_FIGURES", str(figures))
    monkeypatch.setenv("HARPSOLVE_QUICK", "1")
    client = nbclient.NotebookClient(nb, timeout=240, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    # what it writes is what the README says it writes
    said = _readme_notebook_files()
    assert {p.name for p in figures.iterdir()} == {n for n in said if n.endswith(".png")}
    assert any((tmp_path / "switches").iterdir()), "the rules-switch sweeps go to HARPSOLVE_SWITCHES"
    assert "harpsolve-switches/" in said and '"harpsolve-switches"' in source.read_text()  # its default


def _readme_notebook_files() -> set[str]:
    import re

    text = (NOTEBOOKS.parent / "README.md").read_text()
    block = re.search(r"<!-- notebook files: checked by tests/test_notebooks.py -->\n(.*?)<!-- notebook files: end -->",
                      text, re.S).group(1)
    return {name.rsplit("/", 1)[-1] if name.endswith(".png") else name.rsplit("/", 2)[-2] + "/"
            for name in re.findall(r"`([^`]+)`", block) if name.endswith((".png", "/"))}
