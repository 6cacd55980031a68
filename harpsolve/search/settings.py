"""One record of search settings, validated once.

:class:`SearchSettings` holds what a solve needs to know besides the
position: the budgets (nodes, seconds, table bytes; 0 = no limit for nodes
and time), the move order (``heuristic``), the ``algorithm`` -- a schedule of
engines (search/engine.py: ``portfolio``, ``climb``, ``dfs``) or A* /
weighted A* -- and, for those two, the ``weight`` and the ``cost`` model.
:meth:`SearchSettings.make` checks every field and fills in the defaults;
``solve``, ``sweep`` (whose rows record the fields), ``bench`` and the
command line all go through it, so a bad setting gets the same one-line
message everywhere.  No numba here: the command line validates before it
loads the solver.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields

from ..rules import RulesError
from . import ALGORITHM_NAMES, ASTAR_ALGORITHMS, COST_NAMES, DEFAULT_ALGORITHM, DEFAULT_HEURISTIC, HEURISTIC_NAMES

DEFAULT_MAX_NODES = 2_000_000
# `harpsolve solve` on one deal, with no budget given: a person is waiting for one verdict, so
# 25 times the sweeps' budget (a sweep wants throughput; its unknown deals are retried with a
# bigger --max-nodes).  About a minute at most here.  Every easy-harp deal of 1-10 000 is decided
# within 20 000 000 (4699 and 7226 need 4.8 M nodes, restarts, 6 s; every other deal less than
# 2 M: `harpsolve bench easy-harp 1-10000 --max-nodes 20000000`), every klondike-3 deal within
# 50 000 000 (at 20 000 000 all but 1818, 2672 and 7783, which the arrangement-free engine
# decides in 40.6, 31.4 and 27.0 M nodes, 38-57 s, in the default memory since its one-word
# table: `harpsolve solve klondike-3 1818 --max-nodes 100000000`).  The solution polish `solve`
# adds changes no verdict.  Only the engine schedules: A* (--algorithm astar/wastar, --shortest,
# --best-score) keeps DEFAULT_MAX_NODES, as its nodes are states it keeps.
SOLVE_MAX_NODES = 50_000_000
DEFAULT_MAX_MEMORY = 1 << 30  # bytes for the search tables, all engines together
DEFAULT_WEIGHT = 2.0          # weighted A*'s factor when none is given
MAX_MEMORY_LIMIT = 1 << 50    # more than any machine has: a typo, refused up front
# Under a deadline every engine searches in slices of this many nodes and reads the clock
# between them: at most about a millisecond of search (0.2-1 M nodes a second here), so a
# --timeout is overrun by about that much.  A kernel call costs some 10 microseconds: a few %.
DEADLINE_SLICE = 256


def next_slice(done: int, stop: int | None, timed: bool, node_slice: int) -> int:
    """Nodes for an engine's next kernel call: its ``node_slice``, or DEADLINE_SLICE under a
    clock, and no more than is left before ``stop`` (None: no limit); 0 when nothing is."""
    n = DEADLINE_SLICE if timed else node_slice
    return n if stop is None else max(0, min(n, stop - done))


class SettingsError(RulesError):
    """A bad search setting (an unknown heuristic, a weight below 1, a negative budget...)."""


_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)


def parse_size(text) -> int:
    """Bytes from ``1073741824``, ``512M``, ``2G``, ``1.5GiB`` (K/M/G/T are powers of 1024)."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        m = _SIZE_RE.match(str(text))
        if not m:
            raise SettingsError(f"bad size {text!r}; write bytes or a number with K, M, G or T (512M, 2G)")
        value = float(m.group(1)) * 1024 ** " kmgt".index(m.group(2).lower() or " ")
    if value < 1:
        raise SettingsError(f"bad size {text!r}: must be at least one byte")
    if value > MAX_MEMORY_LIMIT:
        raise SettingsError(f"bad size {text!r}: more than {MAX_MEMORY_LIMIT >> 40} TiB")
    return int(value)


