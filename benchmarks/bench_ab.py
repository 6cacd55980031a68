"""Two versions of the code on the same deals, interleaved deal by deal: which is faster?

    python benchmarks/bench_ab.py easy-harp 1-1200 --a 7c604c0 --b HEAD
    python benchmarks/bench_ab.py harp 1-600/2 --a main --b /path/to/other/checkout --max-nodes 2000000
    python benchmarks/bench_ab.py harp 1-40 --a e11233c --b HEAD --kernel beam --width 64   # ns a child
    python benchmarks/bench_ab.py endless-harp 1-100000/500 --a cd104f3 --b HEAD --algorithm beam

This machine's speed drifts by a quarter within half an hour (benchmarks/README.md, twentieth
session), more than most changes are worth, so two versions timed one after the other are
compared across different machine speeds.  Here each version runs in its own long-lived
process (started once, kernels loaded or compiled before the clock starts) and the two solve
the same deal in turn, the order alternating from deal to deal: a slow stretch of the machine
hits both alike, and the ratio of their means is what the change is worth -- on a quiet machine.
With two sweeps running beside it, the same checkout against itself gave 0.992, 1.013, 1.044,
0.961 and 1.071 on 400-1 000 easy-harp deals (twenty-fourth session; keeping the faster of two
solves of each deal did not help): there, a few per cent is noise.  Time small changes with the
sweeps paused, or by the kernels' own rates (nanoseconds a node) on fixed deals.

``--a`` / ``--b``: a git revision of this repository (checked out into a temporary worktree,
removed afterwards) or the path of a checkout.  Each process imports harpsolve from its
checkout; numba compiles each checkout's kernels once into its own cache.  Before the clock,
each worker warms up the solver on the variant (solver.warm_up: every engine of the schedule
runs a little) and both solve ``--warm`` deals; a kernel that only a rare deal reaches may still
compile inside the figures on a new worktree's first run (a mean far above the median says
so): run it again.
RANGE is as ``harpsolve sweep`` reads it, with ``/K`` for every K-th deal (``1-600/2``).

Reported per version: median and mean seconds a deal (``SolveResult.seconds``: search and
token writing, the sweeps' polish-free setting; every solution replayed by the reference
engine, outside the time), mean nodes, unknown deals; then the ratio of means B / A.  A deal
one version solves and the other proves unsolvable is a bug: it is listed and the exit status
is 1.  Statuses that differ only by ``unknown`` (a budget) are listed, not failed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The worker: one process per version, "VARIANT DEAL" lines in, one result line out each.
WORKER = r"""
import sys
sys.path.insert(0, sys.argv[1])
from harpsolve.deals import deal_layout
from harpsolve.rules import get_rules
from harpsolve.solver import solve, warm_up
kw = {"max_nodes": int(sys.argv[2])} if sys.argv[2] != "-" else {}
algorithm = sys.argv[3]
warm = set()
print("ready", flush=True)
for line in sys.stdin:
    variant, deal = line.split()
    if variant not in warm:  # every engine's kernels loaded (or compiled) before any clock
        warm.add(variant)
        warm_up(get_rules(variant), deal_layout(get_rules(variant), int(deal)), algorithm=algorithm)
    r = solve(variant, int(deal), verify=True, polish=False, algorithm=algorithm, **kw)
    print(deal, r.status, r.nodes, repr(r.seconds), (r.engine or "-").replace(" ", "_"), flush=True)
"""


# The kernel worker (``--kernel``): "VARIANT KIND WIDTH NODES DEAL,DEAL,..." lines in; each deal
# searched from its root by one kernel for NODES children (the beams of search/beam.py, of
# WIDTH, or a depth-first search of search/dfs.py, under the game's first beam weight set),
# the kernel loaded or compiled on the first deal before the clock; "children seconds" out.
KERNEL_WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from harpsolve.deals import deal_layout
from harpsolve.rules import get_rules
from harpsolve.search import beam, dfs, restarts
from harpsolve.state import pack
print("ready", flush=True)
for line in sys.stdin:
    variant, kind, width, nodes, deals = line.split()
    rules = get_rules(variant)
    roots = [pack(deal_layout(rules, int(d)), rules) for d in deals.split(",")]
    # the engine's beam vector where the tree has one (beam.run_params, forty-first session)
    p = (beam.run_params(rules, beam.sets_for(rules)[0], 1) if hasattr(beam, "run_params")
         else restarts.run_params(rules, beam.sets_for(rules)[0], 1, streamlined=False))
    buf = dfs.Buffers() if kind == "dfs" else None  # the stack's buffers, tens of MB: only where used

    def one(root):
        s = beam.BeamSearch(root, p, int(width)) if kind == "beam" else dfs.DfsSearch(root, p, buf)
        s.advance(int(nodes))
        return s.nodes

    one(roots[0])
    t0 = time.perf_counter()
    n = sum(one(r) for r in roots)
    print(n, repr(time.perf_counter() - t0), flush=True)
"""


