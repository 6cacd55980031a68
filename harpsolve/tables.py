"""The published tables: answers about numbered deals without solving them.

``results/VARIANT/`` in the repository holds the committed sweep results of
each variant (one rules fingerprint per folder, see :mod:`harpsolve.sweep`).
This module reads them to answer two questions fast:

- :func:`lookup`: is deal N winnable?  Status, proof or solution length,
  and the search effort (nodes) with its difficulty grade;
- :func:`pick_deals`: which deals are solved and of a given difficulty?

Where the tables are
--------------------
:func:`results_root` looks, in this order, at the ``results`` argument
(``--results PATH`` on the command line), the environment variable
``HARPSOLVE_RESULTS``, and the ``results/`` folder next to the ``harpsolve``
package, which is the repository's own ``results/`` on a clone (run from the
checkout or installed with ``pip install -e .``).  A wheel does not carry the
tables: point ``--results`` or ``HARPSOLVE_RESULTS`` at a clone's folder.
A results path is either a folder of per-variant folders (``results/``) or
one sweep folder (``results/easy-harp``, any ``--out`` of a sweep).

Only rows of the asked rules count: the rules fingerprint of the variant
with its ``--rule`` overrides must be the one the folder was swept under,
otherwise every deal is "not in the tables" (and so is every deal outside
the swept range).  A changed rules definition therefore never answers from
stale tables.

Difficulty grades
-----------------
The grade of a solved deal comes from its search effort (the ``nodes``
column: nodes the solver expanded to solve it under the sweep's settings)
ranked among all solved deals of the same table:

=========  ==============================================
grade      nodes
=========  ==============================================
easy       at most the 50th percentile (the median)
medium     above the 50th, at most the 80th percentile
hard       above the 80th, at most the 95th percentile
extreme    above the 95th percentile
=========  ==============================================

Percentiles are numpy's default (linear interpolation) over one best row per
solved deal.  Nodes measure the solver's effort, not a human player's: a
deal that needs long chains of exact moves tends to cost the search more,
but the grade is a proxy.  Unknown deals (the budget ran out) have no grade.

Speed: pyarrow only (no pandas), only the columns an answer needs, only the
row groups whose deal range holds an asked deal (result files are written in
row groups of ``sweep.store.ROW_GROUP_ROWS`` rows), and the grade cut points
from the folder's grade file (:data:`GRADES_FILE`) while it is current; see
``benchmarks/README.md`` for timings.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import asdict, dataclass, field

from .rules import Rules

RESULTS_ENV = "HARPSOLVE_RESULTS"
# (grade, lower percentile, upper percentile): a grade holds nodes in (lower, upper]
GRADES = (("easy", None, 50), ("medium", 50, 80), ("hard", 80, 95), ("extreme", 95, None))
GRADE_NAMES = tuple(g for g, _, _ in GRADES)
CUT_PERCENTILES = (50, 80, 95)
LOOKUP_STATUSES = ("solved", "unsolvable", "unknown")
# best-row ranking, the same as sweep.best_rows (tests/test_tables.py pins the two together)
_RANK = {"solved": 3, "unsolvable": 3, "unknown": 2, "error": 1}


class TablesError(ValueError):
    """No tables where they were looked for, or a bad choice (grade, count)."""


# ---- finding the tables -------------------------------------------------------------
def _package_results() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results")


def results_root(results=None) -> str:
    """The results path to read: ``results``, else $HARPSOLVE_RESULTS, else the repository's ``results/``."""
    if results is not None:
        path, how = os.fspath(results), "--results"
    elif os.environ.get(RESULTS_ENV):
        path, how = os.environ[RESULTS_ENV], RESULTS_ENV
    else:
        path = _package_results()
        if not os.path.isdir(path):
            raise TablesError(f"no tables folder next to the harpsolve package ({path}): the tables ship in "
                              f"the repository's results/ folder; give --results PATH or set {RESULTS_ENV}")
        return path
    if not os.path.isdir(path):
        raise TablesError(f"{how} {path}: no such folder")
    return path


