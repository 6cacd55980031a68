"""A* on real endgames: how often --shortest proves a minimal solution, and how much shorter it is.

    python benchmarks/bench_astar.py                              # every variant, deals 1-20, 30 cards left
    python benchmarks/bench_astar.py --variants klondike-1 --cards 24 --max-nodes 2000000

The endgames come from real games: for each deal the classifier solves at
300 000 nodes, the position in its solution where at most --cards cards are
not yet on the foundations.  On each, ``solve(..., algorithm="astar")``
(cost: SPEC move tokens) with the --max-nodes budget, after a warm-up that
is printed apart.  Columns: endgames; proved (A* finished: the solution is
minimal); median nodes and ms of A*; median length of the rest of the
classifier's solution and of A*'s minimal one over the proved endgames
(the saving --shortest brings); and weighted A* (W = 2) on the same
endgames: solved, median ms, and its worst length ratio to the minimum
(at most 2 by construction).
"""
from __future__ import annotations

import argparse
import statistics
import time


def endgames(variant: str, deals, cards: int, nodes: int = 300_000):
    from harpsolve.reference import Game
    from harpsolve.rules import get_rules
    from harpsolve.solver import solve

    rules = get_rules(variant)
    out = []
    for d in deals:
        r = solve(rules, d, max_nodes=nodes)
        if not r.solved:
            continue
        g = Game(rules, r.layout, undo=False)
        for i, tok in enumerate(r.moves):
            if rules.n_cards - sum(g.foundations) <= cards:
                out.append((d, g.to_layout(), len(r.moves) - i))
                break
            g.apply(tok)
    return rules, out


def main(argv=None):
    from harpsolve.rules import VARIANTS
    from harpsolve.solver import solve
    from harpsolve.sweep import cpu_model

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--cards", type=int, default=30)
    ap.add_argument("--max-nodes", type=int, default=1_000_000)
    args = ap.parse_args(argv)

    t = time.perf_counter()
    solve("klondike-1", 3, algorithm="astar", max_nodes=1000)
    print(f"{cpu_model()}; warm-up (compile or cache load, not timed): {time.perf_counter() - t:.2f} s\n")
    print("| variant | endgames | proved | A* nodes med | A* ms med | classifier rest med | minimal med | "
          "W=2 solved | W=2 ms med | W=2 worst ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for v in args.variants.split(","):
        rules, games = endgames(v.strip(), range(1, args.deals + 1), args.cards)
        proved, nodes, ms, rest, best, wms, ratios, wsolved = 0, [], [], [], [], [], [], 0
        for deal, layout, left in games:
            a = solve(rules, layout=layout, algorithm="astar", max_nodes=args.max_nodes)
            nodes.append(a.nodes)
            ms.append(a.seconds * 1e3)
            w = solve(rules, layout=layout, algorithm="wastar", weight=2, max_nodes=args.max_nodes)
            wms.append(w.seconds * 1e3)
            wsolved += w.solved
            if a.solved:
                proved += 1
                rest.append(left)
                best.append(len(a.moves))
                if w.solved:
                    ratios.append(len(w.moves) / len(a.moves))

        def med(xs, d=0):
            return f"{statistics.median(xs):,.{d}f}" if xs else "–"

        print(f"| {v} | {len(games)} | {proved} | {med(nodes)} | {med(ms, 1)} | {med(rest)} | {med(best)} | "
              f"{wsolved} | {med(wms, 1)} | {max(ratios):.2f} |" if ratios else
              f"| {v} | {len(games)} | {proved} | {med(nodes)} | {med(ms, 1)} | {med(rest)} | {med(best)} | "
              f"{wsolved} | {med(wms, 1)} | – |", flush=True)


if __name__ == "__main__":
    main()
