"""The proved cuts (state.CUT_*) side by side: none, each alone, all.

    python benchmarks/bench_cuts.py --variants klondike-3 --deals 1-200 --max-nodes 200000
    python benchmarks/bench_cuts.py --variants endless-harp --deals 1-100 --max-nodes 200000

Every setting runs the complete depth-first search only (``algorithm="dfs"``,
so a verdict is the search's own and the node counts compare like with
like) on the same deals, one after another in this process, after one
warm-up solve (compile time excluded).  Per setting: solved / unsolvable /
unknown, median and mean milliseconds per deal, mean nodes per deal.
Every solution is replayed by ``solve``; a deal that one setting solves and
another proves unsolvable is a soundness bug: the run prints it and exits 1.
"""
from __future__ import annotations

import argparse
import statistics
import sys

from harpsolve.solver import solve
from harpsolve.state import ALL_CUTS, CUT_KELLER, CUT_PURE, CUT_SAFE_PLAY

SETTINGS = [("none", 0), ("keller", CUT_KELLER), ("safe-play", CUT_SAFE_PLAY), ("pure", CUT_PURE),
            ("all", ALL_CUTS)]


def _range(text: str) -> list[int]:
    a, _, b = text.partition("-")
    return list(range(int(a), int(b or a) + 1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="klondike-3")
    ap.add_argument("--deals", default="1-100")
    ap.add_argument("--max-nodes", type=int, default=200_000)
    args = ap.parse_args(argv)
    deals = _range(args.deals)
    bad = 0
    for variant in args.variants.split(","):
        solve(variant, deals[0], max_nodes=1000, algorithm="dfs")  # warm-up: compile or load kernels
        verdicts: dict[int, dict[str, str]] = {d: {} for d in deals}
        print(f"\n#### {variant}, deals {args.deals}, DFS only, {args.max_nodes:,} nodes per deal\n")
        print("| cuts | solved | unsolvable | unknown | ms median | ms mean | nodes mean |")
        print("|---|---|---|---|---|---|---|")
        for name, cuts in SETTINGS:
            ms, nodes, count = [], [], {"solved": 0, "unsolvable": 0, "unknown": 0}
            for d in deals:
                r = solve(variant, d, max_nodes=args.max_nodes, algorithm="dfs", cuts=cuts)
                count[r.status] += 1
                ms.append(r.seconds * 1000)
                nodes.append(r.nodes)
                verdicts[d][name] = r.status
            print(f"| {name} | {count['solved']} | {count['unsolvable']} | {count['unknown']} | "
                  f"{statistics.median(ms):.1f} | {statistics.fmean(ms):.1f} | {statistics.fmean(nodes):,.0f} |",
                  flush=True)
        for d, v in verdicts.items():
            if {"solved", "unsolvable"} <= set(v.values()):
                print(f"DISAGREEMENT {variant} deal {d}: {v}", file=sys.stderr)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
