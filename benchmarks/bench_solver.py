"""Solver benchmark: classify a deal range per variant in one process, with
compile time kept apart, and time the command line's start-up.

    python benchmarks/bench_solver.py                                   # every variant, deals 1-1000, start-up
    python benchmarks/bench_solver.py --deals 1-200
    python benchmarks/bench_solver.py --variants bakers-game --deals 1-2000 --out bakers.parquet
    python benchmarks/bench_solver.py --no-startup --variants klondike-3 --deals 1-100
    python benchmarks/bench_solver.py --startup-only

For each variant: the warm-up `harpsolve solve` does (numba compiles the
kernels, or loads them from its cache; that time is the "warm-up s" column,
paid by the first variant of a run only, and never mixed into the other
figures), then ``solve(variant, n)`` at the solver's default
budget for every deal, one after another in this process.  Columns:

  solved / unsolv / unknown   the statuses (an unreplayable solution would be
                              counted as ``error`` and fails the run)
  ms med / p90 / max          ``SolveResult.seconds`` per deal: the search plus
                              turning its path into move tokens (what `solve`
                              and `sweep` report)
  nodes med / p90 / max       search nodes per deal
  Mnodes/s                    total nodes / total search seconds (token
                              writing excluded)
  tokens %                    share of the reported seconds spent in
                              ``solution.path_tokens``
  verify %                    share of the whole solve spent replaying the
                              solution in the reference engine (``solve``
                              does this for every solved deal)
  verify ms med               the replay of one solution, median over the
                              solved deals
  total s                     the whole range, warm-up excluded

The start-up part runs the installed command: ``harpsolve --help``; then
``harpsolve solve easy-harp 1`` with an empty kernel cache (a fresh
``HARPSOLVE_CACHE_DIR``: everything compiles) and again with that cache
filled.  "before search" is the wall time minus the search seconds the
command reports, i.e. interpreter start, imports, kernel loading and output.

``--out FILE.parquet`` writes one row per deal with the run's metadata
(versions, CPU, settings) in the file's key-value metadata.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_VARIANTS = None  # every variant in harpsolve.rules.VARIANTS


def _q(xs, q):
    """The q-quantile (0..1) of xs, linear interpolation (numpy's default)."""
    from harpsolve.bench import _quantile

    return _quantile(xs, q)


def _cpu() -> str:
    from harpsolve.sweep import cpu_model

    return cpu_model()


# ---- the solver, in this process ---------------------------------------------------------
def bench_variant(variant: str, deals: list[int], max_nodes=None, progress=True) -> tuple[dict, list[dict]]:
    import harpsolve.solver as solver
    from harpsolve.cli import _warm_up
    from harpsolve.deals import deal_layout
    from harpsolve.reference import replay
    from harpsolve.rules import get_rules

    # Time solution.path_tokens inside solve (solver looks the name up per call).
    real_tokens = solver.path_tokens
    spent = [0.0]

    def timed_tokens(*a):
        t = time.perf_counter()
        try:
            return real_tokens(*a)
        finally:
            spent[0] += time.perf_counter() - t

    budget = {} if max_nodes is None else {"max_nodes": max_nodes}
    # Compile or load every kernel, exactly as `harpsolve solve` does before it
    # starts the clock (only the first variant of a run pays: kernels are shared).
    rules = get_rules(variant)
    t = time.perf_counter()
    _warm_up(solver.solve, rules, deal_layout(rules, deals[0]))
    warm = time.perf_counter() - t

    rows = []
    solver.path_tokens = timed_tokens
    t_start = time.perf_counter()
    try:
        for i, deal in enumerate(deals, 1):
            spent[0] = 0.0
            t0 = time.perf_counter()
            r = solver.solve(variant, deal, verify=False, **budget)
            t1 = time.perf_counter()
            status = r.status
            if r.solved:  # exactly what solve(verify=True) does, timed on its own
                rep = replay(r.rules, r.layout, r.moves)
                if not (rep.ok and rep.won):
                    status = "error"
            t2 = time.perf_counter()
            rows.append(dict(variant=variant, deal=deal, status=status, reason=r.reason,
                             moves=len(r.moves) if r.moves is not None else None,
                             nodes=r.nodes, states=r.states, seconds=r.seconds,
                             tokens_seconds=spent[0], call_seconds=t1 - t0, verify_seconds=t2 - t1))
            if progress and (i % 50 == 0 or i == len(deals)):
                done = sum(x["status"] != "unknown" for x in rows)
                print(f"  {variant}: {i}/{len(deals)} deals, {done} decided, "
                      f"{time.perf_counter() - t_start:.0f} s", file=sys.stderr, flush=True)
    finally:
        solver.path_tokens = real_tokens
    total = time.perf_counter() - t_start

    ms = [x["seconds"] * 1e3 for x in rows]
    nodes = [x["nodes"] for x in rows]
    search = sum(x["seconds"] - x["tokens_seconds"] for x in rows)
    reported = sum(x["seconds"] for x in rows)
    whole = sum(x["call_seconds"] + x["verify_seconds"] for x in rows)
    count = {s: sum(x["status"] == s for x in rows) for s in ("solved", "unsolvable", "unknown", "error")}
    summary = dict(
        variant=variant, deals=len(rows), **count,
        ms_med=_q(ms, .5), ms_p90=_q(ms, .9), ms_max=max(ms),
        nodes_med=_q(nodes, .5), nodes_p90=_q(nodes, .9), nodes_max=max(nodes),
        mnps=sum(nodes) / search / 1e6 if search > 0 else float("nan"),
        tokens_share=sum(x["tokens_seconds"] for x in rows) / reported if reported else 0.0,
        verify_share=sum(x["verify_seconds"] for x in rows) / whole if whole else 0.0,
        verify_ms_med=_q([x["verify_seconds"] * 1e3 for x in rows if x["status"] == "solved"], .5),
        warm=warm, total=total,
    )
    return summary, rows


COLUMNS = [
    ("variant", "variant", "{}"), ("deals", "deals", "{}"), ("solved", "solved", "{}"),
    ("unsolv", "unsolvable", "{}"), ("unknown", "unknown", "{}"),
    ("ms med", "ms_med", "{:.1f}"), ("ms p90", "ms_p90", "{:.1f}"), ("ms max", "ms_max", "{:.0f}"),
    ("nodes med", "nodes_med", "{:,.0f}"), ("nodes p90", "nodes_p90", "{:,.0f}"), ("nodes max", "nodes_max", "{:,.0f}"),
    ("Mnodes/s", "mnps", "{:.2f}"), ("tokens %", "tokens_share", "{:.0%}"), ("verify %", "verify_share", "{:.0%}"),
    ("verify ms med", "verify_ms_med", "{:.1f}"), ("warm-up s", "warm", "{:.1f}"), ("total s", "total", "{:.0f}"),
]


def table(summaries: list[dict]) -> str:
    head = [c[0] for c in COLUMNS]
    body = [["-" if s[key] != s[key] else fmt.format(s[key]) for _, key, fmt in COLUMNS]  # nan: no solved deal
            for s in summaries]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    sep = "|" + "|".join("-" * (w + 1) + ":" if i else "-" * (w + 2) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), sep, *map(line, body)])


