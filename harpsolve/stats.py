"""Statistics over sweep result files: win rates with Wilson intervals,
quantiles, hardest deals, comparisons and plots.

>>> wilson(81, 263)                                   # doctest: +ELLIPSIS
(0.2552..., 0.3662...)

Rates (per rules set, or per variant with ``by="variant"``):

- the **bounds** (the headline): ``lower`` = solved / all deals, every
  ``unknown`` (and ``error``) deal counted as lost, and ``upper`` =
  (solved + unknown + error) / all deals, every undecided deal counted as
  won, each with its Wilson interval.  The win rate lies in
  [lower.lo, upper.hi] with at least 95 % confidence whatever the unknown
  deals turn out to be (the bounds Solvitaire reports);
- ``rate`` = solved / (solved + unsolvable), the **decided-only rate**: the
  winnable share of the deals the solver decided, with its 95 % Wilson
  score interval.  It is the win rate only if the undecided deals are like
  the decided ones, which they are not (they are the hard ones), so every
  rendering labels it "decided-only" and never shows it without the bounds
  once more than ``UNDECIDED_WARN`` (1 %) of the deals are undecided.

Each deal counts once: when a folder holds several rows for a deal (a rerun
with a bigger budget, an error retried) the best row wins
(:func:`harpsolve.sweep.best_rows`).
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
from dataclasses import dataclass

from .sweep import ResultFileError, best_rows, conflicts, load_results

Z95 = 1.959963984540054  # the 97.5 % point of the standard normal
QUANTILES = (("median", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))
HARDEST = 5
UNDECIDED_WARN = 0.01  # above this share of undecided deals the decided-only rate gets a caveat
FORMATS = ("table", "csv", "json", "markdown")


class StatsError(ValueError):
    """Bad statistics input (other than an unreadable result file)."""


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of the proportion k/n (no continuity correction).

    >>> [round(x, 4) for x in wilson(0, 20)]
    [0.0, 0.1611]
    """
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= k <= n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if k == 0 else max(0.0, centre - half)  # exact at the ends, not 1 - 1e-16
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def _quantiles(values, integer=False) -> dict:
    import numpy as np

    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not len(v):
        return {name: None for name, _ in QUANTILES}
    out = {name: float(np.quantile(v, q)) for name, q in QUANTILES}
    if integer:
        out = {k: int(round(x)) for k, x in out.items()}
    return out


def _duration(run: dict) -> float:
    try:
        a = _dt.datetime.fromisoformat(run["started"])
        b = _dt.datetime.fromisoformat(run["ended"])
    except (KeyError, TypeError, ValueError):
        return 0.0
    return max(0.0, (b - a).total_seconds())


def _budget_text(row) -> str:
    parts = [f"nodes {int(row['max_nodes']):,}" if row["max_nodes"] else "nodes unlimited"]
    if row["timeout"]:
        parts.append(f"{row['timeout']:g} s")
    algorithm = row.get("algorithm", "climb")
    if algorithm in ("astar", "wastar"):  # A* orders nothing: its weight, not a heuristic
        parts.append("wastar w=%g" % row["weight"] if algorithm == "wastar" else "astar")
    else:
        if row["heuristic"] != "default":
            parts.append(str(row["heuristic"]))
        if algorithm != "climb":
            parts.append(str(algorithm))
    return ", ".join(parts)


def items(df):
    """What each row answers, for display and matching: the deal number, or for a row of a
    ``sweep --layouts`` run ``FILE#HASH`` (the layout file and its content hash)."""
    if "layout_file" not in df.columns:
        return df["deal"].astype(int).tolist()
    return [int(d) if d == d and d is not None else f"{f}#{h}"
            for d, f, h in zip(df["deal"], df["layout_file"], df["layout_hash"])]



def _workers(n) -> str:
    """"1 worker", "2 workers" ("? workers" when a run did not record it)."""
    return f"{n} worker" if n == 1 else f"{n} workers"


