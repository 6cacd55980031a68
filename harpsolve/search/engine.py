"""The solver's engines behind one shape, and its schedule as data.

Every search the solver runs is an *engine*: built for one position and the
search settings, it is given node budgets in turn (``advance``) and answers
with an :class:`Outcome` -- ``solved`` with the tokens of a solution,
``unsolvable`` with the proof, or ``unknown`` (paused, or finished without a
verdict, with the reason).  A *schedule* is a table of rows (engine, what it
may conclude, its share); :func:`run` plays a schedule against a budget.

What an engine may conclude is the row's business, not the engine's: an
engine that can prove (an exhausted complete search) can also be listed for
solutions only, and an ``unsolvable`` from a row that may only find
solutions is dropped (the streamlined restarts search a smaller graph).

Two ways to play a schedule (``Schedule.mode``):

``rounds`` (the portfolio, the default algorithm): round r gives every row
    ``weight * BASE_SLICE * 2**r`` nodes, in table order; resumable engines go
    on where they stopped, the others start a new run with the bigger budget.
    The budget only decides where this stops: a deal decided within N nodes
    is decided the same way, in the same nodes, under any budget >= N
    (``tests/test_engine.py`` checks it).
``phases`` (the first sessions' ``climb`` schedule, kept for comparison):
    each row runs once with ``weight`` x the budget (at most ``cap`` nodes),
    the last row with what is left.

Node counts differ between engines (the arrangement-free engine counts
abstract states entered, the depth-first searches nodes expanded); the
budget is their sum.  Memory (``max_memory``) is shared: the tables of all
the engines of one solve together stay under it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

SOLUTIONS, PROOFS, BOTH = "solutions", "proofs", "both"
CONCLUDES = (SOLUTIONS, PROOFS, BOTH)
BASE_SLICE = 1_000          # nodes per unit of weight in round 0 (doubles every round)
CLIMB_ATTEMPTS = 32         # the climb is greedy: restarts commit to other improvements
CLIMB_MAX_NODES = 200_000   # one climb's most
CLIMB_FIRST_RATE = 100_000  # nodes a second a climb is assumed to make until one has been timed (fewer than any makes)
WASTAR_WEIGHT = 5.0         # the weighted A* engine's factor (Baker's Game: ~100-move solutions)
WASTAR_MAX_NODES = 300_000  # ...and its largest run
INITIAL_TABLE = 1 << 14
ROLLOUT_GAME_NODES = 4_000_000  # one rollout game's solver nodes at most
ROLLOUT_GAMES = 16              # games (seeds) a rollout search plays at most


@dataclass
class Outcome:
    """What a search concluded: ``status`` solved / unsolvable / unknown.

    ``engine`` names the engine (and run) that decided; ``proof`` says why an
    ``unsolvable`` is one (``exhausted``, ``exhausted: arrangement-free``,
    ``relaxed: draw=1``, ``dead end: 7C``); ``tokens`` is the solution (SPEC
    move tokens, not yet replayed); ``reason`` why ``unknown`` (``nodes``,
    ``time``, ``memory``, ``depth``...).
    """

    status: str
    engine: str = ""
    proof: str | None = None
    tokens: list[str] | None = None
    nodes: int = 0
    states: int = 0
    reason: str = ""
    max_depth: int = 0


@dataclass(frozen=True)
class Entry:
    """One row of a schedule."""

    engine: str
    concludes: str
    weight: float = 1.0
    cap: int = 0          # at most this many nodes (0: no cap); in rounds, one run of this many
    column_moves: str = ""  # the row runs only in games whose rules.column_moves is this ("": all)
    passes: str = ""      # "limited" / "unlimited": only in games with / without a pass limit ("": all)
    total: int = 0        # in rounds, the row stops for good after this many nodes in all (0: never)
    first_round: int = 0  # in rounds, the row waits until this round (0: it runs from the first)

    def applies(self, pos: "Position") -> bool:
        """Does this row run on ``pos``: its engine applies, and the row's game conditions hold."""
        return (ENGINES[self.engine].applies(pos) and self.column_moves in ("", pos.rules.column_moves)
                and self.passes in ("", "limited" if pos.rules.passes > 0 else "unlimited"))


@dataclass(frozen=True)
class Schedule:
    name: str
    mode: str             # "rounds" or "phases"
    entries: tuple[Entry, ...]


@dataclass
class Position:
    """The position to decide, with the search switches every engine shares."""

    rules: object
    layout: object
    heuristic: int = 1
    auto: bool = True
    prune: bool = True
    cuts: int = 0
    shortcut: bool = True  # cut the detours out of a found line (search/shortcut.py), not only its loops
    root: np.ndarray = field(init=False)
    p: np.ndarray = field(init=False)   # the classifier's kernel vector

    def __post_init__(self):
        from ..state import kernel_params, pack

        self.root = pack(self.layout, self.rules)
        self.p = kernel_params(self.rules, auto=self.auto, prune=self.prune, heuristic=self.heuristic,
                               dominance=True, cuts=self.cuts)

    def tokens(self, path, p, cut: bool = True) -> list[str]:
        """A kernel path found from the root under params ``p``, as SPEC move tokens; ``cut``:
        cut its loops and detours (search/shortcut.py) -- False for a path that has none."""
        from .shortcut import line_tokens

        return line_tokens(self.root, path, p, jump=self.shortcut, cut=cut)


class Memory:
    """The table bytes of the engines of one solve, against one limit."""

    def __init__(self, limit: int):
        self.limit, self.held = limit, {}

    def reserve_for(self, owner: str):
        def reserve(nbytes: int) -> bool:
            others = sum(v for k, v in self.held.items() if k != owner)
            if others + nbytes > self.limit:
                return False
            self.held[owner] = nbytes
            return True
        return reserve

    def release(self, owner: str) -> None:
        self.held.pop(owner, None)


# ---- the engines -------------------------------------------------------------------------
def _with_cuts(pos) -> bool:
    """Engines with safe moves and cuts of their own run only when the solve keeps the cuts
    (``auto=False``/``prune=False`` solves are for testing those cuts: the plain search)."""
    return pos.prune and pos.auto


class Engine:
    """Base: ``advance(nodes, deadline)`` -> Outcome; ``done`` once it will never say more."""

    name = ""

    def __init__(self, pos: Position, memory: Memory):
        self.pos, self.memory = pos, memory
        self.done = False
        self.nodes = 0

    @staticmethod
    def applies(pos: Position) -> bool:
        return True

    def advance(self, nodes: int, deadline: float | None) -> Outcome:
        raise NotImplementedError

    def close(self) -> None:
        self.memory.release(self.name)


class _DfsEngine(Engine):
    """A complete depth-first search (search/dfs.py), resumable."""

    role = "dfs"
    proof = "exhausted"

    def params(self):
        return self.pos.p

    def __init__(self, pos, memory):
        super().__init__(pos, memory)
        from . import dfs

        self.kp = self.params()
        self.search = dfs.DfsSearch(pos.root, self.kp, dfs.buffers(self.role), INITIAL_TABLE)

    def advance(self, nodes, deadline):
        from . import dfs

        s = self.search
        before = s.nodes
        code, why = s.advance(nodes, deadline, self.memory.reserve_for(self.name))
        self.nodes += s.nodes - before
        out = Outcome("unknown", self.name, nodes=s.nodes, states=s.states, reason=why, max_depth=s.max_depth)
        if code == dfs.R_SOLVED:
            out.status, out.tokens = "solved", self.pos.tokens(s.path(), self.kp)
        elif code == dfs.R_EXHAUSTED and s.complete:
            out.status, out.proof = "unsolvable", self.proof
        if code is not None or why == "memory":
            self.done = True
        return out