# ---- the command line, in fresh processes --------------------------------------------------
def _command() -> list[str]:
    found = shutil.which("harpsolve")
    script = os.path.join(os.path.dirname(sys.executable), "harpsolve")
    if os.path.exists(script):
        return [script]
    return [found] if found else [sys.executable, "-m", "harpsolve.cli"]


def _timed(args, env=None) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    res = subprocess.run([*_command(), *args], capture_output=True, text=True, env=env)
    return time.perf_counter() - t, res


def bench_startup(repeats: int = 3) -> dict:
    helps = [_timed(["--help"])[0] for _ in range(max(repeats, 5))]
    args = ["solve", "easy-harp", "1", "--json"]
    with tempfile.TemporaryDirectory(prefix="harpsolve-cache-") as cache:
        env = dict(os.environ, HARPSOLVE_CACHE_DIR=cache)
        runs = []
        for k in range(1 + repeats):
            wall, res = _timed(args, env)
            if res.returncode not in (0, 10, 11):
                raise SystemExit(f"harpsolve {' '.join(args)} failed ({res.returncode}): {res.stderr.strip()}")
            seconds = json.loads(res.stdout)["seconds"]
            runs.append((wall, seconds, json.loads(res.stdout)["status"]))
    first, cached = runs[0], runs[1:]
    return dict(
        help_s=statistics.median(helps),
        first_wall=first[0], first_before=first[0] - first[1],
        cached_wall=statistics.median(w for w, _, _ in cached),
        cached_before=statistics.median(w - s for w, s, _ in cached),
        status=first[2], repeats=repeats,
    )


