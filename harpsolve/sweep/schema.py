"""The result row: one table of columns from which the Parquet schema, the
rows a sweep writes, what readers fill into older files, the checks on
every file read and the README's column table all come.

A column added to :data:`TABLE` takes the next schema version in its
``since`` field, and :data:`SCHEMA_VERSION` is the biggest ``since``: so
files written before the column existed are told apart by their version
(``tests/test_sweep_schema.py`` pins the columns of every version, so a
column added without a new version fails there).

>>> SCHEMA_VERSION, [c.name for c in TABLE if c.since == 2], [c.name for c in TABLE if c.since == 3]
(3, ['engine', 'proof'], ['policy'])
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .. import __version__
from ..deals import MAX_DEAL
from ..rules import Rules
from ..search.settings import SearchSettings

STATUSES = ("solved", "unsolvable", "unknown", "error", "won", "lost")
# what a solver's row says about a deal (thoughtful: every card seen) ...
SOLVER_STATUSES = ("solved", "unsolvable", "unknown")
# ... and what a player's row says about the one game it played (``sweep --play``); error: both
PLAYER_STATUSES = ("won", "lost")
FINISHED = ("solved", "unsolvable", "won", "lost")  # rows that stand under any budget


class ResultFileError(ValueError):
    """A result file that is corrupted, not harpsolve's, or of another schema version."""


_MISSING = object()  # a column no file may lack (it was in the first version)


@dataclass(frozen=True)
class Column:
    name: str
    type: str          # a pyarrow type name: int16, int32, int64, float64, string
    meaning: str       # one line for people (README, docstrings)
    since: int = 1     # the schema version that added it
    # what a file written before the column existed means by it (read into every such row);
    # _MISSING: every file has it
    older: object = _MISSING


# Columns that came during version 1 (before the rule that a new column takes a new version)
# may be absent from version-1 files: ``older`` says what those files mean by them.
TABLE = (
    Column("schema_version", "int16", "the schema version the row was written under (1, 2 or 3)"),
    Column("variant", "string", "the variant id (`easy-harp`)"),
    Column("deal", "int32", f"deal number 1 … {MAX_DEAL}; null in `--layouts` rows"),
    Column("rules", "string", "rules label: variant id + overrides (`easy-harp[takeback=false]`)"),
    Column("rules_fingerprint", "string",
           "12-hex digest of the rules fields (`Rules.fingerprint()`): results of different rules never mix"),
    Column("status", "string", "`solved`, `unsolvable`, `unknown` (a budget ran out) or `error` (a crash or a bug); "
           "a player's row (`sweep --play`): `won` or `lost`, the game it played"),
    Column("solution_length", "int32",
           "moves of the verified solution as the search found it (its loops cut, not polished for reading "
           "as `solve` prints it: polishing costs more than the search; rows before the twenty-first session "
           "also had one-move detours cut, 0-0.4 % shorter); null unless solved"),
    Column("score", "int32", "Easy Harp score of the solution; null unless solved and scored"),
    Column("nodes", "int64", "search nodes expanded (summed over the engines that ran)"),
    Column("states", "int64", "unique states stored"),
    Column("seconds", "float64", "solve time of the row's deal (wall, JIT warm-up excluded)"),
    Column("max_nodes", "int64", "node budget (0 = no limit); a player's row: the nodes per sampled world"),
    Column("timeout", "float64", "time budget in seconds (0 = no limit)"),
    Column("max_memory", "int64", "transposition-table budget in bytes"),
    Column("heuristic", "string", "move-ordering heuristic"),
    Column("harpsolve_version", "string", "the harpsolve version that wrote the row"),
    Column("reason", "string", "why `unknown` (`nodes`, `time`, `memory`, `depth`) or `error` (what failed)"),
    Column("algorithm", "string", "search algorithm (`portfolio`, `climb`, `dfs`, `astar`, `wastar`, `rollout`, `beam`); a player's "
           "row: its policy (`hop`, `hop-action`, `rules`)",
           older="climb"),
    Column("weight", "float64", "weighted A*'s weight (0 for the other algorithms)", older=0.0),
    Column("layout_file", "string", "`--layouts` rows: the layout file, relative to the folder or glob",
           older=None),
    Column("layout_hash", "string",
           "`--layouts` rows: 16 hex digits of the SHA-256 of the layout's canonical JSON", older=None),
    Column("engine", "string", "the engine that decided (`afree`, `restarts r2.3`, `beam w64.3`, "
           "`beam-stronger w4096.9 in endless-harp[passes=3]`, `climb 1`, `dfs`, "
           "`wastar`, `dead-end`, `lock`, `relax (afree)`…)", since=2, older=None),
    Column("proof", "string", "for `unsolvable`, the proof: `exhausted` (a complete depth-first search), "
           "`exhausted: arrangement-free`, `relaxed: draw=1` (unsolvable in that weaker game), "
           "`dead end: 7C`, `lock: JD JH`; null otherwise", since=2, older=None),
    Column("policy", "string", "`sweep --play` rows: the player and its settings (`hop-action samples=10 "
           "max_nodes=2000 seed=0 max_moves=5000`, ` scout=1` at the end when the scout is on, ` boost=N` when "
           "not the default 16, ` widen=N` when not 0); null in the "
           "solver's rows", since=3, older=None),
)