def _proofs(g) -> dict:
    """How the unsolvable deals of ``g`` were proved: proof kind -> deals, most first.  The
    dead ends of every card are one kind, and so are the locks of every card set; rows written
    before the ``proof`` column are "not recorded"."""
    rows = g.loc[g["status"] == "unsolvable"]
    proofs = rows["proof"] if "proof" in rows.columns else [None] * len(rows)
    out: dict[str, int] = {}
    for p in proofs:
        kind = "not recorded" if p is None or p != p else next(
            (k for k in ("dead end", "lock") if p.startswith(k + ": ")), p)
        out[kind] = out.get(kind, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def _common(g, results) -> dict:
    """The fields every group has, solver's or player's: what it is of, its deals, its cost."""
    fps = sorted(g["rules_fingerprint"].unique())
    runs = [r for r in results.runs if r.get("rules_fingerprint") in fps]
    numbered = g["deal"].dropna()
    ok = g[g["status"] != "error"]
    return dict(
        variant=",".join(sorted(g["variant"].unique())), rules=",".join(sorted(g["rules"].unique())),
        fingerprint=",".join(fps),
        first_deal=int(numbered.min()) if len(numbered) else None,
        last_deal=int(numbered.max()) if len(numbered) else None, layouts=len(g) - len(numbered),
        seconds=_quantiles(ok["seconds"]), nodes=_quantiles(ok["nodes"], integer=True),
        cpu_seconds=float(g["seconds"].sum()), wall_seconds=sum(_duration(r) for r in runs),
        machines=sorted({f"{r.get('cpu', '?')} ({_workers(r.get('workers', '?'))})" for r in runs}),
        versions=sorted(g["harpsolve_version"].unique()),
    )


def summarize(results, by: str = "rules", hardest: int = HARDEST) -> list[dict]:
    """One statistics record per rules set (``by="rules"``) or variant, then one per player
    (``sweep --play`` rows: ``kind="player"``) and rules set or variant."""
    if by not in ("rules", "variant"):
        raise StatsError(f"--by takes rules or variant, not {by!r}")
    df = best_rows(results.frame)
    key = "rules" if by == "rules" else "variant"
    played = df["policy"].notna()  # load_results fills the column in for files written before it
    groups = []
    for name, g in df[~played].groupby(key, sort=True):
        counts = g["status"].value_counts()
        s, u = int(counts.get("solved", 0)), int(counts.get("unsolvable", 0))
        k, e = int(counts.get("unknown", 0)), int(counts.get("error", 0))
        n = len(g)
        decided = g[g["status"].isin(("solved", "unsolvable"))]
        top = decided.sort_values(["nodes", "deal"], ascending=[False, True]).head(hardest)
        groups.append(dict(
            group=name, **_common(g, results),
            deals=n, solved=s, unsolvable=u, unknown=k, error=e,
            rate=s / (s + u) if s + u else None, ci=wilson(s, s + u),
            lower=s / n, lower_ci=wilson(s, n),
            upper=(s + k + e) / n, upper_ci=wilson(s + k + e, n), undecided=(k + e) / n,
            solution_length=_quantiles(g.loc[g["status"] == "solved", "solution_length"], integer=True),
            hardest=[dict(deal=i, nodes=int(nodes), status=st)
                     for i, nodes, st in zip(items(top), top["nodes"], top["status"])],
            budgets=sorted({_budget_text(r) for _, r in g.drop_duplicates([c for c in ("max_nodes", "timeout", "heuristic", "algorithm", "weight") if c in g.columns]).iterrows()}),
            proofs=_proofs(g),
        ))
    solver_rows = df[~played]
    for (name, policy), g in df[played].groupby([key, "policy"], sort=True):
        counts = g["status"].value_counts()
        w, lost, e = int(counts.get("won", 0)), int(counts.get("lost", 0)), int(counts.get("error", 0))
        # the solver's verdicts on the same deals (same rules), if its files were given
        same = solver_rows[(solver_rows[key] == name) & solver_rows["deal"].isin(g["deal"].dropna())]
        groups.append(dict(
            kind="player", group=name, policy=policy, **_common(g, results),
            games=len(g), won=w, lost=lost, error=e,
            rate=w / (w + lost) if w + lost else None, ci=wilson(w, w + lost),
            thoughtful=_verdicts(same) if len(same) else None,
            moves=_quantiles(g.loc[g["status"] == "won", "solution_length"], integer=True),
            ends=dict(sorted(g.loc[g["status"] == "lost", "reason"].fillna("?").value_counts().items())),
        ))
    return groups


def _verdicts(rows) -> dict:
    """The solver's win rate over ``rows`` (one per deal), for the players' table: the
    decided-only rate and the bounds (every undecided deal lost .. won)."""
    counts = rows["status"].value_counts()
    s, u = int(counts.get("solved", 0)), int(counts.get("unsolvable", 0))
    n = len(rows)
    return dict(deals=n, rate=s / (s + u) if s + u else None, ci=wilson(s, s + u),
                bounds=(wilson(s, n)[0], wilson(n - u, n)[1]), undecided=(n - s - u) / n)


def _solver_groups(groups) -> list:
    return [g for g in groups if g.get("kind") != "player"]


def _player_groups(groups) -> list:
    return [g for g in groups if g.get("kind") == "player"]


# ---- rendering --------------------------------------------------------------------
def _pct(x, digits=2) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}%"


