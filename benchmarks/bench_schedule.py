"""One row of the portfolio schedule at several shares, side by side on the same deals.

    python benchmarks/bench_schedule.py klondike-3 --row relax --weights 0.5,4,8,16 --deals 1-300
    python benchmarks/bench_schedule.py klondike-3 --row relax --weights 8,16 --hard 25
    python benchmarks/bench_schedule.py big-harp --row relax --weights 0.5,8,16 --deals 1-60 --max-nodes 500000
    python benchmarks/bench_schedule.py endless-harp --row afree-both --weights 0,20 --deals 1-200   # 0: row left out
    python benchmarks/bench_schedule.py big-harp --row beam --weights 0,32/0,32 --deals 60001-61200 --every 20 --max-nodes 2000000

A setting ``W/T`` also sets the row's total (``Entry.total``: the row stops for good after T
nodes; ``W/0``: no total).  A row of the engine that several game conditions split (the beam:
one row for the single-card games, one where runs move and passes are limited) changes in
every game it applies to.

Every setting solves every deal (``engine.run`` with ``search/engine.py``'s PORTFOLIO, the
row's weight replaced), the settings taking turns deal by deal so that a noisy machine
hurts them alike; compile time excluded (``solver.warm_up`` first).  ``--hard K`` takes
every K-th deal of ``results/VARIANT`` that was decided only by the 20 000 000-node retry
(the hard tail).  Prints each deal's status, engine and seconds per setting, then per
setting: unknown count, mean, median and total seconds.  Exits 1 if two settings disagree
(solved against unsolvable) on a deal.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("--row", default="relax", help="the schedule row whose share changes")
    ap.add_argument("--weights", default="0.5,8")
    ap.add_argument("--deals", default="")
    ap.add_argument("--every", type=int, default=1, help="every N-th deal of --deals")
    ap.add_argument("--hard", type=int, default=0, help="every K-th deal the 20 M retry decided")
    ap.add_argument("--max-nodes", type=int, default=20_000_000)
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    from harpsolve import solver
    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import engine
    from harpsolve.sweep import parse_range

    rules = get_rules(a.variant)
    if a.hard:
        import pyarrow.dataset as ds

        t = ds.dataset(os.path.join(ROOT, "results", a.variant)).to_table(
            columns=["deal", "status", "max_nodes"]).to_pandas()
        deals = sorted(t[(t.max_nodes == 20_000_000) & (t.status != "unknown")].deal)[::a.hard]
    else:
        deals = parse_range(a.deals or "1-100")[::a.every]
    settings = [w.partition("/") for w in a.weights.split(",")]
    if a.row not in {e.engine for e in engine.PORTFOLIO.entries}:
        print(f"no row {a.row!r} in the portfolio")
        return 2

    # weight 0: the row left out (a share of 0 nodes would mean "no limit" to an engine)
    def changed(e, w, total):  # total "": the row's own
        e = dataclasses.replace(e, weight=float(w))
        return dataclasses.replace(e, total=int(total)) if total != "" else e

    weights = [w + (f"/{t}" if sep else "") for w, sep, t in settings]
    scheds = [engine.Schedule(f"{a.row}={label}", "rounds", tuple(
        changed(e, w, t) if e.engine == a.row else e for e in engine.PORTFOLIO.entries
        if not (e.engine == a.row and float(w) == 0)))
        for label, (w, _, t) in zip(weights, settings)]
    solver.warm_up(rules)
    res = {w: [] for w in weights}
    bad = []
    for d in deals:
        lay = deal_layout(rules, d)
        row = [f"{d:7d}"]
        for w, sc in zip(weights, scheds):
            pos = engine.Position(rules, lay, cuts=solver.ALL_CUTS)
            t0 = time.perf_counter()
            out = engine.run(pos, sc, max_nodes=a.max_nodes, max_memory=2 << 30)
            res[w].append((out.status, time.perf_counter() - t0, out.nodes))
            row.append(f"{out.status[:5]} {out.engine[:14]:14s} {res[w][-1][1]:7.3f}")
        if {res[w][-1][0] for w in weights} >= {"solved", "unsolvable"}:
            bad.append(d)
        if not a.quiet:
            print(*row, flush=True)
    print(f"\n{rules.label}: {len(deals)} deals, {a.max_nodes} nodes, row {a.row}")
    for w in weights:
        ts = [x[1] for x in res[w]]
        unk = sum(1 for x in res[w] if x[0] == "unknown")
        ns = [x[2] for x in res[w]]
        print(f"{a.row} weight {w}: unknown {unk}  mean {statistics.mean(ts):.3f} s  "
              f"median {statistics.median(ts):.4f} s  total {sum(ts):.1f} s  "
              f"nodes mean {statistics.mean(ns):,.0f} median {statistics.median(ns):,.0f}")
    if bad:
        print("solved/unsolvable disagreements on deals", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