@dataclass
class Table:
    """One variant's result files under a results path."""

    folder: str | None            # None: the results path has no folder for this variant
    files: list = field(default_factory=list)
    rules: dict = field(default_factory=dict)    # fingerprint -> rules label, from the files' metadata

    def holds(self, rules: Rules) -> bool:
        return rules.fingerprint() in self.rules

    def why_not(self, rules: Rules) -> str:
        """Why ``rules`` has no rows here (for "not in the tables")."""
        if self.folder is None:
            return f"no table for {rules.name}"
        held = ", ".join(f"{label} ({fp})" for fp, label in sorted(self.rules.items()))
        return f"the tables hold {held}, not {rules.label} ({rules.fingerprint()})"


def open_table(rules: Rules, results=None) -> Table:
    """The result files for ``rules.name`` under the results path (see :func:`results_root`)."""
    from .sweep import FILE_GLOB_RE, folder_files, read_meta

    root = results_root(results)
    folder = None
    for cand in (os.path.join(root, rules.name), root):
        if os.path.isdir(cand) and any(FILE_GLOB_RE.match(n) for n in os.listdir(cand)):
            folder = cand
            break
    if folder is None:
        return Table(None)
    files, _ = folder_files(folder)
    held = {}
    for f in files:
        for fp, fields in read_meta(f).rules.items():
            held[fp] = fields.get("label", fp) if isinstance(fields, dict) else fp
    return Table(folder, files, held)


def _row_groups(pf, deals):
    """Row groups of the ParquetFile ``pf`` whose deal range (from the footer statistics) may
    hold one of ``deals``: the pushdown that pyarrow's ``filters=`` would do, without importing
    pyarrow.dataset (0.4 s, more than reading a whole 100 000-row table)."""
    import bisect

    col = pf.schema_arrow.get_field_index("deal")
    keep = []
    for g in range(pf.metadata.num_row_groups):
        st = pf.metadata.row_group(g).column(col).statistics
        if deals is None or st is None or not st.has_min_max:
            keep.append(g)
            continue
        i = bisect.bisect_left(deals, st.min)
        if i < len(deals) and deals[i] <= st.max:
            keep.append(g)
    return keep


def _np(arr):
    """numpy view of a pyarrow Array of numbers without nulls.  Built from the buffer on purpose:
    pyarrow's own conversions (to_numpy, take, filter, compute) import pandas, 0.3 s of a lookup."""
    import numpy as np

    if arr.null_count:
        raise ValueError(f"unexpected nulls in a {arr.type} column")
    dtype = np.dtype(arr.type.to_pandas_dtype())
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)


def _codes(arr):
    """(values, numpy codes) of a pyarrow DictionaryArray."""
    return arr.dictionary.to_pylist(), _np(arr.indices)


_READ_AS_CODES = ["status", "rules_fingerprint"]


