"""Move generation speed: nodes per second of the jitted kernels on fixed positions.

    python benchmarks/bench_movegen.py                       # every variant, 5 repeats
    python benchmarks/bench_movegen.py --variants easy-harp,klondike-1 --repeats 9
    python benchmarks/bench_movegen.py --min-nodes 2000000   # deeper trees

For each variant, two fixed positions: the layout of deal 1, and a
mid-game position a third of the way through the solution of the first
deal the solver solves at 300 000 nodes (face-up cards, foundations, a
moved stock).  On each, a
jitted perft -- the full tree of moves to a fixed depth, no transposition
table -- counts nodes with the search's own kernels, three ways:

  gen+apply     movegen._gen at each inner node, movegen._apply per child:
                raw move generation (compound moves, proved cuts on: what
                the search generates)
  +auto+key     also the safe automatic moves (movegen._auto) and the
                128-bit fingerprint of every child: a search node's work,
                short of the transposition-table probe
  single moves  gen+apply with the primitive switches (s>w / w>s one by
                one, no automatic moves, no cuts): the reference engine's
                move set

The depth is the smallest that gives at least --min-nodes nodes.  Each
figure is the median over --repeats runs; the first call of each kernel
(numba compiling or loading from its cache) is made before any timing and
printed apart.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np
from numba import njit

from harpsolve.config import JIT
from harpsolve.movegen import GEN_WORK, MAX_MOVES, _apply, _auto, _gen
from harpsolve.state import O_OBLIG, STATE_BYTES, _fingerprint, kernel_params, pack

MAX_DEPTH = 24


@njit(**JIT)
def _perft(root, p, depth, work):
    """Nodes in the tree of moves of ``depth`` plies below ``root`` (root not counted).

    ``work``: 0 gen+apply; 1 also automatic moves and the fingerprint of every child.
    """
    stack = np.empty((depth + 1, STATE_BYTES), np.uint8)
    moves = np.empty((depth, MAX_MOVES), np.int64)
    nmoves = np.zeros(depth, np.int64)
    nxt = np.zeros(depth, np.int64)
    scores = np.empty(MAX_MOVES, np.int32)
    autobuf = np.empty(256, np.int64)
    gw = np.empty(GEN_WORK, np.int64)
    stack[0] = root
    n = _gen(stack[0], p, moves[0], scores, gw)
    nmoves[0] = max(n, 0)
    nxt[0] = 0
    d = 0
    nodes = 0
    acc = np.uint64(0)
    while d >= 0:
        if nxt[d] >= nmoves[d]:
            d -= 1
            continue
        m = moves[d, nxt[d]]
        nxt[d] += 1
        child = stack[d + 1]
        child[:] = stack[d]
        _apply(child, m, p)
        nodes += 1
        if work == 1:
            if child[O_OBLIG] == 0:
                _auto(child, p, autobuf)
            h1, h2 = _fingerprint(child, p)
            acc ^= h1 ^ h2
        if d + 1 < depth:
            k = _gen(child, p, moves[d + 1], scores, gw)
            nmoves[d + 1] = max(k, 0)
            nxt[d + 1] = 0
            d += 1
    return nodes, acc


def positions(variant: str):
    """(rules, [(name, layout), ...]): deal 1, and a third of the way through a solution.

    The mid-game position is the one a third of the way through the solution
    the solver finds for the first deal it solves at 300 000 nodes (a node
    budget: the same position on every machine).
    """
    from harpsolve.deals import deal_layout
    from harpsolve.reference import Game
    from harpsolve.rules import get_rules
    from harpsolve.solver import solve

    rules = get_rules(variant)
    out = [("deal 1", deal_layout(rules, 1))]
    for deal in range(1, 11):
        r = solve(rules, deal, max_nodes=300_000)
        if r.solved:
            g = Game(rules, r.layout, undo=False)
            for tok in r.moves[: len(r.moves) // 3]:
                g.apply(tok)
            out.append((f"deal {deal} at 1/3", g.to_layout()))
            break
    return rules, out


def measure(root, p, work, min_nodes, repeats):
    depth = 1
    while True:
        nodes, _ = _perft(root, p, depth, work)
        if nodes >= min_nodes or depth >= MAX_DEPTH:
            break
        depth += 1
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        _perft(root, p, depth, work)
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    return depth, nodes, med, nodes / med


def _cpu() -> str:
    from harpsolve.sweep import cpu_model

    return cpu_model()


def main(argv=None):
    from harpsolve.rules import VARIANTS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-nodes", type=int, default=500_000)
    args = ap.parse_args(argv)

    import numba

    rules0 = VARIANTS["klondike-1"]
    t = time.perf_counter()
    for work in (0, 1):
        _perft(pack(positions("klondike-1")[1][0][1], rules0), kernel_params(rules0), 1, work)
    print(f"warm-up (compile or cache load, not timed below): {time.perf_counter() - t:.2f} s")
    print(f"{_cpu()}; python {platform.python_version()}, numba {numba.__version__}, numpy {np.__version__}; "
          f"median of {args.repeats}")
    head = ("variant", "position", "kind", "depth", "nodes", "ms", "Mnodes/s")
    rows = []
    for v in args.variants.split(","):
        rules, poss = positions(v.strip())
        for name, layout in poss:
            root = pack(layout, rules)
            for kind, p, work in (("gen+apply", kernel_params(rules), 0),
                                  ("+auto+key", kernel_params(rules), 1),
                                  ("single moves", kernel_params(rules, compound=False, auto=False, prune=False), 0)):
                depth, nodes, med, rate = measure(root, p, work, args.min_nodes, args.repeats)
                rows.append((v, name, kind, str(depth), f"{nodes:,}", f"{med * 1e3:.1f}", f"{rate / 1e6:.2f}"))
                print("  " + " | ".join(rows[-1]), file=sys.stderr, flush=True)
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 3 + ["---:"] * 4) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
