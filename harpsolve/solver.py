"""The Python API of the solver: ``solve(...)`` -> :class:`SolveResult`.

>>> r = solve("klondike-1", 1)                          # doctest: +SKIP
>>> r.status, len(r.moves) > 0
('solved', True)

Statuses (SPEC §4): ``solved`` (with a solution that the reference engine has
replayed to a win), ``unsolvable`` (the search exhausted every reachable
state), ``unknown`` (a node, time or memory budget ran out; ``reason`` says
which).  Budgets are deterministic where they can be: the node budget gives
the same answer on every machine, a time budget does not.

The default algorithm ("climb") spends the node budget in phases: weighted
A* in full-information games (phase 0), hill-climbing with restarts (1) and a
depth-first search with an extra, unproved cut (2) -- these may only answer
``solved`` -- then the complete depth-first search (3).  README: "How the
solver works".
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import movegen as mg
from .layout import Layout
from .rules import Rules, get_rules, with_overrides
from .search import shortcut as short
from .search import (
    ALGORITHM_NAMES, ASTAR_ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_HEURISTIC, HEURISTIC_NAMES, dfs, ehc,
)
from .search.tt import ENTRY_BYTES, _rehash, new_payload, new_table
from .solution import path_tokens, shorten_tokens
from .state import ALL_CUTS, O_OBLIG, P_PASSES, P_REACH, STATE_BYTES, kernel_params, pack

DEFAULT_MAX_NODES = 2_000_000
DEFAULT_MAX_MEMORY = 1 << 30  # bytes for the transposition table
MAX_DEPTH = 32768       # deepest search path (past it: "unknown", never "unsolvable")
MOVE_STACK = 1 << 22    # move lists of all the nodes on the path, stacked
NODE_SLICE = 250_000
INITIAL_TABLE = 1 << 16
DFS_ENTRY_BYTES = ENTRY_BYTES + 8  # the key, and the payload of stock dominance (search/dfs.py)

# --heuristic: how the depth-first search orders a node's children (search/dfs.py).
HEURISTICS = {name: code for code, name in enumerate(HEURISTIC_NAMES)}
ALGORITHMS = ALGORITHM_NAMES
# "climb" spends parts of the node budget on two solution-finding phases
# with an extra, unproved cut (movegen: aggressive) before the complete search.
CLIMB_SHARE = 0.4           # hill-climbing: at most this share of the budget
CLIMB_MAX_NODES = 1_000_000 # ...and at most this many nodes
CLIMB_RESTARTS = 32         # the climb is greedy: restarts commit to other improvements
CLIMB_MIN_NODES = 2000      # ...each with at least this many nodes
CLIMB_MIN_NODES_PASSES = 8_000  # ...under a pass limit (measured: README, "Phases")
FAST_DFS_SHARE = 0.4        # depth-first search with the extra cut
FAST_DFS_MAX_NODES = 2_000_000
WASTAR_SHARE = 0.2          # phase 0 (games with every card face up): weighted A*
WASTAR_MAX_NODES = 300_000
WASTAR_WEIGHT = 5.0
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
    # A*/weighted A* only: cost model, cost, weight, whether proved minimal, lower bound
    optimality: dict | None = None

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
        if self.optimality is not None:
            d["optimality"] = self.optimality
        return d


def _presets():
    from .rules import VARIANTS

    return VARIANTS


class _Buffers:
    """Per-process search buffers, allocated once and reused across solves."""

    def __init__(self):
        self.stack = np.zeros((MAX_DEPTH + 1, STATE_BYTES), np.uint8)
        self.moves = np.zeros(MOVE_STACK, np.int64)
        self.mstart = np.zeros(MAX_DEPTH, np.int64)
        self.nmoves = np.zeros(MAX_DEPTH, np.int32)
        self.nxt = np.zeros(MAX_DEPTH, np.int32)
        self.scores = np.zeros(mg.MAX_MOVES, np.int32)
        self.autobuf = np.zeros(256, np.int64)
        self.t1, self.t2 = new_table(INITIAL_TABLE)
        self.tv = new_payload(INITIAL_TABLE)
        self.cq = None

    def climb_buffers(self):
        if self.cq is None:
            self.cq = np.zeros((CLIMB_QUEUE, STATE_BYTES), np.uint8)
            self.cparent = np.zeros(CLIMB_QUEUE, np.int64)
            self.cmove = np.zeros(CLIMB_QUEUE, np.int64)
            self.ct1, self.ct2 = new_table(4 * CLIMB_QUEUE)
            self.cslots = np.zeros(CLIMB_QUEUE, np.int64)
            self.cpath = np.zeros(1 << 14, np.int64)
        return self.cq, self.cparent, self.cmove, self.ct1, self.ct2, self.cslots, self.cpath

    def fresh_table(self, capacity: int = INITIAL_TABLE):
        if self.t1.shape[0] == capacity:
            self.t1.fill(0)
            self.t2.fill(0)
        else:
            self.t1, self.t2 = new_table(capacity)
            self.tv = new_payload(capacity)


_BUF: _Buffers | None = None


def _buffers() -> _Buffers:
    global _BUF
    if _BUF is None:
        _BUF = _Buffers()
    return _BUF


def _climb_stages(p: np.ndarray) -> np.ndarray:
    """The move sets each climbing step tries in turn, as rows of kernel params.

    With a pass limit the stock is a resource that a greedy climb burns: the
    nearest gain is often a card deep in the stock, one move away but
    passing over every card before it.  So a step first looks for a gain
    drawing at most one card, then anywhere in this pass, and only then
    turns the waste over.  Without a pass limit every row is the rules'.
    """
    if p[P_PASSES] == 0:
        return p[None, :].copy()
    near, this_pass = p.copy(), p.copy()
    near[P_REACH] = 1
    this_pass[P_PASSES] = 1  # no waste-to-stock turn
    return np.stack([near, this_pass, p])


def _climb(b: _Buffers, root: np.ndarray, p: np.ndarray, cap: int):
    """Enforced hill-climbing from ``root``, restarted with shuffled move orders while the
    budget lasts: (path of kernel moves or None, nodes used)."""
    start = root.copy()
    mg._auto(start, p, b.autobuf)
    cq, cparent, cmove, ct1, ct2, cslots, cpath = b.climb_buffers()
    stages = _climb_stages(p)
    used = 0
    # a climb needs a few thousand nodes to get anywhere (tens of thousands under a
    # pass limit, where its steps search longer): small budgets get fewer restarts
    least = CLIMB_MIN_NODES_PASSES if p[P_PASSES] > 0 else CLIMB_MIN_NODES
    restarts = max(1, min(CLIMB_RESTARTS, cap // least))
    for attempt in range(restarts):
        share = (cap - used) // (restarts - attempt)
        if share <= 0:
            break
        cctr = np.zeros(2, np.int64)
        e = ehc._ehc(start, p, stages, cq, cparent, cmove, ct1, ct2, cslots, np.zeros(mg.MAX_MOVES, np.int64), b.scores,
                     b.autobuf, cpath, cctr, share, attempt)
        used += int(cctr[0])
        if e == ehc.E_SOLVED:
            return [int(x) for x in cpath[:cctr[1]]], used
    return None, used


def _dfs_phase(b: _Buffers, root: np.ndarray, p: np.ndarray, node_cap: int, deadline, max_memory: int):
    """Run the depth-first search from ``root`` with a fresh table.

    Returns (code, reason, counters); the kernel runs in slices so that the
    clock and the memory budget are checked between them.
    """
    b.fresh_table()
    ctr = np.zeros(dfs.C_SIZE, np.int64)
    b.stack[0] = root
    na = dfs._root(b.stack, b.moves, b.mstart, b.nmoves, b.nxt, b.scores, b.autobuf, b.t1, b.t2, b.tv, ctr, p)
    if mg._won(b.stack[0], p):
        ctr[dfs.C_DEPTH] = 0
        return dfs.R_SOLVED, "", ctr
    if na < 0:
        ctr[dfs.C_INCOMPLETE] = 1
        return dfs.R_EXHAUSTED, "depth", ctr
    while True:
        slice_ = NODE_SLICE
        if node_cap:
            slice_ = min(slice_, node_cap - int(ctr[dfs.C_NODES]))
            if slice_ <= 0:
                return None, "nodes", ctr
        code = dfs._dfs(b.stack, b.moves, b.mstart, b.nmoves, b.nxt, b.scores, b.autobuf,
                        b.t1, b.t2, b.tv, ctr, p, slice_)
        if code == dfs.R_GROW:
            cap = b.t1.shape[0] * 2
            if cap * DFS_ENTRY_BYTES > max_memory:
                return None, "memory", ctr
            n1, n2 = new_table(cap)
            nv = new_payload(cap)
            _rehash(b.t1, b.t2, b.tv, n1, n2, nv)
            b.t1, b.t2, b.tv = n1, n2, nv
            continue
        if code != dfs.R_PAUSED:
            return code, "", ctr
        if deadline and time.perf_counter() > deadline:
            return None, "time", ctr


def _dfs_path(b: _Buffers, ctr: np.ndarray) -> list[int]:
    """The kernel moves from the root to the solved position on the DFS stack."""
    return [int(b.moves[b.mstart[k] + b.nxt[k] - 1]) for k in range(int(ctr[dfs.C_DEPTH]))]


def shorten(root: np.ndarray, path: list[int], p: np.ndarray) -> list[int]:
    """Cut every loop out of a solution path: where a position repeats, drop the moves between.

    Depth-first search finds long, wandering solutions; a position met twice
    (byte for byte, so the later moves still apply) means the moves between
    the two visits did nothing.  The result replays exactly like the input.
    """
    st = root.copy()
    buf = np.zeros(256, np.int64)
    mg._auto(st, p, buf)
    seen = {st.tobytes(): 0}
    kept: list[int] = []
    for m in path:
        mg._apply(st, np.int64(m), p)
        if st[O_OBLIG] == 0:
            mg._auto(st, p, buf)
        key = st.tobytes()
        if key in seen:
            del kept[seen[key]:]
            # forget the positions inside the cut loop
            seen = {k: i for k, i in seen.items() if i <= len(kept)}
        else:
            kept.append(m)
            seen[key] = len(kept)
    return kept


def shortcut(root: np.ndarray, path: list[int], p: np.ndarray) -> list[int]:
    """Jump ahead wherever one move reaches a later position of the path (search/shortcut.py)."""
    if not path:
        return path
    st = root.copy()
    buf = np.zeros(256, np.int64)
    mg._auto(st, p, buf)
    arr = np.array(path, np.int64)
    out = np.zeros(len(path), np.int64)
    for _ in range(3):  # a jump can open new ones; a few passes catch nearly all
        n = short._shortcut(st, arr, len(arr), p, np.zeros(mg.MAX_MOVES, np.int64),
                            np.zeros(mg.MAX_MOVES, np.int32), buf, out)
        if n == len(arr):
            break
        arr = out[:n].copy()
    return [int(x) for x in arr]


def one_left_layout(rules: Rules) -> Layout:
    """A position one king from won (the king in the stock where there is one).

    Solving it loads the kernels that write a solution's tokens (the stock
    route included), so warm-ups before a timed solve use it.
    """
    from .cards import make_card

    kings = [make_card(13, suit) for suit in range(4) for _ in range(rules.decks)]
    last = kings.pop(0)
    columns = [[] for _ in range(rules.n_columns)]
    stock = [last] if rules.draw else []
    if not stock:
        columns[0].append(last)
    return Layout(columns, [0] * rules.n_columns, stock=stock, cells=[None] * rules.cells,
                  foundations=kings + [make_card(12, 0)])


def resolve_rules(variant: str | Rules, overrides=None) -> Rules:
    rules = variant if isinstance(variant, Rules) else get_rules(variant)
    return with_overrides(rules, overrides)


def solve(variant: str | Rules = "easy-harp", deal: int | None = None, *, layout: Layout | None = None,
          overrides=None, max_nodes: int | None = DEFAULT_MAX_NODES, timeout: float | None = None,
          max_memory: int = DEFAULT_MAX_MEMORY, heuristic: str = DEFAULT_HEURISTIC, verify: bool = True,
          auto: bool = True, prune: bool = True, algorithm: str = DEFAULT_ALGORITHM,
          weight: float | None = None, cost: str = "tokens", cuts: int | None = None) -> SolveResult:
    """Classify one deal (by number) or one layout.

    ``max_nodes``/``timeout``/``max_memory`` are the budgets (None or 0 = no
    limit for nodes and time).  ``verify`` replays a found solution in the
    reference engine and raises :class:`SolverError` if it does not win --
    a solution is never returned unchecked.  ``auto``/``prune`` switch off
    the safe-move and symmetry prunings (for soundness tests).
    ``algorithm="astar"``/``"wastar"`` (with ``weight``, default 2) look for
    a minimal solution under the ``cost`` model (tokens, moves, or score for
    the best easy-harp score): see :func:`_solve_astar`.
    ``cuts``: the proved cuts of the depth-first searches (a bit set of
    ``state.CUT_*``); None = all of them with ``prune``, none without.
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
    if cuts is None:
        cuts = ALL_CUTS if prune else 0
    p = kernel_params(rules, auto=auto, prune=prune, heuristic=HEURISTICS[heuristic], dominance=True, cuts=cuts)
    root = pack(layout, rules)
    if algorithm not in ALGORITHMS:
        from .rules import RulesError

        raise RulesError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    settings = dict(max_nodes=max_nodes or 0, timeout=timeout or 0.0, max_memory=max_memory,
                    heuristic=heuristic, auto=auto, prune=prune, algorithm=algorithm, cuts=cuts)
    result = SolveResult(rules.name, deal, rules, layout, "unknown", settings=settings)
    if algorithm in ASTAR_ALGORITHMS:
        return _solve_astar(result, root, algorithm, weight, cost, auto=auto, prune=prune, max_nodes=max_nodes,
                            timeout=timeout, max_memory=max_memory, verify=verify)

    t0 = time.perf_counter()
    b = _buffers()
    total = max_nodes or 0
    path, status, reason = None, "unknown", ""
    nodes = states = depth = 0
    pp = p  # the kernel switches the found path was searched with
    if algorithm == "climb" and prune and rules.face_down == "none":
        # Phase 0, full-information games (every card face up): weighted A*
        # finds short solutions fast there (Baker's Game: ~100 moves).
        from .search import astar

        cap = WASTAR_MAX_NODES if not total else min(WASTAR_MAX_NODES, int(total * WASTAR_SHARE))
        if cap > 0:
            ap = astar.params_for(rules, "moves", auto=auto, prune=prune)
            r = astar.run(root, ap, "moves", WASTAR_WEIGHT, max_nodes=cap, timeout=None,
                          max_memory=max_memory, t0=t0)
            nodes += r.nodes
            if r.path is not None:
                path, pp = list(r.path), ap
            elif r.code == astar.R_EXHAUSTED:
                # it keeps only the proved cuts: an exhausted open list is a proof
                status, states = "unsolvable", r.states
    if algorithm == "climb" and prune and path is None and status == "unknown":
        # Phases 1-2 look for a solution with extra, unproved cuts; only a
        # solution counts from them (it is replayed like any other).  The
        # climb's breadth-first table keeps exact keys: no dominance there.
        climb = kernel_params(rules, auto=auto, prune=prune, heuristic=HEURISTICS[heuristic], aggressive=True,
                              cuts=cuts)
        fast = kernel_params(rules, auto=auto, prune=prune, heuristic=HEURISTICS[heuristic], aggressive=True, cuts=cuts,
                             dominance=True)
        cap = CLIMB_MAX_NODES if not total else min(CLIMB_MAX_NODES, int(total * CLIMB_SHARE))
        if cap > 0:
            path, used = _climb(b, root, climb, cap)
            nodes += used
            if path is not None:
                pp = climb
        cap = FAST_DFS_MAX_NODES if not total else min(FAST_DFS_MAX_NODES, int(total * FAST_DFS_SHARE))
        if path is None and cap > 0:
            code, why, c = _dfs_phase(b, root, fast, cap, None, max_memory)
            nodes += int(c[dfs.C_NODES])
            states, depth = int(c[dfs.C_STORED]), int(c[dfs.C_MAXDEPTH])
            if code == dfs.R_SOLVED:
                path, pp = _dfs_path(b, c), fast
    if path is None and status == "unknown":
        # The complete search: a fresh table, proved-sound cuts only.
        left = (total - nodes) if total else 0
        if total and left <= 0:
            reason = "nodes"
        else:
            deadline = (t0 + timeout) if timeout else None
            code, why, c = _dfs_phase(b, root, p, left, deadline, max_memory)
            nodes += int(c[dfs.C_NODES])
            states, depth = int(c[dfs.C_STORED]), int(c[dfs.C_MAXDEPTH])
            if code == dfs.R_SOLVED:
                path, pp = _dfs_path(b, c), p
            elif code == dfs.R_EXHAUSTED and not c[dfs.C_INCOMPLETE]:
                status = "unsolvable"
            else:
                reason = why or "depth"
    if path is not None:
        status = "solved"
        tokens = path_tokens(root, shortcut(root, shorten(root, path, pp), pp), pp)
        # a line a player can follow: fewer turns through the stock, no detours (solution.py)
        result.moves = shorten_tokens(rules, layout, tokens)
    result.status, result.reason = status, reason
    result.nodes, result.states, result.max_depth = nodes, states, depth
    result.seconds = time.perf_counter() - t0
    _check(result, verify)
    # keep one big table around only while it is modest; free the rest
    if b.t1.shape[0] * DFS_ENTRY_BYTES > (64 << 20):
        b.t1, b.t2 = new_table(INITIAL_TABLE)
        b.tv = new_payload(INITIAL_TABLE)
    return result