class Dfs(_DfsEngine):
    """The classifier: the complete depth-first search with the proved cuts only."""

    name = "dfs"


class FastDfs(_DfsEngine):
    """Depth-first search with the unproved extra cut (movegen: aggressive): solutions only."""

    name = "fast-dfs"
    role = "fast-dfs"

    @staticmethod
    def applies(pos):
        return pos.prune

    def params(self):
        from ..state import kernel_params

        return kernel_params(self.pos.rules, auto=self.pos.auto, prune=True, heuristic=self.pos.heuristic,
                             aggressive=True, cuts=self.pos.cuts, dominance=True)


class Climb(Engine):
    """Enforced hill-climbing (search/ehc.py) with the unproved extra cut: solutions only.

    In ``rounds`` each advance is one climb with that budget (the first keeps
    the generator's order, later ones shuffle it); in ``phases`` the budget is
    split over up to 32 climbs of at least a few thousand nodes each.
    """

    name = "climb"

    @staticmethod
    def applies(pos):
        return pos.prune

    def __init__(self, pos, memory, split: bool = False):
        super().__init__(pos, memory)
        from .. import movegen as mg
        from ..state import kernel_params
        from .ehc import climb_stages

        self.kp = kernel_params(pos.rules, auto=pos.auto, prune=True, heuristic=pos.heuristic, aggressive=True,
                                cuts=pos.cuts)
        self.stages = climb_stages(self.kp)
        self.start = pos.root.copy()
        mg._auto(self.start, self.kp, np.zeros(256, np.int64))
        self.split = split
        self.attempt = 0
        self.rate = CLIMB_FIRST_RATE

    def _one(self, cap, deadline=None):
        from .ehc import climb_once

        if deadline is not None:
            # a climb reads no clock: under a deadline it gets the nodes that fit in the time
            # left at the rate the climbs have made so far (a --timeout is overrun by little)
            cap = max(1, min(cap, int((deadline - time.perf_counter()) * self.rate)))
        t = time.perf_counter()
        path, used = climb_once(self.start, self.kp, self.stages, cap, self.attempt)
        dt = time.perf_counter() - t
        if used >= 1000 and dt > 0:
            self.rate = used / dt
        self.attempt += 1
        self.nodes += used
        if path is not None:
            self.done = True
            return Outcome("solved", f"climb {self.attempt}", tokens=self.pos.tokens(path, self.kp),
                           nodes=used)
        return None

    def advance(self, nodes, deadline):
        from ..state import P_PASSES

        if not self.split:
            out = self._one(min(nodes, CLIMB_MAX_NODES) if nodes else CLIMB_MAX_NODES, deadline)
            if self.attempt >= CLIMB_ATTEMPTS:
                self.done = True
            return out or Outcome("unknown", self.name, reason="nodes")
        # phases: a climb needs a few thousand nodes to get anywhere (tens of thousands
        # under a pass limit, where its steps search longer): small budgets get fewer climbs
        least = 8_000 if self.kp[P_PASSES] > 0 else 2_000
        climbs = max(1, min(CLIMB_ATTEMPTS, nodes // least))
        used = 0
        for k in range(climbs):
            share = (nodes - used) // (climbs - k)
            if share <= 0:
                break
            before = self.nodes
            out = self._one(share, deadline)
            used += self.nodes - before
            if out is not None:
                return out
            if deadline is not None and time.perf_counter() > deadline:
                return Outcome("unknown", self.name, reason="time")
        self.done = True
        return Outcome("unknown", self.name, reason="nodes")


class WAStar(Engine):
    """Weighted A* (search/astar.py, weight 5) in games with every card face up: short solutions,
    and, since it keeps only the proved cuts, an exhausted open list is a proof.  Not
    resumable: it runs once, with the budget of its first advance (at most WASTAR_MAX_NODES)."""

    name = "wastar"

    @staticmethod
    def applies(pos):
        return pos.prune and pos.rules.face_down == "none"

    def advance(self, nodes, deadline):
        from . import astar

        cap = min(nodes, WASTAR_MAX_NODES) if nodes else WASTAR_MAX_NODES
        self.done = True  # one run: a second, bigger one would redo this one's work
        ap = astar.params_for(self.pos.rules, "moves", auto=self.pos.auto, prune=self.pos.prune)
        timeout = None if deadline is None else max(1e-6, deadline - time.perf_counter())
        r = astar.run(self.pos.root, ap, "moves", WASTAR_WEIGHT, max_nodes=cap, timeout=timeout,
                      max_memory=self.memory.limit - sum(self.memory.held.values()))
        self.nodes += r.nodes
        if r.path is not None:
            from ..solution import path_tokens

            self.done = True
            return Outcome("solved", self.name, tokens=path_tokens(self.pos.root, r.path, ap), nodes=r.nodes,
                           states=r.states)
        if r.code == astar.R_EXHAUSTED:
            self.done = True
            return Outcome("unsolvable", self.name, proof="exhausted", nodes=r.nodes, states=r.states)
        return Outcome("unknown", self.name, nodes=r.nodes, reason=r.reason or "nodes")


class Afree(Engine):
    """The arrangement-free engine (search/afree.py), resumable: games where runs move."""

    name = "afree"
    other_order = False  # True: search in afree.other_order, not the rules' own order

    @staticmethod
    def applies(pos):
        from . import afree

        return pos.prune and pos.auto and afree.applies(pos.rules)

    def __init__(self, pos, memory, rules=None, owner: str | None = None, concretise: bool = True):
        super().__init__(pos, memory)
        from . import afree

        if owner:
            self.name = owner
        game = rules or pos.rules
        self.search = afree.Search(game, pos.layout, order=afree.other_order(game) if self.other_order else None,
                                   concretise=concretise)
        if self.search.result is not None and self.search.result.status == "unknown":
            self.done = True  # not a position of the abstraction (a talon too long for the key...)

    def advance(self, nodes, deadline):
        s = self.search
        before = s.nodes
        r = s.advance(nodes, deadline=deadline, reserve=self.memory.reserve_for(self.name))
        self.nodes += s.nodes - before
        if r.status != "unknown" or r.reason not in ("nodes", "time"):
            self.done = True
        return Outcome(r.status, type(self).name, proof=r.proof, tokens=r.tokens, nodes=r.nodes,
                       states=r.states, reason=r.reason)


class AfreeOther(Afree):
    """The arrangement-free engine again, its children tried in the other order
    (``afree.other_order``): a move order only decides which solution a depth-first search
    meets first, and one that misses it can run for ever -- endless-harp deal 52066 stayed
    unknown at 1 000 000 000 nodes in the rules' own order and is solved in well under a
    second in the other (benchmarks/README, twelfth session).  Alone it searches the same
    graph as ``afree`` with a table of its own.  Not in the portfolio since the twenty-fifth
    session (``AfreeBoth`` runs both orders over one table); kept for the benchmarks' rows."""

    name = "afree-other"
    other_order = True


# The share of each advance of AfreeBoth that goes to the other move order: the 4 of the 16 + 4
# shares the two orders had as separate rows (benchmarks/README, twelfth session).
OTHER_SHARE = 0.2


class AfreeBoth(Engine):
    """The arrangement-free engine in both move orders at once, over one table: the rules' own
    order (``afree.default_order``) and the other (``afree.other_order``), which meets
    solutions the first misses (endless-harp deal 52066: unknown after 1 000 000 000 nodes in
    the first, solved in well under a second in the other; benchmarks/README, twelfth session).

    Each advance gives the other order OTHER_SHARE of the nodes, the first the rest (all of
    them once the other has ended).  They share one table (``afree.Table``): each skips the
    states it entered and those the other has finished, so a state's subtree is searched once,
    and when both have emptied their stacks every reachable state has been searched -- the proof
    is ``afree._dfs``'s, over their union.  As two separate rows (16 and 4 shares) the second
    order entered every state of an unsolvable deal a second time: a proof cost 1.25 times the
    reachable states.  On 50 klondike-3 deals of 1-20 M nodes the pair took 0.827 of the two
    rows' nodes (benchmarks/README, twenty-fifth session).

    A solution is reported under the name of the order that found it (``afree`` or
    ``afree-other``, as the two rows were), a proof under ``afree``."""

    name = "afree-both"
    applies = staticmethod(Afree.applies)

    def __init__(self, pos, memory):
        super().__init__(pos, memory)
        from . import afree

        rules = pos.rules
        self.final = None
        self.table = afree.Table(shared=True)  # (its words set by the first search)
        # (search, name); the other order's search is made at its first turn, as its row was: a
        # deal the first order decides in its first share never pays for a second search's set-up
        self.orders = [(afree.default_order(rules), Afree.name), (afree.other_order(rules), AfreeOther.name)]
        self.searches = []
        self._start(0)

    def _start(self, k):
        from . import afree

        order, name = self.orders[k]
        s = afree.Search(self.pos.rules, self.pos.layout, order=order, table=self.table)
        self.searches.append((s, name))
        if s.result is not None:
            # won at the root, or not a position of the abstraction (a talon too long for the key...)
            self.done = True
            if s.result.status == "solved":
                self.final = Outcome("solved", name, tokens=s.result.tokens)
            else:
                self.final = Outcome("unknown", self.name, reason=s.result.reason)

    def _share(self, k, nodes):
        """Order ``k``'s part of an advance of ``nodes`` (0: no limit): OTHER_SHARE for the other
        order, the rest for the first; all of it once the other order has ended."""
        if not nodes:
            return 0
        j = 1 - k
        if j < len(self.searches) and self.searches[j][0].result is not None:
            return nodes
        other = max(1, int(nodes * OTHER_SHARE))
        return other if k == 1 else nodes - other

    def advance(self, nodes, deadline):
        from . import afree

        if self.final is not None:
            return self.final
        reserve = self.memory.reserve_for(self.name)
        out = None
        for k in range(len(self.orders)):
            if k == len(self.searches):
                self._start(k)
                if self.final is not None:
                    return self.final
            s, name = self.searches[k]
            if s.result is not None:
                continue
            before = s.nodes
            r = s.advance(self._share(k, nodes), deadline=deadline, reserve=reserve)
            self.nodes += s.nodes - before
            if r.status == "solved" or (r.status == "unknown" and r.reason == "concretise"):
                self.done = True
                self.final = Outcome(r.status, name, tokens=r.tokens, nodes=self.nodes, states=self.states,
                                     reason=r.reason)
                return self.final
            out = r
            if deadline is not None and time.perf_counter() > deadline:
                break
        if len(self.searches) < len(self.orders):
            return Outcome("unknown", self.name, nodes=self.nodes, states=self.states, reason="time")
        ends = [s.result.reason if s.result is not None else None for s, _ in self.searches]
        if all(e == afree.SHARED_END for e in ends):
            self.done = True
            self.final = Outcome("unsolvable", Afree.name, proof=afree.PROOF, nodes=self.nodes, states=self.states)
            return self.final
        if all(e is not None for e in ends):
            # both ended, one without its stack emptied (the depth cut, memory): no proof
            self.done = True
            why = next(e for e in ends if e != afree.SHARED_END)
            self.final = Outcome("unknown", self.name, nodes=self.nodes, states=self.states, reason=why)
            return self.final
        return Outcome("unknown", self.name, nodes=self.nodes, states=self.states,
                       reason=out.reason if out is not None and out.reason in ("nodes", "time") else "nodes")

    @property
    def states(self) -> int:
        return int(self.table.fill[0])


class Rollout(Engine):
    """The sampling player (harpsolve/player.py, ``hop-action`` with its default settings) as
    a solution finder: each advance plays one game, with seeds 0, 1, 2..., the player seeing
    only what a person at the table sees.  A won game is a line of legal moves that wins: the
    solution, replayed by the solver like any other.  A lost game proves nothing, so the
    engine finds solutions only, and stops after ``ROLLOUT_GAMES`` games.

    Why a player that does not even see the face-down cards finds solutions the complete
    searches miss: it commits to a move at every turn and searches only small sampled worlds
    from there, so it never sinks its budget into one early subtree.  Of the 36 easy-harp
    deals of 1-2 000 the portfolio leaves unknown at 2 000 000 nodes, rollouts solved 16
    (benchmarks/README, twelfth session).

    Budget: a game stops before its next move once the player's world solves have used the
    slice's nodes (or the deadline has passed), so a slice is overrun by at most one
    decision's solves."""

    name = "rollout"

    def __init__(self, pos, memory):
        super().__init__(pos, memory)
        self.games = 0

    def advance(self, nodes, deadline):
        from ..player import PlaySettings, play

        cap = min(nodes, ROLLOUT_GAME_NODES) if nodes else ROLLOUT_GAME_NODES
        policy = PlaySettings("hop-action", seed=self.games).make_policy(self.pos.rules)  # the default player

        def stop():
            return policy.nodes >= cap or (deadline is not None and time.perf_counter() > deadline)

        record = play(self.pos.rules, self.pos.layout, policy, stop=stop)
        self.games += 1
        self.nodes += policy.nodes
        if record.won:
            self.done = True
            return Outcome("solved", f"rollout {self.games}", tokens=list(record.moves), nodes=policy.nodes)
        if self.games >= ROLLOUT_GAMES:
            self.done = True
        late = deadline is not None and time.perf_counter() > deadline
        return Outcome("unknown", self.name, reason="time" if late else "nodes")


class _RunByRun(Engine):
    """An engine that is a sequence of fresh searches ("runs"), each with a node cap, resumable
    run by run: ``_next`` starts the next run (``self.cur`` = (name, kernel vector, cap,
    search); False when none is left), ``_verdict`` says what a run's (code, why) means."""

    def __init__(self, pos, memory):
        super().__init__(pos, memory)
        self.cur = None

    def _next(self) -> bool:
        raise NotImplementedError

    def _verdict(self, code, why) -> Outcome | None:
        """The Outcome that ends the engine (``done`` set), or None to go on."""
        raise NotImplementedError

    def advance(self, nodes, deadline):
        used = 0
        while not nodes or used < nodes:
            if self.cur is None and not self._next():
                self.done = True
                break
            _, _, cap, s = self.cur
            left = cap - s.nodes
            step = left if not nodes else min(left, nodes - used)
            before = s.nodes
            code, why = s.advance(step, deadline, self.memory.reserve_for(self.name))
            used += s.nodes - before
            self.nodes += s.nodes - before
            out = self._verdict(code, why)
            if out is not None or self.done:
                return out or Outcome("unknown", self.name, reason="nodes")
            if why == "time":
                return Outcome("unknown", self.name, reason="time")
            if code is not None or why == "memory" or s.nodes >= cap:
                self.cur = None  # this run is over: the next one
        return Outcome("unknown", self.name, reason="nodes")


class Restarts(_RunByRun):
    """The restart portfolio (search/restarts.py), resumable run by run: rounds of ten move
    orders (plain and streamlined) with doubling budgets, each a fresh depth-first search."""

    name = "restarts"
    applies = staticmethod(_with_cuts)

    def __init__(self, pos, memory):
        super().__init__(pos, memory)
        from . import restarts

        self.runs = restarts.Runs()
        self.streamlined = False  # the current run's

    def _next(self):
        from . import dfs, restarts

        try:
            level, k, streamlined, cap = next(self.runs)
        except StopIteration:  # no configuration left (every one streamlined, and dropped)
            return False
        p = restarts.run_params(self.pos.rules, k, level, streamlined=streamlined, cuts=self.pos.cuts)
        self.streamlined = streamlined
        self.cur = (f"restarts {'s' if streamlined else 'r'}{level}.{k}", p, cap,
                    dfs.DfsSearch(self.pos.root, p, dfs.buffers("restarts"), restarts.INITIAL_TABLE))
        return True

    def _verdict(self, code, why):
        from . import dfs

        name, p, _, s = self.cur
        if code == dfs.R_SOLVED:
            self.done = True
            return Outcome("solved", name, tokens=self.pos.tokens(s.path(), p), nodes=s.nodes,
                           states=s.states, max_depth=s.max_depth)
        if code == dfs.R_EXHAUSTED and s.complete and not self.streamlined:
            self.done = True
            return Outcome("unsolvable", name, proof="exhausted", nodes=s.nodes, states=s.states)
        if code == dfs.R_EXHAUSTED and s.complete:
            self.runs.drop_streamlined()  # the streamlined graph is exhausted: no win in it
        return None


class Beam(_RunByRun):
    """Beam searches (search/beam.py), resumable run by run: the game's weight sets
    (``beam.runs_for``) in turn, the width growing fourfold every round; solutions only (a
    beam drops lines).  ``self.game`` is the position the current run searches: ``pos``
    itself here, a stronger game's in BeamStronger."""

    name = "beam"
    applies = staticmethod(_with_cuts)

    def __init__(self, pos, memory):
        from . import beam

        super().__init__(pos, memory)
        self.game = pos
        self.runs = beam.runs_for(pos.rules)

    def _next(self):
        width, ws, rnd = next(self.runs)
        self._start(width, ws, rnd)
        return True

    def _start(self, width, ws, rnd):
        from . import beam

        g = self.game
        s = beam.new_run(g.rules, g.root, width, ws, rnd, cuts=g.cuts)
        self.cur = (f"{self.name} w{width}.{ws}", s.p, beam.RUN_NODES * width, s)

    def _verdict(self, status, why):
        name, p, _, s = self.cur
        if status == "solved":
            self.done = True
            # A beam's line has no loop and no detour to cut: every child the beam makes is
            # entered in its table when made (won ones end the search first), and a position
            # already there is never kept again.  So no position of the line is a child of an
            # earlier one but the next: one move from position i to position j > i + 1 would
            # have made j's position at depth i + 1, and j could not have been kept at depth j.
            # (tests/test_beam.py checks that the shortcut leaves beam lines alone.)
            return Outcome("solved", name, tokens=self.game.tokens(s.line(), p, cut=False), nodes=s.nodes,
                           states=s.states, max_depth=s.depth)
        if why == "empty" and not s.dropped:
            # every line ended and none was left out: the beam made every reachable position,
            # and so would every wider one (solutions only: still no verdict)
            self._exhausted()
        return None

    def _exhausted(self):
        self.done = True


class BeamStronger(Beam):
    """The Beam engine's runs over stronger games (``beam.stronger_games``: the pass limits of
    the family where the real game has none), whose lines are lines of the real game: a win
    found in one is returned as its tokens, which the solver replays in the real game's
    reference engine like every solution.  Each (width, weight set) of the runs is run in each
    game in turn.  Solutions only; the engine it decided with names the game
    (``beam-stronger w4096.9 in endless-harp[passes=3]``)."""

    name = "beam-stronger"

    @staticmethod
    def applies(pos):
        from . import beam

        return _with_cuts(pos) and bool(beam.stronger_games(pos.rules))

    def __init__(self, pos, memory):
        from . import beam

        super().__init__(pos, memory)
        # the same layout and switches, packed and searched under each stronger game's rules:
        # the root, the runs' kernel vectors and the tokens of a found line are all that game's
        self.games = [Position(g, pos.layout, heuristic=pos.heuristic, auto=pos.auto, prune=pos.prune,
                               cuts=pos.cuts, shortcut=pos.shortcut) for g in beam.stronger_games(pos.rules)]
        # the stronger games differ in their pass limit only, so their runs are the same ones
        # (beam.runs_for reads draw and whether there is a limit)
        self.runs = beam.runs_for(self.games[0].rules)
        self.queue = []

    def _next(self):
        if not self.queue:
            width, ws, rnd = next(self.runs)
            self.queue = [(g, width, ws, rnd) for g in self.games]
        self.game, width, ws, rnd = self.queue.pop(0)
        self._start(width, ws, rnd)
        return True

    def _verdict(self, status, why):
        out = super()._verdict(status, why)
        if out is not None:
            out.engine = f"{out.engine} in {self.game.rules.label}"
        return out

    def _exhausted(self):
        # this game's beam made every position it reaches without a win: no wider beam of it
        # can win; the other games go on
        self.games.remove(self.game)
        self.queue = [q for q in self.queue if q[0] is not self.game]
        self.done = not self.games


class _RootTest(Engine):
    """A proof test at the root, in one node: ``test`` gives the proof's text or None (it
    proves nothing, and the row is done either way)."""

    no = ""                 # the reason of an ``unknown`` outcome

    def test(self) -> str | None:
        raise NotImplementedError

    def advance(self, nodes, deadline):
        self.done = True
        self.nodes = 1
        proof = self.test()
        if proof is not None:
            return Outcome("unsolvable", self.name, proof=proof, nodes=1)
        return Outcome("unknown", self.name, reason=self.no)


class DeadEnd(_RootTest):
    """The delete-relaxation dead-end test at the root (search/relax.py, proof there): linear
    time, one node; a card that can never reach its foundation proves the deal unsolvable."""

    name = "dead-end"
    no = "no dead end"
    applies = staticmethod(_with_cuts)

    def test(self):
        from . import relax

        card = relax.dead_end(self.pos.rules, self.pos.layout, self.pos.root)
        return None if card is None else f"dead end: {card}"


class Lock(_RootTest):
    """The lock test at the root (search/lock.py, proof there): cards that can leave their
    column only for a foundation that can never reach them; a fraction of a millisecond, one
    node.  Applies where the test's argument holds (``lock.applies``: empty columns for kings
    only, no cells)."""

    name = "lock"
    no = "no lock"

    @staticmethod
    def applies(pos):
        from . import lock

        return _with_cuts(pos) and lock.applies(pos.rules)

    def test(self):
        from .lock import lock

        return lock(self.pos.rules, self.pos.layout)


class Relax(Engine):
    """Proofs through weaker games (search/relax.py): a complete search of each weaker game
    that the arrangement-free engine searches, sharing each advance (``RelaxDfs``: the weaker
    games it does not apply to, by the depth-first search).  A weaker game that is won proves
    nothing and is dropped, with every weaker game of the row that includes it.

    Two rows because the two searches are worth very different shares: the arrangement-free
    engine often exhausts a weaker game far sooner than the real one (klondike-3 under draw 1,
    where the talon is a reserve: ``afree._wanted``), the depth-first search of a single-card
    game rarely exhausts anything."""

    name = "relax"
    by_afree = True
    applies = staticmethod(_with_cuts)

    def __init__(self, pos, memory):
        super().__init__(pos, memory)
        self.subs = None

    def _start(self):
        from . import afree, relax
        from ..state import kernel_params

        self.subs = []
        for k, row in enumerate(relax.relaxations(self.pos.rules)):
            game = row.relax(self.pos.rules)
            owner = f"relax {k}"
            if self.by_afree:
                # a won weaker game is dropped: no need to turn its win into real moves
                eng = Afree(self.pos, self.memory, rules=game, owner=owner, concretise=False)
                if eng.done:  # not a position it searches (afree.searches): the other row's
                    continue
            elif afree.searches(game, self.pos.layout):
                continue
            else:
                p = kernel_params(game, heuristic=self.pos.heuristic, dominance=True, cuts=self.pos.cuts)
                eng = _DfsSub(self.pos, self.memory, p, owner)
            self.subs.append((row, game, eng))

    def advance(self, nodes, deadline):
        from . import relax

        if self.subs is None:
            self._start()
        live = [s for s in self.subs if not s[2].done]
        for row, game, eng in live:
            before = eng.nodes
            out = eng.advance(max(1, nodes // len(live)) if nodes else 0, deadline)
            self.nodes += eng.nodes - before
            if out.status == "unsolvable":
                self.done = True
                return Outcome("unsolvable", f"relax ({out.engine})", proof=row.proof, nodes=out.nodes,
                               states=out.states)
            if out.status == "solved":
                eng.done = True
                for other in self.subs:  # a game that includes a won game is won too
                    if relax._includes(other[1], game):
                        other[2].done = True
            if deadline is not None and time.perf_counter() > deadline:
                break
        if all(s[2].done for s in self.subs):
            self.done = True
        return Outcome("unknown", self.name, reason="nodes")

    def close(self):
        for _, _, eng in self.subs or ():
            eng.close()


class RelaxDfs(Relax):
    """The weaker games the arrangement-free engine does not search (``Relax``)."""

    name = "relax-dfs"
    by_afree = False


class _DfsSub(_DfsEngine):
    """A complete depth-first search of a weaker game (Relax): its own buffers and owner name."""

    def __init__(self, pos, memory, p, owner):
        self.name = self.role = owner
        self._p = p
        super().__init__(pos, memory)

    def params(self):
        return self._p


ENGINES = {e.name: e for e in (DeadEnd, Lock, Dfs, FastDfs, Climb, WAStar, Afree, AfreeOther, AfreeBoth, Restarts, Beam,
                               BeamStronger, Relax, RelaxDfs, Rollout)}

# ---- the schedules -----------------------------------------------------------------------
# The portfolio (algorithm "portfolio", the default).  Rows whose engine does not apply to
# the rules are skipped, so one table serves every game: Baker's Game gets weighted A*,
# the run-moving games the arrangement-free engine, the single-card games the restarts.
# Shares measured: benchmarks/README.md, "The portfolio against the phases" (on the klondike-3
# deals the first portfolio left unknown at 500 000 nodes, the arrangement-free engine alone
# decided 20 of 30 at 2 000 000, with a share of 4 only 15: it gets the lion's share where it
# applies; the single-card games, where it does not, are unaffected by its share).
# The dead-end test comes first (one node); the weaker games after the engines that decide
# most deals in their first slices (the climb's first 1 000 nodes solve the median klondike-3
# deal: a relaxed game searched before it doubled that deal's time).  The weaker games the
# arrangement-free engine searches get 16 shares since it defers talon plays where the talon is
# a reserve (afree._wanted), which makes klondike-3 under draw 1 cheap to exhaust; measured
# side by side (sixth session, benchmarks/README.md): 55 hard klondike-3 deals (decided only
# at 20 000 000 nodes) mean 3.15 s a deal at 0.5 shares, 2.55 at 4, 2.09 at 8, 1.82 at 16;
# big-harp 1-60 at 500 000 nodes 36 unknown at 0.5, 4 and 8, 39 at 16 (its weaker games were
# mostly won, slowly, and took the budget from the engines that solve), so 8 then.  Since the
# weaker games that keep a pass limit are left out (relax.relaxations; big-harp's draw-1 game
# with its 3 passes was the slow one), fifteenth session: 51 hard klondike-3 deals mean 1.91 s
# at 8, 1.77 at 16; klondike-3 1-300 61 / 59 ms; big-harp 1-60 at 500 000 nodes 23 unknown
# either way; endless-harp 1-300 the same (bench_schedule.py --row relax --weights 8,16).
# The beam row (sixteenth session, bench_schedule.py --row beam --weights 0,16,64; first width
# 16 then): easy-harp 1-300 at 2 000 000 nodes 14 unknown without it, 1 at 16 and at 64, mean
# 0.248 / 0.069 / 0.065 s; 40 of the easy-harp deals the table left unknown: 40 / 3 / 3
# unknown; 47 unknown harp deals at 500 000: 24 / 2 / 2; klondike-3 1-300 the same within
# noise (3 / 4 / 3 unknown, mean nodes 45 899 / 43 559 / 49 444); endless-harp 1-200
# unchanged.  16, not 64: the single-card games gain a little more at 64 (harp mean 0.18 ->
# 0.13 s), the run-moving ones pay for it in nodes.  With the first width 4 (beam.py):
# easy-harp 1-300 14 unknown without the row, none at 16, mean 0.263 -> 0.060 s; klondike-3
# 1-300 3 / 4 unknown, mean nodes 45 899 / 43 183.  Then 16 / 32 / 64: klondike-3 1-300 mean
# nodes 43 183 / 45 141 / 49 958 (4 / 3 / 3 unknown, the same time); easy-harp 1-300 34 331 /
# 31 439 / 30 089, mean 0.057 / 0.050 / 0.045 s; harp 2 001-2 150 at 200 000 nodes 33 / 32
# unknown at 16 / 32, mean 0.168 / 0.144 s (0.155 / 0.115 at 16 / 64 in another run): 32.
# The climb comes first where runs move, after the restarts in the single-card games
# (seventeenth session): it solves the median klondike-3 deal in its first slice, but the
# median easy-harp deal is solved by the restarts' first slice, and the climb before them cost
# it a millisecond: easy-harp 1-300 median 4.4 / 3.9 ms, mean 28 / 26 ms with it first / left
# out (bench_schedule.py --row climb --weights 1,0); harp 2 001-2 150 at 200 000 nodes 32 / 31
# unknown, mean 0.067 / 0.065 s; bakers-game 1-300 mean 0.013 / 0.014 s.  Left out, though,
# it leaves a deal in a thousand to the others for millions of nodes (easy-harp 615: the climb
# solves it in 597 nodes, the restarts in 2 533 244), so it stays, after the restarts.
# Since the beams (twentieth session) the single-card games do without it: the deals it won
# the beams win soon after (easy-harp 615: beam w64.2 in 0.19 s), and its share cost every
# deal that reached it.  bench_schedule.py --row climb --weights 1,0 --max-nodes 2000000,
# sweeps stopped: easy-harp 1-4 000 every 4th total 10.0 / 9.7 s, 5 001-9 000 every 4th 9.3 /
# 9.0 s, none unknown; harp 1-30 000 every 100th 13.6 / 13.4 s, 1 / 1 unknown; bakers-game
# 1-100 000 every 250th 4.5 / 4.5 s.
# The beam only in the single-card games (seventeenth session, bench_schedule.py --row beam
# --weights 32,0, the sweeps paused): where runs move it takes nodes from the arrangement-free
# engine and decides less: klondike-3 1-1000 at 2 000 000 nodes 15 / 11 unknown with / without
# it (the sixteenth session had measured 1-300 only, 3 / 4), klondike-1 1-300 1 / 0, big-harp
# 1-60 at 500 000 nodes 26 / 23; endless-harp 1-300 the same.
# In the single-card games with a pass limit (harp) the beam gets four times the share
# (eighteenth session, bench_schedule.py harp --row beam --weights 32,128 --max-nodes 2000000,
# the sweeps running beside it): deals 1-300 every 3rd 4 / 2 unknown, mean 0.225 / 0.190 s,
# median 0.070 / 0.054 s; 40 001-41 500 every 25th 2 / 1 unknown, mean 0.132 / 0.110 s
# (512: 1, 0.106 s); 33 deals of 40 001-100 000 unknown at 200 000 nodes 4 / 4 unknown, mean
# 0.586 / 0.489 s.  There the beam wins what the others miss once it is wide enough: the same
# 33 deals, beams alone at 8 000 000 nodes (algorithm "beam"), none unknown, mean 0.52 s.
# Where runs move and passes are limited (big-harp), a beam row all the same, but only its
# first widths (eighteenth session, engine.run with the row's share and total side by side,
# as bench_schedule.py --row beam --weights 0,32/0,32 does, sweeps running beside it;
# benchmarks/README.md): the small beams win deals the arrangement-free engine misses for
# millions of nodes (60101: beam w4.2 in 0.06 s, unknown at 2 000 000 without it), the big
# ones take its nodes and lose others.  Unknown without the row / with it at share 32 and
# no total / share 32 and 480 000 nodes in all: deals 60 001-61 200 (every 20th) at
# 2 000 000 nodes 7 / 10 / 5 (share 128: 11; the union of with and without: 2); 31 deals of
# 60 001-70 000 unknown at 20 000 nodes, at 2 000 000: 4 / - / 3; 50 001-51 200 at 600 000
# nodes 17 / 15 / 15; 1-60 at 600 000 22 / 22 / 22; median times 0.19-0.31 s -> 0.15-0.19 s.
# At 200 000 nodes, though, where it halves the arrangement-free engine's share, it is no
# gain: 37 deals of 40 000-50 000 unknown at 20 000 nodes 25 / - / 18, but 61 of 60 001-70 000
# 27 / - / 29, and a sweep of 37 256-41 658 solved 40 % of its unknown deals against 42-44 %
# on 2 001-37 255 without the row.  It was kept for the bigger budgets (480 000 nodes: widths
# 4 and 16 of each weight set) until the next paragraph replaced it.
# With beams kept apart by stock signature (nineteenth session, search/beam.py STOCK_CAP) the
# row where runs move under a pass limit is whole and has harp's share, one row for both:
# bench_schedule.py big-harp --row beam --weights 0,32/480000,32/0,128/0 --deals 60001-61200
# --every 20 --max-nodes 2000000, the sweeps running beside it: 7 / 1 / 1 / 2 unknown, mean
# 0.652 / 0.300 / 0.292 / 0.204 s, median 0.300 / 0.097 / 0.097 / 0.058 s; the same on
# 80 001-82 000 every 25th at 200 000 nodes: 41 / 30 / 30 / 30 unknown, mean 0.153 / 0.118 /
# 0.117 / 0.104 s (and 32/480000 / 128 / 512 / 2048 in another run: 30 / 30 / 32 / 32, mean
# 0.104 / 0.093 / 0.086 / 0.082 s).  With draw 3's own weight sets and the beams' first set
# (beam.py STOCK_SETS, SETS), 128 / 512 / 2048: big-harp 80 001-82 000 every 25th at 200 000
# nodes 18 / 15 / 15 unknown, mean 0.070 / 0.065 / 0.064 s; at 2 000 000 nodes 60 001-61 200
# every 20th 0 / 0 unknown, mean 0.112 / 0.096 s; harp 10 001-10 600 every 6th 0 / 0,
# mean 0.082 / 0.075 s, median 0.022 s both: 512.
# Under a pass limit that row comes before the restarts (twentieth session): a round's rows
# run in order, so every deal paid the restarts' first share (4 000 nodes at ~2.3 us, their
# ordering of every child) before a beam (~0.45 us a child) began, and beams win most of
# these deals.  /tmp A/B script, the same deals solved with the row after / before the
# restarts, sweeps paused: harp 1-300 every 2nd mean 66.3 / 55.0 ms, median 25.7 / 13.7 ms,
# 1 / 1 unknown; 10 001-10 600 every 4th 61.9 / 51.1 ms; big-harp 60 001-60 300 every 2nd
# 91.9 / 81.5 ms, median 47.3 / 36.5 ms, 1 / 1 unknown; 80 001-82 000 every 20th 85.2 /
# 74.1 ms.  Before the arrangement-free engine too it was faster still (73.3, 69.2 ms) but
# left 3 deals of 60 001-60 300 unknown instead of 1; in easy-harp the single-card row first
# costs more (1-2 000 every 4th mean 10.6 / 12.9 ms): there the restarts win 4 deals in 5 in
# a few thousand nodes.
# Where only single cards move, the proof rows through weaker games wait for round 2
# (twenty-first session): there they almost never conclude -- 2 of the 741 000 easy-harp and
# harp deals of the tables were proved by them (easy-harp and harp 89723, after 304 000 and
# 716 000 nodes), none of bakers-game's 249 889 -- yet every deal the first rounds decide
# paid their first shares.  A row that waits only starts later: what it concludes, it still
# concludes.  /tmp A/B script, the same deals solved in two processes alternately, the sweeps
# running beside it: easy-harp 1-1 200 mean 16.43 / 15.99 ms, median 2.97 / 2.93 ms (0.97),
# none unknown; harp 1-600 every 2nd 81.3 / 80.0 ms, 1 / 1 unknown; bakers-game 1-6 000
# every 20th 18.49 / 18.45 ms; the same statuses.  Where runs move (klondike-3: Blake &
# Gent's weaker-game proofs) they run from the first round.
# Where runs move without a pass limit the weaker games get 48 shares, not 16 (twenty-second
# session, benchmarks/bench_portfolio_sim.py collect-rows / replay-rows: every row alone,
# replayed through the rounds, costs in seconds at each row's own rate; benchmarks/README.md).
# klondike-3 1-3 000 and 50 001-56 000 every 6th (1 500 deals) at 2 000 000 nodes, relative
# to 16: 24 0.977, 32 0.965, 48 0.956, 64 0.955, unknown 16 -> 14; 21 klondike-3 deals the
# first pass left unknown (decided at 20 000 000 nodes), at 20 000 000: 32 0.987, 48 0.958;
# endless-harp 1-3 000 every 6th 1.000 (its weaker game is won at once); klondike-1 has none.
# Where the draw-1 game is won the row ends soon whatever its share; where it is lost it is
# the cheaper proof (the talon a reserve: afree._wanted), and it gets there sooner.  Under a
# pass limit (big-harp) 16, as measured before.
# Where runs move the restarts stop for good after RUNS_RESTARTS_TOTAL nodes (twenty-fourth
# session).  There they win only small deals, early: in the replay of every row alone
# (bench_portfolio_sim.py replay-rows, 2 000 000 nodes) the deals they decide are the same with a
# total of 50 000 or 100 000 -- klondike-3 1 500 deals (37 of them by the restarts), klondike-1
# 500 (4), big-harp 200 (none) -- while on the hard deals their share only delays the
# arrangement-free engine: 37 klondike-3 deals decided in 2-10 M nodes at 20 000 000
# (bench_schedule.py klondike-3 --row restarts --weights 4/0,4/100000, the sweeps running beside
# it) mean 6.40 -> 5.97 s, mean nodes 4.53 -> 4.12 M, the same engines deciding.  The
# single-card games keep them whole: there they are the main solution finder.
RUNS_RESTARTS_TOTAL = 100_000
# Where runs move under a pass limit (big-harp) the beams stop for good after RUNS_BEAM_TOTAL
# nodes and leave the rest of the budget to the arrangement-free engine (twenty-sixth session).
# The beams win nearly every deal there, most at width 16 in tens of thousands of nodes, and
# keep doing so up to width 256 (about 6 000 000 nodes: widths 16 and 64 of the three
# STOCK_SETS, then width 256 of sets 8 and 9); past that, on the deals still open, the
# arrangement-free engine wins where wider beams do not -- alone at 20 000 000 nodes it won 9
# of 10 big-harp deals that the portfolio at 2 000 000 and beams alone at 10 000 000 had left
# unknown, in 0.26-5.9 M nodes.  bench_schedule.py big-harp --row beam --weights
# 512/0,512/T --max-nodes 10000000 (the sweeps partly paused), unknown by total T (0: none):
# 35 deals the 10 000 000-node beams left unknown (every third of 100 001-185 386): 0: 31,
# 2 M: 15, 4 M: 16, 6 M: 18 (a proof among them: 124691, arrangement-free exhaustion); 36
# deals the beams won at 2-10 M nodes (every 20th of 100 001-178 061): 0: 0, 2 M: 6, 4 M: 2,
# 6 M: 0, 8 M: 0, mean 2.22 / 3.58 / 2.30 / 2.27 / 2.39 s.  The deals before need no more
# than the first widths: the total changes nothing for them.  The single-card games with a
# pass limit (harp) have no arrangement-free engine: their beams go on.
RUNS_BEAM_TOTAL = 6_000_000
# The arrangement-free engine's two move orders are one row over one table since the
# twenty-fifth session (AfreeBoth): their 16 and 4 shares as before, 20 in all, split by
# OTHER_SHARE within each advance.
# Where runs move under a pass limit (big-harp) the beam row comes before the arrangement-free
# engine since the fortieth session, when its losing runs began to end as they stall
# (beam.STALL_DEPTHS): the median deal, won by the first beam of 16, no longer pays the
# engine's first 20 000 states.  /tmp A/B script, the same deals solved in turn under both
# orders at 20 000 000 nodes, a sweep beside it: big-harp 7-100 000 every 250th (400 deals)
# mean 101.8 -> 98.6 ms, median 29.7 -> 23.4 ms, none unknown; 92 hard deals (32 that the
# arrangement-free engine had won after millions of nodes or left unknown, 60 won in over a
# second) mean 4.03 -> 3.94 s, median 1.65 -> 1.40 s, 5 / 5 unknown and the same deals
# decided.  benchmarks/bench_ab.py big-harp 1-50000/25 and 50001-100000/25 (2 000 deals
# each, the two side by side, the sweeps paused), 20 000 000 nodes, against the stall rule
# alone: mean 84.41 -> 76.77 ms (0.910) and 68.65 -> 62.04 ms (0.904), median 27.7 -> 15.6 and
# 27.4 -> 15.5 ms, the same 2 and 0 unknown.  (Before the stall rule the same order left 3
# deals of 60 001-60 300 unknown instead of 1 at 2 000 000 nodes, twentieth session, and gave
# 0.976 of the mean on 200 deals.)
# The lock test (search/lock.py) waits for round 1: it fires on few deals (endless-harp 35423,
# lost, unknown after a billion nodes of search), and the deals decided in the first round's
# slices -- most of them -- do not pay its fraction of a millisecond.
PORTFOLIO = Schedule("portfolio", "rounds", (
    Entry("dead-end", PROOFS, 0.0, 1),
    Entry("lock", PROOFS, 0.0, 1, first_round=1),
    Entry("wastar", BOTH, 0.0, WASTAR_MAX_NODES),
    Entry("climb", SOLUTIONS, 1.0, column_moves="runs"),
    Entry("beam", SOLUTIONS, 512.0, column_moves="runs", passes="limited", total=RUNS_BEAM_TOTAL),
    Entry("afree-both", BOTH, 20.0),
    Entry("beam", SOLUTIONS, 512.0, column_moves="single", passes="limited"),
    Entry("restarts", BOTH, 4.0, column_moves="single"),
    Entry("restarts", BOTH, 4.0, column_moves="runs", total=RUNS_RESTARTS_TOTAL),
    Entry("beam", SOLUTIONS, 32.0, column_moves="single", passes="unlimited"),
    Entry("relax", PROOFS, 48.0, column_moves="runs", passes="unlimited"),
    Entry("relax", PROOFS, 16.0, column_moves="runs", passes="limited"),
    Entry("relax", PROOFS, 16.0, column_moves="single", first_round=2),
    Entry("relax-dfs", PROOFS, 0.5, column_moves="runs"),
    Entry("relax-dfs", PROOFS, 0.5, column_moves="single", first_round=2),
    Entry("dfs", BOTH, 1.0),
))
# The first sessions' schedule, as data: weighted A* (face-up games), hill-climbing and the
# depth-first search with the unproved cut, then the complete search with what is left.
CLIMB = Schedule("climb", "phases", (
    Entry("wastar", BOTH, 0.2, 300_000),
    Entry("climb", SOLUTIONS, 0.4, 1_000_000),
    Entry("fast-dfs", SOLUTIONS, 0.4, 2_000_000),
    Entry("dfs", BOTH, 1.0),
))
DFS = Schedule("dfs", "phases", (Entry("dfs", BOTH, 1.0),))
# Rollouts (algorithm "rollout"): one game of the sampling player a round, each of at most
# ROLLOUT_GAME_NODES solver nodes (an easy-harp game uses 0.4-1.6 M), up to ROLLOUT_GAMES
# games; solutions only.  Not in the portfolio: a game costs seconds, so it is a setting for
# retrying the deals the portfolio leaves unknown (``sweep --algorithm rollout``).
ROLLOUT = Schedule("rollout", "rounds", (Entry("rollout", SOLUTIONS, 0.0, ROLLOUT_GAME_NODES),))
# Beam searches alone (algorithm "beam"), in every game and to every width: the dead-end and
# lock tests, then the Beam engine's runs; solutions only.  Not the default: where runs move, beams past
# the first widths take the arrangement-free engine's nodes and decide less (PORTFOLIO), but
# as a retry of the deals the portfolio leaves unknown they find what it misses: on the 98
# endless-harp deals of 1-999 999 that the portfolio left unknown at 2 000 000 nodes, beams
# of widths 16-4 096 won 71 (benchmarks/bench_beam.py, eighteenth session).
# Where the stock has no pass limit, a second row runs the same beams in stronger games, the
# game with the family's pass limits (``beam-stronger``: beam.stronger_games), an equal share
# from the sixth round (round 5) on: the deals won in the first rounds (most of them, by beams
# of 4 and 16) do not pay for it.  Forty-second session, `benchmarks/bench_ab.py V
# 1-100000/500 --a cd104f3 --b . --algorithm beam --max-nodes 20000000` (200 deals; the
# nodes, as the times were taken beside a sweep): with the 3-pass game alone, endless-harp
# mean nodes 8 521 -> 10 137 with the row from round 0 (median 2.5 -> 3.9 ms), 7 246 from
# round 3, 7 561 from round 5, 8 521 from round 7 (never reached) -- the stronger game wins
# some deals sooner; with the 3- and 4-pass games, from round 3 / 4 / 5: endless-harp 7 052 /
# 7 087 / 7 563, easy-harp 18 301 -> 23 250 / 21 349 / 19 716.  On the 40 endless-harp deals
# its own beams had won at 2-37 M nodes (an unfair sample: chosen by the old schedule's wins;
# the 3-pass game from round 3) mean 1.25, and 560406 (won at 36 M before) unknown at 40 M:
# the row halves the own beams' share.  What it buys is the deals their own beams lose
# (beam.STRONGER_PASSES): endless-harp 90511, easy-harp 110376, 150333, 238854 and 327018.
BEAM = Schedule("beam", "rounds", (Entry("dead-end", PROOFS, 0.0, 1), Entry("lock", PROOFS, 0.0, 1),
                                   Entry("beam", SOLUTIONS, 1.0),
                                   Entry("beam-stronger", SOLUTIONS, 1.0, first_round=5)))
SCHEDULES = {s.name: s for s in (PORTFOLIO, CLIMB, DFS, ROLLOUT, BEAM)}


def _allowed(entry: Entry, status: str) -> bool:
    return (status == "solved" and entry.concludes in (SOLUTIONS, BOTH)) or (
        status == "unsolvable" and entry.concludes in (PROOFS, BOTH))


def run(pos: Position, schedule: Schedule, *, max_nodes: int = 0, deadline: float | None = None,
        max_memory: int = 1 << 30) -> Outcome:
    """Play ``schedule`` on ``pos`` until an engine decides or the budget runs out."""
    memory = Memory(max_memory)
    # Each row's engine is made at the row's first turn, not before: a solve that ends in the
    # first rounds never pays for the tables and root searches of the rows it did not reach
    # (easy-harp's weaker-game rows wait for round 2).  An engine that is done when made (not
    # a position of its abstraction...) is skipped at that turn, as it was when made up front.
    rows = [[e, None] for e in schedule.entries if e.applies(pos)]

    def engine_of(row):
        if row[1] is None:
            cls = ENGINES[row[0].engine]
            row[1] = cls(pos, memory, split=True) if cls is Climb and schedule.mode == "phases" else cls(pos, memory)
        return row[1]

    total = 0
    reason = ""
    try:
        if schedule.mode == "phases":
            for i, row in enumerate(rows):
                e, eng = row[0], engine_of(row)
                left = max_nodes - total if max_nodes else 0
                if max_nodes and left <= 0:
                    return Outcome("unknown", reason="nodes", nodes=total)
                last = i == len(rows) - 1
                cap = left if last else int(e.weight * left) if max_nodes else 0
                if e.cap:
                    cap = min(cap, e.cap) if cap else e.cap
                out = eng.advance(cap, deadline)
                total += eng.nodes
                if out.status != "unknown" and _allowed(e, out.status):
                    out.nodes = total
                    return out
                if deadline is not None and time.perf_counter() > deadline:
                    return Outcome("unknown", reason="time", nodes=total)
                reason = out.reason if last else reason
            return Outcome("unknown", reason=reason or "nodes", nodes=total,
                           states=rows[-1][1].search.states if rows and hasattr(rows[-1][1], "search") else 0)
        rnd = 0
        while any(eng is None or not eng.done for _, eng in rows):
            for row in rows:
                e = row[0]
                if rnd < e.first_round or (row[1] is not None and row[1].done):
                    continue
                eng = engine_of(row)
                if eng.done:
                    continue
                # a row with a cap runs once with it (an engine that is not resumable and
                # does best with one big run); the others get the round's share
                share = e.cap if e.cap else int(e.weight * BASE_SLICE) << rnd
                if e.total:
                    share = min(share, e.total - eng.nodes)
                if max_nodes:
                    share = min(share, max_nodes - total)
                    if share <= 0:
                        return Outcome("unknown", reason="nodes", nodes=total)
                before = eng.nodes
                out = eng.advance(share, deadline)
                total += eng.nodes - before
                if out.status != "unknown":
                    if _allowed(e, out.status):
                        out.nodes = total
                        return out
                    eng.done = True
                elif out.reason and out.reason not in ("nodes", "time"):
                    reason = out.reason  # an engine that gave up: "memory", "depth"...
                if e.total and eng.nodes >= e.total and not eng.done:
                    eng.done = True  # the row's nodes are spent, its search not: no verdict
                    reason = reason or "nodes"
                if deadline is not None and time.perf_counter() > deadline:
                    return Outcome("unknown", reason="time", nodes=total)
            rnd += 1
        return Outcome("unknown", reason=reason or "exhausted without a proof", nodes=total)
    finally:
        for _, eng in rows:
            if eng is not None:
                eng.close()


def warm_up(pos: Position, schedule: Schedule, nodes: int = 20_000) -> None:
    """Load (or compile) the kernels of every engine ``schedule`` would run on ``pos``: enough
    nodes of each that its table grows once (the rehash kernel loads then), so that no timed
    solve -- and no --timeout -- pays for it."""
    memory = Memory(1 << 30)
    for e in schedule.entries:
        if e.applies(pos):
            eng = ENGINES[e.engine](pos, memory)
            try:
                eng.advance(nodes, None)
            finally:
                eng.close()
