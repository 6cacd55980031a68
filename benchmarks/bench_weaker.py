"""The weaker games of a variant, searched alone by the arrangement-free engine, deal by deal.

    python benchmarks/bench_weaker.py easy-harp --unknown-of results/easy-harp --states 1000000
    python benchmarks/bench_weaker.py harp --unknown-of results/harp --limit 2000 --states 1000000
    python benchmarks/bench_weaker.py harp --unknown-of results/harp --limit 216 --states 2000000 --game column_moves=runs
    python benchmarks/bench_weaker.py klondike-3 --deals 1-300 --states 200000

A deal that a more permissive game cannot win is lost (search/relax.py); this shows how often
that happens and what it costs, which is what decides whether a weaker game is worth a share of
the portfolio.  The games are those ``relax.relaxations`` offers that the arrangement-free engine
searches, or the one given with ``--game`` (rules overrides, checked to allow every move of the
variant: a game that still has a pass limit, say, which ``relaxations`` leaves out).  The deals
are ``--deals`` or the deals ``--unknown-of`` a results folder leaves unknown (the first
``--limit`` of them).  Each game is searched to ``--states`` states with no table limit but
``--max-memory``; a win is not turned into real moves (it proves nothing).

Prints per game: won, proved unsolvable (the deals), undecided (the first 30), the median
states of a win and the seconds in all.  Exits 1 if a deal that a results folder (``--unknown-of``,
or ``--table``) has solved is found unsolvable in a weaker game: a bug in one of the engines.
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
    ap.add_argument("--table", default="", metavar="FOLDER", help="results to check the verdicts against (default: --unknown-of)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N deals")
    ap.add_argument("--states", type=int, default=1_000_000)
    ap.add_argument("--max-memory", default="4G")
    ap.add_argument("--game", action="append", default=[], metavar="NAME=VALUE",
                    help="search this weaker game (rules overrides, repeatable) instead of relax.relaxations'")
    a = ap.parse_args(argv)

    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules, with_overrides
    from harpsolve.search import afree, relax
    from harpsolve.search.settings import parse_size
    from harpsolve.sweep.jobs import parse_range
    from harpsolve.sweep.store import deals_by_status

    rules = get_rules(a.variant)
    if a.game:
        game = with_overrides(rules, a.game)
        if game == rules or not relax._includes(game, rules):
            sys.exit(f"--game {','.join(a.game)}: not a more permissive game than {a.variant}")
        games = [(",".join(a.game), game)]
    else:
        games = [(row.proof.removeprefix("relaxed: "), row.relax(rules)) for row in relax.relaxations(rules)]
    if not a.deals and not a.unknown_of:
        sys.exit("give --deals or --unknown-of")
    folder = a.table or a.unknown_of
    by_status = deals_by_status(folder, rules) if folder else {}
    solved_in_table = set(by_status.get("solved", ()))
    deals = parse_range(a.deals) if a.deals else by_status.get("unknown", [])
    if a.limit:
        deals = deals[: a.limit]
    cap = parse_size(a.max_memory)
    bad = 0
    for label, game in games:
        if not afree.applies(game):
            print(f"{a.variant} [{label}]: not a game the arrangement-free engine searches")
            continue
        afree.Search(game, deal_layout(game, deals[0]), concretise=False).advance(1000)  # compile
        won, lost, open_, wins = 0, [], [], []
        t0 = time.perf_counter()
        for d in deals:
            s = afree.Search(game, deal_layout(game, d), concretise=False)
            r = s.advance(a.states, reserve=lambda b: b <= cap)
            if r.status == "solved":
                won += 1
                wins.append(r.states)
            elif r.status == "unsolvable":
                lost.append(d)
                if d in solved_in_table:
                    bad += 1
                    print(f"  CONTRADICTION: deal {d} is solved in {folder} and lost in [{label}]")
            else:
                open_.append(d)
        dt = time.perf_counter() - t0
        med = f", median {statistics.median(wins):,.0f} states a win" if wins else ""
        print(f"{a.variant} [{label}], {len(deals)} deals, {a.states:,} states each: won {won}{med}; "
              f"proved unsolvable {len(lost)} {lost[:30]}; undecided {len(open_)} {open_[:30]}; {dt:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
