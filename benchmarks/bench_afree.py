"""The arrangement-free engine against the current solver, deal by deal.

    python benchmarks/bench_afree.py --variant klondike-3 --deals 1-300
    python benchmarks/bench_afree.py --variant endless-harp --deals 1-100 --nodes 1000000 --solver-nodes 2000000
    python benchmarks/bench_afree.py --variant klondike-1 --deals 1-200 --no-solver    # afree alone
    python benchmarks/bench_afree.py --variant klondike-1 --deals 1-300 --nodes 0 --against no-defer
    python benchmarks/bench_afree.py --variant klondike-3 --rule draw=1 --deals 1-300 --nodes 0 --against no-defer
    python benchmarks/bench_afree.py --variant big-harp --deals 41-140 --nodes 300000 --against order --order CFL,TF,RV,CFP,TC,TB
    python benchmarks/bench_afree.py --variant klondike-3 --deals 1-20000 --nodes 200000 --against dfs --solver-nodes 200000 --quiet
    python benchmarks/bench_afree.py --variant klondike-3 --deals 1-20000 --nodes 2000000 --against table --quiet

For every deal: ``afree.run`` (search/afree.py) at ``--nodes`` and, unless
``--no-solver``, ``harpsolve.solver.solve`` at ``--solver-nodes`` (its default
schedule) -- or, with ``--against dfs``, the complete depth-first search of the real game
(``solve(..., algorithm="dfs")``: another engine on another graph, the cross-check of
issue 10), or with ``--against table``, the verdicts of the committed table
(``--table``, default ``results/VARIANT``) that no arrangement-free engine gave: the
complete depth-first and A* searches, the dead-end test, and every solution (each one
replayed when it was found); a deal counts as decided there when such a row decided it.
This costs afree's time only, so it reaches tens of thousands of deals where a fresh
depth-first search would take hours.  Or with ``--against no-defer``, afree again without deferring
talon plays (``afree._wanted``) at ``--nodes``, or with ``--against order``,
afree again trying the move kinds in the ``--order`` given (the first run
uses the rules' own order, ``afree.default_order``).  Prints, per engine, solved /
unsolvable / unknown, the median and mean milliseconds per deal (compile time
excluded: one warm-up deal first) and the states entered, then every deal
where the two disagree.

Exits 1 on ANY disagreement (one says solved, the other unsolvable) or on an
afree solution that the reference engine does not replay: either is a bug.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time


def _range(text: str) -> list[int]:
    a, _, b = text.partition("-")
    return list(range(int(a), int(b or a) + 1))


def _other_verdicts(folder: str, rules) -> dict:
    """deal -> "solved" / "unsolvable" from the rows of ``folder`` (``rules``' fingerprint) that an
    engine other than the arrangement-free one decided.  A deal with both a solved and an
    unsolvable row (``store.conflicts``) is a bug of its own: reported and exited on."""
    from harpsolve.sweep.store import conflicts, load_results

    df = load_results([folder], columns=["deal", "rules_fingerprint", "status", "engine"]).frame
    df = df[(df["rules_fingerprint"] == rules.fingerprint()) & df["status"].isin(["solved", "unsolvable"])]
    df = df[~df["engine"].fillna("").str.contains("afree")]
    mixed = conflicts(df)
    if mixed:
        sys.exit(f"{folder}: solved and unsolvable rows for deals {[d for _, d in mixed[:20]]}")
    return dict(zip(df["deal"].astype(int), df["status"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="klondike-3")
    ap.add_argument("--deals", default="1-100")
    ap.add_argument("--nodes", type=int, default=1_000_000, help="afree's node budget (0 = none)")
    ap.add_argument("--solver-nodes", type=int, default=2_000_000, help="the solver's node budget")
    ap.add_argument("--no-solver", action="store_true", help="run afree only")
    ap.add_argument("--against", choices=("solver", "dfs", "table", "no-defer", "order"), default="solver",
                    help="the second engine: the solver, the complete depth-first search, the committed table's "
                         "verdicts from other engines, afree without deferred talon plays, or afree with --order")
    ap.add_argument("--table", default="", help="--against table: a results folder (default results/VARIANT)")
    ap.add_argument("--order", default="",
                    help="--against order: the move kinds, first tried first (TF,TC,CFL,CFP,RV,TB: talon home, "
                         "talon to a column, locked card home, face-up card home, reveal, take-back)")
    ap.add_argument("--rule", action="append", default=[], help="a rules override NAME=VALUE (repeatable)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    from harpsolve.deals import deal_layout
    from harpsolve.reference import replay
    from harpsolve.rules import get_rules
    from harpsolve.search import afree
    from harpsolve.solver import solve

    rules = get_rules(a.variant, a.rule or None)
    kinds = {"TF": afree.MK_TF, "TC": afree.MK_TC, "CFL": afree.MK_CFL, "CFP": afree.MK_CFP, "RV": afree.MK_RV,
             "TB": afree.MK_TB}
    order = None
    if a.against == "order":
        order = tuple(kinds.get(k.strip().upper(), -1) for k in a.order.split(","))
        if sorted(order) != sorted(kinds.values()):
            print(f"--order takes each of {','.join(kinds)} once, not {a.order!r}")
            return 2
    second = {"no-defer": "afree without deferral", "order": f"afree {a.order}", "dfs": "dfs",
              "table": "table"}.get(a.against, "solver")
    deals = _range(a.deals)
    folder = a.table or f"results/{rules.label}"
    table = _other_verdicts(folder, rules) if a.against == "table" else {}
    if not afree.applies(rules):
        print(f"afree does not apply to {rules.label}")
        return 2
    # warm-up: compile (or load) the kernels outside the timings
    warm = deal_layout(rules, deals[0])
    afree.run(rules, warm, max_nodes=1000)
    if not a.no_solver and a.against != "table":
        solve(rules, layout=warm, max_nodes=1000)

    rows = []
    bad = []
    for n in deals:
        lay = deal_layout(rules, n)
        t = time.perf_counter()
        r = afree.run(rules, lay, max_nodes=a.nodes)
        ta = time.perf_counter() - t
        if r.status == "solved":
            rep = replay(rules, lay, r.tokens)
            if not (rep.ok and rep.won):
                bad.append((n, f"afree solution fails replay at {rep.error_index}: {rep.error}"))
        s_status, ts, s_states = None, None, 0
        if not a.no_solver:
            t = time.perf_counter()
            if a.against == "table":
                s_status = table.get(n, "unknown")
            elif a.against in ("no-defer", "order"):
                s = afree.run(rules, lay, max_nodes=a.nodes, defer=a.against != "no-defer", order=order)
                s_status, s_states = s.status, s.states
                if s.status == "solved" and not replay(rules, lay, s.tokens).won:
                    bad.append((n, f"{second}: its solution fails replay"))
            else:
                s = solve(rules, layout=lay, max_nodes=a.solver_nodes,
                          **({"algorithm": "dfs"} if a.against == "dfs" else {}))
                s_status = s.status
            ts = time.perf_counter() - t
            if {r.status, s_status} == {"solved", "unsolvable"}:
                bad.append((n, f"afree {r.status}, {second} {s_status}"))
        rows.append((n, r.status, r.states, ta, s_status, ts, s_states))
        if not a.quiet:
            print(f"{n:7d} afree {r.status:10s} {r.states:9d} states {ta * 1000:9.1f} ms"
                  + (f"   {second} {s_status:10s} {ts * 1000:9.1f} ms" if s_status else "")
                  + (f" {s_states:9d} states" if a.against != "solver" and s_status else ""), flush=True)

    def summary(name, statuses, times, states=None):
        c = {k: statuses.count(k) for k in ("solved", "unsolvable", "unknown")}
        print(f"{name:7s} solved {c['solved']:6d}  unsolvable {c['unsolvable']:6d}  unknown {c['unknown']:6d}"
              f"   median {statistics.median(times) * 1000:8.2f} ms   mean {statistics.mean(times) * 1000:8.2f} ms"
              + (f"   states {sum(states):,}" if states is not None else ""))

    if a.no_solver:
        against = ""
    elif a.against == "table":
        against = f", the verdicts of {folder} from other engines"
    else:
        against = f", {second} at {a.nodes if a.against in ('no-defer', 'order') else a.solver_nodes} nodes"
    print(f"\n{rules.label} deals {a.deals}: afree at {a.nodes} nodes{against}")
    summary("afree", [r[1] for r in rows], [r[3] for r in rows], [r[2] for r in rows])
    if a.against in ("no-defer", "order") and not a.no_solver:
        summary(a.against, [r[4] for r in rows], [r[5] for r in rows], [r[6] for r in rows])
    elif a.against == "table" and not a.no_solver:
        c = [r[4] for r in rows]
        print(f"table   solved {c.count('solved'):6d}  unsolvable {c.count('unsolvable'):6d}  "
              f"unknown {c.count('unknown'):6d}   (by other engines)")
    elif not a.no_solver:
        summary(second, [r[4] for r in rows], [r[5] for r in rows])
    if not a.no_solver and a.against not in ("no-defer", "order"):
        both = sum(1 for r in rows if r[1] != "unknown" and r[4] != "unknown")
        print(f"decided by both: {both}")
        only_a = sum(1 for r in rows if r[1] != "unknown" and r[4] == "unknown")
        only_s = sum(1 for r in rows if r[1] == "unknown" and r[4] != "unknown")
        print(f"decided by afree only: {only_a}; by the {second} only: {only_s}")
    print(f"disagreements / bad solutions: {len(bad)}")
    for n, why in bad:
        print(f"  deal {n}: {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
