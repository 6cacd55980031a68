"""Sweeps: classify a whole deal range on every core (or a Dask cluster) into
resumable Parquet result files, one row per deal.

>>> summary = sweep("klondike-1", "1-200", "sweep-out")       # doctest: +SKIP
>>> summary.counts                                             # doctest: +SKIP
{'solved': 160, 'unsolvable': 2, 'unknown': 38, 'error': 0}

Layout of an output folder
--------------------------
``results-<ns>-<pid>-<seq>.parquet`` files (Parquet, zstd).  Each is written
to a hidden temporary file, fsynced and renamed into place, so a file is
either complete or absent: ``kill -9`` at any moment loses at most the deals
being solved at that moment.  The parent writes one file per finished chunk
and merges small files as it goes (a merged file names the files it
replaces in its metadata, so a crash between the merge and the deletions
never counts a row twice).  ``.lock`` keeps two sweeps out of one folder.
One folder holds one rules fingerprint: results of different rules never mix.

Resume
------
Running the same command again skips every deal that already has a row under
the same rules fingerprint and is *finished*: ``solved`` or ``unsolvable``
(a verified solution or a proof holds under any budget), or ``unknown`` under
the same search settings (heuristic, algorithm, weight) and budgets at least
as big (max_nodes, timeout, max_memory; 0 = no limit): a search that ran
out of a bigger budget would run out of a smaller one too.  Deals with
``unknown`` under smaller budgets, and ``error`` deals, are solved again;
readers keep the best row per deal (see :func:`best_rows`).

Row schema (version 2)
----------------------
==================  =========  ==================================================
column              type       meaning
==================  =========  ==================================================
schema_version      int16      2 (1 in rows written before ``engine``/``proof``); readers refuse other versions
variant             string     the variant id (``easy-harp``)
deal                int32      deal number 1 … 999 999
rules               string     rules label: variant id + overrides (``easy-harp[passes=3]``)
rules_fingerprint   string     12-hex digest of the rules fields (``Rules.fingerprint()``)
status              string     ``solved`` | ``unsolvable`` | ``unknown`` | ``error``
solution_length     int32      moves of the verified solution as the search found it (loops and one-move
                               detours cut, not polished for reading as ``solve`` prints it); null unless solved
score               int32      Easy Harp score of the solution (null unless scored)
nodes               int64      search nodes expanded
states              int64      unique states stored
seconds             float64    solve time of this deal (wall, excluding JIT warm-up)
max_nodes           int64      node budget (0 = none)
timeout             float64    time budget in seconds (0 = none)
max_memory          int64      transposition-table budget in bytes
heuristic           string     search heuristic name
harpsolve_version   string     version that produced the row
reason              string     why ``unknown`` (nodes/time/memory/depth) or ``error`` (what failed)
algorithm           string     search algorithm (portfolio, climb, dfs, astar, wastar)
weight              float64    weighted A*'s weight (0 for the other algorithms)
layout_file         string     ``--layouts`` rows: the layout file (deal is null)
layout_hash         string     ``--layouts`` rows: 16 hex digits of the layout's content hash
engine              string     the engine that decided (``afree``, ``restarts r2.3``, ``climb 1``...)
proof               string     why ``unsolvable`` is proved (``exhausted``, ``exhausted: arrangement-free``,
                               ``relaxed: draw=1``, ``dead end: 7C``); null otherwise
==================  =========  ==================================================

``algorithm`` and ``weight`` came after the first files were written: a file
without them reads as ``climb`` with weight 0 (what wrote it).  Version 2 added
``engine`` and ``proof``; version-1 files are still read (both columns null).

File key-value metadata: ``harpsolve.schema_version`` ("2"),
``harpsolve.runs`` (JSON list, one object per run that wrote rows: run_id,
started, ended, command, engine, workers, cpu, cores, platform, rules,
rules_fingerprint and the python/numba/numpy/pyarrow/harpsolve versions), ``harpsolve.rules`` (JSON:
fingerprint -> rules fields) and, in merged files, ``harpsolve.replaces``.

Test hooks (environment variables read by local worker processes; not an
API): ``HARPSOLVE_TEST_CRASH=5,17`` makes a worker kill itself with SIGKILL
when it starts one of these deals; with ``HARPSOLVE_TEST_CRASH_ONCE=PATH`` it
does so only once per deal (marker files ``PATH.<deal>``);
``HARPSOLVE_TEST_DELAY=SECONDS`` sleeps before each deal.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import re
import signal
import sys
import threading
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field

from . import __version__
from .deals import MAX_DEAL
from .rules import Rules, get_rules, with_overrides
from .search.settings import SearchSettings

SCHEMA_VERSION = 2
READ_VERSIONS = ("1", "2")  # version 1: no engine/proof columns (read as null)
STATUSES = ("solved", "unsolvable", "unknown", "error")
DEFAULT_RANGE = f"1-{MAX_DEAL}"

CHUNK_SECONDS = 10.0     # aim for chunks this long: the most a kill -9 can lose per worker
FIRST_CHUNK = 4          # deals in a worker's first chunk, before any timing exists
MAX_CHUNK = 1000
COMPACT_EVERY = 64       # merge the small files once this many exist
FILE_GLOB_RE = re.compile(r"^results-\d+-\d+-\d+\.parquet$")

META_VERSION = b"harpsolve.schema_version"
META_RUNS = b"harpsolve.runs"
META_RULES = b"harpsolve.rules"
META_REPLACES = b"harpsolve.replaces"


class SweepError(ValueError):
    """Bad sweep input: a malformed range, a folder holding other rules, a busy folder."""


class ResultFileError(ValueError):
    """A result file that is corrupted, not harpsolve's, or of another schema version."""


