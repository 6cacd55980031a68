"""A portfolio of restarted depth-first searches with diverse move orders.

One depth-first search follows its move order into a blind spot and spends
the whole budget there: on easy-harp deals an order that finds a win in a
few hundred nodes for one deal wanders for millions on the next, and a
different order finds it at once (issue 11: single orders solved 13-18 of
deals 1-30, their union 26).  So this engine runs *rounds*: each round runs
the depth-first search once per configuration of ``CONFIGS`` (a weight set of
``WEIGHT_SETS`` -- the ``H_FEATURES`` order of search/dfs.py: a weighted sum
of single-card-game features plus seeded noise -- with or without the
streamliners), each run with its own fresh table and the round's node
budget; the budget doubles from round to round, from a small first one
(``BASE_NODES``), and the noisy weight sets draw a new seed every round.
Doubling bounds the waste: a deal that needs n nodes under some
configuration costs at most about twice the sum of all configurations'
shares up to n.  Why so small a start: measured on easy-harp deals 1-300
(``benchmarks/bench_restarts.py``), the cheapest of the configurations
solves the median deal in about 120 nodes, while any one fixed order needs
thousands; the first rounds are cheap tries of many orders.

Every complete run searches the same graph as the plain classifier -- the
order only changes which child is tried first -- so a run that exhausts its
graph (no streamliner, no overflow) proves the deal unsolvable ("exhausted").

Streamliners (Blake & Gent, JAIR 2026, §5.5 "smart solvability"): the
streamlined configurations send every card that can go home home at once
(``P_ALWAYS_HOME``) and merge the two suits of a colour in the key
(``P_MERGE_COLOURS``).  Both cut wins (so a streamlined run never answers
``unsolvable``), but they shrink the graph, and a win they find is a win:
every solution is shortened, turned into tokens and replayed by the reference
engine like any other.  Every streamlined run searches the same smaller
graph (the order changes only which child comes first), so once one has
exhausted it completely the streamlined configurations are dropped.

Harp's pass limit: every weight set charges the recycles used and the cards
passed over in this pass (features ``F_RECYCLES``, ``F_WASTE``), so moves that
spend the stock come after moves that do not.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..rules import Rules
from ..state import ALL_CUTS, kernel_params, pack
from . import dfs

BASE_NODES = 250          # the first round's budget per run; doubles every round

# The move orders: weights of the features of dfs._feature_key, in the order
# hidden, on-hidden, blockers, buried pairs, empty columns, kings on cards,
# home, talon, recycles, waste (smaller key first), and the noise amplitude.
# Each leans on another feature; the last two are mostly random.
WEIGHT_SETS: tuple[tuple[tuple[int, ...], int], ...] = (
    ((16, 0, 0, 0, -6, 0, -2, 1, 32, 1), 0),    # the "weighted" heuristic
    ((8, 0, 0, 0, 0, 0, -1, 0, 16, 0), 0),      # "lookahead": hidden cards, then cards home
    ((6, 3, 0, 0, -4, 2, -2, 1, 32, 1), 1),     # face-up cards lying on hidden ones
    ((6, 1, 3, 3, -3, 2, -2, 0, 32, 1), 1),     # blockers of their own suit, buried pairs
    ((2, 0, 1, 0, -2, 0, -8, 0, 24, 1), 1),     # cards home first
    ((8, 2, 1, 1, -4, 1, -2, 4, 32, 2), 1),     # empty the stock
    ((10, 2, 2, 2, -5, 2, -3, 1, 32, 1), 8),    # a bit of everything, noisy
    ((4, 0, 0, 0, 0, 0, -1, 0, 16, 0), 24),     # mostly random
    ((6, 1, 3, 3, -3, 2, -2, 8, 64, 1), 1),     # set 3 with the stock dear: the beams of draw 3
    ((6, 3, 0, 0, -4, 2, -2, 8, 64, 1), 1),     # set 2 the same      under a pass limit (beam.py)
    ((6, 4, 3, 3, -3, 2, -2, 0, 32, 1), 1),     # sets 2 and 3 at once: the beams' first (beam.py)
)


# The configurations of a round, in the order it runs them: (weight set, streamlined).
# Measured (benchmarks/bench_restarts.py, every configuration alone on easy-harp deals
# 101-300 at 20 000 nodes, three seeds each; solved of 189 that any solved): plain
# set 3 solved 95-99, set 2 88, set 6 81-83, set 5 63-71, set 4 52-61, set 1 57, the
# streamlined ones 22-46, plain set 0 31, plain set 7 3-9.  The plain ones lead; the
# streamlined ones add the deals no plain order solves cheaply (simulated on the same
# figures: 178 of the 189 solved with the first six, 183 with all ten, at 250 nodes a
# first run); sets 0 and 7 add nothing the others do not.
# Set 10 (the beams' first set, search/beam.py) in set 3's two places (nineteenth session, a
# /tmp script, the portfolio at 2 000 000 nodes with the old configurations and the new, deal
# by deal): easy-harp 1-1 000 every 2nd mean nodes 11 451 -> 7 808, median 1 184 -> 370;
# 5 001-6 000 every 2nd 10 316 -> 6 858, median 1 197 -> 416, mean 14.7 -> 10.8 ms, median
# 6.2 -> 3.7 ms (two sweeps beside it); harp 10 001-10 600 every 6th 106 460 -> 104 509;
# bakers-game, klondike-3 and endless-harp (1-1 000 every 4th, 1-300 every 3rd) and big-harp
# 80 001-82 000 every 25th at 200 000 nodes within 0.1 % of their nodes.  Set 10 first, before
# set 3, did as well (7 552 and 7 132 mean nodes) with one configuration more.
CONFIGS: tuple[tuple[int, bool], ...] = (
    (10, False), (2, False), (6, False), (5, False), (4, False), (1, False),
    (10, True), (5, True), (2, True), (6, True),
)

# A run's table starts small and doubles as it fills (search/dfs.py: the search pauses, the
# table is rehashed, nothing else changes), so its size decides only what clearing it costs:
# the first round's runs store a few hundred states, and clearing 2**14 slots (384 KB with the
# stock payload) was a good part of their time.  Twentieth session, a /tmp A/B script solving
# easy-harp 1-4 000 every 4th with each size in turn (same nodes), sweeps stopped: 2**14 / 2**11
# mean 9.18 / 9.00 ms, median 2.21 / 2.15 ms; 2**11 / 2**9 10.43 / 10.06 ms, 2.51 / 2.44 ms.
INITIAL_TABLE = 1 << 9


@dataclass
class RestartResult:
    status: str                 # 'solved' | 'unsolvable' | 'unknown'
    engine: str                 # the run that decided, e.g. "restart r2.3" (or "restart" when none did)
    proof: str | None           # "exhausted" for an unsolvable deal
    tokens: list[str] | None    # the verified solution (SPEC move tokens)
    nodes: int                  # all runs together
    states: int                 # states stored by the deciding (or last) run
    reason: str                 # why unknown: "nodes", "time", "memory", "depth"
    runs: int = 0


def run_params(rules: Rules, k: int, rnd: int, *, streamlined: bool, cuts: int = ALL_CUTS,
               aggressive: bool = False):
    """The kernel vector of run ``k`` of round ``rnd`` (1-based), with the proved ``cuts``;
    ``aggressive``: movegen's unproved cut too (solution finding only: search/beam.py
    ``run_params``)."""
    weights, noise = WEIGHT_SETS[k]
    return kernel_params(rules, heuristic=dfs.H_FEATURES, dominance=True, weights=weights, noise=noise,
                         seed=1000 * rnd + k + (500 if streamlined else 0),
                         always_home=streamlined, merge_colours=streamlined, cuts=cuts, aggressive=aggressive)


class Runs:
    """The runs in order, an iterator of (round, weight set, streamlined, node budget) whose
    budgets sum to ``max_nodes`` (endless with max_nodes = 0).  ``streamline=False`` leaves
    out the streamlined configurations; :meth:`drop_streamlined` leaves them out from now on
    (a streamlined run has exhausted the streamlined graph, which every one of them shares)."""

    def __init__(self, max_nodes: int = 0, *, streamline: bool = True, configs=CONFIGS):
        self.max_nodes = max_nodes
        self.cfgs = [c for c in configs if streamline or not c[1]]
        self.used = 0
        self.rnd, self.i = 1, 0

    def drop_streamlined(self) -> None:
        done = self.cfgs[:self.i]
        self.i -= sum(1 for c in done if c[1])
        self.cfgs = [c for c in self.cfgs if not c[1]]

    def __iter__(self):
        return self

    def __next__(self):
        if not self.cfgs:
            raise StopIteration
        if self.i >= len(self.cfgs):
            self.rnd, self.i = self.rnd + 1, 0
        per_run = BASE_NODES << (self.rnd - 1)
        cap = per_run if not self.max_nodes else min(per_run, self.max_nodes - self.used)
        if cap <= 0:
            raise StopIteration
        k, streamlined = self.cfgs[self.i]
        self.i += 1
        self.used += cap
        return self.rnd, k, streamlined, cap


class _Buffers(dfs.Buffers):
    """The runs' stack and table (search/dfs.py), reused by every run of the process."""

    def fresh_table(self, capacity: int = INITIAL_TABLE) -> None:
        super().fresh_table(capacity)


