"""``harpsolve bench``: search settings side by side on the same deals.

>>> b = bench("klondike-1", [1, 2, 3], [Setting("static"), Setting("lookahead")],
...           max_nodes=50_000)                                   # doctest: +SKIP
>>> print(b.table())                                              # doctest: +SKIP

Every setting (a move-ordering heuristic with an algorithm, or A* /
weighted A* with a weight) solves every deal in this one process, the
settings taking turns deal by deal, so that a slow stretch of the machine
hits them all alike.  Before any timing each setting solves a small warm-up
(the first deal on a tiny budget, and a one-card endgame that exercises the
token writer): that loads or compiles the numba kernels, and its time is
reported on its own line, never mixed into the figures.  A solution is
replayed by the reference engine as in ``solve`` (the replay is not part of
the timed seconds, which are ``SolveResult.seconds``).

Table columns: solved / unsolvable / unknown counts; total and median nodes;
median and 90th-percentile seconds per deal; median solution length (SPEC
tokens, solved deals only); and the ratio of the setting's total seconds to
the first setting's.  A deal that one setting solves and another proves
unsolvable is reported (it would be a bug: no setting may change a status).
"""
from __future__ import annotations

import itertools
import json
import statistics
import time
from dataclasses import dataclass, field

from .rules import Rules, get_rules
from .search import ASTAR_ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_HEURISTIC


class BenchError(ValueError):
    """Bad bench input (an unknown heuristic or algorithm, a bad weight)."""


@dataclass(frozen=True)
class Setting:
    """One search setting: DFS-family algorithms use ``heuristic``; A* ones ``weight`` and ``cost``."""

    heuristic: str = DEFAULT_HEURISTIC
    algorithm: str = DEFAULT_ALGORITHM
    weight: float = 1.0
    cost: str = "tokens"

    @property
    def label(self) -> str:
        if self.algorithm in ASTAR_ALGORITHMS:
            w = f" w={self.weight:g}" if self.algorithm == "wastar" else ""
            c = f" {self.cost}" if self.cost != "tokens" else ""
            return f"{self.algorithm}{w}{c}"
        return f"{self.heuristic}/{self.algorithm}"

    def solve_kwargs(self) -> dict:
        kw = dict(algorithm=self.algorithm)
        if self.algorithm in ASTAR_ALGORITHMS:
            kw.update(weight=self.weight, cost=self.cost)
        else:
            kw.update(heuristic=self.heuristic)
        return kw


def _split(text) -> list[str]:
    if text is None:
        return []
    if isinstance(text, (list, tuple)):
        return [str(x).strip() for x in text if str(x).strip()]
    return [x.strip() for x in str(text).split(",") if x.strip()]


def make_settings(heuristics=None, algorithms=None, weights=None, cost: str = "tokens") -> list[Setting]:
    """Every (heuristic, algorithm) pair, in the order given; A* algorithms once per weight.

    >>> [s.label for s in make_settings("static,lookahead", "dfs,wastar", "2")]
    ['static/dfs', 'lookahead/dfs', 'wastar w=2']
    """
    from .search.settings import SearchSettings, SettingsError

    hs = _split(heuristics) or [DEFAULT_HEURISTIC]
    algs = _split(algorithms) or [DEFAULT_ALGORITHM]
    ws = _split(weights) or [None]
    out: list[Setting] = []
    for a, h in itertools.product(algs, hs):
        for w in (ws if a == "wastar" else [None]):
            try:  # the checks of every command (search/settings.py)
                s = SearchSettings.make(heuristic=h, algorithm=a, weight=w,
                                        cost=cost if a in ASTAR_ALGORITHMS else None)
            except SettingsError as e:
                raise BenchError(str(e)) from None
            x = Setting(algorithm=a, weight=s.weight, cost=cost) if s.is_astar else Setting(h, a)
            if x not in out:
                out.append(x)
    return out


