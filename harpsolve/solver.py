"""The Python API of the solver: ``solve(...)`` -> :class:`SolveResult`.

>>> r = solve("klondike-1", 1)
>>> r.status, len(r.moves) > 0, r.engine is not None
('solved', True, True)

Statuses (SPEC §4): ``solved`` (with a solution that the reference engine has
replayed to a win), ``unsolvable`` (the search exhausted every reachable
state), ``unknown`` (a node, time or memory budget ran out; ``reason`` says
which).  Budgets are deterministic where they can be: the node budget gives
the same answer on every machine, a time budget does not.

The default algorithm ("portfolio") plays the engines of ``search/engine.py``
in rounds of growing slices until one decides; engines that may only find
solutions never answer ``unsolvable``.  "climb" is the older schedule in
phases: weighted A* in full-information games (phase 0), hill-climbing with
restarts (1), a depth-first search with an extra, unproved cut (2), then the
complete depth-first search (3).  README: "How the solver works".
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .layout import Layout
from .rules import Rules, get_rules, with_overrides
from .search import shortcut as short
from .search import ALGORITHM_NAMES, ASTAR_ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_HEURISTIC, HEURISTIC_NAMES, dfs, engine
from .solution import path_tokens, shorten_tokens
from .state import ALL_CUTS, pack

from .search.settings import DEFAULT_MAX_MEMORY, DEFAULT_MAX_NODES, SearchSettings

# --heuristic: how the depth-first search orders a node's children (search/dfs.py).
HEURISTICS = {name: code for code, name in enumerate(HEURISTIC_NAMES)}
ALGORITHMS = ALGORITHM_NAMES
# The DFS-family algorithms are schedules of engines (search/engine.py: SCHEDULES).

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
    # which engine decided (search/engine.py) and, for "unsolvable", the proof
    engine: str = ""
    proof: str | None = None
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
        if self.engine:
            d["engine"] = self.engine
        if self.proof:
            d["proof"] = self.proof
        if self.reason:
            d["reason"] = self.reason
        if self.optimality is not None:
            d["optimality"] = self.optimality
        return d


def _presets():
    from .rules import VARIANTS

    return VARIANTS


def shorten(root, path, p):
    """Cut every loop out of a solution path (search/shortcut.py)."""
    return short.shorten(root, path, p)


def shortcut(root, path, p):
    """Jump ahead wherever one move reaches a later position of the path (search/shortcut.py)."""
    return short.shortcut(root, path, p)


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


def warm_up(rules: Rules, layout: Layout | None = None, algorithm: str = DEFAULT_ALGORITHM, **kw) -> None:
    """Load (or compile) every kernel a solve of ``layout`` (default: deal 1) uses: a few nodes
    of each engine of the algorithm's schedule, and the token writer on a position one king
    from won.  Sweeps, ``bench`` and the command line call it before timing anything."""
    if layout is None:
        from .deals import deal_layout

        layout = deal_layout(rules, 1)
    if algorithm in engine.SCHEDULES:
        engine.warm_up(engine.Position(rules, layout, cuts=ALL_CUTS), engine.SCHEDULES[algorithm])
    solve(rules, layout=layout, max_nodes=1000, verify=False, algorithm=algorithm, **kw)
    solve(rules, layout=one_left_layout(rules), max_nodes=1000, verify=False, algorithm=algorithm, **kw)


def resolve_rules(variant: str | Rules, overrides=None) -> Rules:
    rules = variant if isinstance(variant, Rules) else get_rules(variant)
    return with_overrides(rules, overrides)


def solve(variant: str | Rules = "easy-harp", deal: int | None = None, *, layout: Layout | None = None,
          overrides=None, max_nodes: int | None = DEFAULT_MAX_NODES, timeout: float | None = None,
          max_memory: int = DEFAULT_MAX_MEMORY, heuristic: str = DEFAULT_HEURISTIC, verify: bool = True,
          auto: bool = True, prune: bool = True, algorithm: str = DEFAULT_ALGORITHM,
          weight: float | None = None, cost: str = "tokens", cuts: int | None = None,
          settings: SearchSettings | None = None, polish: bool = True, shortcut: bool | None = None) -> SolveResult:
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
    ``settings``: a :class:`SearchSettings` instead of the budget, heuristic,
    algorithm, weight and cost keywords (which are validated into one).
    ``polish``: shorten the found line for a reader (solution.shorten_tokens:
    fewer turns through the stock, no detours).  It costs more than the search
    on most deals, so sweeps and ``bench`` leave it out: their solutions are
    the search's line with its loops cut, replayed all the same.
    ``shortcut``: cut the detours out of the search's line (search/shortcut.py; loops are
    cut always); None (the default): with ``polish`` only.  Without the polish (sweeps,
    ``bench``, the sampling player's world solves) the line is the search's with its loops
    cut: the shortcut took 0.0-0.4 % of its tokens there (easy-harp restarts' lines 1 020 ->
    1 016 tokens, bakers-game, klondike-1, klondike-3 and harp none to speak of; deals 1-200,
    twenty-first session) for 4 % of easy-harp's time a deal and 14 % of bakers-game's.
    """
    rules = resolve_rules(variant, overrides)
    if layout is None:
        from .deals import deal_layout

        if deal is None:
            raise ValueError("give a deal number or a layout")
        layout = deal_layout(rules, deal)
    else:
        layout.validate(rules)
    if settings is None:
        settings = SearchSettings.make(max_nodes=max_nodes or 0, timeout=timeout or 0.0, max_memory=max_memory,
                                       heuristic=heuristic, algorithm=algorithm, weight=weight,
                                       cost=cost if algorithm in ASTAR_ALGORITHMS else None)
    s = settings
    max_nodes, timeout, max_memory, heuristic, algorithm = s.max_nodes, s.timeout, s.max_memory, s.heuristic, s.algorithm
    if cuts is None:
        cuts = ALL_CUTS if prune else 0
    info = dict(max_nodes=max_nodes, timeout=timeout, max_memory=max_memory,
                heuristic=heuristic, auto=auto, prune=prune, algorithm=algorithm, cuts=cuts)
    result = SolveResult(rules.name, deal, rules, layout, "unknown", settings=info)
    if algorithm in ASTAR_ALGORITHMS:
        return _solve_astar(result, pack(layout, rules), algorithm, s.weight, s.cost, auto=auto, prune=prune, max_nodes=max_nodes,
                            timeout=timeout, max_memory=max_memory, verify=verify)

    t0 = time.perf_counter()
    pos = engine.Position(rules, layout, heuristic=HEURISTICS[heuristic], auto=auto, prune=prune, cuts=cuts,
                          shortcut=polish if shortcut is None else shortcut)
    schedule = engine.SCHEDULES[algorithm]
    if algorithm == "portfolio" and not (prune and auto):
        schedule = engine.DFS  # the other engines have cuts of their own: soundness tests use the plain search
    deadline = (t0 + timeout) if timeout else None
    out = engine.run(pos, schedule, max_nodes=max_nodes or 0, deadline=deadline, max_memory=max_memory)
    if out.status == "solved":
        # a line a player can follow: fewer turns through the stock, no detours (solution.py)
        result.moves = shorten_tokens(rules, layout, out.tokens, deadline) if polish else out.tokens
    result.status, result.reason = out.status, ("" if out.status != "unknown" else out.reason)
    result.engine, result.proof = out.engine, out.proof
    result.nodes, result.states, result.max_depth = out.nodes, out.states, out.max_depth
    result.seconds = time.perf_counter() - t0
    _check(result, verify)
    dfs.trim_pool()  # keep big tables only while they are modest
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
    from .search import astar

    rules = result.rules  # the weight and the cost model were checked by SearchSettings.make
    if cost == "score" and rules.scoring != "easy-harp":
        raise RulesError(f"{rules.label} has no score (only the easy-harp scoring does)")
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
