"""Sweeps: classify a whole deal range on every core (or a Dask cluster) into
resumable Parquet result files, one row per deal.

>>> summary = sweep("klondike-1", "1-200", "sweep-out")       # doctest: +SKIP
>>> summary.counts                                             # doctest: +SKIP
{'solved': 160, 'unsolvable': 2, 'unknown': 38, 'error': 0}

The modules, one job each:

- :mod:`.schema` -- the result row: one table of columns from which writing,
  reading, the checks on every file read and the README's column table come;
- :mod:`.store` -- result files and folders: atomic writes, reading, the best
  row per deal, the folder a sweep writes into (:class:`~.store.ResultStore`);
- :mod:`.jobs` -- deal ranges, layout files as jobs, solving one job into its row;
- :mod:`.engines` -- worker processes here, or a Dask cluster;
- :mod:`.progress` -- the progress bar; :mod:`.runs` -- run metadata.

Resume
------
Running the same command again skips every deal that already has a row under
the same rules fingerprint and is *finished*: ``solved`` or ``unsolvable``
(a verified solution or a proof holds under any budget), ``won`` or ``lost``
(a player's game, ``sweep(play=...)``: the same player with the same seed
plays it the same way), or ``unknown`` under
the same search settings (heuristic, algorithm, weight) and budgets at least
as big (max_nodes, timeout, max_memory; 0 = no limit): a search that ran
out of a bigger budget would run out of a smaller one too.  Deals with
``unknown`` under smaller budgets, and ``error`` deals, are solved again;
readers keep the best row per deal (see :func:`best_rows`).

What ``kill -9`` can lose: the parent writes a file when a worker finishes a
chunk (chunks are sized to take about ``CHUNK_SECONDS``), so killing the sweep
loses the deals finished in each worker's current chunk -- at most about
``CHUNK_SECONDS`` of each worker's work -- and the resume solves them again.
Killing one worker loses only the deal it was solving.

File key-value metadata: ``harpsolve.schema_version``, ``harpsolve.runs``
(JSON list, one object per run that wrote rows: run_id, started, ended,
command, engine, workers, cpu, cores, platform, rules, rules_fingerprint and
the python/numba/numpy/pyarrow/harpsolve versions), ``harpsolve.rules``
(JSON: fingerprint -> rules fields) and, in merged files, ``harpsolve.replaces``.
"""
from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field

from ..deals import MAX_DEAL
from ..rules import Rules, get_rules, with_overrides
from .engines import CHUNK_SECONDS, run_dask, run_local
from .jobs import DEFAULT_RANGE, Budgets, LayoutJob, format_range, job_key, layout_hash, layout_jobs, parse_range, solve_row
from .progress import Progress
from .runs import cpu_count, cpu_model, merge_runs, run_metadata
from .schema import PLAYER_STATUSES, SCHEMA_VERSION, SOLVER_STATUSES, STATUSES, ResultFileError, make_row
from .store import (
    FILE_GLOB_RE, ResultStore, Results, SweepError, best_rows, conflicts, expand_paths, folder_files, frame_keys,
    key_columns, load_results, read_meta, read_table, row_key, write_atomic,
)

__all__ = [
    "CHUNK_SECONDS", "DEFAULT_RANGE", "FILE_GLOB_RE", "SCHEMA_VERSION", "STATUSES", "Budgets", "LayoutJob",
    "Progress", "ResultFileError", "ResultStore", "Results", "SweepError", "SweepSummary", "best_rows",
    "conflicts", "cpu_count", "cpu_model", "expand_paths", "folder_files", "format_range", "frame_keys",
    "job_key", "key_columns", "layout_hash", "layout_jobs", "load_results", "make_row", "merge_runs",
    "parse_range", "read_meta", "read_table", "row_key", "run_metadata", "solve_row", "sweep", "write_atomic",
]


# ---- the sweep ----------------------------------------------------------------------
@dataclass
class SweepSummary:
    out: str
    rules: str
    deals: int                # deals in the range
    skipped: int              # already finished before this run
    new: int                  # rows written by this run
    counts: dict = field(default_factory=dict)   # best status of every deal of the range
    seconds: float = 0.0      # wall time of this run, worker start-up included

    @property
    def rate(self) -> float:
        return self.new / self.seconds if self.seconds else 0.0


def sweep(variant, deals=DEFAULT_RANGE, out="sweep-out", overrides=None, budgets=None, workers=None,
          engine="local", scheduler=None, progress=True, chunk_size=None, command=None,
          layouts=None, play=None) -> SweepSummary:
    """Solve every deal of ``deals`` (a range text or numbers) into the folder ``out``;
    or, with ``layouts`` (a folder or a glob, see :func:`layout_jobs`), every layout file
    there, one row each keyed by file name and content hash instead of a deal number.
    With ``play`` (a :class:`~harpsolve.player.PlaySettings`) every deal is *played* by that
    player, who does not see the face-down cards, instead of solved: rows ``won`` or
    ``lost``, under a fingerprint of their own (the rules' and the player's settings).

    Resumes where an earlier run into ``out`` stopped.  ``budgets`` is a
    :class:`Budgets` or a dict of its fields.  ``engine`` is ``local``
    (worker processes) or ``dask`` (``scheduler`` = ``tcp://host:port`` of a
    running scheduler, or None to start a LocalCluster with ``workers``).
    """
    rules = variant if isinstance(variant, Rules) else get_rules(variant)
    rules = with_overrides(rules, overrides)
    if layouts is not None:
        numbers = layout_jobs(layouts, rules)
    else:
        numbers = parse_range(deals) if isinstance(deals, str) else sorted(set(int(d) for d in deals))
        if not numbers or numbers[0] < 1 or numbers[-1] > MAX_DEAL:
            raise SweepError(f"deals are numbered 1 to {MAX_DEAL}")
    budgets = Budgets.make(budgets)
    if engine not in ("local", "dask"):
        raise SweepError(f"unknown engine {engine!r}; use local or dask")
    if scheduler and engine != "dask":
        engine = "dask"
    workers = cpu_count() if workers is None else int(workers)
    if workers < 1:
        raise SweepError("--workers must be at least 1")
    if chunk_size is not None and chunk_size < 1:
        raise SweepError("--chunk-size must be at least 1")

    run = run_metadata(engine if not scheduler else f"dask {scheduler}", workers, command)
    run.update(rules=rules.label, rules_fingerprint=play.fingerprint(rules) if play else rules.fingerprint())
    if play is not None:
        run.update(policy=play.label)
    store = ResultStore(out, rules, budgets, run, play)
    bar = None
    old_term = None
    try:
        prior = {job_key(d): store.prior[job_key(d)] for d in numbers if job_key(d) in store.prior}
        todo = [d for d in numbers if job_key(d) not in prior]
        bar = Progress(len(numbers), prior, progress and bool(todo), store.label)
        if threading.current_thread() is threading.main_thread():
            old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        t0 = time.perf_counter()
        if todo:
            if engine == "local":
                run_local(store, todo, rules, budgets, workers, chunk_size, bar)
            else:
                run_dask(store, todo, rules, budgets, workers, chunk_size, bar, scheduler)
        seconds = time.perf_counter() - t0
        store.finish()
        shown = (*PLAYER_STATUSES, "error") if play is not None else (*SOLVER_STATUSES, "error")
        counts = {s: bar.counts.get(s, 0) for s in shown}
        return SweepSummary(store.out, store.label, len(numbers), len(prior), bar.new, counts, seconds)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if bar is not None:
            bar.close()
        store.close()


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
