"""What a results folder gained since a git revision: the figures of results/NOTES.md's rows.

    python benchmarks/sweep_rows.py klondike-3 --since e11233c
    python benchmarks/sweep_rows.py big-harp --since HEAD --results PATH
    python benchmarks/sweep_rows.py klondike-3 harp big-harp --since e11233c   # several

The folder ``results/VARIANT`` (or ``--results PATH/VARIANT``) is compared with the same folder
as committed at ``--since``.  A row is new unless the committed folder has a row with the same
deal, algorithm, budget, status and nodes (a sweep that merges its files rewrites them, so the
files themselves say nothing).  Printed:

- the sweep runs recorded since (command, start and end, the code's commit where the run
  recorded it: ``sweep.runs.code_version``): what a NOTES row says it ran;
- for each (algorithm, node budget) of the new rows: the deal range, the statuses, the proofs by
  kind, the engines that solved, median and mean seconds a deal, and the deals left unknown;
- the table after it, one best row per deal (``sweep.best_rows``, as ``harpsolve stats`` keeps
  them): deals, statuses, the bounds on the share of these deals that is won (every unknown
  deal lost / won: exact for these deals, as results/NOTES.md quotes them -- not the 95 %
  interval over all shuffles that ``harpsolve stats`` gives) and the unknown deals, for the
  whole table and for the deals after 100 000 (the part each sweep extends).

The seconds are wall time inside the worker: a worker paused (``kill -STOP``) or sharing its
core counts that time too.
"""
from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAME = ["deal", "algorithm", "max_nodes", "status", "nodes"]  # what makes two rows one
LISTED = 80  # unknown deals listed at most


def committed(repo: str, rev: str, variant: str, dest: str) -> str | None:
    """Extract results/VARIANT as committed at ``rev`` in the git repository ``repo`` into
    ``dest``; its path, or None if the revision has no such folder."""
    try:
        tar = subprocess.run(["git", "-C", repo, "archive", "--format=tar", rev, f"results/{variant}"],
                             capture_output=True, check=True).stdout
    except subprocess.CalledProcessError:
        return None
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(dest, filter="data")
    return os.path.join(dest, "results", variant)


def counts(series) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in series.value_counts().items()) or "none"


def deal_list(deals) -> str:
    deals = sorted(int(d) for d in deals)
    more = f" ... ({len(deals) - LISTED} more)" if len(deals) > LISTED else ""
    return "[" + ", ".join(str(d) for d in deals[:LISTED]) + "]" + more


def bounds(df) -> str:
    n = len(df)
    if n == 0:
        return "no deals"
    solved = int((df.status == "solved").sum())
    unknown = int((df.status == "unknown").sum())
    return (f"{n:,} deals ({counts(df.status)}), bounds [{100 * solved / n:.3f}, "
            f"{100 * (solved + unknown) / n:.3f}] %")


def report(variant: str, folder: str, since: str, repo: str = ROOT) -> None:
    from harpsolve.sweep.store import best_rows, load_results

    now = load_results([folder])
    with tempfile.TemporaryDirectory() as tmp:
        old_folder = committed(repo, since, variant, tmp)
        old = load_results([old_folder]) if old_folder and os.listdir(old_folder) else None
        old_runs = {r["run_id"] for r in old.runs} if old else set()
        old_rows = old.frame[SAME].drop_duplicates() if old else None
    df = now.frame
    if old_rows is not None:
        m = df.merge(old_rows.assign(_old=True), on=SAME, how="left")
        new = df[m["_old"].isna().to_numpy()]
    else:
        new = df
    print(f"{variant}: {len(new):,} rows new since {since} (of {len(df):,})")
    for r in now.runs:
        if r.get("run_id") not in old_runs:
            print(f"  run {r.get('started', '?')} .. {r.get('ended', '?')}: {r.get('command', '?')}"
                  f" (code {r.get('code') or 'not recorded'}, {r.get('workers', '?')} worker(s))")
    for (alg, budget), g in new.groupby(["algorithm", "max_nodes"], dropna=False):
        budget = "no limit" if budget == 0 else f"{int(budget):,} nodes"
        print(f"  {alg}, {budget}: {len(g):,} rows, deals {int(g.deal.min()):,}-{int(g.deal.max()):,}: "
              f"{counts(g.status)}")
        proofs = g[g.status == "unsolvable"].proof.fillna("?")
        if len(proofs):
            kind = proofs.where(~proofs.str.startswith("dead end"), "dead end")
            print(f"    proofs: {counts(kind)}")
        engines = g[g.status == "solved"].engine.fillna("?").str.split(" ").str[0]
        if len(engines):
            print(f"    solved by: {counts(engines)}")
        print(f"    seconds a deal: median {1000 * g.seconds.median():.1f} ms, mean {1000 * g.seconds.mean():.1f} ms")
        unknown = g[g.status == "unknown"].deal
        if len(unknown):
            print(f"    unknown: {len(unknown)} {deal_list(unknown)}")
    best = best_rows(df)
    print(f"  table: {bounds(best)}")
    after = best[best.deal > 100_000]
    if len(after):
        print(f"  deals after 100 000: {bounds(after)}")
    print(f"  unknown deals: {deal_list(best[best.status == 'unknown'].deal)}")


def main(argv=None) -> int:
    sys.path.insert(0, ROOT)
    from harpsolve.sweep.store import ResultFileError

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="+", help="variant ids, folders under --results")
    ap.add_argument("--since", required=True, help="the git revision to compare with (e.g. the session's start)")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    ap.add_argument("--repo", default=ROOT, help="the git repository --since is read from [this one]")
    a = ap.parse_args(argv)
    for v in a.variants:
        folder = os.path.join(a.results, v)
        if not os.path.isdir(folder):
            print(f"sweep_rows: no folder {folder}", file=sys.stderr)
            return 2
        try:
            report(v, folder, a.since, a.repo)
        except ResultFileError as e:
            print(f"sweep_rows: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
