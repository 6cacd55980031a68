"""What a sweep solves: deal ranges, layout files as jobs, and solving one job
into its result row (:func:`solve_row`, the one function every engine runs)."""
from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass

from ..deals import MAX_DEAL
from ..rules import Rules
from ..search.settings import SearchSettings
from .schema import make_row
from .store import SweepError

DEFAULT_RANGE = f"1-{MAX_DEAL}"

# The settings every row records: the one validated record of search/settings.py (its
# ``make`` fills in the solver's defaults, so rows record the real values).
Budgets = SearchSettings


# ---- ranges ---------------------------------------------------------------
_PART_RE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_range(text: str) -> list[int]:
    """Deal numbers named by ``text``: ``1-1000``, ``5,17,100-200`` (sorted, unique).

    >>> parse_range("5,17,3-4")
    [3, 4, 5, 17]
    """
    if text is None or not str(text).strip():
        raise SweepError("empty deal range; write it like 1-1000 or 5,17,100-200")
    deals: set[int] = set()
    for part in str(text).split(","):
        m = _PART_RE.match(part)
        if not m:
            raise SweepError(f"bad deal range {text!r}: {part.strip()!r} is not N or N-M "
                             "(write it like 1-1000 or 5,17,100-200)")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if lo > hi:
            raise SweepError(f"bad deal range {text!r}: {lo}-{hi} runs backwards")
        if lo < 1 or hi > MAX_DEAL:
            raise SweepError(f"bad deal range {text!r}: deals are numbered 1 to {MAX_DEAL}")
        deals.update(range(lo, hi + 1))
    return sorted(deals)


def parse_every(text: str) -> list[int]:
    """:func:`parse_range` with an optional ``/K``: every K-th of those deals (the benchmark
    scripts' samples, ``1-100000/50``).

    >>> parse_every("1-10/3")
    [1, 4, 7, 10]
    """
    rng, _, step = str(text).partition("/")
    deals = parse_range(rng)
    if not step:
        return deals
    if not step.isdigit() or int(step) < 1:
        raise SweepError(f"bad deal sample {text!r}: /{step} is not a positive whole number")
    return deals[::int(step)]


def format_range(deals) -> str:
    """The shortest range text for a set of deals (inverse of :func:`parse_range`)."""
    deals = sorted(set(deals))
    parts, i = [], 0
    while i < len(deals):
        j = i
        while j + 1 < len(deals) and deals[j + 1] == deals[j] + 1:
            j += 1
        parts.append(str(deals[i]) if i == j else f"{deals[i]}-{deals[j]}")
        i = j + 1
    return ",".join(parts)


# ---- layout files as jobs -----------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LayoutJob:
    """One layout file to solve: its ``name`` (path relative to the folder or glob it was found
    by) and ``hash``, the first 16 hex digits of the SHA-256 of the layout's canonical JSON
    (``Layout.to_json(sort_keys=True)``), so JSON and text files of one position hash alike and
    an edited file is solved again on resume."""

    name: str
    hash: str
    layout: object  # harpsolve.layout.Layout

    @property
    def key(self):
        return (self.name, self.hash)


def layout_hash(layout) -> str:
    import hashlib

    return hashlib.sha256(layout.to_json(sort_keys=True).encode()).hexdigest()[:16]


def _glob_base(pattern: str) -> str:
    """The folder part of ``pattern`` before its first wildcard (names are relative to it)."""
    parts = []
    for part in os.path.normpath(pattern).split(os.sep):
        if any(ch in part for ch in "*?["):
            break
        parts.append(part)
    base = os.sep.join(parts) or "."
    return base if os.path.isdir(base) else os.path.dirname(base) or "."