# ---- ranges and sizes ---------------------------------------------------------------
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


# ---- budgets and rows ---------------------------------------------------------------
# The settings every row records: the one validated record of search/settings.py (its
# ``make`` fills in the solver's defaults, so rows record the real values).
Budgets = SearchSettings


BUDGET_COLUMNS = ("max_nodes", "timeout", "max_memory", "heuristic", "algorithm", "weight")
# columns added after schema version 1 was first written, with the value that older files mean
LATER_COLUMNS = {"algorithm": "climb", "weight": 0.0, "layout_file": None, "layout_hash": None,
                 "engine": None, "proof": None}
# the columns that name what a row solved: a deal number, or a layout file and its content hash
KEY_COLUMNS = ("deal", "layout_file", "layout_hash")


def _schema():
    import pyarrow as pa

    return pa.schema([
        ("schema_version", pa.int16()), ("variant", pa.string()), ("deal", pa.int32()),
        ("rules", pa.string()), ("rules_fingerprint", pa.string()), ("status", pa.string()),
        ("solution_length", pa.int32()), ("score", pa.int32()), ("nodes", pa.int64()),
        ("states", pa.int64()), ("seconds", pa.float64()), ("max_nodes", pa.int64()),
        ("timeout", pa.float64()), ("max_memory", pa.int64()), ("heuristic", pa.string()),
        ("harpsolve_version", pa.string()), ("reason", pa.string()),
        ("algorithm", pa.string()), ("weight", pa.float64()),
        ("layout_file", pa.string()), ("layout_hash", pa.string()),
        ("engine", pa.string()), ("proof", pa.string()),
    ])


COLUMNS = ("schema_version", "variant", "deal", "rules", "rules_fingerprint", "status",
           "solution_length", "score", "nodes", "states", "seconds", "max_nodes", "timeout",
           "max_memory", "heuristic", "harpsolve_version", "reason")


def make_row(rules: Rules, deal, budgets: Budgets, status: str, *, solution_length=None,
             score=None, nodes=0, states=0, seconds=0.0, reason="", engine=None, proof=None) -> dict:
    """A result row for ``deal``: a deal number, or a :class:`LayoutJob` (then ``deal`` is null and
    ``layout_file``/``layout_hash`` name the position)."""
    job = deal if isinstance(deal, LayoutJob) else None
    return dict(
        schema_version=SCHEMA_VERSION, variant=rules.name, deal=None if job else int(deal), rules=rules.label,
        rules_fingerprint=rules.fingerprint(), status=status, solution_length=solution_length,
        score=score, nodes=int(nodes), states=int(states), seconds=float(seconds),
        max_nodes=int(budgets.max_nodes), timeout=float(budgets.timeout),
        max_memory=int(budgets.max_memory), heuristic=budgets.heuristic,
        harpsolve_version=__version__, reason=reason, algorithm=budgets.algorithm, weight=float(budgets.weight),
        layout_file=job.name if job else None, layout_hash=job.hash if job else None,
        engine=engine or None, proof=proof or None,
    )


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

    from .cards import CardError
    from .layout import LayoutError, load_layout

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