@dataclass(frozen=True)
class SearchSettings:
    max_nodes: int = DEFAULT_MAX_NODES
    timeout: float = 0.0
    max_memory: int = DEFAULT_MAX_MEMORY
    heuristic: str = DEFAULT_HEURISTIC
    algorithm: str = DEFAULT_ALGORITHM
    weight: float = 0.0    # weighted A*'s factor; 1 for A*; 0 for the engine schedules
    cost: str = "tokens"   # A*'s cost model (tokens, moves, score)

    @classmethod
    def make(cls, settings=None, **kw) -> "SearchSettings":
        """Validated settings from a mapping (or another SearchSettings) and/or keywords; a
        field left out or None takes its default."""
        if isinstance(settings, SearchSettings) and not kw:
            return settings
        given = dict(settings.__dict__ if isinstance(settings, SearchSettings) else settings or {})
        given.update(kw)
        given = {k: v for k, v in given.items() if v is not None}
        names = {f.name for f in fields(cls)}
        unknown = set(given) - names
        if unknown:
            raise SettingsError(f"unknown search setting(s): {', '.join(sorted(unknown))}")
        heuristic = str(given.get("heuristic", DEFAULT_HEURISTIC))
        if heuristic not in HEURISTIC_NAMES:
            raise SettingsError(f"unknown heuristic {heuristic!r}; known: {', '.join(HEURISTIC_NAMES)}")
        algorithm = str(given.get("algorithm", DEFAULT_ALGORITHM))
        if algorithm not in ALGORITHM_NAMES:
            raise SettingsError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHM_NAMES)}")
        weight = given.get("weight")
        if weight is not None:
            try:
                weight = float(weight)
            except (TypeError, ValueError):
                raise SettingsError(f"--weight takes a number >= 1, not {weight!r}") from None
        if algorithm == "wastar":
            weight = DEFAULT_WEIGHT if weight in (None, 0.0) else weight
            if not weight >= 1 or math.isinf(weight):
                raise SettingsError(f"--weight takes a number >= 1, not {weight:g}")
        elif algorithm == "astar":
            if weight not in (None, 0.0, 1.0):
                raise SettingsError("A* has weight 1; use --algorithm wastar for another weight")
            weight = 1.0
        else:
            if weight not in (None, 0.0):
                raise SettingsError("--weight goes with --algorithm wastar")
            weight = 0.0
        cost = str(given.get("cost", "tokens"))
        if cost not in COST_NAMES:
            raise SettingsError(f"unknown cost model {cost!r}; known: {', '.join(COST_NAMES)}")
        if "cost" in given and algorithm not in ASTAR_ALGORITHMS:
            raise SettingsError("--cost goes with --algorithm astar or wastar")
        max_nodes = given.get("max_nodes", DEFAULT_MAX_NODES)
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, float)) or max_nodes != int(max_nodes) \
                or max_nodes < 0:
            raise SettingsError(f"--max-nodes takes a whole number >= 0 (0 = no limit), not {max_nodes!r}")
        timeout = given.get("timeout", 0.0)
        try:
            timeout = float(timeout)
        except (TypeError, ValueError):
            raise SettingsError(f"--timeout takes seconds >= 0 (0 = no limit), not {timeout!r}") from None
        if not (timeout >= 0) or math.isinf(timeout):
            raise SettingsError(f"--timeout takes seconds >= 0 (0 = no limit), not {timeout:g}")
        max_memory = parse_size(given.get("max_memory", DEFAULT_MAX_MEMORY))
        return cls(max_nodes=int(max_nodes), timeout=timeout, max_memory=max_memory, heuristic=heuristic,
                   algorithm=algorithm, weight=weight, cost=cost)

    @property
    def is_astar(self) -> bool:
        return self.algorithm in ASTAR_ALGORITHMS
