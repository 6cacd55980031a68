"""The ``harpsolve`` command line (click).

Every command turns the project's own errors into one clear line on stderr and
a non-zero exit (2 for bad input); nothing reaches the user as a traceback.
Heavy modules (numba kernels, pandas) are imported inside the commands that
need them, so ``harpsolve --help`` stays fast and never imports numba.
"""
from __future__ import annotations

import functools
import math
import sys

import click

from . import __version__

EXIT_BAD_INPUT = 2


def _user_errors():
    from .cards import CardError
    from .layout import LayoutError
    from .rules import RulesError

    from .state import StateError

    errs = [CardError, LayoutError, RulesError, StateError]
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


EXIT_PIPE = 141  # what a shell reports for a process ended by SIGPIPE (128 + 13)


def _reader_gone(code: int = EXIT_PIPE) -> None:
    """The reader of our output has gone (``| head``, a pager quit): stop
    quietly, as Unix tools do, without a message or a traceback at exit
    (``solve`` keeps its status as the exit code: the answer is known)."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:  # pragma: no cover - stdout already gone entirely
        pass
    sys.exit(code)


def check_number(option: str, value, *, least=0, what="a number", note="") -> None:
    """Refuse (one line, exit 2) an option value below ``least``, or not finite."""
    if value is not None and not (value >= least and math.isfinite(value)):
        fail(f"{option} takes {what} >= {least}{note}, not {value:g}" if isinstance(value, float)
             else f"{option} takes {what} >= {least}{note}, not {value}")


def friendly(fn):
    """Turn project errors (and unreadable files) into one line and exit 2;
    a closed output pipe ends the command quietly."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        try:
            try:
                return fn(*a, **kw)
            finally:
                sys.stdout.flush()  # a closed pipe shows here at the latest
        except BrokenPipeError:
            _reader_gone()
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


@main.command("variants")
@click.argument("variant", required=False)
@_deal_rule_option
@friendly
def variants_cmd(variant, rule_overrides):
    """List the variants; with VARIANT, print every field of its rules."""
    from .rules import RULE_FIELDS, VARIANTS, get_rules, value_text

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
        click.echo(f"  {name.ljust(width)}  {value_text(getattr(rules, name), name, explain=True)}")
    click.echo(
        f"  ({rules.n_cards} cards, stock {rules.stock_size}, {rules.n_foundations} foundations, "
        f"fingerprint {rules.fingerprint()})"
    )


# "-5" is a (bad) deal number, not an unknown option: let the deal parser say so.
_NUMBERS_ARE_ARGUMENTS = {"ignore_unknown_options": True}


@main.command("deal", context_settings=_NUMBERS_ARE_ARGUMENTS)
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


# ---- solve ---------------------------------------------------------------------------
EXIT_INTERNAL = 1
EXIT_UNSOLVABLE = 10
EXIT_UNKNOWN = 11
_STATUS_EXIT = {"solved": 0, "unsolvable": EXIT_UNSOLVABLE, "unknown": EXIT_UNKNOWN}

# the names live in harpsolve.search (no numba), so `--help` can list them
from .search import ALGORITHM_NAMES, COST_NAMES, HEURISTIC_NAMES  # noqa: E402

_UNKNOWN_WHY = {
    "nodes": "the node budget ran out",
    "time": "the time budget ran out",
    "memory": "the transposition table outgrew the memory budget",
    "depth": "the search hit its depth limit",
}


def _size_text(n: int) -> str:
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n} bytes"


def _read_layout_file(path: str, variant, rule_overrides):
    """(rules, layout) from a layout file; VARIANT may come from a JSON file's
    ``variant`` (and ``rules``) fields, as ``deal --json`` writes them."""
    import json

    from .cards import CardError
    from .layout import LayoutError, read_layout
    from .reference import _overrides_of
    from .rules import get_rules, with_overrides

    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
    except UnicodeDecodeError:
        raise LayoutError(f"{path}: not a text file (expected a JSON or text layout)") from None
    except OSError as e:
        raise LayoutError(f"cannot read {path}: {e.strerror}") from None
    try:
        data = json.loads(text) if text.lstrip().startswith("{") else None
        named = isinstance(data, dict) and isinstance(data.get("variant"), str)
        if variant is None and not named:
            raise LayoutError("give the VARIANT: only a JSON layout with a 'variant' field names its own")
        if named:
            # The file's own rules (as `deal --json` writes them) are the game it
            # holds: never drop them silently.  --rule still changes them.
            if variant is not None and variant != data["variant"]:
                raise LayoutError(f"the file holds a {data['variant']} layout, not {variant}: "
                                  f"drop VARIANT to use the file's rules")
            rules = get_rules(data["variant"])
            rules = with_overrides(rules, _overrides_of(data["variant"], data.get("rules"), path))
            rules = with_overrides(rules, rule_overrides)
        else:
            rules = get_rules(variant, rule_overrides)
        return rules, read_layout(text).validate(rules)
    except json.JSONDecodeError as e:
        raise LayoutError(f"{path}: not valid JSON: {e.msg} at line {e.lineno}") from None
    except (LayoutError, CardError) as e:
        raise LayoutError(f"{path}: {e}") from None