def _read(table: Table, fingerprint: str, numeric=(), extra=(), deals=None, status=None) -> dict:
    """The rows of ``fingerprint`` (optionally only ``deals`` / one ``status``) as numpy columns:
    ``deal``, ``status``, ``rank`` (:data:`_RANK`), ``_order`` (grows in write order), the
    ``numeric`` columns (numbers without nulls), and with ``extra`` columns a ``_rows`` list of
    one dict per row holding them (meant for a few rows).  Row groups whose deal range misses
    ``deals`` are not read.  A column that a file lacks (added later) is absent from its rows."""
    import numpy as np
    import pyarrow.parquet as pq

    from .deals import MAX_DEAL
    from .sweep import ResultFileError
    from .sweep.schema import PLAYER_STATUSES, STATUSES, bad_deal, bad_status

    deals = np.array(sorted(set(int(d) for d in deals)), dtype=np.int64) if deals is not None else None
    names = ["deal", "rank", "status", "_order", *numeric]
    out = {c: [] for c in names}
    rows = []
    for i, f in enumerate(table.files):
        try:
            pf = pq.ParquetFile(f, read_dictionary=_READ_AS_CODES)
            have = set(pf.schema_arrow.names)
            cols = [c for c in dict.fromkeys(["deal", *_READ_AS_CODES, *numeric, *extra]) if c in have]
            t = pf.read_row_groups(_row_groups(pf, None if deals is None else deals.tolist()), columns=cols)
        except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a bad file
            raise ResultFileError(f"{f}: corrupted result file ({e})") from None
        pos = 0
        for batch in t.to_batches():
            n = len(batch)
            fps, fp_code = _codes(batch.column("rules_fingerprint"))
            if fingerprint not in fps:
                pos += n
                continue
            keep = fp_code == fps.index(fingerprint)
            col = batch.column("deal")
            # rows of a `sweep --layouts` run have no deal number: never a match here (0)
            deal = _np(col) if not col.null_count else np.array([d or 0 for d in col.to_pylist()], np.int32)
            if deals is not None:
                keep &= np.isin(deal, deals)
            svals, scode = _codes(batch.column("status"))
            # rows no sweep writes are refused, as load_results refuses them (numpy here: lookup
            # runs in a fresh process, and pyarrow.compute would cost it 60 ms to import)
            wrong = [v for v in svals if v not in STATUSES] or ([None] if batch.column("status").null_count else [])
            # ... and so are won/lost rows under the rules' own fingerprint (only a player's rows,
            # under a fingerprint of their own, are won or lost)
            played = [v for k, v in enumerate(svals) if v in PLAYER_STATUSES and (keep & (scode == k)).any()]
            if wrong or played:
                raise bad_status(f, None, (wrong or played)[0])
            if ((deal < 0) | (deal > MAX_DEAL)).any() or (not col.null_count and (deal == 0).any()):
                raise bad_deal(f, None, int(deal[(deal < 1) | (deal > MAX_DEAL)][0]))
            if status is not None:
                keep &= scode == (svals.index(status) if status in svals else -1)
            at = np.nonzero(keep)[0]
            sc = scode[at]
            out["deal"].append(deal[at].astype(np.int64))
            out["rank"].append(np.array([_RANK.get(v, 0) for v in svals], dtype=np.int8)[sc])
            out["status"].append(np.array(svals, dtype=object)[sc])
            out["_order"].append((i << 40) + pos + at.astype(np.int64))
            for c in numeric:
                out[c].append(_np(batch.column(c))[at])
            if extra:
                for j in at.tolist():
                    rows.append(batch.slice(j, 1).to_pylist()[0])
            pos += n
    res = {c: (np.concatenate(v) if v else np.zeros(0, np.int64)) for c, v in out.items()}
    res["_rows"] = rows
    return res


def best_indices(deal, rank, max_nodes, timeout, order):
    """Indices of one best row per deal, by the rule of :func:`harpsolve.sweep.best_rows`: a decided
    row before ``unknown`` before ``error`` (``rank``); then the biggest node budget, then time
    budget (0 = no limit, the biggest); then the last written (``order``).
    numpy arrays in, indices sorted by deal out."""
    import numpy as np

    big = np.inf
    mn = np.where(max_nodes > 0, max_nodes.astype(float), big)
    to = np.where(timeout > 0, timeout.astype(float), big)
    idx = np.lexsort((order, to, mn, rank, deal))  # the last key is the primary one
    d = deal[idx]
    last = np.r_[d[1:] != d[:-1], True] if len(d) else np.zeros(0, bool)
    return idx[last]


def _best(r: dict) -> dict:
    """One best row per deal of the columns ``r`` (from :func:`_read`)."""
    pick = best_indices(r["deal"], r["rank"], r["max_nodes"], r["timeout"], r["_order"])
    out = {c: v[pick] for c, v in r.items() if c != "_rows"}
    out["_rows"] = [r["_rows"][i] for i in pick.tolist()] if r["_rows"] else []
    return out


