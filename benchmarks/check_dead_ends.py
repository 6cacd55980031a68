"""Cross-check the committed dead-end proofs against a complete engine.

The root dead-end test (search/relax.py) proves a deal unsolvable in linear
time.  This script draws deals whose best row in ``results/VARIANT`` carries a
``dead end: …`` proof and searches each with the arrangement-free engine
(search/afree.py, a complete search with its own proof) or, where that does
not apply, the complete depth-first search.  Any deal it solves is a
contradiction: the script prints it and exits 1.

    python benchmarks/check_dead_ends.py klondike-3 --sample 150 --nodes 1000000
    python benchmarks/check_dead_ends.py endless-harp --sample 0     # every dead-end deal
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> int:
    sys.path.insert(0, ROOT)
    from harpsolve import sweep as sw
    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import afree
    from harpsolve.solver import solve

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    ap.add_argument("--sample", type=int, default=100, help="deals to draw (0 = all)")
    ap.add_argument("--nodes", type=int, default=1_000_000, help="budget of each complete search")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    rules = get_rules(a.variant)
    df = sw.best_rows(sw.load_results([os.path.join(a.results, a.variant)]).frame)
    dead = [int(d) for d in df[df["proof"].fillna("").str.startswith("dead end")]["deal"]]
    random.Random(a.seed).shuffle(dead)
    picked = dead if a.sample == 0 else dead[:a.sample]
    tally: dict[str, int] = {}
    t0 = time.perf_counter()
    bad = []
    for d in picked:
        layout = deal_layout(rules, d)
        if afree.applies(rules):
            status = afree.run(rules, layout, max_nodes=a.nodes).status
        else:
            status = solve(rules, layout=layout, algorithm="dfs", max_nodes=a.nodes, verify=True).status
        tally[status] = tally.get(status, 0) + 1
        if status == "solved":
            bad.append(d)
            print(f"CONTRADICTION: deal {d} has a dead-end proof and a solution", flush=True)
    print(f"{a.variant}: {len(dead)} dead-end deals, {len(picked)} checked at {a.nodes:,} nodes "
          f"(seed {a.seed}): {tally}; {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