def _echo_plays(rules, layout, moves: list[str]) -> None:
    """The solution in words, one numbered play a line (solution.readable)."""
    from .solution import readable

    for k, (_, text) in enumerate(readable(rules, layout, moves), 1):
        click.echo(f"{k:>5}. {text}")


def _show_solution(rules, layout, moves: list[str], every: int) -> None:
    """The board before the first play, then after every ``every`` plays (and the last).

    A play is one move that is not a stock tap, with the taps that lead to it
    (solution.readable), so the boards follow what a player does.
    """
    import textwrap

    from .layout import render
    from .reference import Game
    from .solution import readable

    game = Game(rules, layout, undo=False)
    scored = rules.scoring == "easy-harp"
    click.echo("\nstart")
    click.echo(render(game, rules))
    plays = readable(rules, layout, moves)
    done, pending = 0, []
    for k, (end, text) in enumerate(plays, 1):
        for tok in moves[done:end]:
            game.apply(tok)
        done = end
        pending.append(text)
        if k % every and k != len(plays):
            continue
        first = k - len(pending) + 1
        head = f"play {k}: {text}" if len(pending) == 1 else f"plays {first}-{k}: " + "; ".join(pending)
        if scored:
            head += f"  (score {game.score})"
        click.echo("")
        click.echo(textwrap.fill(head, 78, subsequent_indent="    ", break_on_hyphens=False))
        click.echo(render(game, rules))
        pending = []
    if moves:
        click.echo("\nwon" + (f", score {game.score}" if scored else "") if game.is_won() else "\nnot won")


def _summary(result) -> list[str]:
    s = result.settings
    if result.status == "solved":
        from .solution import count_plays

        plays = count_plays(result.moves)
        taps = len(result.moves) - plays
        head = (f"solved: {len(result.moves)} moves ({plays} plays" + (f", {taps} stock taps)" if taps else ")")
                + (f", score {result.score}" if result.score is not None else ""))
    elif result.status == "unsolvable":
        head = f"unsolvable: {_proof_text(result.proof)}"
    else:
        budget = {"nodes": f"{s.get('max_nodes', 0):,} nodes", "time": f"{s.get('timeout', 0):g} s",
                  "memory": _size_text(int(s.get("max_memory", 0)))}.get(result.reason)
        why = _UNKNOWN_WHY.get(result.reason, result.reason or "a budget ran out")
        head = f"unknown: {why}" + (f" ({budget})" if budget else "")
    took = f"{result.seconds * 1e3:.1f} ms" if result.seconds < 10 else f"{result.seconds:.1f} s"
    by = f"; engine {result.engine}" if result.engine and result.status != "unknown" else ""
    return [head + by, f"nodes {result.nodes:,}, states {result.states:,}, {took}"] + _optimality_lines(result)


def _proof_text(proof) -> str:
    """An ``unsolvable`` result's proof, in words (search/engine.py: Outcome.proof)."""
    proof = proof or "exhausted"
    if proof == "exhausted":
        return "every reachable position was searched and none wins"
    if proof == "exhausted: arrangement-free":
        return "every reachable position was searched and none wins (arrangement-free search)"
    if proof.startswith("relaxed: "):
        return f"not even winnable with the more permissive rules {proof[len('relaxed: '):]}"
    if proof.startswith("dead end: "):
        return f"{proof[len('dead end: '):]} can never reach its foundation"
    if proof.startswith("lock: "):
        return (f"{proof[len('lock: '):]} can leave their columns only for their foundations, "
                "which can never reach them (a lock)")
    return proof


def _optimality_lines(result) -> list[str]:
    """What A* proved (or only found): minimal, within a weight, or a bound (search/astar.py)."""
    o = result.optimality
    if not o:
        return []
    unit = {"tokens": "moves", "moves": "search moves (draws not counted)"}.get(o.get("cost_model"), "")
    proved = o.get("proved")
    if o.get("cost_model") == "score":
        clean = o.get("clean_score")
        if proved == "minimal":
            return [f"best score: proved maximal (clean score {clean}: the score less 10 per take-back)"
                    + _by_bound(o)]
        if proved == "within-weight":
            return [f"score: clean score {clean} (the score less 10 per take-back); weighted A*: its shortfall "
                    f"from {o.get('ceiling')} is at most {o['weight']:g} x the best line's"]
        out = []
        if clean is not None:
            out.append(f"best score found: clean score {clean} (the score less 10 per take-back), "
                       f"not proved maximal; found by {o.get('found_by')}")
        if "score_bound" in o:
            out.append(f"no solution has a clean score above {o['score_bound']}")
        return out
    if proved == "minimal":
        return [f"shortest: proved minimal ({o['cost']} {unit})" + _by_bound(o)]
    if proved == "within-weight":
        return [f"within {o['weight']:g} x the shortest (weighted A*: {o['cost']} {unit})"]
    out = []
    if result.solved and proved == "no":
        out.append(f"best found: {o['cost']} {unit}, not proved minimal; found by {o.get('found_by')}")
    if "lower_bound" in o:
        out.append(f"no solution has fewer than {int(math.ceil(o['lower_bound'] - 1e-9))} {unit}")
    return out


