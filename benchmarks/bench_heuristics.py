"""Heuristic comparison: `harpsolve bench` over several variants, as Markdown tables.

    python benchmarks/bench_heuristics.py                                   # the default set below
    python benchmarks/bench_heuristics.py --variants easy-harp --deals 1-500 --max-nodes 200000
    python benchmarks/bench_heuristics.py --heuristics static,lookahead --algorithms dfs --out-dir /tmp/hb

For each variant it runs ``harpsolve.bench.bench`` (what the ``harpsolve
bench`` command runs: every setting on the same deals in this one process,
taking turns deal by deal, after a warm-up whose time is printed apart) and
prints the side-by-side table as Markdown, with the machine and the exact
``harpsolve bench`` command that reproduces each table.  ``--out-dir`` keeps
the raw rows as ``<variant>.parquet`` (the notebooks read them).
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time


def markdown(b) -> str:
    head = "| setting | solved | unsolv | unknown | nodes total | nodes med | ms med | ms p90 | len med | time x |"
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for g in b.summary():
        def num(x, d):
            return "–" if x != x else f"{x:,.{d}f}"
        lines.append(f"| {g['setting']} | {g['solved']} | {g['unsolvable']} | {g['unknown']} | {g['nodes_total']:,} | "
                     f"{num(g['nodes_median'], 0)} | {num(g['seconds_median'] * 1e3, 1)} | "
                     f"{num(g['seconds_p90'] * 1e3, 1)} | {num(g['length_median'], 0)} | {num(g['time_ratio'], 2)} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="klondike-1,klondike-3,bakers-game,easy-harp")
    ap.add_argument("--deals", default="1-100")
    ap.add_argument("--heuristics", default="lookahead,fewest-hidden,weighted")
    ap.add_argument("--algorithms", default="climb")
    ap.add_argument("--weights", default=None)
    ap.add_argument("--max-nodes", type=int, default=200_000)
    ap.add_argument("--out-dir", default=None)
    args = ap.parse_args(argv)

    import numba

    from harpsolve.bench import bench, make_settings
    from harpsolve.sweep import cpu_model, parse_range

    settings = make_settings(args.heuristics, args.algorithms, args.weights)
    deals = parse_range(args.deals)
    print(f"{cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}, numba {numba.__version__}\n")
    for v in args.variants.split(","):
        v = v.strip()
        t = time.perf_counter()
        b = bench(v, deals, settings, max_nodes=args.max_nodes,
                  progress=lambda i, n: print(f"\r  {v}: {i}/{n}", end="", file=sys.stderr, flush=True))
        print(file=sys.stderr)
        cmd = ["harpsolve", "bench", v, args.deals, "--heuristic", args.heuristics, "--algorithm", args.algorithms,
               "--max-nodes", str(args.max_nodes)] + (["--weight", args.weights] if args.weights else [])
        print(f"### {v}, deals {args.deals}, {args.max_nodes:,} nodes per deal\n")
        print(f"```bash\n{shlex.join(cmd)}\n```\n")
        print(markdown(b))
        print(f"\n{b.warmup_text()}; whole run {time.perf_counter() - t:.0f} s"
              + (f"; CONFLICTS (a bug): {b.conflicts}" if b.conflicts else "") + "\n")
        if args.out_dir:
            os.makedirs(args.out_dir, exist_ok=True)
            b.write_parquet(os.path.join(args.out_dir, f"{v}.parquet"), shlex.join(cmd))


if __name__ == "__main__":
    main()