def _check(result: SolveResult, verify: bool) -> None:
    """Replay a solution in the reference engine (raise SolverError unless it wins); set the score."""
    if result.status == "solved" and verify:
        from .reference import replay

        rep = replay(result.rules, result.layout, result.moves)
        if not (rep.ok and rep.won):
            raise SolverError(f"internal error: the solution failed replay at move {rep.error_index}: {rep.error}")
        if result.rules.scoring == "easy-harp":
            result.score = rep.score


# ---- A* and weighted A* (search/astar.py) --------------------------------------------------
DEFAULT_WEIGHT = 2.0


def _solve_astar(result: SolveResult, root, algorithm: str, weight, cost: str, *, auto, prune, max_nodes, timeout,
                 max_memory, verify) -> SolveResult:
    """A* (a minimal solution under ``cost``) or weighted A* (within a factor ``weight``).

    ``result.optimality`` records the cost model, the weight, the solution's
    cost and ``proved`` ("minimal" for A*, "within-weight" for weighted A*),
    or, when a budget ran out under A*, a ``lower_bound`` on the minimal
    cost.  For ``cost="score"`` it also has ``clean_score`` (the score less
    10 per take-back: what the search maximises) and, unsolved, the
    ``score_bound`` no solution's clean score exceeds.
    """
    from .rules import RulesError
    from .search import COST_NAMES, astar

    rules = result.rules
    if cost not in COST_NAMES:
        raise RulesError(f"unknown cost model {cost!r}; known: {', '.join(COST_NAMES)}")
    if cost == "score" and rules.scoring != "easy-harp":
        raise RulesError(f"{rules.label} has no score (only the easy-harp scoring does)")
    if algorithm == "astar":
        if weight not in (None, 1, 1.0):
            raise RulesError("A* has weight 1; use the wastar algorithm for another weight")
        weight = 1.0
    else:
        weight = DEFAULT_WEIGHT if weight is None else float(weight)
        if not weight >= 1:
            raise RulesError(f"the weight of weighted A* is a number >= 1, not {weight:g}")
    result.settings.update(weight=weight, cost=cost)
    t0 = time.perf_counter()
    p = astar.params_for(rules, cost, auto=auto, prune=prune)
    r = astar.run(root, p, cost, weight, max_nodes=max_nodes, timeout=timeout, max_memory=max_memory, t0=t0)
    result.nodes, result.states = r.nodes, r.states
    opt = dict(cost_model=cost, weight=weight)
    if r.path is not None:
        result.status = "solved"
        result.moves = path_tokens(root, r.path, p)
        result.max_depth = len(r.path)
        opt.update(cost=r.cost, proved="minimal" if weight == 1 else "within-weight")
    elif r.code == astar.R_EXHAUSTED:
        result.status = "unsolvable"
    else:
        result.reason = r.reason
        if r.lower_bound is not None:
            opt["lower_bound"] = r.lower_bound
    result.seconds = time.perf_counter() - t0
    result.optimality = opt
    _check(result, verify)
    if cost == "score":
        best = opt["ceiling"] = astar.clean_score_ceiling(result.layout, rules)
        if result.solved and result.score is not None:
            opt["clean_score"] = result.score - 10 * sum(m.startswith("f>") for m in result.moves)
        if "lower_bound" in opt:
            opt["score_bound"] = best - 5 * astar.score_bound(opt["lower_bound"])
    return result