def _by_bound(o: dict) -> str:
    """How a line found after A* ran out is still proved: it meets A*'s bound."""
    if not o.get("proved_by"):
        return ""
    return f"; found by {o.get('found_by')}, and it meets the bound A* proved"


def _warm_up(solve, rules, layout, **kw) -> None:
    """Load (or compile) every kernel a solve uses, so that neither the reported
    seconds nor a --timeout include it: the search on the user's position,
    and the token writer on a position one king from won (from the stock
    where there is one, to load the stock-route kernel too)."""
    from .solver import warm_up

    warm_up(rules, layout, **kw)


def _position(variant, deal_ref, layout_file, rule_overrides, command: str):
    """(rules, layout, deal number or None, title) of a numbered deal or a ``--layout`` file,
    as ``solve`` and ``play`` take them; a missing or doubled position is one line, exit 2."""
    from .deals import deal_code, deal_layout, parse_deal_ref
    from .rules import get_rules

    if layout_file is not None:
        if deal_ref is not None:
            fail("give a deal or --layout FILE, not both")
        rules, layout = _read_layout_file(layout_file, variant, rule_overrides)
        return rules, layout, None, f"{rules.label} layout {layout_file}"
    if variant is None:
        fail("give a VARIANT and a deal (N, an EH1 code or daily), or --layout FILE")
    rules = get_rules(variant, rule_overrides)
    if deal_ref is None:
        fail(f"give a deal to {command}: harpsolve {command} {variant} N (or an EH1 code, or daily), or --layout FILE")
    number = parse_deal_ref(deal_ref)
    return rules, deal_layout(rules, number), number, f"{rules.label} deal {number} ({deal_code(number)})"


def _position_arguments(verb: str):
    """VARIANT, the deal and ``--layout``/``--rule``, as ``solve`` and ``play`` take them
    (read with :func:`_position`)."""

    def decorate(fn):
        for d in reversed((
            click.argument("variant", required=False),
            click.argument("deal_ref", metavar="[N|CODE|daily[:YYYY-MM-DD]]", required=False),
            click.option("--layout", "layout_file", metavar="FILE",
                         help=f"{verb} the position in FILE (JSON or the text form; - reads stdin) "
                              "instead of a numbered deal."),
            _deal_rule_option,
        )):
            fn = d(fn)
        return fn

    return decorate


@main.command("solve", context_settings=_NUMBERS_ARE_ARGUMENTS)
@_position_arguments("Solve")
@click.option("--max-nodes", type=int, default=None,
              help="Node budget (0 = no limit; the same answer on every machine) [default: 50 000 000; "
                   "A*: 2 000 000].")
@click.option("--timeout", type=float, default=None, help="Time budget in seconds (0 = no limit) [default: none].")
@click.option("--max-memory", default=None, metavar="SIZE",
              help="Transposition-table budget in bytes or with K/M/G (512M, 2G) [default: the solver's].")
@click.option("--heuristic", default=None, metavar="NAME",
              help=f"Move ordering: {', '.join(HEURISTIC_NAMES)} [default: the solver's].")
@click.option("--algorithm", default=None, metavar="NAME",
              help=f"Search: {', '.join(ALGORITHM_NAMES)} [default: portfolio]. astar: a minimal "
                   "solution under --cost; wastar: one within a factor --weight of minimal.")
@click.option("--weight", type=float, default=None, help="Weighted A*'s factor (>= 1) [default: 2].")
@click.option("--cost", type=click.Choice(COST_NAMES), default=None,
              help="What astar/wastar minimise: tokens (moves of the solution, draws included), moves "
                   "(search moves) or score (easy-harp: the best score) [default: tokens].")
@click.option("--shortest", is_flag=True,
              help="A* for the fewest moves; says whether the solution is proved minimal or the best found.")
@click.option("--best-score", is_flag=True,
              help="easy-harp: A* for the highest score (less 10 per take-back); proved or best found.")
@click.option("--json", "as_json", is_flag=True, help="Print the solution JSON (SPEC §4) instead of the summary.")
@click.option("--show", is_flag=True, help="Step through the solution: the board before the first play and after each play.")
@click.option("--show-every", type=int, default=None, metavar="K",
              help="Like --show, with a board every K plays (and after the last) and the plays between listed.")
@click.option("--out", "out_file", metavar="FILE",
              help="Also save the solution JSON to FILE (check it with `harpsolve verify FILE`).")