def _interval(ci, digits=2) -> str:
    lo, hi = ci
    if lo is None or math.isnan(lo):
        return "-"
    return f"[{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _bounds(g, digits=2) -> str:
    lo, hi = g["lower_ci"][0], g["upper_ci"][1]
    return "-" if math.isnan(lo) else f"[{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _num(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def _wall(seconds: float) -> str:
    if not seconds:
        return "-"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _quant_line(q: dict) -> str:
    return "  ".join(f"{k} {_num(v)}" for k, v in q.items())


def headline(g: dict) -> str:
    """The win-rate sentence of a group: the bounds first, the decided-only rate labelled and
    (above UNDECIDED_WARN undecided) with the caveat that it is not the win rate."""
    und = g["unknown"] + g["error"]
    out = f"win rate {_bounds(g)} % (95 %, whatever the {und:,} undecided deal(s) are)" if und else \
        f"win rate {_pct(g['rate'])} {_interval(g['ci'])} (95 %, every deal decided)"
    if und and g["rate"] is not None:
        out += f"; decided-only rate {_pct(g['rate'])} {_interval(g['ci'])} of {g['solved'] + g['unsolvable']:,} decided"
        if g["undecided"] > UNDECIDED_WARN:
            out += f" (not the win rate: {_pct(g['undecided'], 1)} of the deals are undecided)"
    return out


TABLE_NOTE = ("(win rate bounds: 95 % interval with every unknown/error deal lost .. won; decided-only: "
              "solved / (solved + unsolvable), the win rate only when every deal is decided; "
              f"* more than {UNDECIDED_WARN:.0%} of the deals undecided: not the win rate)")


def _decided_only(g) -> str:
    """The decided-only rate, starred when too many deals are undecided for it to be the win rate."""
    return _pct(g["rate"]) + ("*" if g["undecided"] > UNDECIDED_WARN and g["rate"] is not None else "")


TABLE_HEAD = ["rules", "deals", "solved", "unsolvable", "unknown", "error", "win rate bounds",
              "decided-only", "decided-only 95% CI"]


def _aligned(head, rows) -> list[str]:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in [head, *rows]]


PLAYER_HEAD = ["rules", "player", "games", "won", "lost", "error", "player win rate", "95% CI", "thoughtful"]
PLAYER_NOTE = ("(player: plays without seeing the face-down cards or the stock before they turn (sweep --play); "
               "its rate is won / (won + lost); thoughtful: the solver's win rate of the same deals under the same "
               "rules, from the files given (its bounds when some of those deals are undecided))")


def _thoughtful(g) -> str:
    t = g["thoughtful"]
    if t is None:
        return "-"
    if t["undecided"]:
        lo, hi = t["bounds"]
        return f"[{100 * lo:.2f}, {100 * hi:.2f}] ({t['deals']:,} deals)"
    return f"{_pct(t['rate'])} {_interval(t['ci'])} ({t['deals']:,} deals)"


