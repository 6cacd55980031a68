"""Cross-check the committed tables against each other through the order of the games.

A game whose every move another game also allows (``relax._includes``, read off the rules
fields: draw 1 allows what draw 3 does, unlimited passes what a limit does, runs what single
cards do, ...) is the stronger of the two: a deal it wins is won in the weaker game too, and a
deal the weaker game loses is lost in it.  So for every pair of folders under ``results/`` whose
games are so ordered, and whose deals are the same layouts (checked on the first deals), a deal
solved in the stronger game and proved unsolvable in the weaker one is a contradiction: one of
the two verdicts is wrong.  The script prints each pair, how many deals both decided, how many
the weaker game's table proves that the stronger one's leaves unknown (verdicts the stronger
table could take over), and every contradiction; it exits 1 if there is one.

    python benchmarks/check_tables.py                 # every pair of the committed tables
    python benchmarks/check_tables.py --results PATH  # another results folder

The pairs of today's tables: harp < easy-harp, big-harp < endless-harp, klondike-3 < klondike-1
(``<``: every move of the left game exists in the right one).  Folders with rules overrides
(``…-rules``) and the players' folders are left out: their rows are not one verdict per deal.
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_DEALS = (1, 2, 3, 1000, 999_999)  # deals whose layouts must agree for two tables to be compared


def same_deals(a, b) -> bool:
    """Do the two games deal the same layout from the same number (``SAMPLE_DEALS``)?"""
    from harpsolve.deals import deal_layout

    return all(deal_layout(a, d) == deal_layout(b, d) for d in SAMPLE_DEALS)


def ordered_pairs(names: list[str]):
    """(stronger, weaker) variant pairs among ``names``: every move of the stronger game exists in
    the weaker, and the two deal the same layouts."""
    from harpsolve.rules import get_rules
    from harpsolve.search.relax import _includes

    rules = {n: get_rules(n) for n in names}
    for s in names:
        for w in names:
            if s != w and _includes(rules[w], rules[s]) and same_deals(rules[s], rules[w]):
                yield s, w


def main(argv=None) -> int:
    sys.path.insert(0, ROOT)
    import pandas as pd

    from harpsolve import sweep as sw
    from harpsolve.rules import VARIANTS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    a = ap.parse_args(argv)
    names = [n for n in VARIANTS if os.path.isdir(os.path.join(a.results, n))]
    best = {}
    for n in names:
        df = sw.best_rows(sw.load_results([os.path.join(a.results, n)]).frame)
        best[n] = df.set_index("deal")["status"]
    bad = 0
    for s, w in ordered_pairs(names):
        j = pd.concat([best[s].rename("s"), best[w].rename("w")], axis=1, join="inner")
        both = j[(j.s != "unknown") & (j.w != "unknown")]
        taken = j[(j.s == "unknown") & (j.w == "unsolvable")]
        wrong = j[(j.s == "solved") & (j.w == "unsolvable")]
        print(f"{s} (stronger) against {w}: {len(j):,} deals in both tables, {len(both):,} decided in both; "
              f"{len(taken)} unknown in {s} and proved unsolvable in {w}{': ' + str(list(taken.index)) if len(taken) else ''}; "
              f"contradictions {len(wrong)}")
        for d in wrong.index:
            print(f"CONTRADICTION: deal {d} is solved in {s} and proved unsolvable in {w}")
        bad += len(wrong)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
