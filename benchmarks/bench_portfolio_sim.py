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

``collect-rows`` / ``replay-rows`` do the same for every row of the portfolio, in any game:
each row that applies runs alone with the stock shares (up to ``--cap`` nodes), and the record
says where it ended (its nodes, and whether with a verdict the row may give) and its seconds;
the replay changes rows' weights (``ROW=W``) or totals (``ROW@N``), ROW the row's index in
``engine.PORTFOLIO``, and costs each deal in seconds (each row's nodes at its own rate alone).
The climb's advances are one climb each (not resumable): they are replayed as recorded, and
its weight cannot change.

    python benchmarks/bench_portfolio_sim.py collect-rows klondike-3 1-3000/6 --out rows.jsonl
    python benchmarks/bench_portfolio_sim.py replay-rows rows.jsonl --variant klondike-3 \\
        --check 100 --set 8=48 --set 6=2,4=2
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
    from harpsolve.search import beam, engine
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
                    s = beam.new_run(rules, pos.root, width, k, r + 1, cuts=pos.cuts)  # as engine.Beam's runs
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

    rules = get_rules(variant)
    return [f"{w}.{k}" for w, k, _ in itertools.islice(beam.runs_for(rules), len(beam.sets_for(rules)) * len(WIDTHS))]


def play_rounds(rows: list[dict], budget: int = 2_000_000):
    """The rounds of ``search/engine.run`` over rows whose work alone was recorded.

    A row: ``name``, ``weight``, ``cap``, ``total``, ``first_round`` (as ``engine.Entry``);
    ``at``: the nodes it had taken alone when it ended (None: it did not end in what was
    recorded, and takes every share it is given); ``verdict``: whether it ended with a verdict
    the row may give (else it ended without one: done); ``steps``: None for an engine that
    does the same work however its nodes are sliced (it ends at ``at`` under any shares), or
    the nodes each of its advances took under the stock shares, replayed as recorded (the
    climb: one climb an advance, which stops where the climb does).
    Returns (the deciding row's name or "unknown", total nodes, {name: nodes})."""
    cons = {r["name"]: 0 for r in rows}
    done = dict.fromkeys(cons, False)
    total, rnd = 0, 0
    while not all(done.values()):
        for r in rows:
            k = r["name"]
            if done[k] or rnd < r.get("first_round", 0):
                continue
            share = r["cap"] if r.get("cap") else int(r["weight"] * BASE) << rnd
            if r.get("total"):
                share = min(share, r["total"] - cons[k])
            share = min(share, budget - total)
            if share <= 0:
                return "unknown", total, cons
            steps = r.get("steps")
            if steps is not None:
                j = rnd - r.get("first_round", 0)
                if j < len(steps):
                    share = steps[j]
                    ends = j == len(steps) - 1 and r["at"] is not None
                else:
                    ends = False  # past the record: taken to go on without a verdict
            else:
                ends = r["at"] is not None and cons[k] + share >= r["at"]
                if ends:
                    share = r["at"] - cons[k]
            cons[k] += share
            total += share
            if ends:
                if r["verdict"]:
                    return k, total, cons
                done[k] = True
            if r.get("total") and cons[k] >= r["total"]:
                done[k] = True
        rnd += 1
    return "unknown", total, cons


def replay(rec: dict, order: list[str], shares: dict, budget: int = 2_000_000):
    """(winner or "unknown", total nodes, {row: nodes}) of one deal under ``shares`` and the
    beam run ``order``."""
    rn, rwon = rec["restarts"]
    beam_at = None
    used = 0
    for key in order:
        run = rec["runs"].get(key)
        if run is None:
            break  # not collected: the beam is taken not to win
        used += run[0]
        if run[1]:
            beam_at = used
            break
    rows = [dict(name="dead-end", cap=1, at=1, verdict=False)]
    rows += [dict(name="restarts", weight=shares["restarts"], at=rn if rwon else None, verdict=True),
             dict(name="beam", weight=shares["beam"], at=beam_at, verdict=True),
             dict(name="dfs", weight=shares["dfs"], at=None, verdict=False)]
    who, total, cons = play_rounds(rows, budget)
    del cons["dead-end"]
    return who, total, cons


# ---- every row of the portfolio ---------------------------------------------------------
def row_name(i: int, entry) -> str:
    """A row's name in the records: its index in ``engine.PORTFOLIO`` and its engine."""
    return f"{i}:{entry.engine}"


STEPPED = ("climb",)  # engines whose advances are not resumable (engine.Climb: one climb each)


def collect_rows(variant: str, deals, out: str, cap: int = 1_000_000) -> int:
    """Every row of the portfolio that applies, alone, with the stock shares, up to ``cap``
    nodes: where it ended (nodes, verdict) or that it did not, its seconds and its advances."""
    import time

    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import engine
    from harpsolve.solver import ALL_CUTS

    rules = get_rules(variant)
    n = 0
    with open(out, "w") as f:
        for d in deals:
            pos = engine.Position(rules, deal_layout(rules, d), cuts=ALL_CUTS, shortcut=False)
            rows = {}
            for i, e in enumerate(engine.PORTFOLIO.entries):
                if not e.applies(pos):
                    continue
                eng = engine.ENGINES[e.engine](pos, engine.Memory(1 << 32))
                t0 = time.perf_counter()
                at, verdict, steps, rnd = None, False, [], 0
                try:
                    while eng.nodes < cap:
                        if rnd >= e.first_round:
                            share = e.cap if e.cap else int(e.weight * engine.BASE_SLICE) << rnd
                            if e.total:
                                share = min(share, e.total - eng.nodes)
                            before = eng.nodes
                            o = eng.advance(min(share, cap - eng.nodes), None)
                            steps.append(eng.nodes - before)
                            if o.status != "unknown":
                                at, verdict = eng.nodes, engine._allowed(e, o.status)
                                break
                            if eng.done or (e.total and eng.nodes >= e.total):
                                at = eng.nodes
                                break
                        rnd += 1
                finally:
                    eng.close()
                rows[row_name(i, e)] = dict(at=at, verdict=verdict, seconds=time.perf_counter() - t0,
                                            nodes=eng.nodes, steps=steps if e.engine in STEPPED else None)
            f.write(json.dumps({"deal": d, "rows": rows}) + "\n")
            n += 1
    return n


def replay_rows(rec: dict, weights: dict, totals: dict, budget: int = 2_000_000):
    """One deal's portfolio with some rows' weights and totals changed (by row index)."""
    from harpsolve.search import engine

    rows = []
    for i, e in enumerate(engine.PORTFOLIO.entries):
        r = rec["rows"].get(row_name(i, e))
        if r is None or weights.get(i, e.weight) == 0 and not e.cap:
            continue
        rows.append(dict(r, name=row_name(i, e), weight=weights.get(i, e.weight), cap=e.cap,
                         total=totals.get(i, e.total), first_round=e.first_round))
    return play_rounds(rows, budget)


def main_rows(a) -> int:
    from harpsolve.search import engine

    recs = [json.loads(line) for line in open(a.file)]
    per = {}
    for rec in recs:
        for k, r in rec["rows"].items():
            acc = per.setdefault(k, [0, 0.0])
            acc[0] += r["nodes"]
            acc[1] += r["seconds"]
    us = {k: s / n * 1e6 if n else 0.0 for k, (n, s) in per.items()}
    print("rows (index:engine weight, us a node alone):",
          ", ".join(f"{k} {engine.PORTFOLIO.entries[int(k.split(':')[0])].weight:g} {v:.2f}" for k, v in us.items()))

    def setting(spec: str):
        weights, totals = {}, {}
        for part in filter(None, spec.split(",")):
            i, sep, v = part.partition("@") if "@" in part else part.partition("=")
            if sep == "=" and engine.PORTFOLIO.entries[int(i)].engine in STEPPED:
                raise SystemExit(f"row {i} ({engine.PORTFOLIO.entries[int(i)].engine}) is replayed as "
                                 f"recorded: its weight cannot change")
            (totals if sep == "@" else weights)[int(i)] = int(v) if sep == "@" else float(v)
        res = [replay_rows(rec, weights, totals, a.budget) for rec in recs]
        ms = [sum(us[k] * v for k, v in x[2].items()) / 1e3 for x in res]
        wins = {}
        for x in res:
            wins[x[0]] = wins.get(x[0], 0) + 1
        return statistics.mean(ms), statistics.median(ms), wins.get("unknown", 0), wins

    base = setting("")
    print(f"{len(recs)} deals, stock: mean {base[0]:.2f} ms, median {base[1]:.3f} ms, {base[2]} unknown; "
          f"decided by {base[3]}")
    for spec in a.set:
        m = setting(spec)
        print(f"{spec}: mean {m[0] / base[0]:.3f}, median {m[1] / base[1]:.3f}, {m[2]} unknown; decided by {m[3]}")
    bad = 0
    if a.check:
        from harpsolve.solver import solve

        for rec in recs[:a.check]:
            who, total, _ = replay_rows(rec, {}, {}, a.budget)
            r = solve(a.variant, rec["deal"], max_nodes=a.budget, verify=False, polish=False)
            if r.nodes != total or (r.status != "unknown") != (who != "unknown"):
                bad += 1
                print(f"deal {rec['deal']}: replay {who} {total:,}, solve {r.engine} {r.nodes:,}")
        print(f"check: {a.check - bad} of {a.check} deals reproduced")
    return 1 if bad else 0


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
    c2 = sub.add_parser("collect-rows", help="every row of the portfolio alone")
    c2.add_argument("variant")
    c2.add_argument("deals")
    c2.add_argument("--out", required=True)
    c2.add_argument("--cap", type=int, default=1_000_000, help="nodes a row is followed alone at most")
    r2 = sub.add_parser("replay-rows", help="the portfolio replayed with other row weights or totals")
    r2.add_argument("file")
    r2.add_argument("--variant", required=True)
    r2.add_argument("--set", action="append", default=[],
                    help="a setting: ROW=WEIGHT and ROW@TOTAL, comma-separated (ROW: index in PORTFOLIO); "
                         "repeatable")
    r2.add_argument("--budget", type=int, default=2_000_000)
    r2.add_argument("--check", type=int, default=0, help="solve the first N deals and compare")
    a = ap.parse_args(argv)
    if a.cmd in ("collect", "collect-rows"):
        from harpsolve.sweep.jobs import parse_every

        deals = parse_every(a.deals)
        n = (collect(a.variant, deals, a.out, a.restarts_cap) if a.cmd == "collect"
             else collect_rows(a.variant, deals, a.out, a.cap))
        print(f"{n} deals -> {a.out}")
        return 0
    if a.cmd == "replay-rows":
        return main_rows(a)
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