def _player_table(groups) -> list[str]:
    rows = [[g["group"], g["policy"], f"{g['games']:,}", f"{g['won']:,}", f"{g['lost']:,}", f"{g['error']:,}",
             _pct(g["rate"]), _interval(g["ci"]), _thoughtful(g)] for g in groups]
    lines = _aligned(PLAYER_HEAD, rows) + [PLAYER_NOTE]
    for g in groups:
        lines += [
            "",
            f"{g['group']} played by {g['policy']} (fingerprint {g['fingerprint']}; {_deal_span(g, '..', 'games')})",
            f"  rate      player win rate {_pct(g['rate'])} {_interval(g['ci'])} (95 %, {g['won'] + g['lost']:,} games)"
            + (f"; thoughtful {_thoughtful(g)}" if g["thoughtful"] else ""),
            f"  seconds   {_quant_line(g['seconds'])}",
            f"  nodes     {_quant_line(g['nodes'])}",
            f"  moves     {_quant_line(g['moves'])} (won games)",
            "  lost      " + ("; ".join(f"{k} {v:,}" for k, v in g["ends"].items()) or "-"),
            f"  time      wall {_wall(g['wall_seconds'])}, playing {_wall(g['cpu_seconds'])} CPU"
            + (f" on {'; '.join(g['machines'])}" if g["machines"] else ""),
        ]
        if g["error"]:
            lines.append(f"  WARNING   {g['error']} game(s) ended in error (a crash or a bug); see their reason column")
    return lines


def to_table(groups) -> str:
    players = _player_groups(groups)
    groups = _solver_groups(groups)
    rows = [[g["group"], f"{g['deals']:,}", f"{g['solved']:,}", f"{g['unsolvable']:,}", f"{g['unknown']:,}",
             f"{g['error']:,}", _bounds(g), _decided_only(g), _interval(g["ci"])] for g in groups]
    lines = _aligned(TABLE_HEAD, rows) + [TABLE_NOTE] if groups else []
    if players:
        lines += ([""] if lines else []) + _player_table(players)
    for g in groups:
        lines += [
            "",
            f"{g['group']} (fingerprint {g['fingerprint']}; {_deal_span(g, '..')}; "
            f"budget {'; '.join(g['budgets'])})",
            f"  rate      {headline(g)}",
            f"  seconds   {_quant_line(g['seconds'])}",
            f"  nodes     {_quant_line(g['nodes'])}",
            f"  length    {_quant_line(g['solution_length'])}",
            "  hardest   " + (", ".join(f"{h['deal']} ({h['nodes']:,} nodes, {h['status']})" for h in g["hardest"])
                             or "-"),
            "  proofs    " + ("; ".join(f"{k} {v:,}" for k, v in g["proofs"].items()) or "-"),
            f"  time      wall {_wall(g['wall_seconds'])}, solving {_wall(g['cpu_seconds'])} CPU"
            + (f" on {'; '.join(g['machines'])}" if g["machines"] else ""),
        ]
        if g["error"]:
            lines.append(f"  WARNING   {g['error']} deal(s) ended in error (a crash or a bug); see their reason column")
    return "\n".join(lines)