_BUF: _Buffers | None = None


def _one_run(b: _Buffers, root, p, cap: int, deadline, max_memory: int):
    """One depth-first search from ``root`` under ``p`` with a fresh table, at most ``cap`` nodes.

    Returns (kernel code or None, why it stopped, the search)."""
    s = dfs.DfsSearch(root, p, b, INITIAL_TABLE)
    code, why = s.advance(cap, deadline, lambda nbytes: nbytes <= max_memory)
    return code, why, s


def run(rules: Rules, layout, *, max_nodes: int, deadline: float | None = None, max_memory: int = 1 << 30,
        streamline: bool = True, verify: bool = True, cuts: int = ALL_CUTS, configs=CONFIGS) -> RestartResult:
    """Classify one layout with the portfolio (``deadline``: a time.perf_counter() value or None)."""
    from .shortcut import line_tokens

    global _BUF
    if _BUF is None:
        _BUF = _Buffers()
    b = _BUF
    root = pack(layout, rules)
    nodes = states = runs = 0
    reason = "nodes"
    runs_ = Runs(max_nodes, streamline=streamline, configs=configs)
    for level, k, streamlined, cap in runs_:
        if deadline is not None and time.perf_counter() > deadline:
            reason = "time"
            break
        p = run_params(rules, k, level, streamlined=streamlined, cuts=cuts)
        code, why, s = _one_run(b, root, p, cap, deadline, max_memory)
        runs += 1
        nodes += s.nodes
        states = s.states
        name = f"restart {'s' if streamlined else 'r'}{level}.{k}"
        if code == dfs.R_SOLVED:
            tokens = line_tokens(root, s.path(), p)
            if verify:
                _verify(rules, layout, tokens)
            return RestartResult("solved", name, None, tokens, nodes, states, "", runs)
        if code == dfs.R_EXHAUSTED and s.complete and not streamlined:
            return RestartResult("unsolvable", name, "exhausted", None, nodes, states, "", runs)
        if code == dfs.R_EXHAUSTED and s.complete and streamlined:
            runs_.drop_streamlined()
        if why in ("time", "memory"):
            reason = why
        elif code == dfs.R_EXHAUSTED and not streamlined:
            reason = "depth"
        if why == "time":
            break
    return RestartResult("unknown", "restart", None, None, nodes, states, reason, runs)


def _verify(rules: Rules, layout, tokens: list[str]) -> None:
    from ..reference import replay
    from ..solver import SolverError

    rep = replay(rules, layout, tokens)
    if not (rep.ok and rep.won):
        raise SolverError(f"internal error: a restart's solution failed replay at move {rep.error_index}: {rep.error}")
