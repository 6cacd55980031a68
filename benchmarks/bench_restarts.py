"""Every restart configuration alone, deal by deal: what ``search/restarts.py``'s CONFIGS is measured on.

    python benchmarks/bench_restarts.py easy-harp --deals 101-300 --cap 20000 --seeds 3
    python benchmarks/bench_restarts.py harp --deals 1-60 --cap 50000 --out harp.parquet

For every deal and every configuration -- weight set k of ``WEIGHT_SETS``, plain or
streamlined, and for the noisy sets each of ``--seeds`` seeds (the seeds of rounds 1, 2, ...)
-- one depth-first search with a fresh table and at most ``--cap`` nodes, as one restart run
is.  Prints per configuration how many deals it solved, then replays the restart schedule
(``restarts.Runs``: CONFIGS, BASE_NODES doubling) against these figures: the nodes each deal
would cost under it (only runs within the cap are known, so the replay stops there), against
the best single configuration run alone.  Exits 1 if a plain run exhausts a deal that another
run solves (an exhausted plain run is a proof: that would be a bug).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("--deals", default="1-100")
    ap.add_argument("--cap", type=int, default=20_000, help="nodes per run")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per noisy weight set")
    ap.add_argument("--out", default="", help="save the per-run rows as Parquet")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import dfs, restarts
    from harpsolve.state import pack
    from harpsolve.sweep import parse_range

    rules = get_rules(a.variant)
    deals = parse_range(a.deals)
    buf = restarts._Buffers()
    configs = [(k, s, r) for s in (False, True) for k, (_, noise) in enumerate(restarts.WEIGHT_SETS)
               for r in range(1, (a.seeds if noise else 1) + 1)]
    need: dict[int, dict] = {}   # deal -> (k, streamlined, round) -> nodes to solve (None: not within the cap)
    bad = []
    t0 = time.perf_counter()
    for d in deals:
        root = pack(deal_layout(rules, d), rules)
        row, exhausted = {}, False
        for k, s, r in configs:
            p = restarts.run_params(rules, k, r, streamlined=s)
            code, _, srch = restarts._one_run(buf, root, p, a.cap, None, 1 << 30)
            row[(k, s, r)] = srch.nodes if code == dfs.R_SOLVED else None
            exhausted |= code == dfs.R_EXHAUSTED and srch.complete and not s
        if exhausted and any(v is not None for v in row.values()):
            bad.append(d)
        need[d] = row
        if not a.quiet:
            print(f"deal {d}: {sum(v is not None for v in row.values())} of {len(configs)} runs solved "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    print(f"{a.variant} deals {a.deals}: {len(deals)} deals, {len(configs)} runs each, at most {a.cap:,} nodes a run")
    union = sum(any(v is not None for v in row.values()) for row in need.values())
    print(f"solved by at least one run: {union}")
    print(f"{'configuration':<22} solved")
    for c in configs:
        n = sum(need[d][c] is not None for d in deals)
        print(f"set {c[0]} {'streamlined' if c[1] else 'plain':<11} r{c[2]}  {n:>6}")

    def replay(runs) -> list:
        costs = []
        for d in deals:
            used, cost = 0, None
            for rnd, k, s, cap in runs():
                if cap > a.cap:
                    break
                key = (k, s, min(rnd, a.seeds) if restarts.WEIGHT_SETS[k][1] else 1)
                n = need[d].get(key)
                if n is not None and n <= cap:
                    cost = used + n
                    break
                used += cap
            costs.append(cost)
        return costs

    def line(name, costs):
        got = sorted(c for c in costs if c is not None)
        med = statistics.median(got) if got else 0
        print(f"{name:<34} solved {len(got):>4}  nodes median {med:>9,.0f}  mean {statistics.fmean(got) if got else 0:>9,.0f}")

    print("replayed within the cap (nodes until the solving run ends; noisy sets past the last seed reuse it):")
    line(f"restarts.Runs (base {restarts.BASE_NODES})", replay(lambda: restarts.Runs(0)))
    best = max(configs, key=lambda c: sum(need[d][c] is not None for d in deals))
    line(f"best single: set {best[0]} {'s' if best[1] else 'p'} r{best[2]}, alone",
         [need[d][best] for d in deals])
    if a.out:
        import pandas as pd

        pd.DataFrame([dict(deal=d, k=c[0], streamlined=c[1], seed_round=c[2], nodes=v)
                      for d in deals for c, v in need[d].items()]).to_parquet(a.out)
    if bad:
        print(f"CONTRADICTION: a plain run exhausted deals another run solved: {bad}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