SCHEMA_VERSION = max(c.since for c in TABLE)
READ_VERSIONS = tuple(str(v) for v in range(1, SCHEMA_VERSION + 1))
NAMES = tuple(c.name for c in TABLE)
# every file of any readable version has these; the others are filled in from ``older``
REQUIRED = tuple(c.name for c in TABLE if c.older is _MISSING)
LATER_COLUMNS = {c.name: c.older for c in TABLE if c.older is not _MISSING}
# the columns that name what a row solved: a deal number, or a layout file and its content hash
KEY_COLUMNS = ("deal", "layout_file", "layout_hash")
BUDGET_COLUMNS = ("max_nodes", "timeout", "max_memory", "heuristic", "algorithm", "weight")

META_VERSION = b"harpsolve.schema_version"
META_RUNS = b"harpsolve.runs"
META_RULES = b"harpsolve.rules"
META_REPLACES = b"harpsolve.replaces"


def arrow_schema():
    import pyarrow as pa

    return pa.schema([(c.name, getattr(pa, c.type)()) for c in TABLE])


def make_row(rules: Rules, deal, budgets: SearchSettings, status: str, *, solution_length=None,
             score=None, nodes=0, states=0, seconds=0.0, reason="", engine=None, proof=None, play=None) -> dict:
    """A result row for ``deal``: a deal number, or a job with ``name`` and ``hash`` (a
    ``--layouts`` file: then ``deal`` is null and ``layout_file``/``layout_hash`` name it).
    ``play``: the player's settings (``player.PlaySettings``) of a played game's row."""
    job = deal if hasattr(deal, "hash") else None
    row = dict(
        schema_version=SCHEMA_VERSION, variant=rules.name, deal=None if job else int(deal), rules=rules.label,
        rules_fingerprint=play.fingerprint(rules) if play else rules.fingerprint(), status=status, solution_length=solution_length,
        score=score, nodes=int(nodes), states=int(states), seconds=float(seconds),
        max_nodes=int(budgets.max_nodes if not play else play.max_nodes if play.sampling else 0),
        timeout=float(budgets.timeout),
        max_memory=int(budgets.max_memory), heuristic=budgets.heuristic,
        harpsolve_version=__version__, reason=reason, algorithm=play.policy if play else budgets.algorithm,
        weight=float(budgets.weight),
        layout_file=job.name if job else None, layout_hash=job.hash if job else None,
        engine=engine or None, proof=proof or None, policy=play.label if play else None,
    )
    assert tuple(row) == NAMES, "make_row and TABLE name the same columns, in order"
    return row