def _flat(g: dict) -> dict:
    if g.get("kind") == "player":
        d = {k: g[k] for k in ("kind", "group", "policy", "variant", "rules", "fingerprint", "games", "won", "lost",
                               "error", "first_deal", "last_deal", "layouts", "rate")}
        d.update(ci_low=g["ci"][0], ci_high=g["ci"][1])
        t = g["thoughtful"] or {}
        d.update(thoughtful_rate=t.get("rate"), thoughtful_bounds_low=(t.get("bounds") or (None, None))[0],
                 thoughtful_bounds_high=(t.get("bounds") or (None, None))[1])
        for name in ("seconds", "nodes", "moves"):
            for q, v in g[name].items():
                d[f"{name}_{q}"] = v
        d.update(cpu_seconds=g["cpu_seconds"], wall_seconds=g["wall_seconds"], machines="; ".join(g["machines"]),
                 versions=" ".join(g["versions"]))
        return d
    d = {k: g[k] for k in ("group", "variant", "rules", "fingerprint", "deals", "solved", "unsolvable",
                           "unknown", "error", "first_deal", "last_deal", "layouts")}
    d.update(bounds_low=g["lower_ci"][0], bounds_high=g["upper_ci"][1], undecided=g["undecided"],
             rate=g["rate"], ci_low=g["ci"][0], ci_high=g["ci"][1], lower=g["lower"],
             lower_ci_low=g["lower_ci"][0], lower_ci_high=g["lower_ci"][1], upper=g["upper"],
             upper_ci_low=g["upper_ci"][0], upper_ci_high=g["upper_ci"][1])
    for name in ("seconds", "nodes", "solution_length"):
        for q, v in g[name].items():
            d[f"{name}_{q}"] = v
    d["hardest"] = " ".join(f"{h['deal']}:{h['nodes']}:{h['status']}" for h in g["hardest"])
    d["proofs"] = "; ".join(f"{k}: {v}" for k, v in g["proofs"].items())
    d.update(budgets="; ".join(g["budgets"]), cpu_seconds=g["cpu_seconds"], wall_seconds=g["wall_seconds"],
             machines="; ".join(g["machines"]), versions=" ".join(g["versions"]))
    return d


def to_csv(groups) -> str:
    import csv
    import io

    parts = []
    # one CSV table for the solver's groups, one for the players' (their columns differ)
    for part in [p for p in (_solver_groups(groups), _player_groups(groups)) if p] or [[]]:
        buf = io.StringIO()
        flat = [_flat(g) for g in part]
        w = csv.DictWriter(buf, fieldnames=list(flat[0]) if flat else ["group"], lineterminator="\n")
        w.writeheader()
        w.writerows(flat)
        parts.append(buf.getvalue().rstrip("\n"))
    return "\n\n".join(parts)


def to_json(groups) -> str:
    def clean(x):
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        return x

    return json.dumps(clean(groups), indent=2)


def _deal_span(g, dash="–", count="deals") -> str:
    files = f"{g['layouts']:,} layout files" if g["layouts"] else ""
    if g["first_deal"] is None:
        return files
    numbered = g[count] - g["layouts"]
    span = f"{g['first_deal']:,}{dash}{g['last_deal']:,}"
    whole = numbered == g["last_deal"] - g["first_deal"] + 1
    span = span if whole else f"{numbered:,} in {span}"
    if dash == "..":
        span = f"deals {span}"
    return f"{span}, {files}" if files else span


def to_markdown(groups) -> str:
    head = ["rules", "deals", "solved", "unsolvable", "unknown", "error", "win rate bounds", "decided-only",
            "decided-only 95% CI", "median s", "budget", "wall time", "machine"]
    players = _player_groups(groups)
    groups = _solver_groups(groups)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] if groups else []
    for g in groups:
        cells = [f"`{g['group']}`", _deal_span(g), f"{g['solved']:,}", f"{g['unsolvable']:,}", f"{g['unknown']:,}", f"{g['error']:,}",
                 _bounds(g), _decided_only(g), _interval(g["ci"]), _num(g["seconds"]["median"]),
                 "; ".join(g["budgets"]), _wall(g["wall_seconds"]), "; ".join(g["machines"]) or "-"]
        lines.append("| " + " | ".join(cells) + " |")
    if any(g["undecided"] > UNDECIDED_WARN for g in groups):
        lines += ["", f"\\* more than {UNDECIDED_WARN:.0%} of the deals are undecided: the decided-only rate is "
                  "not the win rate; the bounds are."]
    if players:
        head = ["rules", "player", "deals", "won", "lost", "error", "player win rate", "95% CI", "thoughtful",
                "median s", "wall time", "machine"]
        lines += ([""] if lines else []) + ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for g in players:
            cells = [f"`{g['group']}`", f"`{g['policy']}`", _deal_span(g, count="games"), f"{g['won']:,}",
                     f"{g['lost']:,}", f"{g['error']:,}", _pct(g["rate"]), _interval(g["ci"]), _thoughtful(g),
                     _num(g["seconds"]["median"]), _wall(g["wall_seconds"]), "; ".join(g["machines"]) or "-"]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