@friendly
def solve_cmd(variant, deal_ref, layout_file, rule_overrides, max_nodes, timeout, max_memory, heuristic,
              algorithm, weight, cost, shortest, best_score, as_json, show, show_every, out_file):
    """Solve deal N (or code EH1-N-…, or the daily deal) of VARIANT, or a layout file.

    \b
      harpsolve solve easy-harp 5
      harpsolve solve bakers-game 617 --show-every 20
      harpsolve solve klondike-3 3 --json > k3-3.json
      harpsolve solve easy-harp --layout my-game.txt --rule takeback=false
      harpsolve solve --layout deal.json        (the variant from the file)
      harpsolve solve bakers-game 1 --shortest  (A*; proved minimal or best found)
      harpsolve solve easy-harp 5 --best-score

    A solution is replayed to a win by the reference engine before it is
    printed. A time budget depends on the machine; a node budget does not.

    \b
    Exit status:
       0  solved
      10  unsolvable (every reachable position was searched: a proof)
      11  unknown (a node, time or memory budget ran out)
       2  bad input (variant, deal, layout file, rule or option)
       1  internal error (a bug: please report it)
    """
    import json

    # Check everything the user typed before loading the solver.
    if as_json and (show or show_every):
        fail("choose one of --json and --show")
    if show_every is not None and show_every < 1:
        fail(f"--show-every takes a number of plays >= 1, not {show_every}")
    if shortest and best_score:
        fail("choose one of --shortest and --best-score")
    if (shortest or best_score) and (algorithm or weight is not None or cost):
        fail("--shortest and --best-score choose their own search: drop --algorithm, --weight and --cost")
    check_number("--timeout", timeout, what="seconds", note=" (0 = no limit)")
    from .search.settings import SOLVE_MAX_NODES, SearchSettings, SettingsError

    try:  # one validation for solve, sweep, bench and here (search/settings.py)
        checked = SearchSettings.make(max_nodes=max_nodes, timeout=timeout, max_memory=max_memory, heuristic=heuristic,
                                      algorithm=algorithm, weight=weight, cost=cost)
    except SettingsError as e:
        fail(f"--max-memory: {e}" if str(e).startswith("bad size") else str(e))
    budgets = {}
    if max_memory is not None:
        budgets["max_memory"] = checked.max_memory
    rules, layout, number, title = _position(variant, deal_ref, layout_file, rule_overrides, "solve")

    from .solver import SolverError, solve

    if heuristic is not None:
        budgets["heuristic"] = heuristic
    if max_nodes is not None:
        budgets["max_nodes"] = max_nodes
    elif not (shortest or best_score or checked.is_astar):
        budgets["max_nodes"] = SOLVE_MAX_NODES  # one deal, a person waiting (search/settings.py)
    if timeout is not None:
        budgets["timeout"] = timeout
    search = {}
    if algorithm is not None:
        search["algorithm"] = algorithm
    if weight is not None:
        search["weight"] = weight
    if cost is not None:
        search["cost"] = cost
    if best_score and rules.scoring != "easy-harp":
        fail(f"--best-score needs the easy-harp score; {rules.label} has none")
    try:
        if shortest or best_score:
            from . import optimal

            budgets.pop("heuristic", None)
            _warm_up(solve, rules, layout, algorithm="astar")
            _warm_up(solve, rules, layout)
            run = optimal.shortest if shortest else optimal.best_score
            result = run(rules, number, layout=layout, **budgets)
        else:
            _warm_up(solve, rules, layout, **search)
            result = solve(rules, number, layout=layout, **budgets, **search)
    except SolverError as e:
        fail(str(e), EXIT_INTERNAL)
    except MemoryError:
        fail("out of memory: give a smaller --max-memory", EXIT_UNKNOWN)
    except KeyboardInterrupt:
        fail("interrupted", 130)

    doc = result.to_dict()
    if out_file is not None:
        with open(out_file, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc) + "\n")
    try:
        if as_json:
            click.echo(json.dumps(doc))
        else:
            click.echo(title)
            for line in _summary(result):
                click.echo(line)
            if result.solved and (show or show_every):
                _show_solution(rules, layout, result.moves, show_every or 1)
            elif result.solved and result.moves:
                click.echo("plays (the --json moves, stock taps grouped with the play they lead to):")
                _echo_plays(rules, layout, result.moves)
            elif show or show_every:
                _show_solution(rules, layout, [], 1)
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone(_STATUS_EXIT[result.status])
    sys.exit(_STATUS_EXIT[result.status])


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


# ---- play ------------------------------------------------------------------------------
EXIT_LOST = 12
# player.POLICIES' names, written out so that the command line loads without the solver
# (tests/test_player.py checks they agree)
SAMPLING_POLICIES = ("hop", "hop-action")
POLICY_NAMES = (*SAMPLING_POLICIES, "rules")