def row_key(row: dict):
    """:func:`job_key` of the job a row answers."""
    return row["deal"] if row.get("deal") is not None else (row["layout_file"], row["layout_hash"])


_SOLVE_LOCK = threading.Lock()  # the solver's search buffers are per process, not per thread


def solve_row(rules: Rules, deal: int, budgets: Budgets) -> dict:
    """Solve one deal and return its result row.  A Python exception (a bug)
    becomes an ``error`` row with the exception in ``reason``."""
    from .solver import solve

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


def _algorithm_kwargs(budgets: Budgets) -> dict:
    kw = dict(algorithm=budgets.algorithm)
    if budgets.algorithm == "wastar":
        kw["weight"] = budgets.weight
    return kw


def solve_chunk(rules: Rules, deals, budgets: Budgets) -> list[dict]:
    """Solve a chunk of deals (the Dask task)."""
    return [solve_row(rules, d, budgets) for d in deals]


# ---- run metadata -----------------------------------------------------------------
def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_metadata(engine: str, workers: int, command: str | None = None) -> dict:
    import numba
    import numpy
    import pyarrow

    return dict(
        run_id=uuid.uuid4().hex[:12],
        started=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds"),
        ended=None,
        command=command if command is not None else _command_line(),
        engine=engine, workers=workers, cpu=cpu_model(), cores=os.cpu_count(),
        platform=platform.platform(), python=platform.python_version(),
        numba=numba.__version__, numpy=numpy.__version__, pyarrow=pyarrow.__version__,
        harpsolve=__version__,
    )


def _command_line() -> str:
    import shlex

    argv = list(sys.argv)
    name = os.path.basename(argv[0])
    if name.startswith("harpsolve") or (name in ("cli.py", "__main__.py")
                                        and os.path.basename(os.path.dirname(argv[0])) == "harpsolve"):
        argv[0] = "harpsolve"
    return shlex.join(argv)


def _now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def merge_runs(*lists) -> list[dict]:
    """Union of run records; for one run_id keep the latest ``ended``."""
    by_id: dict[str, dict] = {}
    for runs in lists:
        for r in runs:
            old = by_id.get(r.get("run_id"))
            if old is None or (r.get("ended") or "") > (old.get("ended") or ""):
                by_id[r.get("run_id")] = r
    return sorted(by_id.values(), key=lambda r: r.get("started") or "")


# ---- files --------------------------------------------------------------------------
@dataclass
class ResultFile:
    path: str
    runs: list
    rules: dict
    replaces: list


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_SEQ = iter(range(1 << 62))


def _new_name() -> str:
    return f"results-{time.time_ns():020d}-{os.getpid()}-{next(_SEQ)}.parquet"


def write_atomic(table, folder: str, name: str | None = None) -> str:
    """Write ``table`` as ``folder/name``: temp file, fsync, rename, fsync folder."""
    import pyarrow.parquet as pq

    name = name or _new_name()
    final = os.path.join(folder, name)
    tmp = os.path.join(folder, f".{name}.tmp")
    with open(tmp, "wb") as f:
        pq.write_table(table, f, compression="zstd")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)
    _fsync_dir(folder)
    return final


def _table(rows: list[dict], runs: list, rules_meta: dict, replaces=()):
    import pyarrow as pa

    t = pa.Table.from_pylist(rows, schema=_schema()) if isinstance(rows, list) else rows
    meta = {
        META_VERSION: str(SCHEMA_VERSION).encode(),
        META_RUNS: json.dumps(runs).encode(),
        META_RULES: json.dumps(rules_meta, sort_keys=True).encode(),
    }
    if replaces:
        meta[META_REPLACES] = json.dumps(sorted(replaces)).encode()
    return t.replace_schema_metadata(meta)


