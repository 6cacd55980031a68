"""How much shorter the printed solutions are than the search's lines.

    python benchmarks/bench_solution_length.py easy-harp 1-1000 --max-nodes 500000
    python benchmarks/bench_solution_length.py easy-harp 1-500 --rows a.csv    # and 501-1000 --rows b.csv
    python benchmarks/bench_solution_length.py --merge a.csv b.csv             # one table over both

Solves every deal of the range at the given budget (one process, kernels
loaded first) and, for each solved deal, records the length of the line the
search found (tokens, before ``solution.shorten_tokens``) and of the line
``solve`` returns (after), with the plays (moves that are not stock taps) of
both and the seconds the shortening took.  Prints the medians and means, and
the share of solved deals whose line got shorter.  ``--rows`` saves one CSV
row per solved deal so that a long range can run in parts and be merged.
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time

FIELDS = ("variant", "deal", "before", "after", "plays_before", "plays_after", "shorten_s")


def measure(variant: str, deals, max_nodes: int, progress=None) -> list[dict]:
    from harpsolve import solver
    from harpsolve.solution import count_plays, shorten_tokens

    rows: list[dict] = []
    seen: dict = {}

    def recording(rules, layout, tokens, deadline=None):
        t0 = time.perf_counter()
        out = shorten_tokens(rules, layout, tokens, deadline)
        seen.update(before=len(tokens), plays_before=count_plays(tokens), shorten_s=time.perf_counter() - t0)
        return out

    solver.solve(variant, deals[0], max_nodes=1000)  # load (or compile) the kernels
    solver.shorten_tokens = recording  # the solver looks the name up per call
    try:
        for k, deal in enumerate(deals, 1):
            seen.clear()
            r = solver.solve(variant, deal, max_nodes=max_nodes)
            if r.solved:
                rows.append(dict(variant=variant, deal=deal, before=seen["before"], after=len(r.moves),
                                 plays_before=seen["plays_before"], plays_after=count_plays(r.moves),
                                 shorten_s=round(seen["shorten_s"], 4)))
            if progress:
                progress(k, len(deals))
    finally:
        solver.shorten_tokens = shorten_tokens
    return rows


def report(rows: list[dict]) -> str:
    if not rows:
        return "no solved deal"
    col = {f: [float(r[f]) for r in rows] for f in FIELDS[2:]}
    med_b, med_a = statistics.median(col["before"]), statistics.median(col["after"])
    out = [f"{len(rows)} solved deals ({rows[0]['variant']} {min(int(r['deal']) for r in rows)}-"
           f"{max(int(r['deal']) for r in rows)})",
           "| | before | after | after / before |", "|---|---:|---:|---:|"]
    for name, b, a in (("median tokens", med_b, med_a),
                       ("mean tokens", statistics.mean(col["before"]), statistics.mean(col["after"])),
                       ("median plays", statistics.median(col["plays_before"]), statistics.median(col["plays_after"])),
                       ("median stock taps", statistics.median(x - y for x, y in zip(col["before"], col["plays_before"])),
                        statistics.median(x - y for x, y in zip(col["after"], col["plays_after"])))):
        out.append(f"| {name} | {b:,.0f} | {a:,.0f} | {a / b:.2f} |")
    shorter = sum(a < b for a, b in zip(col["after"], col["before"]))
    out.append(f"shorter: {shorter} of {len(rows)}; shortening took {1e3 * statistics.median(col['shorten_s']):.0f} ms "
               f"median, {1e3 * statistics.mean(col['shorten_s']):.0f} ms mean per solved deal")
    return "\n".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant", nargs="?", default="easy-harp")
    ap.add_argument("range", nargs="?", default="1-1000")
    ap.add_argument("--max-nodes", type=int, default=500_000)
    ap.add_argument("--rows", help="save one CSV row per solved deal here")
    ap.add_argument("--merge", nargs="+", metavar="CSV", help="report over saved rows instead of solving")
    a = ap.parse_args(argv)
    if a.merge:
        rows = []
        for path in a.merge:
            with open(path, newline="") as f:
                rows += list(csv.DictReader(f))
        print(report(rows))
        return
    from harpsolve.sweep import parse_range

    deals = parse_range(a.range)

    def progress(k, n):
        if sys.stderr.isatty() or k % 100 == 0:
            print(f"\r{k}/{n}", end="\n" if k == n or not sys.stderr.isatty() else "", file=sys.stderr)

    t0 = time.perf_counter()
    rows = measure(a.variant, deals, a.max_nodes, progress)
    if a.rows:
        with open(a.rows, "w", newline="") as f:
            w = csv.DictWriter(f, FIELDS)
            w.writeheader()
            w.writerows(rows)
    print(f"{a.variant} {a.range} at {a.max_nodes:,} nodes, {time.perf_counter() - t0:.0f} s")
    print(report(rows))


if __name__ == "__main__":
    main()