# ---- grades -------------------------------------------------------------------------
@dataclass(frozen=True)
class Grading:
    """The nodes cut points of a table's solved deals: ``cuts[i]`` is the CUT_PERCENTILES[i] percentile."""

    solved: int
    cuts: tuple

    def grade(self, nodes) -> str:
        return GRADE_NAMES[int(self.indices([nodes])[0])]

    def indices(self, nodes):
        """The grades of ``nodes`` (an array) as indices into GRADE_NAMES: a deal's grade is the
        first whose cut point it does not exceed (searchsorted, left side).  Vectorised for
        ``harpsolve deals``: a table's million solved deals graded one by one took a second."""
        import numpy as np

        return np.searchsorted(np.asarray(self.cuts, dtype=float), np.asarray(nodes), side="left")

    def span(self, name: str) -> str:
        """The percentiles of a grade: ``80th-95th percentile``."""
        _, lo, hi = GRADES[GRADE_NAMES.index(name)]
        return f"{lo or 0}th-{hi or 100}th percentile" if lo else f"up to the {hi}th percentile"

    def describe(self, name: str) -> str:
        """A grade with its node range: ``hard: 18,503 < nodes <= 47,976 (80th-95th percentile of …)``."""
        i = GRADE_NAMES.index(name)
        lo = f"{self.cuts[i - 1]:,.0f} < " if i else ""
        hi = f" <= {self.cuts[i]:,.0f}" if i < len(self.cuts) else ""
        return f"{name}: {lo}nodes{hi} ({self.span(name)} of the {self.solved:,} solved deals' search effort)"


def _solved_nodes(table: Table, rules: Rules):
    """(deals, nodes) of the solved deals of ``rules`` in ``table``, one best row each."""
    import numpy as np

    b = _best(_read(table, rules.fingerprint(), ["nodes", "max_nodes", "timeout"], status="solved"))
    return b["deal"], b["nodes"].astype(np.int64)


def grading(table: Table, rules: Rules, nodes=None) -> Grading | None:
    """The grade cut points of ``rules``' solved deals in ``table`` (None when none is solved):
    from ``nodes`` when given, else from the folder's grade file when it describes the table's
    files as they are (:data:`GRADES_FILE`), else from the table's solved rows, then written to
    that file for the next lookup (where the folder is writable)."""
    import numpy as np

    if nodes is None:
        cached = _cached_grading(table, rules)
        if cached is not _MISS:
            return cached
        _, nodes = _solved_nodes(table, rules)
        g = grading(table, rules, nodes)
        _store_grading(table, rules, g)
        return g
    if not len(nodes):
        return None
    cuts = tuple(float(x) for x in np.percentile(nodes, CUT_PERCENTILES))
    return Grading(len(nodes), cuts)


# A lookup grades a solved deal among all the table's solved deals, and the cut points need
# every solved row's nodes: on a complete table (999 999 deals) reading them took 0.25-0.4 s
# in-process, more than the rest of a lookup's reading (thirty-fifth session).  The
# cut points are kept in this file in the table's folder, per rules fingerprint, with the names
# and sizes of the result files they were computed from; they are used only while the folder's
# live result files are exactly those (a sweep adds or merges files: new names), so a table
# that changed is graded afresh.  Sizes, not modification times: a clone keeps the committed
# file valid.  The repository commits one per table (``benchmarks/results_table.py`` writes
# them and ``--check`` fails on a stale one).
GRADES_FILE = "grades.json"
_GRADES_FORMAT = 1
_MISS = object()


def files_signature(files) -> list:
    """[name, size] of each result file, in the table's order: what a grade file was computed from."""
    return [[os.path.basename(f), os.path.getsize(f)] for f in files]


def _grades_path(table: Table):
    return None if table.folder is None else os.path.join(table.folder, GRADES_FILE)


def _read_grades(path) -> dict:
    try:
        with open(path) as f:
            data = json.load(f)
        if isinstance(data, dict) and data.get("format") == _GRADES_FORMAT and isinstance(data.get("grades"), dict):
            return data["grades"]
    except (OSError, ValueError):
        pass
    return {}


