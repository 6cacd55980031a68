"""The portfolio replayed in nodes: try schedule shares and beam run orders without re-solving.

    python benchmarks/bench_portfolio_sim.py collect easy-harp 1-6000/3 --out runs.jsonl
    python benchmarks/bench_portfolio_sim.py replay runs.jsonl --check 100
    python benchmarks/bench_portfolio_sim.py replay runs.jsonl --restarts 3,4,6 --beam 32,64 \\
        --order 4.10,16.10,4.2,4.3,16.2,16.3

Every engine of a round-robin schedule (search/engine.py, ``run``) is a fixed sequence of
work that does not depend on the other rows: the restarts run their runs in their own
order with their own caps, and a beam engine its runs (``beam.runs``: width and weight set,
each capped at ``RUN_NODES`` x width).  So a deal's portfolio can be replayed exactly from
what each engine does alone: ``collect`` records, per deal, the nodes the restarts take to win
(up to ``--restarts-cap``) and every beam run of the first widths alone (its nodes and whether
it won); ``replay`` plays the rounds (share x 1 000 x 2^round nodes a row, in table order) and
reports the cost of each setting in weighted nodes (a restart node counts ``--cost`` beam
nodes: about 1.85 on easy-harp, measured twenty-first session), relative to the stock schedule.
Rows other than the restarts, the beam and the ``dfs`` row (which consumes its share and
never wins here) are left out: ``--check N`` solves the first N deals and reports those whose
engine or nodes the replay does not reproduce (the dead-end row's one node is counted).

For the single-card games without a pass limit (easy-harp), whose portfolio is those rows
(the weaker-game rows wait for round 2 and stop after a few hundred nodes).  Measured with it
(twenty-first session, benchmarks/README.md): the stock shares are within 1 % of the best of
restarts 2-8 x beam 16-64.
"""
from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys

BASE = 1000
WIDTHS = (4, 16, 64, 256)
STOCK = dict(restarts=4.0, beam=32.0, dfs=1.0)


def collect(variant: str, deals, out: str, restarts_cap: int = 400_000) -> int:
    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import beam, engine, restarts
    from harpsolve.solver import ALL_CUTS

    rules = get_rules(variant)
    sets = beam.sets_for(rules)
    n = 0
    with open(out, "w") as f:
        for d in deals:
            pos = engine.Position(rules, deal_layout(rules, d), cuts=ALL_CUTS)
            eng = engine.ENGINES["restarts"](pos, engine.Memory(1 << 30))
            won = False
            while eng.nodes < restarts_cap and not eng.done:
                if eng.advance(min(2000, restarts_cap - eng.nodes), None).status == "solved":
                    won = True
                    break
            eng.close()
            runs = {}
            for r, width in enumerate(WIDTHS):  # the widths in beam.runs' rounds, every set
                for k in sets:
                    s = beam.BeamSearch(pos.root, restarts.run_params(rules, k, r + 1, streamlined=False,
                                                                      cuts=pos.cuts), width)
                    status, _ = s.advance(beam.RUN_NODES * width)
                    runs[f"{width}.{k}"] = [s.nodes, status == "solved"]
                if width >= 16 and any(v[1] for v in runs.values()):
                    break  # enough for any order of the first two widths
            f.write(json.dumps({"deal": d, "restarts": [eng.nodes, won], "runs": runs}) + "\n")
            n += 1
    return n


def stock_order(variant: str) -> list[str]:
    """The beam engine's runs (``beam.runs``) over the collected widths, as width.set keys."""
    from harpsolve.rules import get_rules
    from harpsolve.search import beam

    sets = beam.sets_for(get_rules(variant))
    return [f"{w}.{k}" for w, k, _ in itertools.islice(beam.runs(sets), len(sets) * len(WIDTHS))]


def replay(rec: dict, order: list[str], shares: dict, budget: int = 2_000_000):
    """(winner or "unknown", total nodes, {row: nodes}) of one deal under ``shares`` and the
    beam run ``order``."""
    rn, rwon = rec["restarts"]
    wins = {"restarts": rn if rwon else None, "beam": None, "dfs": None}
    used = 0
    for key in order:
        run = rec["runs"].get(key)
        if run is None:
            break  # not collected: the beam is taken not to win
        used += run[0]
        if run[1]:
            wins["beam"] = used
            break
    cons = dict.fromkeys(shares, 0)
    total, rnd = 1, 0  # the dead-end test's node
    while True:
        for row, w in shares.items():
            share = min(int(w * BASE) << rnd, budget - total)
            if share <= 0:
                return "unknown", total, cons
            win = wins[row]
            if win is not None and cons[row] + share >= win:
                total += win - cons[row]
                cons[row] = win
                return row, total, cons
            cons[row] += share
            total += share
        rnd += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("variant")
    c.add_argument("deals", help="a range as sweep reads it, /K for every K-th deal")
    c.add_argument("--out", required=True)
    c.add_argument("--restarts-cap", type=int, default=400_000)
    r = sub.add_parser("replay")
    r.add_argument("file")
    r.add_argument("--variant", default="easy-harp")
    r.add_argument("--restarts", default="4", help="restart shares to try, comma-separated")
    r.add_argument("--beam", default="32", help="beam shares to try")
    r.add_argument("--order", action="append", default=[], help="a beam run order (width.set,...); repeatable")
    r.add_argument("--cost", type=float, default=1.85, help="a restart node in beam nodes")
    r.add_argument("--check", type=int, default=0, help="solve the first N deals and compare")
    a = ap.parse_args(argv)
    if a.cmd == "collect":
        from harpsolve.sweep.jobs import parse_range

        rng, _, step = a.deals.partition("/")
        deals = list(parse_range(rng))[::int(step or 1)]
        print(f"{collect(a.variant, deals, a.out, a.restarts_cap)} deals -> {a.out}")
        return 0
    recs = [json.loads(line) for line in open(a.file)]
    stock = stock_order(a.variant)
    weights = {"restarts": a.cost, "beam": 1.0, "dfs": 1.2}

    def cost(order, shares):
        res = [replay(rec, order, shares) for rec in recs]
        return statistics.mean(sum(weights[k] * v for k, v in x[2].items()) for x in res), \
            sum(x[0] == "unknown" for x in res)

    base, unknown = cost(stock, STOCK)
    print(f"{len(recs)} deals; stock schedule: mean cost {base:,.0f} beam nodes, {unknown} unknown")
    for order in [stock] + [o.split(",") + [k for k in stock if k not in o.split(",")] for o in a.order]:
        for rs in map(float, a.restarts.split(",")):
            for bs in map(float, a.beam.split(",")):
                m, u = cost(order, dict(STOCK, restarts=rs, beam=bs))
                print(f"restarts {rs:g} beam {bs:g} order {','.join(order[:6])}: {m / base:.3f} ({u} unknown)")
    bad = 0
    if a.check:
        from harpsolve.solver import solve

        for rec in recs[:a.check]:
            who, total, _ = replay(rec, stock, STOCK)
            r = solve(a.variant, rec["deal"], verify=False, polish=False)
            if r.nodes != total or not (r.engine or "unknown").startswith(who):
                bad += 1
                print(f"deal {rec['deal']}: replay {who} {total:,}, solve {r.engine} {r.nodes:,}")
        print(f"check: {a.check - bad} of {a.check} deals reproduced")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
