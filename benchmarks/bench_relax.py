"""How many deals each proof of search/relax.py decides: the root dead-end test, then each weaker game.

    PYTHONPATH=. python benchmarks/bench_relax.py klondike-3 1 300 --max-nodes 100000

Prints per variant: deals proved by the dead-end test, deals proved by each relaxation (only
among those the dead-end test left), the dead-end test's mean time per deal (compile excluded).
"""
from __future__ import annotations

import argparse
import statistics
import time

from harpsolve.deals import deal_layout
from harpsolve.rules import get_rules
from harpsolve.search import relax
from harpsolve.search.relax import _dead_end
from harpsolve.state import kernel_params, pack


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variant")
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--max-nodes", type=int, default=100_000, help="node budget of run() per deal")
    ap.add_argument("--no-relaxed", action="store_true", help="the dead-end test only")
    a = ap.parse_args()
    rules = get_rules(a.variant)
    p = kernel_params(rules)
    deals = range(a.first, a.last + 1)
    states = [pack(deal_layout(rules, d), rules) for d in deals]
    _dead_end(states[0], p)  # compile
    times, dead = [], []
    for d, st in zip(deals, states):
        t = time.perf_counter()
        x = _dead_end(st, p)
        times.append(time.perf_counter() - t)
        if x >= 0:
            dead.append(d)
    print(f"{rules.label} deals {a.first}-{a.last}: dead end at the root {len(dead)} {dead[:30]}")
    print(f"  dead-end test per deal: median {statistics.median(times) * 1e6:.0f} us, "
          f"mean {statistics.mean(times) * 1e6:.0f} us")
    if a.no_relaxed:
        return
    by = {}
    for d in deals:
        if d in dead:
            continue
        r = relax.run(rules, deal_layout(rules, d), max_nodes=a.max_nodes)
        if r.status == "unsolvable":
            by.setdefault(r.proof, []).append(d)
    for proof, ds in by.items():
        print(f"  {proof}: {len(ds)} {ds[:30]}")
    print(f"  relaxations ({[r.proof for r in relax.relaxations(rules)]}, {a.max_nodes} nodes a deal): "
          f"{sum(map(len, by.values()))} more")


if __name__ == "__main__":
    main()
