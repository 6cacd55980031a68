"""harpsolve against lonelybot on the same Klondike deals: verdicts deal by deal, and time.

    python benchmarks/bench_lonelybot.py klondike-3 1-100000/100 --lonelybot PATH/lonerun
    python benchmarks/bench_lonelybot.py klondike-1 1-999999/50 --lonelybot PATH/lonerun --table results/klondike-1

lonelybot (``vuonghy2442/lonelybot``, Rust) is the reference solver for thoughtful Klondike: it
decides every deal, and its published rate for draw 3 is what issue 10 and results/NOTES.md
compare with.  ``benchmarks/lonelybot/`` holds a small driver of ours, ``lonerun``, that runs
lonelybot's own solver, unchanged, on deals read from stdin (how to build it: its Cargo.toml
and benchmarks/README.md).  This script turns each harpsolve deal into lonelybot's "exact"
seed (:func:`exact_seed`: the same cards in the same places, the stock in dealing order), so
both solvers see the same deal.

The two games are the same: one deck, seven columns, draw 1 or 3 with unlimited passes,
alternate colours, built runs move, kings only to an empty column, cards may come back from
the foundations (lonelybot cannot forbid that).  The script refuses rules that differ.

Default: the deals are solved by both, in turn (harpsolve in this process, kernels compiled
or loaded before the clock, at the solver's default budget unless ``--max-nodes``; lonelybot in
one long-lived ``lonerun`` process, without a limit unless ``--limit``): per solver the
verdicts, median, mean and 90th percentile milliseconds a deal (each solver's own clock around
its search), the mean over the deals it decided, and the ratio of means.  ``--table PATH``:
lonelybot only, its verdicts against the best rows of a results folder (a cross-check of a
published table by another program).

A deal one side solves and the other proves unsolvable is listed and the exit status is 1.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

# lonelybot's cards: index = rank * 4 + suit, suits hearts 0, diamonds 1, clubs 2, spades 3
# (its shuffler.rs and script/convert.py); harpsolve's suits are clubs, diamonds, hearts, spades
LB_SUIT = (2, 1, 0, 3)


def exact_seed(layout) -> int:
    """lonelybot's "exact" seed of a one-deck Klondike layout.

    lonelybot deals a 52-card array (``Solitaire::new``): column i (from 0) takes the next
    i + 1 cards, bottom first, its last card face up; the 24 left are the stock, the first to
    be dealt first.  ``exact_shuffle(seed)`` makes that array from the identity by swapping
    position i (1..51) with position seed mod (i + 1), seed then divided by i + 1.  So the
    seed is read off the array backwards (as ``encode_shuffle`` does): for i = 51 .. 1 find
    card i among the first i + 1, that position is the digit, and swap it back to i.
    """
    from harpsolve.cards import rank_of, suit_of

    cards = [c for col in layout.columns for c in col] + list(layout.stock)
    cards = [(rank_of(c) - 1) * 4 + LB_SUIT[suit_of(c)] for c in cards]
    if sorted(cards) != list(range(52)):
        raise ValueError("not a one-deck layout")
    seed = 0
    for i in range(51, 0, -1):
        pos = cards.index(i, 0, i + 1)
        seed = seed * (i + 1) + pos
        cards[pos], cards[i] = cards[i], cards[pos]
    return seed


def shuffle_of(seed: int) -> list[int]:
    """The card array lonelybot's ``exact_shuffle`` makes of ``seed`` (its algorithm, to test
    :func:`exact_seed` against)."""
    cards = list(range(52))
    for i in range(1, 52):
        j = seed % (i + 1)
        seed //= i + 1
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def check_rules(rules) -> str | None:
    """Why lonelybot's game is not this one, or None."""
    want = dict(decks=1, n_columns=7, passes=0, build="alternate", column_moves="runs", empty="king",
                cells=0, takeback=True)
    for field, value in want.items():
        if getattr(rules, field) != value:
            return f"lonelybot plays one-deck thoughtful Klondike; these rules have {field} = {getattr(rules, field)!r}"
    if rules.face_down != "all-but-top" or tuple(rules.columns) != (1, 2, 3, 4, 5, 6, 7):
        return "lonelybot deals Klondike's 1-7 columns, all but the top card face down"
    return None


class Lonelybot:
    """One ``lonerun`` process: a deal a line in, a result line out."""

    def __init__(self, path: str, limit: float):
        self.limit = limit
        try:
            self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        except OSError as e:
            raise SystemExit(f"bench_lonelybot: cannot run {path}: {e.strerror or e}") from None

    def solve(self, deal: int, draw: int, seed: int) -> tuple[str, int, float]:
        self.proc.stdin.write(f"{deal} {draw} {seed} {self.limit}\n")
        out = self.proc.stdout.readline().split()
        if len(out) != 4 or out[0] != str(deal):
            raise SystemExit(f"bench_lonelybot: lonerun gave no result for deal {deal}")
        return out[1], int(out[2]), float(out[3])

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def summary(label: str, rows: list[tuple[str, float]]) -> str:
    ms = sorted(t for _, t in rows)
    decided = [t for s, t in rows if s in ("solved", "unsolvable")]
    counts = {s: sum(r[0] == s for r in rows) for s in ("solved", "unsolvable", "unknown")}
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return (f"| {label} | {counts['solved']} | {counts['unsolvable']} | {counts['unknown']} | "
            f"{statistics.median(ms):.3f} | {statistics.mean(ms):.2f} | "
            f"{statistics.mean(decided) if decided else float('nan'):.2f} | {p90:.2f} |")


def contradicts(x: str, y: str) -> bool:
    return {x, y} == {"solved", "unsolvable"}