def _sampling_options(flag: str):
    """The sampling players' options, shared by ``play`` (``flag`` "") and ``sweep --play``
    (``flag`` "--play "); the defaults are player.DEFAULT_* (not imported here: the command
    line starts without loading the player)."""
    opts = (
        click.option("--samples", type=int, default=None,
                     help=f"{flag}hop, hop-action: sampled worlds per decision [default: 10]."),
        click.option("--seed", type=int, default=None,
                     help=f"{flag}hop, hop-action: random seed of the sampling [default: 0]."),
        click.option("--scout/--no-scout", default=None,
                     help=f"{flag}hop, hop-action: with unlimited passes, look through the whole stock first (it "
                          "comes back unchanged) [default: on]."),
        click.option("--boost", type=int, default=None,
                     help=f"{flag}hop, hop-action: when no world is solved, solve again with up to this many times "
                          "the nodes (1 = never) [default: 16]."),
        click.option("--widen", type=int, default=None,
                     help=f"{flag}hop-action: where the best action the samples' plans propose loses some sample, "
                          "also score every action of at most this many moves that no plan proposed (0 = none) "
                          "[default: 0]."),
    )

    def decorate(fn):
        for option in reversed(opts):
            fn = option(fn)
        return fn

    return decorate


@main.command("play", context_settings=_NUMBERS_ARE_ARGUMENTS)
@_position_arguments("Play")
@click.option("--policy", type=click.Choice(POLICY_NAMES), default="hop-action", show_default=True,
              help="hop-action: sample the unseen cards, score each way to the next card shown by the samples "
                   "it keeps won; hop: play the move most samples' solutions start with; "
                   "rules: a careful human's rules of thumb.")
@click.option("--max-nodes", type=int, default=None,
              help="hop, hop-action: solver nodes per sampled world [default: 2000].")
@_sampling_options("")
@click.option("--max-moves", type=int, default=None, help="Stop the game after this many moves [default: 5000].")
@click.option("--json", "as_json", is_flag=True,
              help="Print the game record as JSON; its 'solution' (a won game) is what `harpsolve verify` reads.")
@friendly
def play_cmd(variant, deal_ref, layout_file, rule_overrides, policy, samples, max_nodes, seed, scout, boost,
             widen, max_moves, as_json):
    """Play deal N of VARIANT (or a layout file) without seeing the face-down
    cards or the stock before they turn: the player's win, not the solver's.

    \b
      harpsolve play easy-harp 5
      harpsolve play klondike-3 17 --policy rules
      harpsolve play easy-harp 5 --samples 20 --max-nodes 5000 --seed 3 --json

    The player sees what a person at the table sees (README: "Playing without
    peeking"); the moves are SPEC tokens and a won game replays in `verify`.

    \b
    Exit status:
       0  won
      12  not won
       2  bad input (variant, deal, layout file, rule or option)
    """
    import json
    import textwrap

    from .player import play

    settings = _player_settings("--policy", policy, samples, max_nodes, seed, scout, boost, widen, max_moves)
    rules, layout, number, title = _position(variant, deal_ref, layout_file, rule_overrides, "play")
    player = settings.make_policy(rules)
    if settings.sampling:
        from .solver import warm_up

        warm_up(rules, layout)  # numba loads its kernels here, not inside the game's time
    try:
        record = play(rules, layout, player, settings.max_moves)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    code = 0 if record.won else EXIT_LOST
    try:
        if as_json:
            click.echo(json.dumps(record.to_dict(number)))
        else:
            for line in _play_summary(title, record):
                click.echo(line)
            click.echo(textwrap.fill(" ".join(record.moves), 78, break_on_hyphens=False) if record.moves
                       else "(no move played)")
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone(code)
    sys.exit(code)


def _play_summary(title: str, record) -> list[str]:
    """The head of a game record: who played, how it ended, what the player knew, the cost."""
    settings = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in record.params.items())
    n = len(record.moves)
    if record.won:
        sol = record.solution()
        head = f"won in {n} moves" + (f", score {sol['score']}" if "score" in sol else "")
    else:
        why = {"no move": "no move leads to a position not seen before",
               "move limit": "the move limit was reached", "stopped": "stopped"}[record.end]
        head = f"not won after {n} moves: {why}"
    if record.never_seen:
        knew = (f"{record.never_seen} cards never seen ({record.unseen_face_down} face down, "
                f"{record.unseen_stock} in the stock)")
    else:
        knew = "every card seen"
    cost = f"{record.seconds:.2f} s"
    if "solves" in record.stats:
        cost += (f"; {record.stats['solves']:,} solves, {record.stats['nodes']:,} nodes; "
                 f"rules policy chose {record.stats['fallbacks']:,} moves")
    return [title, f"player {record.policy}" + (f" ({settings})" if settings else ""), head,
            f"at the end: {knew}", cost, "moves:"]


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
@click.argument("deal_range", metavar="[RANGE]", required=False, default=None)
@click.option("--out", "-o", required=True, type=click.Path(),
              help="Folder for the result files; rerun the same command to resume.")
@click.option("--layouts", metavar="DIR|GLOB", default=None,
              help="Solve layout files instead of numbered deals: every file in DIR (and below) or matching "
                   "GLOB (quote it), one row each keyed by file name and content hash.")
