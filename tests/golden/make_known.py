"""Find and cross-check the known-status positions pinned in known.json (not run by tests).

For every variant: a few deals whose status the default search and an
unpruned search (no automatic moves, no pruning) agree on, and endgame
positions proved unsolvable by the unpruned exhaustive search.  Run:
``python tests/golden/make_known.py`` (takes a few minutes).
"""
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from positions import deadlock_candidate  # noqa: E402

from harpsolve.rules import VARIANTS, get_rules  # noqa: E402
from harpsolve.solver import solve  # noqa: E402


def both(rules, deal=None, layout=None, budget=1_000_000):
    a = solve(rules, deal, layout=layout, max_nodes=budget)
    b = solve(rules, deal, layout=layout, max_nodes=budget, auto=False, prune=False)
    return a.status, b.status


def main():
    out = {}
    for v in VARIANTS:
        rules = get_rules(v)
        deals = []
        for n in range(1, 25):
            a, b = both(rules, n)
            if a == b and a != "unknown":
                if sum(1 for d in deals if d["status"] == a) < (2 if a == "solved" else 1):
                    deals.append({"deal": n, "status": a})
            if len(deals) >= 3:
                break
        positions = []
        rng = random.Random(7)
        tries = 0
        # lowest ranks in play: a handful of choices per game, drawn at random
        lows = [3, 4, 5, 6] if rules.cells else ([10, 11] if rules.decks == 2 else [10, 11])
        while len(positions) < 1 and tries < 8000:
            tries += 1
            lay = deadlock_candidate(rules, rng, rng.choice(lows))
            a, b = both(rules, layout=lay, budget=2_000_000)
            if a == b == "unsolvable":
                positions.append({"layout": lay.to_dict(), "status": "unsolvable"})
        out[v] = {"deals": deals, "positions": positions}
        print(v, deals, len(positions), "positions after", tries, "tries", flush=True)
    (HERE / "known.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