def parse_deals(text: str) -> list[int]:
    from harpsolve.sweep.jobs import parse_every

    return parse_every(text)


def checkout(ref: str, tmp: str) -> tuple[str, bool]:
    """The path of a checkout of ``ref``: the path itself, or a new worktree (True: remove it)."""
    if os.path.isdir(ref) and os.path.isdir(os.path.join(ref, "harpsolve")):
        return os.path.abspath(ref), False
    path = os.path.join(tmp, ref.replace("/", "_"))
    subprocess.run(["git", "-C", HERE, "worktree", "add", "--detach", "-f", path, ref], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return path, True


class Version:
    def __init__(self, label: str, path: str, max_nodes, worker: str = WORKER, algorithm: str = "portfolio"):
        self.label, self.path, self.rows = label, path, []
        self.proc = subprocess.Popen([sys.executable, "-c", worker, path, str(max_nodes) if max_nodes is not None else "-",
                                      algorithm],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                                     cwd=tempfile.gettempdir())
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise SystemExit(f"{label}: the worker did not start ({path})")

    def solve(self, variant: str, deal: int) -> list[str]:
        self.proc.stdin.write(f"{variant} {deal}\n")
        out = self.proc.stdout.readline().split()
        if len(out) != 5:
            raise SystemExit(f"{self.label}: the worker failed on deal {deal}")
        return out

    def kernel(self, variant: str, kind: str, width: int, nodes: int, deals: list[int]) -> float:
        """Nanoseconds a child of one kernel run over ``deals`` (``KERNEL_WORKER``)."""
        self.proc.stdin.write(f"{variant} {kind} {width} {nodes} {','.join(map(str, deals))}\n")
        out = self.proc.stdout.readline().split()
        if len(out) != 2:
            raise SystemExit(f"{self.label}: the kernel worker failed")
        self.rows.append(out)
        return 1e9 * float(out[1]) / max(int(out[0]), 1)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def compare(variant: str, deals: list[int], a: Version, b: Version, warm: int = 3) -> tuple[list[str], int]:
    """Solve ``deals`` with both versions in turn; the report lines and the exit status."""
    for d in deals[:warm]:
        a.solve(variant, d), b.solve(variant, d)
    for i, d in enumerate(deals):
        first, second = (a, b) if i % 2 == 0 else (b, a)
        first.rows.append(first.solve(variant, d))
        second.rows.append(second.solve(variant, d))
    # "decided ms": the mean over the deals the version decided; "unknown time": the share of its
    # time spent on the deals it left unknown (each ran to the budget)
    lines = [f"{variant}, {len(deals)} deals ({deals[0]}-{deals[-1]}), interleaved deal by deal",
             f"{'version':<10} {'median ms':>10} {'mean ms':>10} {'mean nodes':>12} {'unknown':>8} "
             f"{'decided ms':>11} {'unknown time':>13}"]
    means = []
    for v in (a, b):
        secs = [float(r[3]) for r in v.rows]
        means.append(statistics.mean(secs))
        lost = [float(r[3]) for r in v.rows if r[1] == "unknown"]
        decided = [float(r[3]) for r in v.rows if r[1] != "unknown"]
        lines.append(f"{v.label:<10} {1e3 * statistics.median(secs):>10.2f} {1e3 * means[-1]:>10.2f} "
                     f"{statistics.mean(int(r[2]) for r in v.rows):>12,.0f} {len(lost):>8} "
                     f"{1e3 * statistics.mean(decided) if decided else float('nan'):>11.2f} "
                     f"{sum(lost) / max(sum(secs), 1e-12):>12.1%}")
    lines.append(f"ratio of means B / A: {means[1] / means[0]:.3f}")
    status = 0
    for ra, rb in zip(a.rows, b.rows):
        if ra[1] != rb[1]:
            clash = {ra[1], rb[1]} == {"solved", "unsolvable"}
            status |= clash
            lines.append(f"deal {ra[0]}: A {ra[1]} ({ra[4]}), B {rb[1]} ({rb[4]})" + ("  <-- CONTRADICTION" if clash else ""))
    return lines, status


def compare_kernel(variant: str, deals: list[int], a: Version, b: Version, kind: str, width: int, nodes: int,
                   repeats: int) -> tuple[list[str], int]:
    """Run one kernel on ``deals`` ``repeats`` times a version, the versions in turn (the order
    alternating); the report lines and the exit status (1 if the two made different numbers of
    children: not the same search)."""
    ns = {a: [], b: []}
    for i in range(repeats):
        for v in ((a, b) if i % 2 == 0 else (b, a)):
            ns[v].append(v.kernel(variant, kind, width, nodes, deals))
    what = f"beams of width {width}" if kind == "beam" else "depth-first searches"
    lines = [f"{variant}, {what}, {nodes:,} children from each of {len(deals)} deals ({deals[0]}-{deals[-1]}), "
             f"{repeats} runs a version in turn",
             f"{'version':<10} {'fastest ns':>11} {'median ns':>10} {'children':>12}"]
    for v in (a, b):
        lines.append(f"{v.label:<10} {min(ns[v]):>11.0f} {statistics.median(ns[v]):>10.0f} {int(v.rows[-1][0]):>12,}")
    lines.append(f"ratio of the fastest B / A: {min(ns[b]) / min(ns[a]):.3f}, of the medians "
                 f"{statistics.median(ns[b]) / statistics.median(ns[a]):.3f}")
    same = a.rows[-1][0] == b.rows[-1][0]
    if not same:
        lines.append("the two versions made different numbers of children: not the same search")
    return lines, 0 if same else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variant")
    ap.add_argument("deals", help="a deal range as sweep reads it, /K for every K-th deal: 1-600/2")
    ap.add_argument("--a", default="HEAD", help="revision or checkout path of version A [HEAD]")
    ap.add_argument("--b", default=".", help="revision or checkout path of version B [this checkout]")
    ap.add_argument("--max-nodes", type=int, default=None, help="node budget per deal [the solver's]")
    ap.add_argument("--algorithm", default="portfolio",
                    help="the solver's algorithm in both versions (solve's, e.g. beam) [portfolio]")
    ap.add_argument("--warm", type=int, default=3, help="deals solved by both before the clock [3]")
    ap.add_argument("--kernel", choices=("beam", "dfs"), default=None,
                    help="time one kernel instead of the solver: nanoseconds a child (see KERNEL_WORKER)")
    ap.add_argument("--width", type=int, default=64, help="--kernel beam: the beams' width [64]")
    ap.add_argument("--kernel-nodes", type=int, default=50_000, help="--kernel: children from each deal [50 000]")
    ap.add_argument("--repeats", type=int, default=5, help="--kernel: runs a version [5]")
    args = ap.parse_args(argv)
    deals = parse_deals(args.deals)
    tmp = tempfile.mkdtemp(prefix="bench_ab_")
    made, versions = [], []
    try:
        for label, ref in (("A", args.a), ("B", args.b)):
            path, new = checkout(HERE if ref == "." else ref, tmp)
            if new:
                made.append(path)
            versions.append(Version(f"{label} {os.path.basename(path) if not new else ref}"[:10], path, args.max_nodes,
                                    KERNEL_WORKER if args.kernel else WORKER, args.algorithm))
        if args.kernel:
            lines, status = compare_kernel(args.variant, deals, *versions, args.kernel, args.width,
                                           args.kernel_nodes, args.repeats)
        else:
            lines, status = compare(args.variant, deals, *versions, warm=args.warm)
        print("\n".join(lines))
        return status
    finally:
        for v in versions:
            v.close()
        for path in made:
            subprocess.run(["git", "-C", HERE, "worktree", "remove", "--force", path], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
