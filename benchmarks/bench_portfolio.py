"""The restart portfolio (search/restarts.py) against the plain solver, on the same deals.

    python benchmarks/bench_portfolio.py --variant easy-harp --deals 1-200 --max-nodes 500000
    python benchmarks/bench_portfolio.py --variant harp --deals 1-100 --modes plain,portfolio

Modes, each over the whole deal range in this process, one after another:

  plain        ``solver.solve`` at the budget (its default schedule)
  portfolio    ``restarts.run(streamline=False)``: the complete rounds only
  streamline   ``restarts.run()``: the rounds with the streamlined configurations among the complete ones

Every run first solves deal 1 at a small budget (kernels compiled or loaded
from the cache, never timed).  Columns: solved / unsolvable / unknown, the
milliseconds per deal (median and mean: the wall time of the call,
solution tokens and the reference replay included), nodes per deal (mean),
and the deals only this mode solved.  One run, on a shared machine: compare
the modes side by side, not with figures of another day.
"""
from __future__ import annotations

import argparse
import statistics
import time

from harpsolve.deals import deal_layout
from harpsolve.rules import get_rules
from harpsolve.search import restarts
from harpsolve.solver import solve

MODES = ("plain", "portfolio", "streamline")


def one(mode: str, rules, deal: int, max_nodes: int):
    if mode == "plain":
        r = solve(rules, deal, max_nodes=max_nodes)
        return r.status, r.nodes
    r = restarts.run(rules, deal_layout(rules, deal), max_nodes=max_nodes, streamline=mode == "streamline")
    return r.status, r.nodes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="easy-harp")
    ap.add_argument("--deals", default="1-200", help="a range lo-hi")
    ap.add_argument("--max-nodes", type=int, default=500_000)
    ap.add_argument("--modes", default=",".join(MODES))
    args = ap.parse_args(argv)
    rules = get_rules(args.variant)
    lo, hi = (int(x) for x in args.deals.split("-"))
    modes = args.modes.split(",")
    for m in modes:
        one(m, rules, 1, 2_000)  # warm-up
    rows, solved_by = [], {}
    for m in modes:
        ms, nodes, statuses, solved = [], [], {}, set()
        for d in range(lo, hi + 1):
            t = time.perf_counter()
            status, n = one(m, rules, d, args.max_nodes)
            ms.append((time.perf_counter() - t) * 1000)
            nodes.append(n)
            statuses[status] = statuses.get(status, 0) + 1
            if status == "solved":
                solved.add(d)
        solved_by[m] = solved
        rows.append((m, statuses, statistics.median(ms), statistics.mean(ms), statistics.mean(nodes)))
    print(f"{args.variant} deals {args.deals}, {args.max_nodes:,} nodes per deal\n")
    print("| mode | solved | unsolvable | unknown | ms median | ms mean | nodes mean | solved only here |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for m, s, med, mean, nm in rows:
        others = set().union(*(v for k, v in solved_by.items() if k != m)) if len(modes) > 1 else set()
        only = len(solved_by[m] - others)
        print(f"| {m} | {s.get('solved', 0)} | {s.get('unsolvable', 0)} | {s.get('unknown', 0)} | "
              f"{med:.1f} | {mean:.1f} | {nm:,.0f} | {only} |")


if __name__ == "__main__":
    main()