RENDER = {"table": to_table, "csv": to_csv, "json": to_json, "markdown": to_markdown}


def render(groups, fmt: str = "table") -> str:
    if fmt not in RENDER:
        raise StatsError(f"--format takes {', '.join(FORMATS)}, not {fmt!r}")
    return RENDER[fmt](groups)


def stats(paths, by: str = "rules", fmt: str = "table") -> str:
    """Read result files/folders and render their statistics."""
    return render(summarize(load_results(paths), by), fmt)


# ---- plots ------------------------------------------------------------------------
PLOTS = ("win_rate.png", "solve_times.png", "solution_length.png", "running_rate.png")


def figures(results, groups, by: str = "rules") -> dict:
    """The plots of ``groups`` as matplotlib figures, by file name (:data:`PLOTS`).

    Every figure has a title and says how many deals it draws (n).  The win-rate figure draws
    the bounds (the headline) as a bar with their values, and the decided-only rate with its CI
    on a separate row below it, so the two stay readable when they overlap.  The time
    histogram draws the undecided deals (they ran until a budget stopped them) apart from the
    decided ones: dashed, in the same colour.  Played games (``sweep --play`` rows) are not
    drawn: their rates are in the tables."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise StatsError("plots need matplotlib: pip install 'harpsolve[plot]'") from None
    import numpy as np

    df = best_rows(results.frame)
    if "policy" in df.columns:  # the plots draw the solver's rows; the players' rates are in the tables
        df = df[df["policy"].isna()]
    groups = _solver_groups(groups)
    key = "rules" if by == "rules" else "variant"
    figs = {}
    total = len(df)

    # win rate: the bounds bar (headline), and under it the decided-only rate with its CI
    fig, ax = plt.subplots(figsize=(8, 0.9 * len(groups) + 1.6))
    for i, g in enumerate(groups):
        y = -i
        lo, hi = g["lower_ci"][0], g["upper_ci"][1]
        ax.plot([100 * lo, 100 * hi], [y, y], color="C0", alpha=0.35, lw=10, solid_capstyle="butt",
                label="win rate bounds (95 %, unknown lost .. won)" if i == 0 else None)
        ax.annotate(f"{100 * lo:.2f} .. {100 * hi:.2f} %  (n={g['deals']:,}, undecided {g['unknown'] + g['error']:,})",
                    (100 * hi, y), xytext=(4, 0), textcoords="offset points", va="center", fontsize="small")
        if g["rate"] is not None:
            r, (clo, chi) = 100 * g["rate"], g["ci"]
            ax.errorbar([r], [y - 0.35], xerr=[[r - 100 * clo], [100 * chi - r]], fmt="o", ms=4, color="C1",
                        capsize=3, label="decided-only rate, 95 % CI" if i == 0 else None)
            ax.annotate(f"decided-only {r:.2f} % (n={g['solved'] + g['unsolvable']:,})", (100 * chi, y - 0.35),
                        xytext=(4, 0), textcoords="offset points", va="center", fontsize="x-small", color="C1")
    ax.set_yticks([-i for i in range(len(groups))], [g["group"] for g in groups])
    ax.set_xlim(0, 135)
    ax.set_ylim(-len(groups) + 0.4, 0.6)
    ax.set_xlabel("winnable deals (%)")
    ax.set_title(f"Win rate: bounds whatever the undecided deals are (n={total:,} deals)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / (len(groups) + 1)), ncol=2, fontsize="small",
              frameon=False)
    figs["win_rate.png"] = fig

    # solve times, log bins: decided deals solid, undecided (budget ran out) dashed
    fig, ax = plt.subplots(figsize=(7, 4))
    ok = df[df["status"] != "error"]
    secs = ok["seconds"].to_numpy(float)
    secs = secs[secs > 0]
    n_dec = int(ok["status"].isin(("solved", "unsolvable")).sum())
    n_und = int((ok["status"] == "unknown").sum())
    if len(secs):
        bins = np.logspace(np.log10(secs.min()), np.log10(secs.max() * 1.001 + 1e-12), 40)
        for c, (name, g) in enumerate(ok.groupby(key)):
            g = g[g["seconds"] > 0]
            dec = g.loc[g["status"].isin(("solved", "unsolvable")), "seconds"]
            und = g.loc[g["status"] == "unknown", "seconds"]
            if len(dec):
                ax.hist(dec, bins=bins, histtype="step", color=f"C{c}", label=f"{name} decided (n={len(dec):,})")
            if len(und):
                ax.hist(und, bins=bins, histtype="step", color=f"C{c}", linestyle="--",
                        label=f"{name} unknown (n={len(und):,})")
        ax.set_xscale("log")
        ax.legend(loc="upper right", fontsize="small")
    ax.set_xlabel("solve time per deal (s)")
    ax.set_ylabel("deals")
    ax.set_title(f"Solve time per deal (n={n_dec:,} decided, {n_und:,} unknown: dashed)")
    figs["solve_times.png"] = fig

    # solution lengths
    fig, ax = plt.subplots(figsize=(7, 4))
    n_solved = 0
    for name, g in df.groupby(key):
        s = g.loc[g["status"] == "solved", "solution_length"].dropna()
        n_solved += len(s)
        if len(s):
            ax.hist(s, bins=40, histtype="step", label=f"{name} (n={len(s):,})")
    ax.set_xlabel("solution length (moves)")
    ax.set_ylabel("deals")
    ax.set_title(f"Solution length of the solved deals (n={n_solved:,})")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    figs["solution_length.png"] = fig

    # running decided-only rate as deals are decided, in deal order, with its Wilson band
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, g in df.groupby(key):
        d = g[g["status"].isin(("solved", "unsolvable"))].sort_values("deal")
        if not len(d):
            continue
        n = np.arange(1, len(d) + 1)
        k = np.cumsum((d["status"] == "solved").to_numpy())
        band = np.array([wilson(int(a), int(b)) for a, b in zip(k, n)])
        und = int((g["status"] != "solved").sum() - (g["status"] == "unsolvable").sum())
        line, = ax.plot(n, 100 * k / n, label=f"{name} (n={len(d):,} decided, {und:,} undecided left out)")
        ax.fill_between(n, 100 * band[:, 0], 100 * band[:, 1], color=line.get_color(), alpha=0.2)
    ax.set_xlabel("deals decided (in deal order)")
    ax.set_ylabel("running decided-only rate (%)")
    ax.set_title(f"Decided-only rate as deals are decided (n={n_dec:,})")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    figs["running_rate.png"] = fig
    return figs


def plot(results, groups, folder: str, by: str = "rules") -> list[str]:
    """Write the PNG plots for ``groups`` into ``folder`` (see :func:`figures`); return their paths."""
    figs = figures(results, groups, by)
    import matplotlib.pyplot as plt

    os.makedirs(folder, exist_ok=True)
    written = []
    for name, fig in figs.items():
        path = os.path.join(folder, name)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# ---- compare ----------------------------------------------------------------------
@dataclass
class Comparison:
    label_a: str
    label_b: str
    same_rules: bool
    common: int
    only_a: int
    only_b: int
    table: object        # pandas DataFrame: A status x B status counts
    differences: object  # pandas DataFrame: deal, status_a, status_b, nodes_a, nodes_b
    conflicts: list      # deals with solved vs unsolvable under the same rules
    internal: list       # (side, deal) solved-and-unsolvable inside one side


def _side(path, name):
    res = load_results([path])
    inner = conflicts(res.frame)
    df = best_rows(res.frame)
    fps = df["rules_fingerprint"].unique()
    if len(fps) != 1:
        labels = ", ".join(sorted(df["rules"].unique()))
        raise StatsError(f"{name} ({path}) holds results of {len(fps)} rules sets ({labels}); "
                         "compare one rules set per side")
    return df, inner


def compare(a, b) -> Comparison:
    """Per-deal differences between the results at ``a`` and at ``b``."""
    import pandas as pd

    da, ia = _side(a, "A")
    db, ib = _side(b, "B")
    same = da["rules_fingerprint"].iloc[0] == db["rules_fingerprint"].iloc[0]
    cols = ["deal", "status", "nodes", "solution_length"]
    # the deal number, or FILE#HASH for layout files (see items)
    da, db = da.assign(deal=items(da)), db.assign(deal=items(db))
    m = da[cols].merge(db[cols], on="deal", suffixes=("_a", "_b"))
    order = ["solved", "unsolvable", "unknown", "error"]
    order += [s for s in ("won", "lost") if s in set(m["status_a"]) | set(m["status_b"])]  # played games
    table = pd.crosstab(pd.Categorical(m["status_a"], order), pd.Categorical(m["status_b"], order),
                        dropna=False)
    table.index.name, table.columns.name = "A", "B"
    diff = m[m["status_a"] != m["status_b"]].reset_index(drop=True)
    pair = diff["status_a"] + "/" + diff["status_b"]
    conf = diff.loc[pair.isin(("solved/unsolvable", "unsolvable/solved")), "deal"].tolist() if same else []
    if da["rules"].iloc[0] == db["rules"].iloc[0]:  # a game a player won is a win: no proof may say otherwise
        conf += diff.loc[pair.isin(("won/unsolvable", "unsolvable/won")), "deal"].tolist()
    internal = [("A", d) for _, d in ia] + [("B", d) for _, d in ib]
    return Comparison(
        label_a=f"{a} ({da['rules'].iloc[0]}, fingerprint {da['rules_fingerprint'].iloc[0]}, {len(da):,} deals)",
        label_b=f"{b} ({db['rules'].iloc[0]}, fingerprint {db['rules_fingerprint'].iloc[0]}, {len(db):,} deals)",
        same_rules=bool(same), common=len(m), only_a=len(da) - len(m), only_b=len(db) - len(m),
        table=table, differences=diff, conflicts=conf, internal=internal,
    )


def compare_text(c: Comparison, limit: int = 100) -> str:
    lines = [f"A: {c.label_a}", f"B: {c.label_b}",
             f"deals in both {c.common:,}; only in A {c.only_a:,}; only in B {c.only_b:,}"]
    if not c.same_rules:
        lines.append("different rules fingerprints (other rules, or a player's games against the solver's): "
                     "a status change may be the rules' or the player's doing, not a bug")
    # rows are A's statuses, columns B's: one header line (pandas would add a row for the index's name)
    lines += ["", c.table.rename_axis(index=None, columns="A \\ B").to_string(), ""]
    n = len(c.differences)
    lines.append(f"status differs on {n:,} deal(s)" + (":" if n else ""))
    shown = c.differences if not limit else c.differences.head(limit)
    for r in shown.itertuples():
        mark = "   <-- CONFLICT" if r.deal in set(c.conflicts) else ""
        lines.append(f"  {r.deal:>6}  {r.status_a:<10} {r.status_b:<10}  nodes {int(r.nodes_a):,} / {int(r.nodes_b):,}{mark}")
    if limit and n > limit:
        lines.append(f"  … and {n - limit:,} more (--limit 0 lists all)")
    if c.conflicts:
        lines += ["", f"CONFLICT: {len(c.conflicts)} deal(s) solved (or won by a player) on one side and proved "
                  "unsolvable on the other under the same rules. One of the two results is wrong: a solver bug. Deals: "
                  + " ".join(map(str, c.conflicts[:50])) + (" …" if len(c.conflicts) > 50 else "")]
    if c.internal:
        lines += ["", f"CONFLICT: {len(c.internal)} deal(s) have both a solved and an unsolvable row inside "
                  "one side: " + " ".join(f"{s}:{d}" for s, d in c.internal[:50])]
    return "\n".join(lines)


__all__ = ["wilson", "summarize", "headline", "render", "stats", "figures", "plot", "compare", "compare_text", "StatsError",
           "ResultFileError"]
