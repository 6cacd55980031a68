"""The ``harpsolve`` command line (click).

Every command turns the project's own errors into one clear line on stderr and
a non-zero exit (2 for bad input); nothing reaches the user as a traceback.
Heavy modules (numba kernels, pandas) are imported inside the commands that
need them, so ``harpsolve --help`` stays fast and never imports numba.
"""
from __future__ import annotations

import functools
import sys

import click

from . import __version__

EXIT_BAD_INPUT = 2


def _user_errors():
    from .cards import CardError
    from .layout import LayoutError
    from .rules import RulesError

    errs = [CardError, LayoutError, RulesError]
    try:
        from .deals import DealError

        errs.append(DealError)
    except ImportError:  # pragma: no cover - during bootstrap only
        pass
    try:
        from .reference import MoveError

        errs.append(MoveError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


def fail(message: str, code: int = EXIT_BAD_INPUT):
    """Print one line on stderr and exit with ``code``."""
    click.echo(f"harpsolve: error: {message}", err=True)
    sys.exit(code)


def friendly(fn):
    """Turn project errors (and unreadable files) into one line and exit 2."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        try:
            return fn(*a, **kw)
        except _user_errors() as e:
            fail(str(e))
        except (OSError, UnicodeDecodeError) as e:
            fail(f"{getattr(e, 'filename', None) or ''} {e.strerror if isinstance(e, OSError) else e}".strip())

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harpsolve")
def main():
    """Solve and study the Harp family of patience games and Baker's Game."""


# ---- variants and deal -------------------------------------------------------------
_deal_rule_option = click.option(
    "--rule", "rule_overrides", multiple=True, metavar="NAME=VALUE",
    help="Override one rules field (repeatable), e.g. --rule passes=3 --rule takeback=false.",
)


def _rule_value_text(name: str, value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if name == "passes" and value == 0:
        return "0 (unlimited)"
    if name == "draw" and value == 0:
        return "0 (no stock)"
    return str(value)


@main.command("variants")
@click.argument("variant", required=False)
@_deal_rule_option
@friendly
def variants_cmd(variant, rule_overrides):
    """List the variants; with VARIANT, print every field of its rules."""
    from .rules import RULE_FIELDS, VARIANTS, get_rules

    if variant is None:
        if rule_overrides:
            fail("--rule needs a VARIANT to apply to")
        width = max(map(len, VARIANTS))
        for name, rules in VARIANTS.items():
            click.echo(f"{name.ljust(width)}  {rules.description}")
        return
    rules = get_rules(variant, rule_overrides)
    click.echo(f"{rules.label}: {rules.description}")
    width = max(map(len, RULE_FIELDS))
    for name in RULE_FIELDS:
        click.echo(f"  {name.ljust(width)}  {_rule_value_text(name, getattr(rules, name))}")
    click.echo(
        f"  ({rules.n_cards} cards, stock {rules.stock_size}, {rules.n_foundations} foundations, "
        f"fingerprint {rules.fingerprint()})"
    )


@main.command("deal")
@click.argument("variant")
@click.argument("deal_ref", metavar="N|CODE|daily[:YYYY-MM-DD]")
@click.option("--json", "as_json", is_flag=True, help="Print the layout as JSON (with variant, deal and code).")
@click.option("--text", "as_text", is_flag=True, help="Print the layout in the text form that --layout files read back.")
@_deal_rule_option
@friendly
def deal_cmd(variant, deal_ref, as_json, as_text, rule_overrides):
    """Show deal N (or code EH1-N-…, or the daily deal) of VARIANT.

    \b
      harpsolve deal easy-harp 5
      harpsolve deal easy-harp EH1-N-AAAAAAF --json
      harpsolve deal bakers-game daily:2026-11-30
    """
    import json

    from .deals import deal_code, deal_layout, parse_deal_ref
    from .layout import render
    from .rules import get_rules

    if as_json and as_text:
        fail("choose one of --json and --text")
    rules = get_rules(variant, rule_overrides)
    number = parse_deal_ref(deal_ref)
    layout = deal_layout(rules, number)
    code = deal_code(number)
    if as_json:
        click.echo(json.dumps({
            "variant": rules.name, "rules": rules.label, "deal": number, "code": code,
            "layout": layout.to_dict(),
        }))
    elif as_text:
        click.echo(f"# {rules.label} deal {number} ({code})")
        click.echo(layout.to_text())
    else:
        click.echo(f"{rules.label} deal {number} ({code})")
        click.echo(render(layout, rules))


# ---- verify --------------------------------------------------------------------------
@main.command("verify")
@click.argument("solution", metavar="SOLUTION.json")
@friendly
def verify_cmd(solution):
    """Replay a solution file in the reference rules engine.

    Exit 0 when every move is legal and the game ends won (and, for
    easy-harp, the file's score matches the replay); 1 when a move is
    illegal or the game is not won; 2 when the file cannot be read.
    """
    from .reference import load_solution, replay

    rules, layout, tokens, meta = load_solution(solution)
    result = replay(rules, layout, tokens)
    scored = rules.scoring == "easy-harp"
    if not result.ok:
        click.echo(result.error)
        sys.exit(1)
    if not result.won:
        status = meta.get("status")
        note = f" (the file's status is {status!r})" if isinstance(status, str) and status != "solved" else ""
        click.echo(f"not won: all {result.moves} moves are legal but {result.cards_left} cards "
                   f"are not on the foundations{note}")
        sys.exit(1)
    claimed = meta.get("score")
    if scored and isinstance(claimed, int) and not isinstance(claimed, bool) and claimed != result.score:
        click.echo(f"won in {result.moves} moves, but the replay scores {result.score}, "
                   f"not the {claimed} the file claims")
        sys.exit(1)
    click.echo(f"won in {result.moves} moves" + (f", score {result.score}" if scored else ""))


# ---- sweep, stats, compare ---------------------------------------------------------
def _results_friendly(fn):
    """Like ``friendly``, and also for bad ranges, busy folders and bad result files."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        from .stats import StatsError
        from .sweep import ResultFileError, SweepError

        try:
            return fn(*a, **kw)
        except (SweepError, ResultFileError, StatsError) as e:
            fail(str(e))

    return friendly(wrapper)


@main.command("sweep")
@click.argument("variant")
@click.argument("deal_range", metavar="[RANGE]", required=False, default="1-999999")
@click.option("--out", "-o", required=True, type=click.Path(),
              help="Folder for the result files; rerun the same command to resume.")
@_deal_rule_option
@click.option("--max-nodes", type=int, default=None,
              help="Node budget per deal (0 = no limit) [default: the solver's].")
@click.option("--timeout", type=float, default=None, help="Seconds per deal (0 = no limit; machine-dependent).")
@click.option("--max-memory", default=None,
              help="Transposition-table budget per worker, in bytes or with K/M/G (512M, 2G) [default: the solver's].")
@click.option("--heuristic", default=None, help="Search heuristic [default: the solver's].")
@click.option("--workers", "-j", type=int, default=None, help="Worker processes [default: all cores].")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: worker processes here; dask: Dask distributed (LocalCluster unless --scheduler).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="A running Dask scheduler (implies --engine dask).")
@click.option("--chunk-size", type=int, default=None, help="Deals per task [default: sized to take ~10 s].")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@_results_friendly
def sweep_cmd(variant, deal_range, out, rule_overrides, max_nodes, timeout, max_memory, heuristic, workers,
              engine, scheduler, chunk_size, no_progress):
    """Solve every deal of RANGE (default 1-999999) into Parquet files in --out.

    \b
      harpsolve sweep easy-harp 1-2000 --out sweep-out
      harpsolve sweep klondike-3 5,17,100-200 --out k3 --max-nodes 500000 --workers 8
      harpsolve sweep easy-harp --out eh --scheduler tcp://10.0.0.1:8786

    Interrupt it at any time (Ctrl-C, kill, a crash); the same command
    resumes without losing or repeating finished deals.
    """
    from .sweep import format_range, parse_range, parse_size, sweep

    deals = parse_range(deal_range)
    budgets = dict(max_nodes=max_nodes, timeout=timeout, heuristic=heuristic,
                   max_memory=parse_size(max_memory) if max_memory is not None else None)
    try:
        s = sweep(variant, deals, out, rule_overrides, budgets, workers=workers, engine=engine,
                  scheduler=scheduler, progress=not no_progress, chunk_size=chunk_size)
    except KeyboardInterrupt:
        click.echo(f"harpsolve: interrupted; finished deals are saved in {out}; "
                   "run the same command again to resume", err=True)
        sys.exit(130)
    c = s.counts
    rate = f"{s.rate:.1f} deals/s" if s.new else "nothing left to do"
    click.echo(f"{s.rules} deals {format_range(deals)} -> {s.out}: {s.deals:,} deals ({s.new:,} new, "
               f"{s.skipped:,} already done); solved {c['solved']:,}, unsolvable {c['unsolvable']:,}, "
               f"unknown {c['unknown']:,}, error {c['error']:,}; {rate}")


@main.command("stats")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--by", type=click.Choice(["rules", "variant"]), default="rules", show_default=True,
              help="One line per rules set (variant + overrides) or per variant.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json", "markdown"]), default="table",
              show_default=True)
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), help="Also write PNG plots into this folder.")
@click.option("--hardest", type=int, default=5, show_default=True, help="How many hardest deals to list.")
@_results_friendly
def stats_cmd(paths, by, fmt, plot_dir, hardest):
    """Win rates (95% Wilson intervals), quantiles and hardest deals of result files or folders."""
    from .stats import plot, render, summarize
    from .sweep import conflicts, load_results

    results = load_results(paths)
    groups = summarize(results, by, hardest)
    click.echo(render(groups, fmt))
    bad = conflicts(results.frame)
    if bad:
        click.echo(f"harpsolve: WARNING: {len(bad)} deal(s) have both a solved and an unsolvable row under "
                   "the same rules (a solver bug): " + " ".join(str(d) for _, d in bad[:20]), err=True)
    if plot_dir:
        for path in plot(results, groups, plot_dir, by):
            click.echo(f"wrote {path}", err=True)


@main.command("compare")
@click.argument("a", type=click.Path())
@click.argument("b", type=click.Path())
@click.option("--limit", type=int, default=100, show_default=True, help="List at most this many deals (0 = all).")
@_results_friendly
def compare_cmd(a, b, limit):
    """Per-deal differences between two result files or folders.

    Exit 1 if a deal is solved on one side and unsolvable on the other under
    the same rules (one of them is wrong).
    """
    from .stats import compare, compare_text

    c = compare(a, b)
    click.echo(compare_text(c, limit))
    if c.conflicts or c.internal:
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
