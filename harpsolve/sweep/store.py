"""Result files and output folders: atomic writes, reading and validating
files (:mod:`.schema` says what a valid row is), the best row per deal, and
:class:`ResultStore`, the folder a sweep writes into (lock, resume state,
buffered rows, merges).

A folder holds ``results-<ns>-<pid>-<seq>.parquet`` files (Parquet, zstd).
Each is written to a hidden temporary file, fsynced and renamed into place,
so a file is either complete or absent.  A merged file names the files it
replaces in its metadata, so a crash between the merge and the deletions
never counts a row twice.  ``.lock`` keeps two sweeps out of one folder.
"""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass

from .. import __version__
from ..rules import Rules
from ..search.settings import SearchSettings
from .runs import merge_runs, now_iso
from .schema import (
    BUDGET_COLUMNS, KEY_COLUMNS, LATER_COLUMNS, META_REPLACES, META_RULES, META_RUNS, META_VERSION, READ_VERSIONS,
    FINISHED, REQUIRED, SCHEMA_VERSION, ResultFileError, arrow_schema, check_rows,
)

COMPACT_EVERY = 64       # merge the small files once this many exist
SMALL_FILE = 10_000      # rows: a file smaller than this is merged again
FILE_GLOB_RE = re.compile(r"^results-\d+-\d+-\d+\.parquet$")


class SweepError(ValueError):
    """Bad sweep input: a malformed range, a folder holding other rules, a busy folder, a failed write."""


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


def new_name() -> str:
    return f"results-{time.time_ns():020d}-{os.getpid()}-{next(_SEQ)}.parquet"


# How the columns are encoded in a result file (zstd on top).  A file's deal numbers run
# nearly in order: DELTA_BINARY_PACKED stores their differences (a bit or two a row instead
# of four bytes).  Seconds are floats with noisy low bits: BYTE_STREAM_SPLIT groups their
# bytes so that zstd finds the repeats.  The search counts are mostly distinct, so a
# dictionary only adds an index to every value: PLAIN.  Every other column (strings,
# budgets) repeats a few values: dictionary, pyarrow's default.  Both encodings date from
# Parquet 2.2 (2015) and 2.8 (2019): every current reader reads them.  Measured on committed
# files (the same rows rewritten): bakers-game 51 750 rows 977 KB -> 545 KB, klondike-3
# 129 824 rows 2.31 MB -> 1.49 MB.
COLUMN_ENCODING = {"deal": "DELTA_BINARY_PACKED", "seconds": "BYTE_STREAM_SPLIT", "nodes": "PLAIN",
                   "states": "PLAIN", "solution_length": "PLAIN", "score": "PLAIN"}


# Rows per row group.  ``harpsolve lookup`` reads only the row groups whose deal range (footer
# statistics) holds an asked deal (tables._row_groups); pyarrow's default (1 048 576 rows) made
# a complete table one group, read whole to answer for one deal.  Measured on easy-harp's
# 1 054 577-row file (thirty-fifth session, /tmp script): a lookup of two deals reads 0.198 s
# with the default, 0.044 s with 65 536, 0.014 s with 32 768; the file grows 1.2 % / 1.7 %, and
# reading all of it (grade cut points, ``harpsolve deals``) slows with the number of groups.
ROW_GROUP_ROWS = 65_536


def write_parquet(table, f) -> None:
    """``table`` into the open file ``f`` as a result file is written (zstd, ``COLUMN_ENCODING``,
    row groups of ``ROW_GROUP_ROWS``)."""
    import pyarrow.parquet as pq

    enc = {c: e for c, e in COLUMN_ENCODING.items() if c in table.column_names}
    pq.write_table(table, f, compression="zstd", column_encoding=enc, row_group_size=ROW_GROUP_ROWS,
                   use_dictionary=[c for c in table.column_names if c not in enc])


