"""The Python API of the solver: ``solve(...)`` -> :class:`SolveResult`.

>>> r = solve("klondike-1", 1)                          # doctest: +SKIP
>>> r.status, len(r.moves) > 0
('solved', True)

Statuses (SPEC §4): ``solved`` (with a solution that the reference engine has
replayed to a win), ``unsolvable`` (the search exhausted every reachable
state), ``unknown`` (a node, time or memory budget ran out; ``reason`` says
which).  Budgets are deterministic where they can be: the node budget gives
the same answer on every machine, a time budget does not.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import movegen as mg
from .layout import Layout
from .rules import Rules, get_rules, with_overrides
from .search import ALGORITHM_NAMES, DEFAULT_ALGORITHM, DEFAULT_HEURISTIC, HEURISTIC_NAMES, dfs, ehc
from .search.tt import ENTRY_BYTES, _rehash, new_table
from .solution import path_tokens
from .state import STATE_BYTES, kernel_params, pack

DEFAULT_MAX_NODES = 2_000_000
DEFAULT_MAX_MEMORY = 1 << 30  # bytes for the transposition table
MAX_DEPTH = 4096
NODE_SLICE = 250_000
INITIAL_TABLE = 1 << 16

# --heuristic: how the depth-first search orders a node's children (search/dfs.py).
HEURISTICS = {name: code for code, name in enumerate(HEURISTIC_NAMES)}
ALGORITHMS = ALGORITHM_NAMES
CLIMB_SHARE = 0.25          # at most this share of the node budget goes to climbing
CLIMB_MAX_NODES = 500_000   # ...and at most this many nodes
CLIMB_QUEUE = 1 << 16       # states one breadth-first step may hold

STATUSES = ("solved", "unsolvable", "unknown")


class SolverError(RuntimeError):
    """A solution failed the reference replay: a bug in harpsolve, never a user error."""


@dataclass
class SolveResult:
    variant: str
    deal: int | None
    rules: Rules
    layout: Layout
    status: str
    moves: list[str] | None = None
    score: int | None = None
    nodes: int = 0
    states: int = 0
    seconds: float = 0.0
    reason: str = ""
    max_depth: int = 0
    settings: dict = field(default_factory=dict)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def to_dict(self) -> dict:
        """The SPEC §4 solution JSON object."""
        d = {"variant": self.rules.name, "deal": self.deal, "status": self.status}
        overrides = {k: v for k, v in self.rules.as_dict().items()
                     if self.rules.name in _presets() and v != getattr(_presets()[self.rules.name], k)}
        if overrides:
            d["rules"] = {k: list(v) if isinstance(v, tuple) else v for k, v in overrides.items()}
        d["layout"] = self.layout.to_dict()
        d["moves"] = self.moves if self.moves is not None else []
        if self.score is not None:
            d["score"] = self.score
        d.update(nodes=self.nodes, states=self.states, seconds=round(self.seconds, 6))
        if self.reason:
            d["reason"] = self.reason
        return d


def _presets():
    from .rules import VARIANTS

    return VARIANTS


class _Buffers:
    """Per-process search buffers, allocated once and reused across solves."""

    def __init__(self):
        self.stack = np.zeros((MAX_DEPTH + 1, STATE_BYTES), np.uint8)
        self.moves = np.zeros((MAX_DEPTH, mg.MAX_MOVES), np.int64)
        self.nmoves = np.zeros(MAX_DEPTH, np.int32)
        self.nxt = np.zeros(MAX_DEPTH, np.int32)
        self.scores = np.zeros(mg.MAX_MOVES, np.int32)
        self.autobuf = np.zeros(256, np.int64)
        self.t1, self.t2 = new_table(INITIAL_TABLE)
        self.cq = None

    def climb_buffers(self):
        if self.cq is None:
            self.cq = np.zeros((CLIMB_QUEUE, STATE_BYTES), np.uint8)
            self.cparent = np.zeros(CLIMB_QUEUE, np.int64)
            self.cmove = np.zeros(CLIMB_QUEUE, np.int64)
            self.ct1, self.ct2 = new_table(4 * CLIMB_QUEUE)
            self.cpath = np.zeros(1 << 14, np.int64)
        return self.cq, self.cparent, self.cmove, self.ct1, self.ct2, self.cpath

    def fresh_table(self, capacity: int = INITIAL_TABLE):
        if self.t1.shape[0] == capacity:
            self.t1.fill(0)
            self.t2.fill(0)
        else:
            self.t1, self.t2 = new_table(capacity)


_BUF: _Buffers | None = None


def _buffers() -> _Buffers:
    global _BUF
    if _BUF is None:
        _BUF = _Buffers()
    return _BUF


def resolve_rules(variant: str | Rules, overrides=None) -> Rules:
    rules = variant if isinstance(variant, Rules) else get_rules(variant)
    return with_overrides(rules, overrides)


def solve(variant: str | Rules = "easy-harp", deal: int | None = None, *, layout: Layout | None = None,
          overrides=None, max_nodes: int | None = DEFAULT_MAX_NODES, timeout: float | None = None,
          max_memory: int = DEFAULT_MAX_MEMORY, heuristic: str = DEFAULT_HEURISTIC, verify: bool = True,
          auto: bool = True, prune: bool = True, algorithm: str = DEFAULT_ALGORITHM) -> SolveResult:
    """Classify one deal (by number) or one layout.

    ``max_nodes``/``timeout``/``max_memory`` are the budgets (None or 0 = no
    limit for nodes and time).  ``verify`` replays a found solution in the
    reference engine and raises :class:`SolverError` if it does not win --
    a solution is never returned unchecked.  ``auto``/``prune`` switch off
    the safe-move and symmetry prunings (for soundness tests).
    """
    rules = resolve_rules(variant, overrides)
    if layout is None:
        from .deals import deal_layout

        if deal is None:
            raise ValueError("give a deal number or a layout")
        layout = deal_layout(rules, deal)
    else:
        layout.validate(rules)
    if heuristic not in HEURISTICS:
        from .rules import RulesError

        raise RulesError(f"unknown heuristic {heuristic!r}; known: {', '.join(HEURISTICS)}")
    p = kernel_params(rules, auto=auto, prune=prune, heuristic=HEURISTICS[heuristic])
    root = pack(layout, rules)
    if algorithm not in ALGORITHMS:
        from .rules import RulesError

        raise RulesError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    settings = dict(max_nodes=max_nodes or 0, timeout=timeout or 0.0, max_memory=max_memory,
                    heuristic=heuristic, auto=auto, prune=prune, algorithm=algorithm)
    result = SolveResult(rules.name, deal, rules, layout, "unknown", settings=settings)

    t0 = time.perf_counter()
    b = _buffers()
    b.fresh_table()
    ctr = np.zeros(dfs.C_SIZE, np.int64)
    b.stack[0] = root
    na = dfs._root(b.stack, b.moves, b.nmoves, b.nxt, b.scores, b.autobuf, b.t1, b.t2, ctr, p)
    climbed = None
    if mg._won(b.stack[0], p):
        code = dfs.R_SOLVED
    elif na < 0:
        ctr[dfs.C_INCOMPLETE] = 1
        code = dfs.R_EXHAUSTED
    else:
        code = None
        if algorithm == "climb":
            budget = CLIMB_MAX_NODES if not max_nodes else min(CLIMB_MAX_NODES, int(max_nodes * CLIMB_SHARE))
            cq, cparent, cmove, ct1, ct2, cpath = b.climb_buffers()
            cctr = np.zeros(2, np.int64)
            e = ehc._ehc(b.stack[0], p, cq, cparent, cmove, ct1, ct2, b.moves[0].copy(), b.scores,
                         b.autobuf, cpath, cctr, budget)
            ctr[dfs.C_NODES] = cctr[0]
            if e == ehc.E_SOLVED:
                climbed = [int(x) for x in cpath[:cctr[1]]]
                code = dfs.R_SOLVED
    if code is None:
        while True:
            slice_ = NODE_SLICE
            if max_nodes:
                slice_ = min(slice_, max_nodes - int(ctr[dfs.C_NODES]))
                if slice_ <= 0:
                    result.reason = "nodes"
                    code = None
                    break
            code = dfs._dfs(b.stack, b.moves, b.nmoves, b.nxt, b.scores, b.autobuf,
                            b.t1, b.t2, ctr, p, slice_)
            if code == dfs.R_GROW:
                cap = b.t1.shape[0] * 2
                if cap * ENTRY_BYTES > max_memory:
                    result.reason = "memory"
                    code = None
                    break
                n1, n2 = new_table(cap)
                _rehash(b.t1, b.t2, n1, n2)
                b.t1, b.t2 = n1, n2
                continue
            if code != dfs.R_PAUSED:
                break
            if timeout and time.perf_counter() - t0 > timeout:
                result.reason = "time"
                code = None
                break
    result.nodes = int(ctr[dfs.C_NODES])
    result.states = int(ctr[dfs.C_STORED])
    result.max_depth = int(ctr[dfs.C_MAXDEPTH])
    if code == dfs.R_SOLVED:
        if climbed is not None:
            path = climbed
        else:
            depth = int(ctr[dfs.C_DEPTH]) if not mg._won(b.stack[0], p) else 0
            path = [int(b.moves[k, b.nxt[k] - 1]) for k in range(depth)]
        result.moves = path_tokens(root, path, p)
        result.status = "solved"
    elif code == dfs.R_EXHAUSTED:
        if ctr[dfs.C_INCOMPLETE]:
            result.reason = "depth"
        else:
            result.status = "unsolvable"
    result.seconds = time.perf_counter() - t0
    if result.status == "solved" and verify:
        from .reference import replay

        rep = replay(rules, layout, result.moves)
        if not (rep.ok and rep.won):
            raise SolverError(f"internal error: the solution failed replay at move {rep.error_index}: {rep.error}")
        if rules.scoring == "easy-harp":
            result.score = rep.score
    # keep one big table around only while it is modest; free the rest
    if b.t1.shape[0] * ENTRY_BYTES > (64 << 20):
        b.t1, b.t2 = new_table(INITIAL_TABLE)
    return result