def read_meta(path: str) -> ResultFile:
    """Validate ``path`` as a result file of this schema version and read its metadata."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except FileNotFoundError:
        raise
    except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a bad file
        raise ResultFileError(f"{path}: not a readable Parquet result file ({_short(e)})") from None
    meta = schema.metadata or {}
    if META_VERSION not in meta:
        raise ResultFileError(f"{path}: not a harpsolve result file (no {META_VERSION.decode()} metadata)")
    version = meta[META_VERSION].decode(errors="replace")
    if version not in READ_VERSIONS:
        raise ResultFileError(f"{path}: result schema version {version}, but this harpsolve "
                              f"({__version__}) reads versions {', '.join(READ_VERSIONS)}")
    missing = [c for c in COLUMNS if c not in schema.names]
    if missing:
        raise ResultFileError(f"{path}: result file lacks column(s) {', '.join(missing)}")
    try:
        runs = json.loads(meta.get(META_RUNS, b"[]"))
        rules = json.loads(meta.get(META_RULES, b"{}"))
        replaces = json.loads(meta.get(META_REPLACES, b"[]"))
    except ValueError:
        raise ResultFileError(f"{path}: corrupted harpsolve metadata") from None
    return ResultFile(path, runs, rules, replaces)


def read_table(path: str, columns=None):
    """Read one result file (validated) as a pyarrow Table."""
    import pyarrow.parquet as pq

    read_meta(path)
    if columns:  # a column added later is absent from older files (load_results fills it in)
        names = set(pq.read_schema(path).names)
        columns = [c for c in columns if c in names or c not in LATER_COLUMNS]
    try:
        return pq.read_table(path, columns=list(columns) if columns else None)
    except FileNotFoundError:
        raise
    except Exception as e:  # noqa: BLE001
        raise ResultFileError(f"{path}: corrupted result file ({_short(e)})") from None


def _short(e: Exception) -> str:
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


def folder_files(folder: str) -> tuple[list[str], list[str]]:
    """(live result files in write order, files that a merged file replaces)."""
    names = sorted((n for n in os.listdir(folder) if FILE_GLOB_RE.match(n)), key=_name_key)
    replaced: set[str] = set()
    for n in names:
        try:
            replaced.update(read_meta(os.path.join(folder, n)).replaces)
        except FileNotFoundError:  # merged away by a running sweep meanwhile
            continue
    live = [os.path.join(folder, n) for n in names if n not in replaced]
    return live, [os.path.join(folder, n) for n in names if n in replaced]


def _name_key(name: str):
    _, ns, pid, seq = name[: -len(".parquet")].split("-")
    return int(ns), int(pid), int(seq)


def expand_paths(paths) -> list[str]:
    """Result files named by ``paths`` (files, or folders searched recursively)."""
    files: list[str] = []
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            found = False
            for root, dirs, _ in os.walk(p):
                dirs.sort()
                live, _ = folder_files(root)
                files.extend(live)
                found = found or bool(live)
            if not found:
                raise ResultFileError(f"{p}: no result files (results-*.parquet) in this folder")
        elif os.path.exists(p):
            files.append(p)
        else:
            raise ResultFileError(f"{p}: no such file or folder")
    seen, out = set(), []
    for f in files:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


@dataclass
class Results:
    """Rows read from result files (every row, in write order) and their run records."""

    frame: object  # pandas.DataFrame
    runs: list
    files: list


def load_results(paths, columns=None) -> Results:
    """Read and validate every result file under ``paths`` into one DataFrame.

    A folder is re-listed if a running sweep merges files while it is read.
    """
    import pandas as pd

    for attempt in range(3):
        files = expand_paths(paths)
        tables, runs = [], []
        try:
            for f in files:
                meta = read_meta(f)
                tables.append(read_table(f, columns))
                runs.append(meta.runs)
        except FileNotFoundError:
            if attempt == 2:
                raise
            continue
        break
    if not tables:
        raise ResultFileError("no result files given")
    import pyarrow as pa

    try:
        table = pa.concat_tables(tables, promote_options="default")
    except pa.ArrowInvalid as e:
        raise ResultFileError(f"result files do not share one schema ({_short(e)})") from None
    df = table.to_pandas()
    for col, value in LATER_COLUMNS.items():
        if columns is None or col in columns:
            if col not in df.columns:
                df[col] = value
            elif value is not None:
                df[col] = df[col].fillna(value)
    return Results(df, merge_runs(*runs), files)


_RANK = {"solved": 3, "unsolvable": 3, "unknown": 2, "error": 1}


def key_columns(df) -> list:
    """The columns that identify a row's deal or layout in ``df``, after the fingerprint."""
    return ["rules_fingerprint"] + [c for c in KEY_COLUMNS if c in df.columns]


def frame_keys(df) -> list:
    """:func:`row_key` of every row of ``df`` (deal numbers as ints)."""
    if "layout_file" not in df.columns:
        return [int(d) for d in df["deal"]]
    return [int(d) if d is not None and d == d else (f, h)
            for d, f, h in zip(df["deal"], df["layout_file"], df["layout_hash"])]


def best_rows(df):
    """One row per (rules_fingerprint, deal or layout): a decided row (solved/unsolvable)
    before ``unknown`` before ``error``; among ``unknown`` rows the biggest
    budget (nodes, then time); among equals the last written."""
    if df.empty:
        return df
    big = float("inf")
    keys = key_columns(df)
    d = df.assign(_rank=df["status"].map(_RANK).fillna(0), _order=range(len(df)))
    sort = keys + ["_rank"]
    for col in ("max_nodes", "timeout"):
        if col in d.columns:  # 0 means no limit: the biggest budget of all
            d[f"_{col}"] = d[col].astype(float).where(d[col] > 0, big)
            sort.append(f"_{col}")
    d = d.sort_values(sort + ["_order"], kind="stable")
    d = d.drop_duplicates(keys, keep="last")
    d = d.drop(columns=[c for c in d.columns if c.startswith("_")])
    return d.sort_values(keys).reset_index(drop=True)


def _covers(limits, limit):
    """Which of the rows' limits are at least ``limit`` (0 means no limit: it covers every limit)."""
    return (limits == 0) | ((limit != 0) & (limits >= limit))


def conflicts(df):
    """(fingerprint, deal) pairs that have both a ``solved`` and an ``unsolvable`` row: a bug."""
    decided = df[df["status"].isin(("solved", "unsolvable"))]
    keys = key_columns(df)
    n = decided.groupby(keys, dropna=False)["status"].nunique()
    bad = n[n > 1].reset_index()
    return sorted(zip(bad["rules_fingerprint"], frame_keys(bad)),
                  key=lambda fk: (fk[0], isinstance(fk[1], tuple), fk[1] if isinstance(fk[1], int) else 0, str(fk[1])))


# ---- the output folder --------------------------------------------------------------
class ResultStore:
    """An output folder: lock, resume state, buffered rows, atomic shard writes, merges."""

    def __init__(self, out: str, rules: Rules, budgets: Budgets, run: dict):
        self.out = os.fspath(out)
        self.rules, self.budgets, self.run = rules, budgets, run
        self.fingerprint = rules.fingerprint()
        self.rules_meta = {self.fingerprint: {"label": rules.label, **_jsonable(rules.as_dict())}}
        if os.path.exists(self.out) and not os.path.isdir(self.out):
            raise SweepError(f"--out {self.out} is a file; sweeps write into a folder")
        os.makedirs(self.out, exist_ok=True)
        self._lock_fd = _lock(self.out)
        self.buffer: list[dict] = []
        self.small: list[str] = []
        self.written = 0
        try:
            self._load()
        except BaseException:
            self.close()
            raise

    def _load(self):
        for n in os.listdir(self.out):
            if n.startswith(".results-") and n.endswith(".tmp"):  # a write cut short by a kill
                os.unlink(os.path.join(self.out, n))
        live, replaced = folder_files(self.out)
        for p in replaced:  # a merge finished but its deletions did not
            os.unlink(p)
        cols = [*KEY_COLUMNS, "status", "rules_fingerprint", "rules", *BUDGET_COLUMNS]
        self.prior = {}  # job_key (deal, or layout file and hash) -> best status among finished rows
        self.files = live
        if not live:
            return
        res = load_results(live, cols)
        df = res.frame
        other = df[df["rules_fingerprint"] != self.fingerprint]
        if len(other):
            r = other.iloc[0]
            raise SweepError(
                f"{self.out} holds results for {r['rules']} (rules fingerprint {r['rules_fingerprint']}), "
                f"not {self.rules.label} ({self.fingerprint}); sweep into another --out folder")
        b = self.budgets
        same = ((df["heuristic"] == b.heuristic) & (df["algorithm"] == b.algorithm) & (df["weight"] == b.weight)
                & _covers(df["max_nodes"], b.max_nodes) & _covers(df["timeout"], b.timeout)
                & (df["max_memory"] >= b.max_memory))
        finished = df[df["status"].isin(("solved", "unsolvable")) | ((df["status"] == "unknown") & same)]
        best = best_rows(finished)
        self.prior = dict(zip(frame_keys(best), best["status"].tolist()))
        self.small = [p for p in live if _rows_in(p) < MAX_CHUNK * 10]

    def add(self, row: dict) -> None:
        self.buffer.append(row)

    def flush(self) -> None:
        if not self.buffer:
            return
        self.run["ended"] = _now_iso()
        path = write_atomic(_table(self.buffer, [dict(self.run)], self.rules_meta), self.out)
        self.written += len(self.buffer)
        self.buffer = []
        self.files.append(path)
        self.small.append(path)
        if len(self.small) >= COMPACT_EVERY:
            self.merge(self.small)

    def merge(self, paths: list[str]) -> None:
        """Merge ``paths`` into one file; the new file names them, then they go."""
        import pyarrow as pa

        if len(paths) < 2:
            return
        tables, runs, rules_meta = [], [], {}
        for p in paths:
            m = read_meta(p)
            tables.append(read_table(p))
            runs.append(m.runs)
            rules_meta.update(m.rules)
        table = pa.concat_tables([t.replace_schema_metadata(None) for t in tables], promote_options="default")
        names = [os.path.basename(p) for p in paths]
        merged = write_atomic(_table(table, merge_runs(*runs), rules_meta, names), self.out)
        for p in paths:
            os.unlink(p)
        _fsync_dir(self.out)
        gone = set(paths)
        self.files = [p for p in self.files if p not in gone] + [merged]
        self.small = [p for p in self.small if p not in gone]

    def finish(self) -> None:
        """Flush, then merge the folder into one file."""
        self.flush()
        if len(self.files) > 1:
            self.merge(list(self.files))

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def _rows_in(path: str) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def _jsonable(d: dict) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def _lock(folder: str):
    path = os.path.join(folder, ".lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory lock
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip()
        os.close(fd)
        raise SweepError(f"another sweep is writing to {folder}" + (f" (pid {holder})" if holder else "")) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


# ---- progress -----------------------------------------------------------------------
class Progress:
    """tqdm bar on stderr: deals/s, ETA and the running win rate of the whole range."""

    def __init__(self, total: int, prior: dict, enabled: bool, label: str):
        self.counts = Counter(prior.values())
        self.new = 0
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=len(prior), unit="deal", desc=label, file=sys.stderr,
                            dynamic_ncols=True, smoothing=0.05, mininterval=0.5)
            self._postfix()

    def update(self, status: str) -> None:
        self.counts[status] += 1
        self.new += 1
        if self.bar is not None:
            self._postfix()
            self.bar.update(1)

    def _postfix(self):
        self.bar.set_postfix_str(self.rate_text(), refresh=False)

    def rate_text(self) -> str:
        """The running rate as stats renders it: the bounds (every undecided deal lost .. won)
        first, the decided-only rate labelled, and the undecided counts."""
        s, u = self.counts["solved"], self.counts["unsolvable"]
        k, e = self.counts["unknown"], self.counts["error"]
        n = s + u + k + e
        if not n:
            return "win -"
        if not k + e:
            return f"win {100 * s / n:.1f}%"
        out = f"win {100 * s / n:.1f}-{100 * (s + k + e) / n:.1f}%"
        out += f" (decided-only {100 * s / (s + u):.1f}%)" if s + u else ""
        return out + (f" unknown {k}" if k else "") + (f" error {e}" if e else "")

    def close(self):
        if self.bar is not None:
            self.bar.close()


# ---- chunking ---------------------------------------------------------------------
class Chunker:
    """Hands out chunks sized to take about CHUNK_SECONDS; retries go alone, first."""

    def __init__(self, todo, slots: int, fixed: int | None):
        self.pending = deque(todo)
        self.retry: deque[int] = deque()
        self.slots = max(1, slots)
        self.fixed = fixed
        self.per_deal: float | None = None

    def __bool__(self):
        return bool(self.pending or self.retry)

    def next(self) -> list[int]:
        if self.retry:
            return [self.retry.popleft()]
        if self.fixed:
            k = self.fixed
        else:
            k = FIRST_CHUNK if self.per_deal is None else int(CHUNK_SECONDS / max(self.per_deal, 1e-6))
            k = max(1, min(k, MAX_CHUNK, math.ceil(len(self.pending) / (2 * self.slots))))
        return [self.pending.popleft() for _ in range(min(k, len(self.pending)))]

    def timed(self, n: int, seconds: float) -> None:
        if n:
            x = seconds / n
            self.per_deal = x if self.per_deal is None else 0.7 * self.per_deal + 0.3 * x

    def give_back(self, deals) -> None:
        self.pending.extendleft(reversed(list(deals)))