@dataclass
class BenchResult:
    rules: Rules
    deals: list[int]
    settings: list[Setting]
    rows: list[dict]
    warmup: dict[str, float]                # setting label -> seconds of its warm-up
    budgets: dict = field(default_factory=dict)
    conflicts: list[int] = field(default_factory=list)   # deals solved by one setting, unsolvable by another

    def summary(self) -> list[dict]:
        """One dict per setting with the table's figures."""
        out = []
        base = None
        for s in self.settings:
            rows = [r for r in self.rows if r["setting"] == s.label]
            secs = [r["seconds"] for r in rows]
            nodes = [r["nodes"] for r in rows]
            lens = [r["solution_length"] for r in rows if r["status"] == "solved"]
            total = sum(secs)
            if base is None:
                base = total
            out.append(dict(
                setting=s.label, deals=len(rows),
                solved=sum(r["status"] == "solved" for r in rows),
                unsolvable=sum(r["status"] == "unsolvable" for r in rows),
                unknown=sum(r["status"] == "unknown" for r in rows),
                nodes_total=sum(nodes), nodes_median=_median(nodes),
                seconds_median=_median(secs), seconds_p90=_quantile(secs, 0.9), seconds_total=total,
                length_median=_median(lens), time_ratio=(total / base) if base else float("nan"),
            ))
        return out

    def table(self) -> str:
        head = ("setting", "solved", "unsolv", "unknown", "nodes total", "nodes med", "ms med", "ms p90",
                "len med", "time x")
        lines = []
        for g in self.summary():
            lines.append((g["setting"], str(g["solved"]), str(g["unsolvable"]), str(g["unknown"]),
                          f"{g['nodes_total']:,}", _num(g["nodes_median"], 0), _num(g["seconds_median"] * 1e3, 1),
                          _num(g["seconds_p90"] * 1e3, 1), _num(g["length_median"], 0),
                          _num(g["time_ratio"], 2)))
        widths = [max(len(h), *(len(x[i]) for x in lines)) for i, h in enumerate(head)]

        def fmt(cells):
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

        out = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(x) for x in lines]
        return "\n".join(out)

    def warmup_text(self) -> str:
        parts = [f"{k} {v:.2f} s" for k, v in self.warmup.items()]
        return "warm-up (JIT compile or cache load, not in the figures): " + ", ".join(parts)

    def frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows)

    def write_parquet(self, path: str, command: str | None = None) -> None:
        """The raw rows, with the run's metadata (machine, versions, settings, warm-up) in the file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .sweep import run_metadata

        meta = run_metadata("bench", 1, command)
        meta.update(kind="harpsolve-bench", rules=self.rules.label, budgets=self.budgets, warmup=self.warmup,
                    settings=[s.label for s in self.settings])
        t = pa.Table.from_pandas(self.frame(), preserve_index=False)
        t = t.replace_schema_metadata({b"harpsolve.bench": json.dumps(meta).encode()})
        pq.write_table(t, path)


def _median(xs):
    return statistics.median(xs) if xs else float("nan")


def _quantile(xs, q):
    """Linear interpolation between order statistics (numpy's default)."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _num(x, digits) -> str:
    if x is None or x != x:
        return "-"
    return f"{x:,.{digits}f}"


def warm_up(rules: Rules, deal: int, setting: Setting) -> float:
    """Solve a tiny budget of ``deal`` and a one-card endgame with ``setting``; return the seconds."""
    from .deals import deal_layout
    from .solver import warm_up as load

    t0 = time.perf_counter()
    load(rules, deal_layout(rules, deal), **setting.solve_kwargs())
    return time.perf_counter() - t0


def bench(variant, deals, settings: list[Setting], *, overrides=None, max_nodes: int | None = None,
          timeout: float | None = None, max_memory: int | None = None, progress=None,
          polish: bool = False) -> BenchResult:
    """Solve every deal with every setting (turn by turn, after a warm-up each); ``polish``: also
    polish each solution for a reader, as ``solve`` does (solver.solve)."""
    from .solver import DEFAULT_MAX_MEMORY, DEFAULT_MAX_NODES, SolverError, solve

    rules = variant if isinstance(variant, Rules) else get_rules(variant, overrides)
    deals = list(deals)
    if not deals:
        raise BenchError("no deals to bench")
    if not settings:
        raise BenchError("no settings to compare")
    budgets = dict(max_nodes=DEFAULT_MAX_NODES if max_nodes is None else max_nodes, timeout=timeout or 0.0,
                   max_memory=DEFAULT_MAX_MEMORY if max_memory is None else max_memory)
    warm = {s.label: warm_up(rules, deals[0], s) for s in settings}
    rows = []
    for i, d in enumerate(deals):
        for s in settings:
            try:
                r = solve(rules, d, max_nodes=budgets["max_nodes"] or None, timeout=timeout or None, polish=polish,
                          max_memory=budgets["max_memory"], **s.solve_kwargs())
            except SolverError as e:  # a bug: keep the evidence, go on
                rows.append(_row(rules, d, s, "error", reason=str(e)[:300]))
                continue
            rows.append(_row(rules, d, s, r.status, solution_length=len(r.moves) if r.solved else None,
                             score=r.score, nodes=r.nodes, states=r.states, seconds=r.seconds, reason=r.reason,
                             engine=r.engine, proof=r.proof))
        if progress:
            progress(i + 1, len(deals))
    res = BenchResult(rules, deals, list(settings), rows, warm, budgets)
    by_deal: dict[int, set] = {}
    for r in rows:
        if r["status"] in ("solved", "unsolvable"):
            by_deal.setdefault(r["deal"], set()).add(r["status"])
    res.conflicts = sorted(d for d, s in by_deal.items() if len(s) > 1)
    return res


def _row(rules, deal, s: Setting, status, *, solution_length=None, score=None, nodes=0, states=0, seconds=0.0,
         reason="", engine=None, proof=None):
    from . import __version__

    return dict(variant=rules.name, rules=rules.label, deal=int(deal), setting=s.label, heuristic=s.heuristic
                if s.algorithm not in ASTAR_ALGORITHMS else "", algorithm=s.algorithm, weight=float(s.weight),
                status=status, solution_length=solution_length, score=score, nodes=int(nodes), states=int(states),
                seconds=float(seconds), reason=reason, engine=engine or None, proof=proof or None,
                harpsolve_version=__version__)