@_deal_rule_option
@click.option("--max-nodes", type=int, default=None,
              help="Node budget per deal (0 = no limit) [default: the solver's].")
@click.option("--timeout", type=float, default=None, help="Seconds per deal (0 = no limit; machine-dependent).")
@click.option("--max-memory", default=None,
              help="Transposition-table budget per worker, in bytes or with K/M/G (512M, 2G) [default: the solver's].")
@click.option("--heuristic", default=None, help="Search heuristic [default: the solver's].")
@click.option("--algorithm", default=None,
              help=f"Search: {', '.join(ALGORITHM_NAMES)} [default: portfolio].")
@click.option("--weight", type=float, default=None, help="Weighted A*'s factor (>= 1) [default: 2].")
@click.option("--workers", "-j", type=int, default=None, help="Worker processes [default: all cores].")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: worker processes here; dask: Dask distributed (LocalCluster unless --scheduler).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="A running Dask scheduler (implies --engine dask).")
@click.option("--chunk-size", type=int, default=None, help="Deals per task [default: sized to take ~10 s].")
@click.option("--play", "policy", type=click.Choice(POLICY_NAMES), default=None,
              help="Play every deal with this player, who does not see the face-down cards (as `harpsolve play`), "
                   "instead of solving it: rows won or lost. --max-nodes is then the nodes per sampled world.")
@_sampling_options("--play ")
@click.option("--max-moves", type=int, default=None, help="--play: stop a game after this many moves [default: 5000].")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@_results_friendly
def sweep_cmd(variant, deal_range, out, layouts, rule_overrides, max_nodes, timeout, max_memory, heuristic, algorithm,
              weight, workers, engine, scheduler, chunk_size, policy, samples, seed, scout, boost, widen,
              max_moves, no_progress):
    """Solve every deal of RANGE (default 1-999999) into Parquet files in --out.

    \b
      harpsolve sweep easy-harp 1-2000 --out sweep-out
      harpsolve sweep klondike-3 5,17,100-200 --out k3 --max-nodes 500000 --workers 8
      harpsolve sweep easy-harp --out eh --scheduler tcp://10.0.0.1:8786
      harpsolve sweep klondike-3 --layouts my-deals/ --out mine
      harpsolve sweep klondike-1 1-2000 --out k1-play --play hop-action

    Interrupt it at any time (Ctrl-C, kill, a crash); the same command
    resumes without losing or repeating finished deals.
    """
    from .search.settings import parse_size
    from .sweep import DEFAULT_RANGE, format_range, parse_range, sweep

    check_number("--timeout", timeout, what="seconds", note=" (0 = no limit)")
    if layouts is not None and deal_range is not None:
        fail("give a deal RANGE or --layouts, not both")
    deals = parse_range(deal_range or DEFAULT_RANGE) if layouts is None else None
    play = _play_settings(policy, samples, max_nodes, seed, scout, boost, widen, max_moves, timeout, heuristic,
                          algorithm, weight)
    if play is not None:
        max_nodes = None  # the player's, not a solver budget of its own
    budgets = dict(max_nodes=max_nodes, timeout=timeout, heuristic=heuristic, algorithm=algorithm, weight=weight,
                   max_memory=parse_size(max_memory) if max_memory is not None else None)
    try:
        s = sweep(variant, deals, out, rule_overrides, budgets, workers=workers, engine=engine,
                  scheduler=scheduler, progress=not no_progress, chunk_size=chunk_size, layouts=layouts, play=play)
    except KeyboardInterrupt:
        click.echo(f"harpsolve: interrupted; finished deals are saved in {out}; "
                   "run the same command again to resume", err=True)
        sys.exit(130)
    c = s.counts
    rate = f"{s.rate:.1f} deals/s" if s.new else "nothing left to do"
    what = f"deals {format_range(deals)}" if layouts is None else f"layouts {layouts}"
    counted = (f"won {c['won']:,}, lost {c['lost']:,}" if play is not None else
               f"solved {c['solved']:,}, unsolvable {c['unsolvable']:,}, unknown {c['unknown']:,}")
    click.echo(f"{s.rules} {what} -> {s.out}: {s.deals:,} {'deals' if layouts is None else 'layouts'} ({s.new:,} new, "
               f"{s.skipped:,} already done); {counted}, error {c['error']:,}; {rate}")


def _play_settings(policy, samples, max_nodes, seed, scout, boost, widen, max_moves, timeout, heuristic, algorithm,
                   weight):
    """The player of ``sweep --play`` from the options (None without --play); one line and exit 2
    for an option that does not go with the choice."""
    if policy is None:
        for option, value in (("--samples", samples), ("--seed", seed), ("--scout", scout), ("--boost", boost),
                              ("--widen", widen), ("--max-moves", max_moves)):
            if value is not None:
                fail(f"{option} is a setting of --play")
        return None
    for option, value in (("--timeout", timeout), ("--heuristic", heuristic), ("--algorithm", algorithm),
                          ("--weight", weight)):
        if value is not None:
            fail(f"{option} is a setting of the solver, not of --play {policy}")
    return _player_settings("--play", policy, samples, max_nodes, seed, scout, boost, widen, max_moves)