def layout_jobs(spec, rules: Rules) -> list[LayoutJob]:
    """The layout files named by ``spec`` (a folder: every visible file in it and its
    subfolders; else a glob such as ``games/*.json``), read and validated under ``rules``,
    sorted by name.  A file that is not a valid layout stops the sweep with its name."""
    import glob

    from ..cards import CardError
    from ..layout import LayoutError, load_layout

    spec = os.fspath(spec)
    if os.path.isdir(spec):
        base, paths = spec, []
        for root, dirs, files in os.walk(spec):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            paths += [os.path.join(root, f) for f in sorted(files) if not f.startswith(".")]
    else:
        base = _glob_base(spec)
        paths = [p for p in glob.glob(spec, recursive=True) if os.path.isfile(p)]
    if not paths:
        raise SweepError(f"--layouts {spec}: no layout files there")
    jobs = []
    for path in sorted(paths):
        name = os.path.relpath(path, base)
        try:
            layout = load_layout(path, rules)
        except UnicodeDecodeError:
            raise SweepError(f"{path}: not a text file (expected a JSON or text layout)") from None
        except (LayoutError, CardError) as e:
            raise SweepError(f"{path}: {e}") from None
        jobs.append(LayoutJob(name, layout_hash(layout), layout))
    return jobs


def job_key(job):
    """What identifies a job's row: the deal number, or (layout file, content hash)."""
    return job.key if isinstance(job, LayoutJob) else job


_SOLVE_LOCK = threading.Lock()  # the solver's search buffers are per process, not per thread


def solve_row(rules: Rules, deal: int, budgets: Budgets) -> dict:
    """Solve one deal and return its result row.  A Python exception (a bug)
    becomes an ``error`` row with the exception in ``reason``."""
    from ..solver import solve

    t0 = time.perf_counter()
    number, layout = (None, deal.layout) if isinstance(deal, LayoutJob) else (deal, None)
    try:
        with _SOLVE_LOCK:
            r = solve(rules, number, layout=layout, polish=False,
                      max_nodes=budgets.max_nodes or None, timeout=budgets.timeout or None,
                      max_memory=budgets.max_memory, heuristic=budgets.heuristic, **_algorithm_kwargs(budgets))
    except Exception as e:  # noqa: BLE001 - keep the sweep going, keep the evidence
        return make_row(rules, deal, budgets, "error", seconds=time.perf_counter() - t0,
                        reason=f"{type(e).__name__}: {e}"[:500])
    return make_row(rules, deal, budgets, r.status,
                    solution_length=len(r.moves) if r.status == "solved" and r.moves is not None else None,
                    score=r.score, nodes=r.nodes, states=r.states, seconds=r.seconds, reason=r.reason,
                    engine=r.engine, proof=r.proof)


def play_row(rules: Rules, deal, budgets: Budgets, play) -> dict:
    """Play one game of ``deal`` with the player ``play`` (player.PlaySettings) and return its
    row: ``won`` (the moves replayed to a win in the reference engine) or ``lost``, with the
    moves played, the solver nodes the player spent and how the game ended.  A Python exception
    becomes an ``error`` row, as in :func:`solve_row`."""
    from ..deals import deal_layout
    from ..player import play as play_game
    from ..reference import replay

    t0 = time.perf_counter()
    try:
        layout = deal.layout if isinstance(deal, LayoutJob) else deal_layout(rules, deal)
        with _SOLVE_LOCK:
            g = play_game(rules, layout, play.make_policy(rules), play.max_moves)
        score = None
        if g.won:
            rep = replay(rules, layout, g.moves)
            if not (rep.ok and rep.won):
                raise RuntimeError(f"a won game does not replay to a win (move {rep.error_index}: {rep.error})")
            score = rep.score if rules.scoring == "easy-harp" else None
    except Exception as e:  # noqa: BLE001 - keep the sweep going, keep the evidence
        return make_row(rules, deal, budgets, "error", seconds=time.perf_counter() - t0,
                        reason=f"{type(e).__name__}: {e}"[:500], play=play)
    return make_row(rules, deal, budgets, "won" if g.won else "lost", solution_length=len(g.moves), score=score,
                    nodes=g.stats.get("nodes", 0), states=g.stats.get("solves", 0), seconds=g.seconds,
                    reason="" if g.won else g.end, engine=f"player {g.policy}", play=play)


def _algorithm_kwargs(budgets: Budgets) -> dict:
    kw = dict(algorithm=budgets.algorithm)
    if budgets.algorithm == "wastar":
        kw["weight"] = budgets.weight
    return kw


def solve_chunk(rules: Rules, deals, budgets: Budgets, solve_one=solve_row) -> list[dict]:
    """Solve a chunk of deals (the Dask task)."""
    return [solve_one(rules, d, budgets) for d in deals]
