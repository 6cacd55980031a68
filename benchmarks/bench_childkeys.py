"""A child's fingerprint and feature key, in full and column by column: nanoseconds per child.

    python benchmarks/bench_childkeys.py                          # easy-harp, harp, big-harp
    python benchmarks/bench_childkeys.py --variants klondike-3 --deals 20 --repeats 9

The positions are those beams of width 64 hold (search/beam.py, the game's first weight set)
after 2 000, 20 000 and 60 000 children on deals 1..``--deals``: the parents whose children a
beam and the restarts' depth-first searches key.  For every child of every such parent
(movegen._gen, _apply, _auto: the "make" row) the kernel then computes, side by side in one
run:

  full              state._fingerprint and dfs._child_key of the child from scratch
  column by column  state._fingerprint_from and dfs._child_key_from: the parent's column
                    and talon hashes and column features once per parent (its
                    _summarise_hash, _talon_prefix and _summarise_features, counted here), then only
                    the columns and the talon the child changed

Each figure is the median over ``--repeats`` runs, in nanoseconds per child, less the
"make" row; the two ways' sums of fingerprints and keys must agree (exit 1 if not).  Compile
time is excluded (a first call on two parents before the clock starts).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from numba import njit

from harpsolve.config import JIT
from harpsolve.movegen import GEN_WORK, MAX_MOVES, _apply, _auto, _gen
from harpsolve.search.dfs import FS_SIZE, _child_key, _child_key_from, _summarise_features
from harpsolve.state import HS_SIZE, O_OBLIG, TALON_MAX, _fingerprint, _fingerprint_from, _summarise_hash, _talon_prefix

MAKE, FULL, FROM = range(3)


# not cached: the tests load this file under another module name, and a cache written then
# would not load when the script runs as __main__
@njit(**dict(JIT, cache=False))
def _children(parents, p, way):
    """Make every child of every parent; ``way`` MAKE: nothing more; FULL / FROM: key it in
    full / column by column.  Returns (children, a checksum of the keys)."""
    moves = np.empty(MAX_MOVES, np.int64)
    scores = np.empty(MAX_MOVES, np.int32)
    autobuf = np.empty(256, np.int64)
    gw = np.empty(GEN_WORK, np.int64)
    child = np.empty(parents.shape[1], np.uint8)
    hs = np.empty(HS_SIZE, np.uint64)
    out = np.empty(HS_SIZE, np.uint64)
    fs = np.empty(FS_SIZE, np.int64)
    pre = np.empty((2, TALON_MAX + 1), np.uint64)
    total = np.uint64(0)
    count = 0
    for i in range(parents.shape[0]):
        n = _gen(parents[i], p, moves, scores, gw)
        if way == FROM:
            _summarise_hash(parents[i], p, hs)
            _talon_prefix(parents[i], p, pre)
            _summarise_features(parents[i], p, fs)
        for j in range(n):
            child[:] = parents[i]
            _apply(child, moves[j], p)
            if child[O_OBLIG] == 0:
                _auto(child, p, autobuf)
            count += 1
            if way == FULL:
                h1, h2 = _fingerprint(child, p)
                key = _child_key(child, moves[j], p)
            elif way == FROM:
                h1, h2 = _fingerprint_from(child, parents[i], p, hs, out, pre)
                key = _child_key_from(child, parents[i], moves[j], p, fs)
            else:
                continue
            total += h1 ^ (h2 * np.uint64(3)) ^ np.uint64(key)
    return count, total


def parents_of(variant: str, deals: int) -> tuple[np.ndarray, np.ndarray]:
    from harpsolve.deals import deal_layout
    from harpsolve.rules import get_rules
    from harpsolve.search import beam
    from harpsolve.state import pack

    rules = get_rules(variant)
    p = beam.run_params(rules, beam.sets_for(rules)[0], 1)
    rows = []
    for d in range(1, deals + 1):
        root = pack(deal_layout(rules, d), rules)
        for nodes in (2_000, 20_000, 60_000):
            s = beam.BeamSearch(root, p, 64)
            status, _ = s.advance(nodes)
            if status is None:
                rows.append(s.cur[:int(s.ctr[beam.C_NCUR])].copy())
    return np.concatenate(rows), p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="easy-harp,harp,big-harp")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    ok = True
    print(f"{'variant':<13} {'parents':>8} {'children':>9} {'make ns':>8} {'full ns':>8} {'by column ns':>13} {'ratio':>6}")
    for variant in args.variants.split(","):
        parents, p = parents_of(variant, args.deals)
        for way in (MAKE, FULL, FROM):
            _children(parents[:2], p, way)  # compile or load before the clock
        ns = {}
        sums = {}
        for way in (MAKE, FULL, FROM):
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                count, sums[way] = _children(parents, p, way)
                times.append(time.perf_counter() - t0)
            ns[way] = statistics.median(times) / max(count, 1) * 1e9
        if sums[FULL] != sums[FROM]:
            ok = False
            print(f"{variant}: the two ways disagree", file=sys.stderr)
        full, by_col = ns[FULL] - ns[MAKE], ns[FROM] - ns[MAKE]
        print(f"{variant:<13} {len(parents):>8,} {count:>9,} {ns[MAKE]:>8.0f} {full:>8.0f} {by_col:>13.0f} "
              f"{by_col / full:>6.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