def _player_settings(flag, policy, samples, max_nodes, seed, scout, boost, widen, max_moves):
    """The player.PlaySettings of ``play --policy`` / ``sweep --play`` (``flag``): the hop
    options refused for another policy, the numbers checked, the defaults filled in."""
    from .player import DEFAULT_BOOST, DEFAULT_MAX_NODES, DEFAULT_SAMPLES, DEFAULT_SEED, DEFAULT_WIDEN, PlaySettings

    if widen is not None and policy != "hop-action":
        fail(f"--widen is a setting of {flag} hop-action, not {policy}")
    check_number("--widen", widen, least=0, what="a number of moves")

    if policy not in SAMPLING_POLICIES:
        for option, value in (("--samples", samples), ("--max-nodes", max_nodes), ("--seed", seed),
                              ("--scout", scout), ("--boost", boost)):
            if value is not None:
                fail(f"{option} is a setting of {flag} hop or hop-action, not {policy}")
    check_number("--samples", samples, least=1, what="a number of worlds")
    check_number("--max-nodes", max_nodes, least=1, what="a number of nodes")
    check_number("--max-moves", max_moves, least=1, what="a number of moves")
    check_number("--boost", boost, least=1, what="a multiple of --max-nodes")
    return PlaySettings(policy, samples=samples or DEFAULT_SAMPLES, max_nodes=max_nodes or DEFAULT_MAX_NODES,
                        seed=DEFAULT_SEED if seed is None else seed, max_moves=max_moves or 0,
                        scout=None if scout is None else int(scout),
                        boost=DEFAULT_BOOST if boost is None else boost,
                        widen=DEFAULT_WIDEN if widen is None else widen)


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

    check_number("--hardest", hardest, what="a number of deals")
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

    check_number("--limit", limit, what="a number of deals", note=" (0 = all)")
    c = compare(a, b)
    click.echo(compare_text(c, limit))
    if c.conflicts or c.internal:
        sys.exit(1)


