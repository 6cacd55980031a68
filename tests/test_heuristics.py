"""Move-ordering heuristics change speed and solutions, never a status.

Over a fixed deal set -- klondike-1 deals 1-8 and 21, bakers-game deals 1-5
and 10, easy-harp endgames and deadlock candidates, and the constructed
unsolvable positions of tests/golden/known.json -- every heuristic that
decides a deal (complete depth-first search, a budget where they decide)
gives the same status, and every solution replays.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from harpsolve.layout import Layout
from harpsolve.reference import replay
from harpsolve.rules import get_rules
from harpsolve.search import HEURISTIC_NAMES
from harpsolve.solver import solve

from positions import deadlock_candidate, endgame

BUDGET = 300_000
KNOWN = json.loads((Path(__file__).parent / "golden" / "known.json").read_text())


def _cases():
    cases = [("klondike-1", d, None) for d in [*range(1, 9), 21]]
    cases += [("bakers-game", d, None) for d in [*range(1, 6), 10]]
    for takeback in (True, False):
        rules = get_rules("easy-harp", {"takeback": takeback})
        rng = random.Random(11 if takeback else 12)
        cases += [(rules, None, endgame(rules, rng, 24)) for _ in range(3)]
        cases += [(rules, None, deadlock_candidate(rules, rng, 12)) for _ in range(3)]
    for v in ("easy-harp", "klondike-1", "bakers-game"):
        cases += [(v, None, Layout.from_dict(p["layout"])) for p in KNOWN[v]["positions"]]
    return cases


CASES = _cases()


def _id(case):
    v, deal, layout = case
    name = v if isinstance(v, str) else v.label
    return f"{name}-{deal}" if deal else f"{name}-position"


@pytest.mark.parametrize("case", CASES, ids=[f"{_id(c)}-{i}" for i, c in enumerate(CASES)])
def test_every_heuristic_gives_the_same_status(case):
    variant, deal, layout = case
    statuses = {}
    for h in HEURISTIC_NAMES:
        r = solve(variant, deal, layout=layout, heuristic=h, algorithm="dfs", max_nodes=BUDGET)
        statuses[h] = r.status
        if r.solved:
            rep = replay(r.rules, r.layout, r.moves)
            assert rep.ok and rep.won, (h, rep.error)
    decided = {s for s in statuses.values() if s != "unknown"}
    assert len(decided) <= 1, statuses


def test_the_deal_set_has_both_outcomes_decided():
    """The check above means something only if the set has solved and unsolvable deals."""
    seen = set()
    for variant, deal, layout in CASES:
        seen.add(solve(variant, deal, layout=layout, algorithm="dfs", max_nodes=BUDGET).status)
    assert {"solved", "unsolvable"} <= seen