def clashes(deals, a, b) -> list[int]:
    return [d for d, x, y in zip(deals, a, b) if contradicts(x, y)]


def differ_line(deal: int, x: str, y: str) -> str:
    """A deal whose verdicts differ (harpsolve's ``x``, lonelybot's ``y``), marked if they contradict."""
    return f"deal {deal}: harpsolve {x}, lonelybot {y}" + ("  <-- CONTRADICTION" if contradicts(x, y) else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variant", help="klondike-1 or klondike-3 (or a rules label with the same game)")
    ap.add_argument("deals", help="a deal range as sweep reads it, /K for every K-th deal: 1-100000/100")
    ap.add_argument("--lonelybot", required=True, help="the lonerun binary (benchmarks/lonelybot)")
    ap.add_argument("--limit", type=float, default=0.0, help="lonelybot's seconds a deal (0: none) [0]")
    ap.add_argument("--max-nodes", type=int, default=None, help="harpsolve's node budget [the solver's]")
    ap.add_argument("--table", default=None, help="compare lonelybot with this results folder instead of solving")
    ap.add_argument("--warm", type=int, default=3, help="deals both solve before the clock [3]")
    ap.add_argument("--csv", default=None, help="write the rows deal by deal")
    args = ap.parse_args(argv)

    from harpsolve.deals import deal_layout
    from harpsolve.rules import RulesError, get_rules
    from harpsolve.sweep.jobs import parse_every
    from harpsolve.sweep.store import SweepError

    try:
        rules = get_rules(args.variant)
        deals = parse_every(args.deals)
    except (RulesError, SweepError) as e:
        print(f"bench_lonelybot: {e}", file=sys.stderr)
        return 2
    why = check_rules(rules)
    if why:
        print(f"bench_lonelybot: {why}", file=sys.stderr)
        return 2
    table = None
    if args.table:
        from harpsolve.sweep import load_results
        from harpsolve.sweep.store import best_rows

        table = best_rows(load_results([args.table]).frame).set_index("deal")
        deals = [d for d in deals if d in table.index]
        if not deals:
            print(f"bench_lonelybot: {args.table} holds none of those deals", file=sys.stderr)
            return 2
    lb = Lonelybot(args.lonelybot, args.limit)
    seeds = {d: exact_seed(deal_layout(rules, d)) for d in deals}
    hs_rows, lb_rows = [], []

    def ask_lonelybot(d):
        lb_rows.append(lb.solve(d, rules.draw, seeds[d]))

    if table is None:
        from harpsolve.solver import solve, warm_up

        kw = {} if args.max_nodes is None else {"max_nodes": args.max_nodes}

        def ask_harpsolve(d):
            r = solve(rules, d, verify=True, polish=False, **kw)
            hs_rows.append((r.status, 1e3 * r.seconds, r.engine or r.proof or ""))
    else:
        def ask_harpsolve(d):  # the table's best row: no solving
            row = table.loc[d]
            how = next((x for x in (row.proof, row.engine) if isinstance(x, str) and x), "")  # (NaN: none)
            hs_rows.append((row.status, 1e3 * float(row.seconds), how))
    try:
        if table is None:
            warm_up(rules, deal_layout(rules, deals[0]))
            for d in deals[:args.warm]:
                solve(rules, d, verify=False, polish=False, **kw)
                lb.solve(d, rules.draw, seeds[d])
        from tqdm import tqdm

        # a run of thousands of deals takes an hour: a bar on a terminal, and a contradiction
        # said the moment it is found (the table at the end lists it again)
        bar = tqdm(deals, unit="deal", file=sys.stderr, disable=not sys.stderr.isatty())
        for i, d in enumerate(bar):
            # who goes first alternates, so a slow stretch of the machine hits both alike
            for ask in ((ask_harpsolve, ask_lonelybot) if i % 2 == 0 else (ask_lonelybot, ask_harpsolve)):
                ask(d)
            if contradicts(hs_rows[-1][0], lb_rows[-1][0]):
                bar.write(differ_line(d, hs_rows[-1][0], lb_rows[-1][0]), file=sys.stderr)
    finally:
        lb.close()

    what = "the table " + args.table if table is not None else "both solving, in turn"
    print(f"{args.variant}, {len(deals)} deals ({args.deals}); {what}")
    print("| solver | solved | unsolvable | unknown | median ms | mean ms | mean ms, decided | p90 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    label = "harpsolve" if table is None else "harpsolve (table rows' seconds)"
    print(summary(label, [(s, t) for s, t, _ in hs_rows]))
    print(summary("lonelybot", [(s, t) for s, _, t in lb_rows]))
    if table is None:
        ratio = statistics.mean(t for _, t, _ in hs_rows) / statistics.mean(t for _, _, t in lb_rows)
        print(f"ratio of means harpsolve / lonelybot: {ratio:.2f}")
    hs_st, lb_st = [r[0] for r in hs_rows], [r[0] for r in lb_rows]
    both = sum(x in ("solved", "unsolvable") and y in ("solved", "unsolvable") for x, y in zip(hs_st, lb_st))
    bad = clashes(deals, hs_st, lb_st)
    print(f"decided by both: {both}; contradictions: {len(bad)}")
    for d, x, y in zip(deals, hs_st, lb_st):
        if x != y:
            print(differ_line(d, x, y))
    if args.csv:
        import csv

        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["deal", "harpsolve", "harpsolve_ms", "harpsolve_how", "lonelybot", "lonelybot_states",
                        "lonelybot_ms"])
            for d, h, lrow in zip(deals, hs_rows, lb_rows):
                w.writerow([d, h[0], f"{h[1]:.4f}", h[2], lrow[0], lrow[1], f"{lrow[2]:.4f}"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