# ---- the published tables: lookup, deals ---------------------------------------------
def _tables_friendly(fn):
    """Like ``_results_friendly``, and also for missing tables and bad grade choices."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        from .tables import TablesError

        try:
            return fn(*a, **kw)
        except TablesError as e:
            fail(str(e))

    return _results_friendly(wrapper)


_results_option = click.option(
    "--results", "results", metavar="PATH", type=click.Path(),
    help="Tables folder: a folder of per-variant folders, or one sweep's --out folder "
         "[default: $HARPSOLVE_RESULTS, else the repository's results/].")


@main.command("lookup")
@click.argument("variant")
@click.argument("deal_refs", nargs=-1, required=True, metavar="N|CODE|daily[:YYYY-MM-DD]...")
@_deal_rule_option
@_results_option
@click.option("--json", "as_json", is_flag=True, help="Print the answers as JSON.")
@_tables_friendly
def lookup_cmd(variant, deal_refs, rule_overrides, results, as_json):
    """Answer from the published tables, without solving: is the deal winnable?

    \b
      harpsolve lookup easy-harp 5 daily
      harpsolve lookup klondike-3 EH1-N-AAAAAAF 17 --json

    Prints status, solution length or proof, and the search effort (nodes)
    with its difficulty grade; "not in the tables" for a deal outside the
    swept range or for other rules (--rule changes the rules fingerprint).
    """
    from .deals import parse_deal_ref
    from .rules import get_rules
    from .tables import lookup

    rules = get_rules(variant, rule_overrides)
    numbers = [parse_deal_ref(ref) for ref in deal_refs]
    answer = lookup(rules, numbers, results)
    click.echo(answer.json() if as_json else answer.text())


@main.command("deals")
@click.argument("variant")
@click.option("--status", type=click.Choice(["solved", "unsolvable", "unknown"]), default="solved",
              show_default=True, help="Pick deals with this status in the tables.")
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard", "extreme"]), default=None,
              help="Solved deals of this grade: search effort (nodes) up to the 50th percentile of the "
                   "solved deals, 50th-80th, 80th-95th, above the 95th.")
@click.option("--count", "-n", type=int, default=10, show_default=True, help="How many deals.")
@click.option("--seed", type=int, default=None, help="Random seed (same seed and tables, same deals) [default: fresh, printed].")
@_deal_rule_option
@_results_option
@_tables_friendly
def deals_cmd(variant, status, difficulty, count, seed, rule_overrides, results):
    """Deal numbers picked from the published tables, e.g. winnable deals by difficulty.

    \b
      harpsolve deals easy-harp --difficulty hard --count 10
      harpsolve deals klondike-3 --status unsolvable --count 5 --seed 1

    One deal number per line on stdout; what was picked from (grade
    bounds, pool size, seed) on stderr.
    """
    from .rules import get_rules
    from .tables import pick_deals

    rules = get_rules(variant, rule_overrides)
    p = pick_deals(rules, status, difficulty, count, seed, results)
    what = f"{status} deals" + (f", {p.grading.describe(difficulty)}" if difficulty and p.grading else "")
    click.echo(f"{rules.label}: {len(p.deals)} of {p.pool:,} {what}; seed {p.seed} ({p.table.folder})", err=True)
    if len(p.deals) < count:
        click.echo(f"harpsolve: only {p.pool:,} deal(s) match", err=True)
    for d in p.deals:
        click.echo(d)


# ---- bench -----------------------------------------------------------------------------
@main.command("bench")
@click.argument("variant")
@click.argument("deal_range", metavar="RANGE")
@click.option("--heuristic", "heuristics", default=None, metavar="A,B,…",
              help=f"Move orderings to compare (comma-separated): {', '.join(HEURISTIC_NAMES)} [default: the solver's].")
@click.option("--algorithm", "algorithms", default=None, metavar="A,B,…",
              help=f"Algorithms to compare (comma-separated): {', '.join(ALGORITHM_NAMES)} [default: portfolio]. "
                   "Every heuristic runs with every DFS-family algorithm; astar/wastar once (per weight).")
@click.option("--weight", "weights", default=None, metavar="W,…", help="wastar weights (comma-separated) [default: 2].")
@click.option("--cost", type=click.Choice(COST_NAMES), default="tokens", show_default=True,
              help="What astar/wastar minimise.")
@_deal_rule_option
@click.option("--max-nodes", type=int, default=None, help="Node budget per deal and setting [default: the solver's].")
@click.option("--timeout", type=float, default=None, help="Seconds per deal and setting (0 = no limit).")
@click.option("--max-memory", default=None, help="Table budget in bytes or with K/M/G [default: the solver's].")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Save the raw rows as Parquet.")
@click.option("--no-progress", is_flag=True, help="No progress line on stderr.")
@click.option("--polish", is_flag=True, help="Also polish each solution for a reader, as solve does (off: the "
                                             "search's line, as in a sweep; polishing often costs more than the search).")
@_results_friendly
def bench_cmd(variant, deal_range, heuristics, algorithms, weights, cost, rule_overrides, max_nodes, timeout,
              max_memory, out_file, no_progress, polish):
    """Compare search settings side by side on the same deals of RANGE.

    \b
      harpsolve bench easy-harp 1-500 --heuristic lookahead,fewest-hidden,weighted
      harpsolve bench klondike-1 1-100 --heuristic static,lookahead --algorithm dfs,climb
      harpsolve bench bakers-game 1-50 --algorithm climb,wastar --weight 2,5 --out b.parquet

    Every setting solves every deal in this one process, after a warm-up
    (numba compiling or loading its kernels) whose time is printed apart.
    Exit 1 if one setting solves a deal that another proves unsolvable.
    """
    from .bench import BenchError, bench, make_settings
    from .rules import get_rules
    from .search.settings import parse_size
    from .sweep import format_range, parse_range

    deals = parse_range(deal_range)
    check_number("--max-nodes", max_nodes, note=" (0 = no limit)")
    check_number("--timeout", timeout, what="seconds", note=" (0 = no limit)")
    try:
        settings = make_settings(heuristics, algorithms, weights, cost)
    except BenchError as e:
        fail(str(e))
    rules = get_rules(variant, rule_overrides)
    if cost == "score" and rules.scoring != "easy-harp":
        fail(f"--cost score needs the easy-harp score; {rules.label} has none")
    mem = parse_size(max_memory) if max_memory is not None else None

    def progress(i, n):
        if not no_progress and sys.stderr.isatty():
            click.echo(f"\r{i}/{n} deals", nl=(i == n), err=True)

    try:
        b = bench(rules, deals, settings, max_nodes=max_nodes, timeout=timeout, max_memory=mem, progress=progress,
                  polish=polish)
    except KeyboardInterrupt:
        fail("interrupted; nothing was written", 130)
    nodes = b.budgets["max_nodes"]
    click.echo(f"{rules.label} deals {format_range(deals)} ({len(deals)} deals), "
               f"{f'{nodes:,} nodes' if nodes else 'no node limit'} per deal and setting"
               + (f", {timeout:g} s" if timeout else ""))
    click.echo(b.warmup_text())
    click.echo(b.table())
    click.echo("(ms: seconds per deal, search and token writing; len: solution moves; "
               "time x: total seconds / the first setting's)")
    if out_file:
        from .sweep.runs import _command_line

        b.write_parquet(out_file, _command_line())
        click.echo(f"wrote {out_file}", err=True)
    if b.conflicts:
        click.echo("harpsolve: WARNING: solved by one setting, unsolvable by another (a solver bug): deals "
                   + " ".join(map(str, b.conflicts[:20])), err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