def write_file_atomic(path: str, write, check=None) -> None:
    """Write ``path`` through ``write(f)`` (``f`` a binary file): a temporary file beside it,
    fsync, ``check(temporary path)`` if given (it raises to abandon the write), rename, fsync
    the folder.  A failed or abandoned write leaves no temporary file behind and ``path`` as it
    was.  The temporary name carries the process id: two writers never share one."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if check is not None:
            check(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(folder or ".")


def write_atomic(table, folder: str, name: str | None = None) -> str:
    """Write ``table`` as the result file ``folder/name`` (``write_file_atomic``)."""
    final = os.path.join(folder, name or new_name())
    write_file_atomic(final, lambda f: write_parquet(table, f))
    return final


def make_table(rows, runs: list, rules_meta: dict, replaces=()):
    """Rows (a list of dicts, or a Table) with the file metadata a result file carries."""
    import pyarrow as pa

    t = pa.Table.from_pylist(rows, schema=arrow_schema()) if isinstance(rows, list) else rows
    meta = {
        META_VERSION: str(SCHEMA_VERSION).encode(),
        META_RUNS: json.dumps(runs).encode(),
        META_RULES: json.dumps(rules_meta, sort_keys=True).encode(),
    }
    if replaces:
        meta[META_REPLACES] = json.dumps(sorted(replaces)).encode()
    return t.replace_schema_metadata(meta)


_MOVE_IT = "move it out of the folder (a sweep solves its deals again)"


def read_meta(path: str) -> ResultFile:
    """Validate ``path`` as a result file of a version this harpsolve reads and read its metadata."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except FileNotFoundError:
        raise
    except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a bad file
        raise ResultFileError(f"{path}: not a readable Parquet result file ({_short(e)}); {_MOVE_IT}") from None
    meta = schema.metadata or {}
    if META_VERSION not in meta:
        raise ResultFileError(f"{path}: not a harpsolve result file (no {META_VERSION.decode()} metadata); "
                              f"{_MOVE_IT}")
    version = meta[META_VERSION].decode(errors="replace")
    if version not in READ_VERSIONS:
        raise ResultFileError(f"{path}: result schema version {version}, but this harpsolve "
                              f"({__version__}) reads versions {', '.join(READ_VERSIONS)}; read it with the "
                              "harpsolve that wrote it, or move it out of the folder")
    missing = [c for c in REQUIRED if c not in schema.names]
    if missing:
        raise ResultFileError(f"{path}: result file lacks column(s) {', '.join(missing)}; {_MOVE_IT}")
    try:
        runs = json.loads(meta.get(META_RUNS, b"[]"))
        rules = json.loads(meta.get(META_RULES, b"{}"))
        replaces = json.loads(meta.get(META_REPLACES, b"[]"))
    except ValueError:
        raise ResultFileError(f"{path}: corrupted harpsolve metadata; {_MOVE_IT}") from None
    # the shapes every writer gives them (make_table's callers; stats and merges read them)
    if not (isinstance(runs, list) and all(isinstance(r, dict) for r in runs)
            and isinstance(rules, dict) and all(isinstance(r, dict) and "label" in r for r in rules.values())
            and isinstance(replaces, list) and all(isinstance(n, str) for n in replaces)):
        raise ResultFileError(f"{path}: harpsolve metadata of the wrong shape; {_MOVE_IT}")
    return ResultFile(path, runs, rules, replaces)


def read_table(path: str, columns=None):
    """Read one result file (validated: its metadata and its rows) as a pyarrow Table."""
    import pyarrow.parquet as pq

    read_meta(path)
    if columns:  # a column added later is absent from older files (load_results fills it in)
        names = set(pq.read_schema(path).names)
        columns = [c for c in columns if c in names or c not in LATER_COLUMNS]
    try:
        table = pq.read_table(path, columns=list(columns) if columns else None)
    except FileNotFoundError:
        raise
    except Exception as e:  # noqa: BLE001
        raise ResultFileError(f"{path}: corrupted result file ({_short(e)}); {_MOVE_IT}") from None
    check_rows(table, path)
    return table


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


# ---- the best row per deal ------------------------------------------------------------
_RANK = {**{s: 3 for s in FINISHED}, "unknown": 2, "error": 1}


