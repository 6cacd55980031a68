"""The lock test (search/lock.py) on every deal of the committed tables, against their verdicts.

Every ``solved`` row of a table carries a line the reference engine replayed to a win, so a deal
the lock test calls lost that a table has solved is a bug in the test: the script prints it and
exits 1.  It also counts the deals the test agrees are unsolvable, and lists the deals the
tables left unknown that it decides.

    python benchmarks/check_lock.py                       # every table the test applies to
    python benchmarks/check_lock.py endless-harp big-harp --deals 1-100000 -j 2
    python benchmarks/check_lock.py --walks 40            # positions part-way through games

The test takes a fraction of a millisecond a deal (the time per deal is printed): a whole
table of 999 999 deals takes a few minutes on one core.

``--walks N``: positions part-way through games instead of deals (random legal moves from
deals 1..N of each game, WALK_MOVES of them, every WALK_EVERY-th position tested); each position
the test calls lost is searched by the ``climb`` schedule (its complete depth-first search;
no lock row) at WALK_NODES nodes.  A win there is a bug in the test (exit 1); the counts of
confirmed losses and of unknown positions are printed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _chunk(args):
    variant, deals = args
    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search.lock import lock

    rules = get_rules(variant)
    t = time.perf_counter()
    found = [(d, p) for d in deals if (p := lock(rules, deal_layout(rules, d))) is not None]
    return found, len(deals), time.perf_counter() - t


WALK_MOVES, WALK_EVERY, WALK_NODES = 150, 5, 2_000_000


def walks(variants, n: int, seed: int = 5) -> int:
    """``--walks``: the lock test on random-walk positions, each lock searched; 1 on a win."""
    import random

    from harpsolve.deals import deal_layout
    from harpsolve.reference import Game
    from harpsolve.rules import get_rules
    from harpsolve.search.lock import lock
    from harpsolve.solver import solve

    rng = random.Random(seed)
    bad = 0
    for v in variants:
        rules = get_rules(v)
        tested, found = 0, {"unsolvable": 0, "unknown": 0, "solved": 0}
        for d in range(1, n + 1):
            g = Game(rules, deal_layout(rules, d))
            for step in range(WALK_MOVES):
                moves = g.legal_moves()
                if not moves:
                    break
                g.apply(rng.choice(moves))
                if step % WALK_EVERY:
                    continue
                layout = g.to_layout()
                tested += 1
                proof = lock(rules, layout)
                if proof is None:
                    continue
                r = solve(rules, layout=layout, algorithm="climb", max_nodes=WALK_NODES)
                found[r.status] += 1
                if r.solved:
                    bad += 1
                    print(f"CONTRADICTION: {v} deal {d} after {step + 1} random moves: {proof}, but won:\n"
                          + layout.to_text())
        print(f"{v}: {tested:,} positions of random walks from deals 1-{n}; the lock test fires on "
              f"{sum(found.values())}: {found['unsolvable']} confirmed lost by the complete search, "
              f"{found['unknown']} unknown at {WALK_NODES:,} nodes, {found['solved']} won")
        sys.stdout.flush()
    return 1 if bad else 0


def main(argv=None) -> int:
    sys.path.insert(0, ROOT)
    from concurrent.futures import ProcessPoolExecutor
    from contextlib import nullcontext

    from harpsolve import sweep as sw
    from harpsolve.rules import VARIANTS, get_rules
    from harpsolve.search.lock import applies as lock_applies
    from harpsolve.sweep.jobs import parse_range

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="*", help="variant ids (default: every table the test applies to)")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    ap.add_argument("--deals", default="", help="a deal range (default: every deal of the table)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (1: in this process)")
    ap.add_argument("--walks", type=int, default=0, metavar="N",
                    help="positions of random walks from deals 1..N instead of the tables' deals")
    a = ap.parse_args(argv)
    if a.walks:
        return walks(a.variants or [n for n in VARIANTS if lock_applies(get_rules(n))], a.walks)
    names = a.variants or [n for n in VARIANTS if os.path.isdir(os.path.join(a.results, n))]
    bad = 0
    for v in names:
        rules = get_rules(v)
        if not lock_applies(rules):
            print(f"{v}: the lock test does not apply (empty columns take any card, or cells)")
            continue
        status = sw.best_rows(sw.load_results([os.path.join(a.results, v)]).frame).set_index("deal")["status"]
        deals = list(parse_range(a.deals)) if a.deals else sorted(int(d) for d in status.index)
        chunks = [(v, deals[i:i + 2000]) for i in range(0, len(deals), 2000)]
        found, n, secs = [], 0, 0.0
        with ProcessPoolExecutor(a.jobs) if a.jobs > 1 else nullcontext() as ex:
            for f, k, s in (ex.map if ex else map)(_chunk, chunks):
                found += f
                n += k
                secs += s
        verdict = {d: status.get(d, "missing") for d, _ in found}
        wrong = [(d, p) for d, p in found if verdict[d] == "solved"]
        agree = sum(1 for d, _ in found if verdict[d] == "unsolvable")
        new = [(d, p) for d, p in found if verdict[d] not in ("solved", "unsolvable")]
        proofs = {}
        for _, p in found:
            proofs[p] = proofs.get(p, 0) + 1
        print(f"{v}: {n:,} deals, {secs / max(n, 1) * 1e3:.3f} ms a deal; the lock test fires on {len(found)} "
              f"({agree} proved unsolvable in the table, {len(new)} unknown or missing there, {len(wrong)} solved)")
        for p, c in sorted(proofs.items(), key=lambda x: -x[1]):
            print(f"  {p}: {c}")
        for d, p in new:
            print(f"  decided: deal {d} ({verdict[d]} in the table): {p}")
        for d, p in wrong:
            print(f"CONTRADICTION: {v} deal {d} is solved in the table and the lock test says {p}")
        bad += len(wrong)
        sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