def _cached_grading(table: Table, rules: Rules):
    """The grade file's cut points for ``rules`` if they describe ``table``'s files as they are, else _MISS."""
    path = _grades_path(table)
    if path is None:
        return _MISS
    e = _read_grades(path).get(rules.fingerprint())
    try:
        if (e["files"] != files_signature(table.files) or list(e["percentiles"]) != list(CUT_PERCENTILES)):
            return _MISS
        if not e["solved"]:
            return None
        cuts = tuple(float(x) for x in e["cuts"])
        if len(cuts) != len(CUT_PERCENTILES):
            return _MISS
        return Grading(int(e["solved"]), cuts)
    except (KeyError, TypeError, ValueError, OSError):  # a file of another shape, or one that vanished
        return _MISS


def _store_grading(table: Table, rules: Rules, g: Grading | None) -> bool:
    """Write ``g`` into the folder's grade file (temp file and rename); False where the folder
    is not writable (a lookup then just grades afresh next time)."""
    from .sweep.store import write_file_atomic

    path = _grades_path(table)
    if path is None:
        return False
    grades = _read_grades(path)
    grades[rules.fingerprint()] = dict(files=files_signature(table.files), percentiles=list(CUT_PERCENTILES),
                                       solved=0 if g is None else g.solved, cuts=[] if g is None else list(g.cuts))
    text = json.dumps(dict(format=_GRADES_FORMAT, grades=grades), indent=1, sort_keys=True) + "\n"
    try:
        write_file_atomic(path, lambda f: f.write(text.encode()))
        return True
    except OSError:
        return False


def grade_file_current(table: Table, rules: Rules, write: bool = False) -> bool:
    """Does the folder's grade file hold the cut points of ``rules``' solved deals in ``table``,
    its files as they are?  With ``write``, make it so (False if the file cannot be written)."""
    _, nodes = _solved_nodes(table, rules)
    g = grading(table, rules, nodes)
    if _cached_grading(table, rules) == g:
        return True
    return write and _store_grading(table, rules, g)


# ---- lookup -------------------------------------------------------------------------
@dataclass
class Answer:
    variant: str
    rules: str
    deal: int
    code: str
    status: str | None            # solved | unsolvable | unknown | error, None = not in the tables
    solution_length: int | None = None
    score: int | None = None
    proof: str | None = None
    nodes: int | None = None
    max_nodes: int | None = None
    reason: str | None = None
    grade: str | None = None
    why_not: str | None = None    # why the deal is not in the tables

    def text(self, grading: Grading | None = None) -> str:
        head = f"{self.rules} deal {self.deal} ({self.code}): "
        if self.status is None:
            return head + f"not in the tables ({self.why_not})"
        effort = f"{self.nodes:,} nodes" if self.nodes is not None else ""
        if self.status == "solved":
            out = f"solved in {self.solution_length} moves" if self.solution_length is not None else "solved"
            if self.score is not None:
                out += f", score {self.score}"
            out += f"; {effort}"
            if self.grade and grading is not None:
                out += f", {self.grade} ({grading.span(self.grade)} of solved deals)"
        elif self.status == "unsolvable":
            out = f"unsolvable ({self.proof})" if self.proof else "unsolvable"
            out += f"; {effort}"
        elif self.status == "unknown":
            budget = f"{self.max_nodes:,} nodes" if self.max_nodes else "its budget"
            out = f"unknown: not decided within {budget}" + (f" (out of {self.reason})" if self.reason else "")
        else:
            out = f"error in the sweep ({self.reason})" if self.reason else "error in the sweep"
        return head + out


@dataclass
class Lookup:
    answers: list
    table: Table
    grading: Grading | None

    def text(self) -> str:
        return "\n".join(a.text(self.grading) for a in self.answers)

    def json(self) -> str:
        g = None if self.grading is None else dict(solved=self.grading.solved,
                                                    percentiles=list(CUT_PERCENTILES), cuts=list(self.grading.cuts))
        return json.dumps(dict(table=self.table.folder, grading=g, answers=[asdict(a) for a in self.answers]))


_LOOKUP_EXTRA = ("solution_length", "score", "proof", "reason")