_HASH_RE = re.compile(r"^[0-9a-f]{16}$")
_NOT_OURS = "this is not a file a sweep wrote (move it out of the folder)"


def bad_status(path: str, row, value) -> ResultFileError:
    """The error for a row whose status is ``value`` (``row``: its 1-based number, or None)."""
    where = f"row {row}" if row else "a row"
    if value in PLAYER_STATUSES or value in SOLVER_STATUSES:  # a real status, in the wrong kind of row
        kind = "solver" if value in PLAYER_STATUSES else "player"
        return ResultFileError(f"{path}: {where} has status {value!r} in a {kind}'s row (only a played game, "
                               f"with a policy, is won or lost); {_NOT_OURS}")
    return ResultFileError(f"{path}: {where} has status {value!r}, not one of {', '.join(STATUSES)}; {_NOT_OURS}")


def bad_deal(path: str, row, value) -> ResultFileError:
    """The error for a row whose deal number is ``value`` (``row``: its 1-based number, or None)."""
    return ResultFileError(f"{path}: {f'row {row}' if row else 'a row'} has deal {value}, "
                           f"not a deal number (1 to {MAX_DEAL}); {_NOT_OURS}")


def check_rows(table, path: str) -> None:
    """Refuse (:class:`ResultFileError`, one line naming the file and the first bad row) a
    table whose rows no sweep writes: a status outside :data:`STATUSES`, a deal number outside
    1 … MAX_DEAL, or a row naming neither a deal nor a layout file."""
    import pyarrow.compute as pc

    names = set(table.column_names)

    def first_bad(mask, column):
        i = pc.index(mask, True).as_py()
        return i + 1, table.column(column)[i].as_py()

    if "status" in names:
        status = table.column("status")
        bad = pc.invert(pc.fill_null(pc.is_in(status, value_set=_pa_strings(STATUSES)), False))
        if pc.any(bad).as_py():
            raise bad_status(path, *first_bad(bad, "status"))
        # a solver's row is never won or lost, a player's never solved, unsolvable or unknown
        played = (pc.is_valid(table.column("policy")) if "policy" in names
                  else pa_false(len(table)))
        wrong = pc.or_(pc.and_(played, pc.is_in(status, value_set=_pa_strings(SOLVER_STATUSES))),
                       pc.and_(pc.invert(played), pc.is_in(status, value_set=_pa_strings(PLAYER_STATUSES))))
        if pc.any(wrong).as_py():
            raise bad_status(path, *first_bad(wrong, "status"))
    if "deal" in names:
        deal = table.column("deal")
        bad = pc.fill_null(pc.or_(pc.less(deal, 1), pc.greater(deal, MAX_DEAL)), False)
        if pc.any(bad).as_py():
            raise bad_deal(path, *first_bad(bad, "deal"))
        nameless = pc.is_null(deal)
        if "layout_file" in names:
            nameless = pc.and_(nameless, pc.or_(pc.is_null(table.column("layout_file")),
                                                pc.invert(pc.fill_null(pc.match_substring_regex(
                                                    table.column("layout_hash"), _HASH_RE.pattern), False))))
        if pc.any(nameless).as_py():
            i = pc.index(nameless, True).as_py()
            raise ResultFileError(f"{path}: row {i + 1} names neither a deal nor a layout file and its hash; "
                                  f"{_NOT_OURS}")


def pa_false(n: int):
    import pyarrow as pa

    return pa.array([False] * n, pa.bool_())


def _pa_strings(values):
    import pyarrow as pa

    return pa.array(values, pa.string())


def column_table() -> str:
    """The README's table of the row's columns (markdown), from :data:`TABLE`."""
    lines = ["| column | type | since | meaning |", "|---|---|---|---|"]
    for c in TABLE:
        older = "" if c.older is _MISSING else (
            f" (files without it: {'null' if c.older is None else f'`{c.older}`'})")
        lines.append(f"| `{c.name}` | {c.type} | {c.since} | {c.meaning}{older} |")
    return "\n".join(lines)