# ---- local engine -------------------------------------------------------------------
def _mp_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["harpsolve.sweep", "harpsolve.solver"])
        return ctx
    return mp.get_context("spawn")


def _worker_main(conn, rules: Rules, budgets: Budgets) -> None:
    """A worker process: warm the JIT once, then solve the chunks it is sent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    crash = {int(x) for x in os.environ.get("HARPSOLVE_TEST_CRASH", "").split(",") if x.strip()}
    crash_once = os.environ.get("HARPSOLVE_TEST_CRASH_ONCE")
    delay = float(os.environ.get("HARPSOLVE_TEST_DELAY") or 0)
    from .solver import warm_up

    warm_up(rules, None, heuristic=budgets.heuristic, **_algorithm_kwargs(budgets))  # JIT compile / cache load
    try:
        conn.send(("ready", os.getpid()))
        while True:
            chunk = conn.recv()
            if chunk is None:
                return
            for deal in chunk:
                if isinstance(deal, int) and deal in crash:
                    marker = f"{crash_once}.{deal}" if crash_once else None
                    if marker is None or not os.path.exists(marker):
                        if marker:
                            open(marker, "w").close()
                        os.kill(os.getpid(), signal.SIGKILL)
                if delay:
                    time.sleep(delay)
                conn.send(("row", solve_row(rules, deal, budgets)))
            conn.send(("done", None))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the parent is gone


class _Worker:
    def __init__(self, ctx, rules, budgets):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, rules, budgets), daemon=True,
                                name="harpsolve-sweep-worker")
        self.proc.start()
        child.close()
        self.ready = False
        self.chunk: list[int] | None = None
        self.got: set[int] = set()
        self.sent_at = 0.0

    def send(self, chunk):
        self.chunk, self.got, self.sent_at = chunk, set(), time.perf_counter()
        self.conn.send(chunk)

    def stop(self, grace: float = 2.0):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(grace)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(grace)
        if self.proc.is_alive():  # pragma: no cover
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def _death(exitcode) -> str:
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"exited with code {exitcode}"


def _run_local(store, todo, rules, budgets, workers, chunk_size, progress) -> None:
    from multiprocessing.connection import wait

    ctx = _mp_context()
    chunks = Chunker(todo, workers, chunk_size)
    attempts: Counter = Counter()
    startup_failures = 0
    pool = [_Worker(ctx, rules, budgets) for _ in range(min(workers, len(todo)))]

    def handle(w, msg):
        kind, payload = msg
        if kind == "ready":
            w.ready = True
        elif kind == "row":
            w.got.add(row_key(payload))
            store.add(payload)
            progress.update(payload["status"])
        elif kind == "done":
            chunks.timed(len(w.chunk), time.perf_counter() - w.sent_at)
            w.chunk = None
            store.flush()

    def drain(w) -> bool:
        """Read every waiting message; False once the pipe is closed."""
        try:
            while w.conn.poll():
                handle(w, w.conn.recv())
        except (EOFError, OSError):
            return False
        return True

    try:
        while chunks or any(w.chunk for w in pool):
            for w in pool:
                if w.ready and w.chunk is None and chunks:
                    try:
                        w.send(chunks.next())
                    except OSError:
                        pass  # found dead below
            ready = wait([w.conn for w in pool] + [w.proc.sentinel for w in pool], timeout=1.0)
            for w in list(pool):
                alive = True
                if w.conn in ready:
                    alive = drain(w)
                if w.proc.sentinel in ready or not alive:
                    drain(w)
                    w.proc.join(5)
                    if w.proc.is_alive():
                        continue  # pipe closed but still exiting; next round
                    why = _death(w.proc.exitcode)
                    pool.remove(w)
                    w.conn.close()
                    if w.chunk is not None:
                        left = [d for d in w.chunk if job_key(d) not in w.got]
                        if left:
                            culprit = left[0]
                            attempts[culprit] += 1
                            if attempts[culprit] >= 2:
                                row = make_row(rules, culprit, budgets, "error",
                                               reason=f"worker process {why} twice while solving this "
                                                      + ("layout" if isinstance(culprit, LayoutJob) else "deal"))
                                store.add(row)
                                progress.update("error")
                            else:
                                chunks.retry.append(culprit)
                            chunks.give_back(left[1:])
                        store.flush()
                    elif not w.ready:
                        startup_failures += 1
                        if startup_failures >= 3:
                            raise SweepError(f"sweep worker processes fail to start (a worker {why})")
                    if chunks:
                        pool.append(_Worker(ctx, rules, budgets))
    finally:
        for w in pool:  # rows that arrived while we were stopping are finished work too
            drain(w)
        store.flush()
        for w in pool:
            w.stop()


# ---- Dask engine --------------------------------------------------------------------
def _run_dask(store, todo, rules, budgets, workers, chunk_size, progress, scheduler) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise SweepError("the dask engine needs Dask: pip install 'harpsolve[dask]'") from None
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as e:
            raise SweepError(f"cannot reach the Dask scheduler at {scheduler} ({_short(e)})") from None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        slots = max(1, sum(client.nthreads().values()))
        store.run["workers"] = slots
        try:
            store.run["cpu"] = "; ".join(sorted(set(client.run(cpu_model).values())))
        except Exception:  # noqa: BLE001 - metadata only
            pass
        chunks = Chunker(todo, slots, chunk_size)
        futures = as_completed()
        info = {}

        def submit(chunk, attempt=1):
            f = client.submit(solve_chunk, rules, chunk, budgets, pure=False)
            info[f.key] = (chunk, attempt)
            futures.add(f)

        for _ in range(2 * slots):
            if chunks:
                submit(chunks.next())
        for f in futures:
            chunk, attempt = info.pop(f.key)
            if f.status == "finished":
                rows = f.result()
                chunks.timed(len(chunk), sum(r["seconds"] for r in rows) + 0.002 * len(rows))
                for row in rows:
                    store.add(row)
                    progress.update(row["status"])
            elif len(chunk) > 1:  # find the deal that kills workers: each alone, once more
                for d in chunk:
                    submit([d], 2)
            elif attempt < 2:
                submit(chunk, attempt + 1)
            else:
                try:
                    exc = f.exception()
                except BaseException as e:  # noqa: BLE001 - cancelled
                    exc = e
                store.add(make_row(rules, chunk[0], budgets, "error",
                                   reason=f"dask task failed twice: {type(exc).__name__}: {_short(exc)}"))
                progress.update("error")
            store.flush()
            f.release()
            if chunks:
                submit(chunks.next())
    finally:
        store.flush()
        client.close()
        if cluster is not None:
            cluster.close()


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
          layouts=None) -> SweepSummary:
    """Solve every deal of ``deals`` (a range text or numbers) into the folder ``out``;
    or, with ``layouts`` (a folder or a glob, see :func:`layout_jobs`), every layout file
    there, one row each keyed by file name and content hash instead of a deal number.

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
    run.update(rules=rules.label, rules_fingerprint=rules.fingerprint())
    store = ResultStore(out, rules, budgets, run)
    bar = None
    old_term = None
    try:
        prior = {job_key(d): store.prior[job_key(d)] for d in numbers if job_key(d) in store.prior}
        todo = [d for d in numbers if job_key(d) not in prior]
        bar = Progress(len(numbers), prior, progress and bool(todo), rules.label)
        if threading.current_thread() is threading.main_thread():
            old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        t0 = time.perf_counter()
        if todo:
            if engine == "local":
                _run_local(store, todo, rules, budgets, workers, chunk_size, bar)
            else:
                _run_dask(store, todo, rules, budgets, workers, chunk_size, bar, scheduler)
        seconds = time.perf_counter() - t0
        store.finish()
        counts = {s: bar.counts.get(s, 0) for s in STATUSES}
        return SweepSummary(store.out, rules.label, len(numbers), len(prior), bar.new, counts, seconds)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if bar is not None:
            bar.close()
        store.close()


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
