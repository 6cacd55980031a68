"""Shortest solutions and best Easy Harp scores: A* first, then the best line found.

``shortest`` is what ``harpsolve solve … --shortest`` runs, ``best_score``
what ``--best-score`` runs.  Each first spends the budget on A* under its
cost model (``search/astar.py``): when A* finishes, its answer is proved
(``optimality["proved"] == "minimal"``, or ``unsolvable``).  When a budget
runs out, A* leaves a bound (no solution is shorter than ``lower_bound``
tokens; no solution scores more than ``score_bound`` clean points), and the
same budget goes, in turn, to each fallback search; the best solution they
find is returned with ``proved == "no"`` and the bound kept beside it -- or
with ``proved == "minimal"`` when it meets the bound (``proved_by`` says so).

A fallback that proves the deal unsolvable is a proof like any other (the
complete searches prune only what is proved not to cost a win).

>>> r = shortest("bakers-game", 1, max_nodes=200_000)        # doctest: +SKIP
>>> r.optimality["proved"], len(r.moves)                      # doctest: +SKIP
('no', 94)
"""
from __future__ import annotations

import math
import time

from .solver import DEFAULT_MAX_MEMORY, DEFAULT_MAX_NODES, SolveResult, solve

# Tried in order once A* has run out of budget; each gets the same budget.
SHORTEST_FALLBACKS = (
    dict(algorithm="wastar", weight=2.0, cost="tokens"),
    dict(algorithm="wastar", weight=3.0, cost="moves"),
    dict(algorithm="climb"),
)
BEST_SCORE_FALLBACKS = (
    dict(algorithm="wastar", weight=3.0, cost="score"),
    dict(algorithm="climb"),
)


def _label(kw: dict) -> str:
    if kw["algorithm"] == "wastar":
        return f"wastar w={kw['weight']:g} cost={kw['cost']}"
    return kw["algorithm"]


def _tokens_cost(r: SolveResult) -> int:
    return len(r.moves)


def clean_score(r: SolveResult) -> int | None:
    """The easy-harp score less 10 per take-back (``f>`` move): what ``best_score`` maximises."""
    if r.score is None or r.moves is None:
        return None
    return r.score - 10 * sum(m.startswith("f>") for m in r.moves)


def _run(kind: str, fallbacks, better, variant, deal, *, layout, overrides, max_nodes, timeout,
         max_memory) -> SolveResult:
    t0 = time.perf_counter()
    budget = dict(layout=layout, overrides=overrides, max_nodes=max_nodes, max_memory=max_memory)
    cost = "score" if kind == "score" else "tokens"
    first = solve(variant, deal, algorithm="astar", cost=cost, timeout=timeout, **budget)
    if first.status != "unknown":
        return first
    bound = dict(first.optimality or {})
    nodes, best, tried = first.nodes, None, [f"astar cost={cost}: {first.reason or 'budget'}"]
    for kw in fallbacks:
        left = None
        if timeout:
            left = timeout - (time.perf_counter() - t0)
            if left <= 0:
                break
        r = solve(variant, deal, timeout=left, **budget, **kw)
        nodes += r.nodes
        tried.append(f"{_label(kw)}: {r.status}")
        if r.status == "unsolvable":
            r.nodes, r.seconds = nodes, time.perf_counter() - t0
            r.optimality = dict(cost_model=cost, proved="unsolvable", found_by=_label(kw), tried=tried)
            return r
        if r.solved and (best is None or better(r, best)):
            best, best_by = r, _label(kw)
    if best is None:
        first.nodes, first.seconds = nodes, time.perf_counter() - t0
        first.optimality = dict(bound, tried=tried)
        return first
    opt = dict(cost_model=cost, weight=1.0, proved="no", found_by=best_by, tried=tried)
    if kind == "score":
        opt["clean_score"] = clean_score(best)
        if "score_bound" in bound:
            opt["score_bound"] = bound["score_bound"]
            # A* proved no line scores more; this one scores that much: it is a best line.
            if opt["clean_score"] >= bound["score_bound"]:
                opt["proved"] = "minimal"
    else:
        opt["cost"] = _tokens_cost(best)
        if "lower_bound" in bound:
            opt["lower_bound"] = bound["lower_bound"]
            # A* proved no line is shorter; this one is that short: it is a shortest line.
            if opt["cost"] <= math.ceil(bound["lower_bound"] - 1e-9):
                opt["proved"] = "minimal"
    if opt["proved"] == "minimal":
        opt["proved_by"] = "the bound A* left"
    best.optimality = opt
    best.nodes, best.seconds = nodes, time.perf_counter() - t0
    best.settings = dict(best.settings, algorithm="astar", cost=cost)
    return best


def shortest(variant, deal=None, *, layout=None, overrides=None, max_nodes=DEFAULT_MAX_NODES, timeout=None,
             max_memory=DEFAULT_MAX_MEMORY) -> SolveResult:
    """A solution with the fewest SPEC move tokens: proved when A* finishes, else the shortest found."""
    return _run("tokens", SHORTEST_FALLBACKS, lambda a, b: len(a.moves) < len(b.moves), variant, deal,
                layout=layout, overrides=overrides, max_nodes=max_nodes, timeout=timeout, max_memory=max_memory)


def best_score(variant, deal=None, *, layout=None, overrides=None, max_nodes=DEFAULT_MAX_NODES, timeout=None,
               max_memory=DEFAULT_MAX_MEMORY) -> SolveResult:
    """The solution with the highest clean easy-harp score: proved when A* finishes, else the best found."""
    return _run("score", BEST_SCORE_FALLBACKS, lambda a, b: (clean_score(a), -len(a.moves)) >
                (clean_score(b), -len(b.moves)), variant, deal, layout=layout, overrides=overrides,
                max_nodes=max_nodes, timeout=timeout, max_memory=max_memory)
