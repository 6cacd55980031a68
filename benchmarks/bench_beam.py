"""Beam searches (search/beam.py) alone, deal by deal: which widths and weight sets win.

    python benchmarks/bench_beam.py easy-harp --unknown-of results/easy-harp --every 48
    python benchmarks/bench_beam.py harp --unknown-of results/harp --limit 20
    python benchmarks/bench_beam.py big-harp --unknown-of results/big-harp --limit 12 --widths 16,64,256,1024
    python benchmarks/bench_beam.py easy-harp --deals 1-100 --widths 16 --sets 3
    python benchmarks/bench_beam.py big-harp --deals 80001-82000 --every 50 --widths 64 --sets 5 \
        --nodes 512000 --caps 0,1

For each deal the runs go widths x weight sets (``--sets``: indices of search/restarts.py's
WEIGHT_SETS; by default the game's, search/beam.py ``sets_for``), narrow first, each a fresh
beam of at most ``--nodes`` children, until one wins; every win is turned into tokens and
replayed by the reference engine (exit 1 if one does not replay).  ``--caps``: the beams'
stock cap (search/beam.py STOCK_CAP; 0 = by key alone), each cap in turn over the same deals,
a summary each.  ``--stall``: end a run after that many depths without progress (search/beam.py
STALL_DEPTHS; by default the game's, ``stall_for``; 0 = never).  ``--aggressive on|off``: movegen's
aggressive rule in the beams (by default the game's, ``aggressive_for``).  The deals are ``--deals`` or
those ``--unknown-of`` a results folder leaves unknown (every ``--every``-th of either, the
first ``--limit``).  Prints each deal's runs (how each ended, its children, seconds) and, at
the end, the deals won, by the width that won them, and the nodes of the winning runs; compile
time excluded (a first beam before the clock starts).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("--deals", default="", help="a deal range, e.g. 1-300")
    ap.add_argument("--unknown-of", default="", metavar="FOLDER", help="the deals this results folder leaves unknown")
    ap.add_argument("--every", type=int, default=1, help="every N-th of the deals")
    ap.add_argument("--limit", type=int, default=0, help="only the first N deals")
    ap.add_argument("--widths", default="16,64,256,1024")
    ap.add_argument("--sets", default=None, help="weight sets (default: the game's, beam.sets_for)")
    ap.add_argument("--nodes", type=int, default=3_000_000, help="children a run makes at most")
    ap.add_argument("--caps", default=None, help="stock caps to compare (default: beam.STOCK_CAP)")
    ap.add_argument("--stall", type=int, default=None, help="depths without progress that end a run "
                                                               "(default: the game's, beam.stall_for; 0: never)")
    ap.add_argument("--aggressive", choices=("on", "off"), default=None,
                    help="movegen's aggressive rule in the beams (default: the game's, beam.aggressive_for)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import beam
    from harpsolve.state import pack
    from harpsolve.sweep.jobs import parse_range
    from harpsolve.sweep.store import deals_by_status

    rules = get_rules(a.variant)
    if a.deals:
        deals = parse_range(a.deals)[::a.every]
    elif a.unknown_of:
        deals = deals_by_status(a.unknown_of, rules).get("unknown", [])[::a.every]
    else:
        sys.exit("give --deals or --unknown-of")
    if a.limit:
        deals = deals[: a.limit]
    widths = [int(w) for w in a.widths.split(",")]
    sets = [int(k) for k in a.sets.split(",")] if a.sets else list(beam.sets_for(rules))
    caps = [int(c) for c in a.caps.split(",")] if a.caps else [beam.STOCK_CAP]
    beam.BeamSearch(pack(deal_layout(rules, 1), rules), params(rules, sets[0], a), 4).advance(1000)  # compile
    bad = []
    for cap in caps:
        bad += one_setting(rules, deals, widths, sets, cap, a)
    if bad:
        print("wins that do not replay:", bad)
    return 1 if bad else 0


def params(rules, k, a):
    """The kernel vector of a run of weight set ``k`` (round 1): the engine's (beam.run_params),
    or with ``--aggressive`` as asked."""
    from harpsolve.search import beam, restarts

    if a.aggressive is None:
        return beam.run_params(rules, k, 1)
    return restarts.run_params(rules, k, 1, streamlined=False, aggressive=a.aggressive == "on")


def one_setting(rules, deals, widths, sets, cap, a):
    from harpsolve.deals import deal_layout
    from harpsolve.reference import replay
    from harpsolve.search import beam
    from harpsolve.search.shortcut import line_tokens
    from harpsolve.state import pack

    won_by: dict[int, int] = {}
    win_nodes, bad = [], []
    t_all = time.perf_counter()
    for d in deals:
        layout = deal_layout(rules, d)
        root = pack(layout, rules)
        runs, hit = [], None
        for w in widths:
            for k in sets:
                p = params(rules, k, a)
                t0 = time.perf_counter()
                s = beam.BeamSearch(root, p, w, cap, stall=beam.stall_for(rules) if a.stall is None else a.stall)
                status, why = s.advance(a.nodes)
                runs.append(f"w{w}.{k} {why or status} {s.nodes} {time.perf_counter() - t0:.2f}s")
                if status == "solved":
                    tokens = line_tokens(root, s.line(), p)
                    if not replay(rules, layout, tokens).won:
                        bad.append(d)
                    hit = w
                    win_nodes.append(s.nodes)
                    break
            if hit:
                break
        if hit:
            won_by[hit] = won_by.get(hit, 0) + 1
        if not a.quiet:
            print(f"{d:7d} {'won ' if hit else '----'} " + " | ".join(runs), flush=True)
    print(f"\n{rules.label}: {len(deals)} deals, widths {a.widths}, weight sets {','.join(map(str, sets))}, "
          f"stock cap {cap}, {a.nodes} children a run, {time.perf_counter() - t_all:.1f} s in all")
    print(f"won {sum(won_by.values())}: " + ", ".join(f"{n} at width {w}" for w, n in sorted(won_by.items())))
    if win_nodes:
        print(f"winning runs: median {statistics.median(win_nodes):,.0f} children, mean {statistics.mean(win_nodes):,.0f}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