def lookup(rules: Rules, deals, results=None) -> Lookup:
    """The tables' answer for each deal number of ``deals`` under ``rules``."""
    from .deals import deal_code

    table = open_table(rules, results)
    wanted = sorted(set(int(d) for d in deals))
    found = {}
    grades = None
    if table.holds(rules) and wanted:
        b = _best(_read(table, rules.fingerprint(), ["nodes", "max_nodes", "timeout"], _LOOKUP_EXTRA, wanted))
        for i, d in enumerate(b["deal"].tolist()):
            found[d] = dict(b["_rows"][i], status=b["status"][i], nodes=b["nodes"][i], max_nodes=b["max_nodes"][i])
        if any(r["status"] == "solved" for r in found.values()):
            grades = grading(table, rules)
    answers = []
    for d in (int(x) for x in deals):
        a = Answer(rules.name, rules.label, d, deal_code(d), None)
        r = found.get(d)
        if r is None:
            a.why_not = (f"deal {d} was not swept" if table.holds(rules) else table.why_not(rules))
        else:
            a.status = str(r["status"])
            a.nodes = _int(r.get("nodes"))
            a.max_nodes = _int(r.get("max_nodes"))
            a.reason = _str(r.get("reason"))
            a.proof = _str(r.get("proof"))
            if a.status == "solved":
                a.solution_length = _int(r.get("solution_length"))
                a.score = _int(r.get("score"))
                if grades is not None and a.nodes is not None:
                    a.grade = grades.grade(a.nodes)
        answers.append(a)
    return Lookup(answers, table, grades)


def _int(x):
    import math

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return int(x)


def _str(x):
    return str(x) if x not in (None, "") and not (isinstance(x, float) and x != x) else None


# ---- picking deals ------------------------------------------------------------------
@dataclass
class Pick:
    deals: list          # sorted deal numbers
    pool: int            # deals that matched
    seed: int
    grading: Grading | None
    table: Table


def pick_deals(rules: Rules, status: str = "solved", difficulty: str | None = None, count: int = 10,
               seed: int | None = None, results=None) -> Pick:
    """``count`` deal numbers of ``rules`` with ``status`` (and, for solved deals, the grade
    ``difficulty``), drawn from the tables with ``random.Random(seed)`` (a fresh seed when None;
    the seed used is returned: same seed and tables, same deals)."""
    if status not in LOOKUP_STATUSES:
        raise TablesError(f"--status takes {', '.join(LOOKUP_STATUSES)}, not {status!r}")
    if difficulty is not None and difficulty not in GRADE_NAMES:
        raise TablesError(f"--difficulty takes {', '.join(GRADE_NAMES)}, not {difficulty!r}")
    if difficulty is not None and status != "solved":
        raise TablesError("--difficulty grades solved deals only (give --status solved)")
    if count < 1:
        raise TablesError("--count must be at least 1")
    table = open_table(rules, results)
    if not table.holds(rules):
        raise TablesError(f"not in the tables: {table.why_not(rules)}"
                          + (f" (in {table.folder})" if table.folder else f" (in {results_root(results)})"))
    grades = None
    if status == "solved":
        deals, nodes = _solved_nodes(table, rules)
        grades = grading(table, rules, nodes)
        if difficulty is not None and grades is not None:
            deals = deals[grades.indices(nodes) == GRADE_NAMES.index(difficulty)]
    else:
        b = _best(_read(table, rules.fingerprint(), ["max_nodes", "timeout"]))
        deals = b["deal"][b["status"] == status]
    pool = sorted(int(d) for d in deals)
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    chosen = sorted(random.Random(seed).sample(pool, min(count, len(pool))))
    return Pick(chosen, len(pool), seed, grades, table)


__all__ = ["TablesError", "results_root", "open_table", "lookup", "pick_deals", "grading", "Grading",
           "GRADES_FILE", "grade_file_current", "files_signature",
           "GRADES", "GRADE_NAMES", "best_indices", "RESULTS_ENV"]