def startup_text(s: dict) -> str:
    return "\n".join([
        "| command | wall s | before search s |",
        "|---|---:|---:|",
        f"| `harpsolve --help` (median of 5) | {s['help_s']:.2f} | |",
        f"| `harpsolve solve easy-harp 1`, empty cache (compiles) | {s['first_wall']:.1f} | {s['first_before']:.1f} |",
        f"| `harpsolve solve easy-harp 1`, cached (median of {s['repeats']}) | {s['cached_wall']:.2f} | "
        f"{s['cached_before']:.2f} |",
        f"(easy-harp 1 ends {s['status']}; 'before search' = wall - the search seconds the command reports)",
    ])


# ---- main ---------------------------------------------------------------------------------
def metadata(args, summaries) -> dict:
    import numba
    import numpy

    import harpsolve
    import harpsolve.solver as solver

    return dict(
        harpsolve_version=harpsolve.__version__, python=platform.python_version(), numba=numba.__version__,
        numpy=numpy.__version__, cpu=_cpu(), cores=os.cpu_count(), machine=platform.node(),
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        deals=args.deals, max_nodes=args.max_nodes or solver.DEFAULT_MAX_NODES,
        max_memory=solver.DEFAULT_MAX_MEMORY, command=" ".join(sys.argv), summaries=summaries,
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", help="comma-separated variant ids [default: every variant]")
    ap.add_argument("--deals", default="1-1000", help="deal range, e.g. 1-200 or 5,17,100-200, /K for every K-th (1-100000/200) [default: 1-1000]")
    ap.add_argument("--max-nodes", type=int, default=None, help="node budget per deal [default: the solver's]")
    ap.add_argument("--out", help="write one row per deal to this Parquet file")
    ap.add_argument("--no-startup", action="store_true", help="skip the command-line start-up timings")
    ap.add_argument("--startup-only", action="store_true", help="only the command-line start-up timings")
    ap.add_argument("--repeats", type=int, default=3, help="runs of the cached start-up [default: 3]")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)

    from harpsolve.rules import VARIANTS, get_rules
    from harpsolve.sweep.jobs import parse_every

    summaries, rows = [], []
    if not args.startup_only:
        from harpsolve.rules import RulesError
        from harpsolve.sweep.store import SweepError

        variants = args.variants.split(",") if args.variants else list(VARIANTS)
        try:
            deals = parse_every(args.deals)
            for v in variants:
                get_rules(v)  # an unknown name fails before anything runs
        except (SweepError, RulesError) as e:
            ap.error(str(e))
        print(f"# harpsolve solver benchmark: deals {args.deals}, "
              f"{'default budget' if args.max_nodes is None else f'max_nodes {args.max_nodes:,}'}; "
              f"{_cpu()}, {os.cpu_count()} cores; one process, warm-up excluded", flush=True)
        for v in variants:
            s, r = bench_variant(v, deals, args.max_nodes, progress=not args.quiet)
            summaries.append(s)
            rows += r
            if s["error"]:
                print(f"ERROR: {s['error']} {v} solution(s) failed the reference replay", file=sys.stderr)
        print(table(summaries), flush=True)
        if args.out:
            import pyarrow as pa
            import pyarrow.parquet as pq

            t = pa.Table.from_pylist(rows)
            meta = metadata(args, summaries)
            t = t.replace_schema_metadata({b"harpsolve_bench": json.dumps(meta).encode()})
            pq.write_table(t, args.out)
            print(f"wrote {len(rows)} rows to {args.out}", file=sys.stderr)
    if not args.no_startup:
        print()
        print(startup_text(bench_startup(args.repeats)), flush=True)
    return 1 if any(s["error"] for s in summaries) else 0


if __name__ == "__main__":
    sys.exit(main())