def row_key(row: dict):
    """What identifies the job a row answers: the deal number, or (layout file, content hash)."""
    return row["deal"] if row.get("deal") is not None else (row["layout_file"], row["layout_hash"])


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
    """One row per (rules_fingerprint, deal or layout): a decided row (solved/unsolvable, or a
    player's won/lost) before ``unknown`` before ``error``; among ``unknown`` rows the biggest
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


def deals_by_status(folder: str, rules: Rules) -> dict[str, list[int]]:
    """The numbered deals of ``rules`` in the results under ``folder``, by the status of each
    one's best row (``best_rows``), each list in increasing order."""
    df = best_rows(load_results([folder]).frame)
    df = df[(df["rules_fingerprint"] == rules.fingerprint()) & df["deal"].notna()]
    return {str(st): sorted(int(d) for d in g["deal"]) for st, g in df.groupby("status")}


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

    def __init__(self, out: str, rules: Rules, budgets: SearchSettings, run: dict, play=None):
        self.out = os.fspath(out)
        self.rules, self.budgets, self.run = rules, budgets, run
        self.play = play  # player.PlaySettings of a player sweep: its rows have their own fingerprint
        self.fingerprint = play.fingerprint(rules) if play else rules.fingerprint()
        self.label = _label(rules.label, play.label if play else None)
        self.rules_meta = rules_meta(rules, play)
        if os.path.exists(self.out) and not os.path.isdir(self.out):
            raise SweepError(f"--out {self.out} is a file; sweeps write into a folder (give a folder's name)")
        os.makedirs(self.out, exist_ok=True)
        self._lock_fd = _lock(self.out)
        self.buffer: list[dict] = []
        self.small: list[str] = []
        self.written = 0
        self.failed = False
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
        cols = [*KEY_COLUMNS, "status", "rules_fingerprint", "rules", "policy", *BUDGET_COLUMNS]
        self.prior = {}  # job key (deal, or layout file and hash) -> best status among finished rows
        self.files = live
        if not live:
            return
        res = load_results(live, cols)
        df = res.frame
        other = df[df["rules_fingerprint"] != self.fingerprint]
        if len(other):
            r = other.iloc[0]
            raise SweepError(
                f"{self.out} holds results for {_what(r)} (rules fingerprint {r['rules_fingerprint']}), "
                f"not {self.label} ({self.fingerprint}); sweep into another --out folder, or give "
                "the --rule (and --play) options of the sweep that wrote it")
        b = self.budgets
        same = ((df["heuristic"] == b.heuristic) & (df["algorithm"] == b.algorithm) & (df["weight"] == b.weight)
                & _covers(df["max_nodes"], b.max_nodes) & _covers(df["timeout"], b.timeout)
                & (df["max_memory"] >= b.max_memory))
        finished = df[df["status"].isin(FINISHED) | ((df["status"] == "unknown") & same)]
        best = best_rows(finished)
        self.prior = dict(zip(frame_keys(best), best["status"].tolist()))
        self.small = [p for p in live if _rows_in(p) < SMALL_FILE]

    def add(self, row: dict) -> None:
        self.buffer.append(row)

    def _write(self, table, replaces=()) -> str:
        """Write one file; the first failed write ends the sweep (no retries, no later writes)
        with one line: what failed, and that what was written before is kept."""
        if self.failed:
            raise SweepError(f"cannot write to {self.out} (an earlier write failed)")
        try:
            return write_atomic(table, self.out)
        except OSError as e:
            self.failed = True
            raise SweepError(
                f"cannot write results to {self.out}: {e.strerror or e}; the {self.written:,} rows written "
                "before are kept: make room (or fix the folder) and run the same command again to resume"
            ) from None

    def flush(self) -> None:
        if not self.buffer or self.failed:
            return
        self.run["ended"] = now_iso()
        path = self._write(make_table(self.buffer, [dict(self.run)], self.rules_meta))
        self.written += len(self.buffer)
        self.buffer = []
        self.files.append(path)
        self.small.append(path)
        if len(self.small) >= COMPACT_EVERY:
            self.merge(self.small)

    def merge(self, paths: list[str]) -> None:
        """Merge ``paths`` into one file; the new file names them, then they go."""
        import pyarrow as pa

        if len(paths) < 2 or self.failed:
            return
        tables, runs, rules_meta = [], [], {}
        for p in paths:
            m = read_meta(p)
            tables.append(read_table(p))
            runs.append(m.runs)
            rules_meta.update(m.rules)
        table = pa.concat_tables([t.replace_schema_metadata(None) for t in tables], promote_options="default")
        names = [os.path.basename(p) for p in paths]
        merged = self._write(make_table(table, merge_runs(*runs), rules_meta, names))
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


def _label(rules: str, policy) -> str:
    """What results are of, for messages: the rules label, and the player if any."""
    return f"{rules} played by {policy}" if isinstance(policy, str) else rules


def _what(row) -> str:
    return _label(row["rules"], row.get("policy"))


def rules_meta(rules: Rules, play=None) -> dict:
    """The ``harpsolve.rules`` metadata of a file holding rows of ``rules`` (played by ``play``,
    a player.PlaySettings, or solved): fingerprint -> fields (and the player's label)."""
    if play is not None:
        return {play.fingerprint(rules): {**rules_meta(rules)[rules.fingerprint()], "policy": play.label}}
    return {rules.fingerprint(): {"label": rules.label, **{k: list(v) if isinstance(v, tuple) else v
                                                          for k, v in rules.as_dict().items()}}}


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
        who = f" (pid {holder})" if holder else ""
        raise SweepError(f"another sweep{who} is writing to {folder}; wait for it to end, or stop it"
                         f"{f' (kill {holder})' if holder else ''} and run this command again "
                         "to resume in this folder") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd
