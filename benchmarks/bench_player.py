"""The sampling player's cost and wins, settings side by side on the same deals.

    python benchmarks/bench_player.py easy-harp --deals 1-10
    python benchmarks/bench_player.py klondike-3 --deals 1-200 --samples 1,3,10,30
    python benchmarks/bench_player.py klondike-1 --deals 1-100 --policy rules,hop
    python benchmarks/bench_player.py klondike-3 --deals 1-200 --policy hop,hop-action --scout 0,1
    python benchmarks/bench_player.py klondike-3 --deals 361-560 --policy hop-action --samples 5,10,20,40,80 \
        --quiet --csv results/players-samples-klondike-3.csv     # the notebook's samples-versus-rate curve

Every setting plays every deal in this one process (``player.play``, what ``harpsolve play``
and ``sweep --play`` run), the settings taking turns deal by deal so that a noisy machine
hurts them alike; the solver's kernels are loaded first (``solver.warm_up``), so compile time
is not counted.  Prints per setting: games won (with the 95 % Wilson interval), seconds a
game (median, mean), solver calls and nodes a game (median).  ``--samples`` lists several
values for the sampling players: the samples-versus-rate curve; ``--scout 0,1`` plays each
sampling setting without and with the stock scout.  ``--csv PATH`` also writes the table, one
row per setting (what ``notebooks/winrates.py`` plots).
"""
from __future__ import annotations

import argparse
import statistics
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("--deals", default="1-10")
    ap.add_argument("--policy", default="hop", help="comma-separated: hop, hop-action, rules")
    ap.add_argument("--samples", default="", help="sampling players: comma-separated sample counts "
                                                 "[default: the player's]")
    ap.add_argument("--max-nodes", type=int, default=0, help="sampling players: nodes per sampled world "
                                                            "[default: the player's]")
    ap.add_argument("--scout", default="", help="sampling players: comma-separated 0 (no scout), 1 (scout) "
                                                "[default: the player's]")
    ap.add_argument("--boost", type=int, default=0, help="sampling players: budget multiple at most when no "
                                                        "world is solved [default: the player's]")
    ap.add_argument("--widen", default="", help="hop-action: comma-separated longest actions scored that no plan "
                                                "proposed (0: none) [default: the player's]")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--csv", help="also write the table to this CSV file")
    a = ap.parse_args(argv)

    from harpsolve.deals import deal_layout
    from harpsolve.player import DEFAULT_BOOST, DEFAULT_MAX_NODES, DEFAULT_SAMPLES, DEFAULT_WIDEN, PlaySettings, play
    from harpsolve.rules import get_rules
    from harpsolve.solver import warm_up
    from harpsolve.stats import wilson
    from harpsolve.sweep import parse_range

    rules = get_rules(a.variant)
    deals = parse_range(a.deals)
    settings = []
    for policy in a.policy.split(","):
        if PlaySettings(policy).sampling:
            widths = a.widen.split(",") if a.widen and policy == "hop-action" else [DEFAULT_WIDEN]
            for n in (a.samples.split(",") if a.samples else [DEFAULT_SAMPLES]):
                for scout in (a.scout.split(",") if a.scout else [None]):
                    for widen in widths:
                        settings.append(PlaySettings(policy, samples=int(n), max_nodes=a.max_nodes or DEFAULT_MAX_NODES,
                                                     scout=None if scout is None else int(scout),
                                                     boost=a.boost or DEFAULT_BOOST, widen=int(widen)))
        else:
            settings.append(PlaySettings(policy))
    warm_up(rules, deal_layout(rules, deals[0]))
    games = {s.label: [] for s in settings}
    for d in deals:
        layout = deal_layout(rules, d)
        for s in settings:
            g = play(rules, layout, s.make_policy(rules), s.max_moves)
            games[s.label].append(g)
            if not a.quiet:
                print(f"deal {d:>6}  {s.label:<68} {'won ' if g.won else 'lost'}  {g.seconds:7.2f} s  "
                      f"{g.stats.get('solves', 0):>6,} solves", file=sys.stderr)
    print(f"{a.variant} deals {a.deals}: {len(deals)} games per setting")
    print(f"{'setting':<68} {'won':>5} {'rate':>7} {'95% CI':>16} {'s median':>9} {'s mean':>8} "
          f"{'solves med':>10} {'nodes med':>10}")
    rows = []
    for s in settings:
        gs = games[s.label]
        won = sum(g.won for g in gs)
        lo, hi = wilson(won, len(gs))
        secs = [g.seconds for g in gs]
        rows.append(dict(variant=a.variant, deals=a.deals, policy=s.policy, samples=s.samples if s.sampling else 0,
                         max_nodes=s.max_nodes if s.sampling else 0, scout=s.scout, label=s.label, games=len(gs),
                         won=won, rate=won / len(gs), ci_low=lo, ci_high=hi, s_median=statistics.median(secs),
                         s_mean=statistics.fmean(secs),
                         solves_median=statistics.median(g.stats.get("solves", 0) for g in gs),
                         nodes_median=statistics.median(g.stats.get("nodes", 0) for g in gs)))
        r = rows[-1]
        print(f"{s.label:<68} {won:>5} {100 * r['rate']:>6.1f}% {f'[{100 * lo:.1f}, {100 * hi:.1f}]':>16} "
              f"{r['s_median']:>9.2f} {r['s_mean']:>8.2f} {r['solves_median']:>10,.0f} {r['nodes_median']:>10,.0f}")
    if a.csv:
        import csv

        with open(a.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
