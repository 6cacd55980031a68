"""Playing without peeking: information-set play.

Every rate the solver publishes is *thoughtful*: it sees the face-down cards
and the stock order (SPEC §4).  A player at the table does not.  This module
plays a game the way that player must, in three parts kept apart on purpose:

* :class:`Table`, the referee.  It alone holds the true position (a
  reference-engine :class:`~harpsolve.reference.Game`), applies moves (the
  reference engine says what is legal) and reveals cards.  It hands out
  :class:`Observation` objects and nothing else.
* :func:`observe`, the player's knowledge: the true position and what has
  been revealed so far -> the position with every card the player has not
  seen replaced by :data:`UNSEEN`, and the multiset of those cards.
* the policies (:class:`RulesPolicy`, :class:`HopPolicy`): ``choose(obs)``
  reads an observation and returns a move.  They never receive a ``Table``
  or a ``Game`` of the real position, so they cannot peek; the tests check
  it (two deals that differ only in unseen cards get the same moves).

What the player has seen (the SPEC's rules for what is in view):

* every face-up card, the waste, the free cells and the foundations;
* every stock card it has seen drawn: a card turned onto the waste stays
  known when the waste goes back into the stock (``w>s`` keeps the order),
  so with unlimited passes it knows the whole stock after one pass; with
  draw 3 it has seen exactly the cards turned (all three of a draw go face
  up on the waste);
* a face-down card is unseen until it turns face up.

A layout given as a file may start mid-game (pass 2, a waste): its waste is
in view, its stock counts as unseen (the player did not see its history).

>>> from harpsolve.rules import get_rules
>>> from harpsolve.deals import deal_layout
>>> rules = get_rules("easy-harp")
>>> table = Table(rules, deal_layout(rules, 5))
>>> obs = table.observation()
>>> len(obs.unseen), obs.layout.columns[1][0] == UNSEEN   # 36 face-down + 59 stock cards
(95, True)
>>> table.play("s>w"); len(table.observation().unseen)
94
"""
from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field, replace

from .cards import N_KINDS, deck, rank_of, suit_of
from .layout import Layout
from .reference import (CELL_TO_FOUNDATION, COLUMN_TO_CELL, COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION, DRAW,
                        RECYCLE, TAKE_BACK, WASTE_TO_COLUMN, WASTE_TO_FOUNDATION, Game, Move, parse_move)
from .rules import Rules, builds_on

UNSEEN = -1  # a card the player has not seen, in an observation's layout

KING = 13


# ---- knowledge ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Observation:
    """What the player sees: ``layout`` is the position with :data:`UNSEEN` in
    every slot holding a card not yet seen (face-down cards, stock cards never
    drawn); ``unseen`` is the sorted multiset of those cards, which the player
    knows as the full deck less every card in view."""

    rules: Rules
    layout: Layout
    unseen: tuple[int, ...]

    def flat(self) -> list[int]:
        return _flat(self.layout)

    def complete(self, cards) -> Layout:
        """The position with the unseen slots filled by ``cards`` in slot order
        (columns left to right, bottom to top, then the stock first drawn first)."""
        it = iter(cards)
        return _unflat(self.layout, [next(it) if c == UNSEEN else c for c in self.flat()])

    def sample(self, rng: random.Random) -> Layout:
        """One completion drawn uniformly: the unseen cards shuffled into the unseen slots."""
        cards = list(self.unseen)
        rng.shuffle(cards)
        return self.complete(cards)

    def admits(self, layout: Layout) -> bool:
        """Does ``layout`` (a position of the same shape) agree with every card in view?"""
        return all(o == UNSEEN or o == c for o, c in zip(self.flat(), _flat(layout)))

    def placeholder(self) -> Game:
        """A game of one fixed completion (the unseen cards in sorted order).  Legality and
        the effect of a move on the cards in view do not depend on the unseen cards, so any
        completion answers those questions as the real position would."""
        return Game(self.rules, self.complete(self.unseen), check=False)

    def legal_moves(self) -> list[Move]:
        return self.placeholder().legal_moves()

    def key(self) -> tuple:
        """The position as the player sees it, in the reference engine's canonical form
        (unseen cards as UNSEEN): equal keys, the same position."""
        return Game(self.rules, self.layout, check=False, undo=False).key()

    def after(self, move: Move) -> "Observation":
        """What the player will see after ``move`` if it reveals nothing (then the answer is
        exact; after a move that reveals a card, the revealed card is a placeholder)."""
        game = self.placeholder()
        seen = _stock_seen(self.layout)
        game.apply(move)
        return observe(game, stock_seen_after(seen, move, len(game.stock)))

    @property
    def unseen_face_down(self) -> int:
        return sum(fd for fd in self.layout.face_down)

    @property
    def unseen_stock(self) -> int:
        return sum(c == UNSEEN for c in self.layout.stock)


def _wins(rules: Rules, layout: Layout, tokens: list[str]) -> bool:
    """Do ``tokens`` win ``layout`` (replayed in the reference engine)?"""
    from .reference import replay

    rep = replay(rules, layout, tokens)
    return rep.ok and rep.won


def _flat(layout: Layout) -> list[int]:
    """The cards of the slots a card can move through unseen or be revealed into, in slot
    order: the columns, the stock, the waste (always in view, but a draw reveals a card
    there).  Cells and foundations only ever hold cards that were in view."""
    return [c for col in layout.columns for c in col] + list(layout.stock) + list(layout.waste)


def _unflat(shape: Layout, cards: list[int]) -> Layout:
    cols, k = [], 0
    for col in shape.columns:
        cols.append(cards[k:k + len(col)])
        k += len(col)
    n = len(shape.stock)
    return replace(shape, columns=cols, face_down=list(shape.face_down), stock=cards[k:k + n],
                   waste=cards[k + n:], cells=list(shape.cells), foundations=list(shape.foundations))


def _stock_seen(layout: Layout) -> tuple[bool, ...]:
    return tuple(c != UNSEEN for c in layout.stock)


def stock_seen_after(stock_seen, move: Move, stock_left: int) -> tuple[bool, ...]:
    """Which stock cards the player has seen after ``move``: ``stock_seen`` holds one flag
    per stock card before it (the next drawn first), ``stock_left`` is the stock's size
    after it.  A draw turns the first cards (they leave the stock, seen, for the waste);
    ``w>s`` makes the waste, every card of it seen, the new stock."""
    if move.kind == DRAW:
        return tuple(stock_seen[len(stock_seen) - stock_left:])
    if move.kind == RECYCLE:
        return (True,) * stock_left
    return tuple(stock_seen)


_DECKS: dict = {}


def _full_deck(decks: int) -> Counter:
    """Every card of ``decks`` decks (one Counter per deck count, read only)."""
    if decks not in _DECKS:
        _DECKS[decks] = Counter(deck(decks))
    return _DECKS[decks]


def observe(game: Game, stock_seen) -> Observation:
    """The player's observation of the true position ``game``, given which stock cards it
    has seen (``stock_seen``, one flag per card of ``game.stock``).  Face-down cards and
    unseen stock cards become :data:`UNSEEN`; ``unseen`` is the full deck less every card in
    view (computed from the view alone, not read off the hidden cards)."""
    lay = game.to_layout()
    cols = [[UNSEEN if k < fd else c for k, c in enumerate(col)] for col, fd in zip(lay.columns, lay.face_down)]
    stock = [c if seen else UNSEEN for c, seen in zip(lay.stock, stock_seen)]
    view = replace(lay, columns=cols, stock=stock)
    in_view = view.all_cards()
    in_view.pop(UNSEEN, None)
    unseen = _full_deck(game.rules.decks) - in_view
    return Observation(game.rules, view, tuple(sorted(unseen.elements())))


# ---- the referee -----------------------------------------------------------------------------
class Table:
    """The referee: the true position, the moves played, and what has been revealed.

    Policies never get this object: the play loop (:func:`play`) hands them
    :meth:`observation` only.  Moves are checked and applied by the reference
    engine, so a move the rules refuse raises :class:`~harpsolve.reference.MoveError`.
    """

    def __init__(self, rules: Rules, layout: Layout):
        self._game = Game(rules, layout, undo=False)
        # a layout's stock is unseen at the start, whatever its pass number (module docstring)
        self._stock_seen = (False,) * len(layout.stock)

    def observation(self) -> Observation:
        return observe(self._game, self._stock_seen)

    def play(self, move) -> None:
        m = parse_move(move)
        self._game.apply(m)
        self._stock_seen = stock_seen_after(self._stock_seen, m, len(self._game.stock))

    @property
    def won(self) -> bool:
        return self._game.is_won()

    @property
    def moves(self) -> list[str]:
        return [str(m) for m in self._game.history]

    @property
    def played(self) -> int:
        """How many moves have been played."""
        return len(self._game.history)


# ---- policies --------------------------------------------------------------------------------
class Policy:
    """A player: ``choose(obs)`` -> the move to play, or None to give up.

    ``visited`` holds every position (as the player sees it) the game has been
    in; a policy never moves back into one, so a game cannot go round in
    circles (a full turn of the stock with no play in between comes back to a
    visited position, so the stock is not drawn forever either).
    """

    name = ""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.visited: set = set()

    def params(self) -> dict:
        return {}

    def choose(self, obs: Observation) -> Move | None:
        self.visited.add(obs.key())
        return self._choose(obs)

    def _choose(self, obs: Observation) -> Move | None:
        raise NotImplementedError

    def _fresh(self, obs: Observation, move: Move) -> bool:
        """Does ``move`` lead to a position not visited yet?  (A move that reveals a card
        always does: the number of unseen cards never grows back.)"""
        nxt = obs.after(move)
        return len(nxt.unseen) < len(obs.unseen) or nxt.key() not in self.visited


# Rule-based play, in priority order (higher first).  A careful human's habits: cards that
# nothing in play could still need go up first; then moves that turn a face-down card (the
# column with most face-down cards first); then the waste's card onto the foundations or a
# column; a king into an empty column; emptying a column only when a king is waiting for
# it; the stock last.  Moves between columns that neither turn a card nor make room, and
# take-backs, are not played where cards lie face down: there they shuffle cards without
# progress.  Where every card is in view (rules.face_down == "none": Baker's Game) nothing
# else ever frees a card, so moves between columns and into free cells come after the rest.
# Where only the top card moves between columns (rules.column_moves == "single": the Harps),
# a face-down card is reached one card at a time: moving the top card off a column with
# face-down cards is digging towards one, played before the stock (the nearest hidden card
# first).
P_SAFE_UP, P_TURN, P_WASTE_UP, P_KING_DOWN, P_WASTE_DOWN, P_UP, P_MAKE_ROOM, P_DIG, P_CELL, P_SHIFT, P_DRAW, \
    P_RECYCLE, P_CELL_IN = 100, 90, 80, 70, 60, 50, 40, 35, 30, 25, 20, 10, 5


class RulesPolicy(Policy):
    """The careful human described above the ``P_*`` priorities; ties go to
    the first move in the reference engine's order."""

    name = "rules"

    def _choose(self, obs: Observation) -> Move | None:
        game = obs.placeholder()
        scored = []
        for k, m in enumerate(game.legal_moves()):
            p = self._priority(game, m)
            if p is not None:
                scored.append((-p, k, m))
        for _, _, m in sorted(scored, key=lambda x: x[:2]):
            if self._fresh(obs, m):
                return m
        return None

    def _safe(self, game: Game, card: int) -> bool:
        """Nothing could ever need ``card`` in a column any more: every card that builds on
        it (all copies) is already on the foundations."""
        d = self.rules.decks
        for x in range(N_KINDS):
            if builds_on(self.rules, x, card):
                up = sum(h >= rank_of(x) for h in game.foundations[suit_of(x) * d:(suit_of(x) + 1) * d])
                if up < d:
                    return False
        return True

    def _priority(self, game: Game, m: Move) -> float | None:
        k = m.kind
        if k in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION, CELL_TO_FOUNDATION):
            card = (game.waste[-1] if k == WASTE_TO_FOUNDATION else game.columns[m.src - 1][-1]
                    if k == COLUMN_TO_FOUNDATION else game.cells[m.src - 1])
            if self._safe(game, card):
                return P_SAFE_UP
        if k in (COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN, COLUMN_TO_CELL):
            i = m.src - 1
            n = m.n if k == COLUMN_TO_COLUMN else 1
            fd = game.face_down[i]
            if fd and len(game.columns[i]) - n == fd:
                return P_TURN + fd / 100  # turns a card; the longest hidden pile first
            if k == COLUMN_TO_COLUMN:
                bottom = game.columns[i][-n]
                if rank_of(bottom) == KING and not game.columns[m.dst - 1]:
                    return None if len(game.columns[i]) == n else P_KING_DOWN  # a king already at the bottom stays
                if len(game.columns[i]) == n and self._king_waiting(game):
                    return P_MAKE_ROOM
                if fd and n == 1 and self.rules.column_moves == "single":
                    return P_DIG - (len(game.columns[i]) - fd) / 100  # fewest cards above the hidden ones first
                return P_SHIFT if self.rules.face_down == "none" else None
        if k == WASTE_TO_FOUNDATION:
            return P_WASTE_UP
        if k == WASTE_TO_COLUMN:
            return P_KING_DOWN if not game.columns[m.dst - 1] else P_WASTE_DOWN
        if k in (COLUMN_TO_FOUNDATION, CELL_TO_FOUNDATION):
            return P_UP
        if k == COLUMN_TO_CELL:
            return P_CELL_IN if self.rules.face_down == "none" else None
        if k == TAKE_BACK:
            return None
        if k == DRAW:
            return P_DRAW
        if k == RECYCLE:
            return P_RECYCLE
        return P_CELL  # a card from a free cell back into play

    @staticmethod
    def _king_waiting(game: Game) -> bool:
        """A king on the waste, or at the bottom of the face-up part of a column with cards under it."""
        if game.waste and rank_of(game.waste[-1]) == KING:
            return True
        return any(fd and rank_of(col[fd]) == KING for col, fd in zip(game.columns, game.face_down))


@dataclass
class _Sample:
    """One sampled world: a full position that agrees with everything the player has seen,
    and the rest of a solution of it (``tail``), if one is known."""

    world: Game
    tail: list[str] | None = None
    tried: int = 0        # the largest budget it was solved with, without success, since the last reveal
    proved: bool = False  # proved unsolvable: retry only once the world itself changes


DEFAULT_SAMPLES = 10
DEFAULT_MAX_NODES = 2_000
DEFAULT_SEED = 0
DEFAULT_BOOST = 16  # at most this many times max_nodes per world when no world is solved
DEFAULT_SCOUT = 1   # the sampling players of play / sweep --play look through the stock first (README)
DEFAULT_WIDEN = 0   # hop-action: actions no plan proposed are not scored (ActionHopPolicy)


class HopPolicy(Policy):
    """Hindsight optimisation.

    At each decision the player holds ``samples`` worlds, each a completion of
    the unseen cards drawn uniformly (a seeded shuffle of the unseen cards into
    the unseen slots).  Each world is solved by the thoughtful solver with a
    budget of ``max_nodes`` nodes; the first move of every solution found is a
    vote, and the move with most votes is played (ties: the move of the world
    sampled first).  With no solution in any world, the rules policy chooses.

    Worlds are kept between decisions, which is what makes the player cheap:

    * a move that reveals nothing leaves every world consistent with the view;
      a world whose solution began with the move played keeps the rest of it
      and is not solved again; a world that voted for another move keeps its
      solution with the move played taken out of it (played sooner), if that
      still wins the world (replayed in the reference engine);
    * when a card is revealed, a world that disagrees with it is repaired: the
      revealed card is swapped into its slot from one of the world's unseen
      slots that holds that card (chosen with the seeded generator).  A world
      drawn uniformly from the completions of the old view becomes, so
      repaired, uniform over the completions of the new one (every new
      completion has the same number of preimages: itself and one per unseen
      slot holding another card, each weighted 1 / copies of the revealed card
      among the unseen).  When several cards are revealed at once (draw 3), the
      world is drawn afresh.  Either way, if the rest of the world's old solution
      still wins the new world (replayed in the reference engine), it is kept:
      it is a solution of that world, and a solve saved;
    * a world the solver did not solve within its budget is tried again only
      after the next reveal, or with a bigger budget; one proved unsolvable
      only once it changes.

    Budgets: ``max_nodes`` per world; worlds that are the same card for card
    (with nothing left unseen, all of them) are solved once, with the budget
    of all of them together.  When no world has a solution, the unsolved ones
    are solved again with twice the budget, up to ``boost`` times it, before
    the rules policy is asked: a position with no solution in sight is where
    thinking longer pays -- where the solver can solve the worlds at all.
    Where it mostly cannot (harp, big-harp: the thoughtful solver decides few
    of their deals in thousands of nodes), every boost costs 31 times the
    budget for nothing and the rules policy plays anyway: ``boost`` 1 turns
    it off (a harp game of hop-action: 187 s with boosts, 20 s without).

    Every random choice depends on the observations and ``seed`` only.
    """

    name = "hop"

    def __init__(self, rules: Rules, samples: int = DEFAULT_SAMPLES, max_nodes: int = DEFAULT_MAX_NODES,
                 seed: int = DEFAULT_SEED, scout: bool = False, boost: int = DEFAULT_BOOST):
        super().__init__(rules)
        if samples < 1:
            raise ValueError("samples must be at least 1")
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        if boost < 1:
            raise ValueError("boost must be at least 1")
        self.samples, self.max_nodes, self.seed, self.scout = samples, max_nodes, seed, bool(scout)
        self.boost = boost
        self.rng = random.Random(seed)
        self.fallback = RulesPolicy(rules)
        self.fallback.visited = self.visited  # one memory of visited positions for both
        self.worlds: list[_Sample] | None = None
        self._scout = None       # the scout: None (not begun), "on", "done"
        self._toured: set = set()  # the positions of the scout's tour (forgotten when it ends)
        self.last: Move | None = None
        self.unseen_before = 0
        self.nodes = 0           # solver nodes spent
        self.solves = 0          # solver calls
        self.fallbacks = 0       # decisions the rules policy took

    def params(self) -> dict:
        p = {"samples": self.samples, "max_nodes": self.max_nodes, "seed": self.seed}
        if self.scout:
            p["scout"] = 1
        if self.boost != DEFAULT_BOOST:
            p["boost"] = self.boost
        return p

    def choose(self, obs: Observation) -> Move | None:
        m = super().choose(obs)
        self.last, self.unseen_before = m, len(obs.unseen)
        return m

    # ---- keeping the worlds in step with the view ---------------------------------------
    def _new_world(self, obs: Observation) -> _Sample:
        return _Sample(Game(self.rules, obs.sample(self.rng), check=False, undo=False))

    def _follow(self, obs: Observation) -> None:
        """Play the last move in every world and bring each back into line with ``obs``."""
        revealed = len(obs.unseen) < self.unseen_before
        last = str(self.last)
        for k, s in enumerate(self.worlds):
            s.world.apply(self.last)  # legal: the world agrees with every card in view
            s.tail = s.tail[1:] if s.tail and s.tail[0] == last else self._kept(s, last)
            if not revealed:
                continue
            s.tried = 0
            world = s.world.to_layout()
            if obs.admits(world):
                continue
            repaired = self._repair(obs, world)
            fresh = self._new_world(obs) if repaired is None else _Sample(
                Game(self.rules, repaired, check=False, undo=False))
            if s.tail and _wins(self.rules, fresh.world.to_layout(), s.tail):
                fresh.tail = s.tail  # the old plan still wins the new world: a solution of it, no solve needed
            self.worlds[k] = fresh

    def _kept(self, s: _Sample, last: str) -> list[str] | None:
        """What is left of the plan of a world that voted for another move than the one played
        (``last``, already applied to it): the plan with ``last`` taken out where it comes later
        (played sooner), if that still wins the world from here.  (The plan as it was, with
        ``last`` played in front of it, almost never does: 0 of 7 tries in an easy-harp game,
        against 32 of 35 for this.)"""
        if not s.tail or last not in s.tail:
            return None
        j = s.tail.index(last)
        rest = s.tail[:j] + s.tail[j + 1:]
        return rest if _wins(self.rules, s.world.to_layout(), rest) else None

    def _repair(self, obs: Observation, world: Layout) -> Layout | None:
        """``world`` with the one card it gets wrong swapped into place (class docstring);
        None when it gets more than one card wrong."""
        view, cards = obs.flat(), _flat(world)
        wrong = [j for j, (o, c) in enumerate(zip(view, cards)) if o != UNSEEN and o != c]
        if len(wrong) != 1:
            return None
        j = wrong[0]
        holders = [i for i, (o, c) in enumerate(zip(view, cards)) if o == UNSEEN and c == view[j]]
        i = self.rng.choice(holders)
        cards[i], cards[j] = cards[j], cards[i]
        return _unflat(world, cards)

    def _solve(self, layout: Layout, budget: int):
        """One world solve (the thoughtful solver, no polishing -- and so no shortcut: loops cut
        from a plan, not detours -- no replay check: a plan is replayed where it is kept),
        counted in ``nodes`` and ``solves``."""
        from .solver import solve

        r = solve(self.rules, layout=layout, max_nodes=budget, polish=False, verify=False)
        self.nodes += r.nodes
        self.solves += 1
        return r

    def _solve_worlds(self, budget: int) -> None:
        """Solve every world that has no solution, is not proved lost and was not tried with
        ``budget`` yet; identical worlds once, with their budgets pooled (class docstring)."""
        groups: dict = {}
        for s in self.worlds:
            if s.tail is None and not s.proved and s.tried < budget:
                # the cards slot by slot, not the canonical key: a solution's tokens name columns
                groups.setdefault(tuple(_flat(s.world.to_layout())), []).append(s)
        for same in groups.values():
            r = self._solve(same[0].world.to_layout(), budget * len(same))
            for s in same:
                s.tail = list(r.moves) if r.solved else None
                s.tried, s.proved = (0 if r.solved else budget), r.status == "unsolvable"

    # ---- the decision ----------------------------------------------------------------------
    def _scouting(self, obs: Observation) -> Move | None:
        """The scout's move (``s>w``, or ``w>s`` once the stock is empty), or None when there is
        no scouting to do.

        With ``scout`` on, before its first decision the player turns the whole stock over
        once and puts it back, when that costs nothing: passes are unlimited and the waste is
        empty when it starts.  Drawing to the end and turning the waste over (``w>s`` keeps
        the order) brings back the position it started from (only the pass counter moves on,
        and with unlimited passes it counts for nothing), so no play is lost, and every stock
        card has been seen (with draw 3 all three cards of a draw go face up).  The decisions
        are then taken knowing the stock, as a person who looks through it first does.  It
        ends when the stock has no unseen card left and the waste is empty.

        The positions of the tour are then forgotten (taken out of ``visited``): the last of
        them, the stock drawn to its end with nothing played, looks exactly like the same
        position reached later, so remembering it would forbid every line that draws to the
        end of the stock before its next play (in draw 3 the only way to some cards).  The
        tour runs once, and the position it returns to stays visited, so no circle can
        come of it."""
        if not self.scout or self._scout == "done" or self.worlds is not None or self.rules.passes:
            return None
        lay = obs.layout
        if self._scout is None:
            if lay.waste or not obs.unseen_stock:  # only a scout from an empty waste comes back unchanged
                self._scout = "done"
                return None
            self._scout = "on"
        self._toured.add(obs.key())
        if lay.stock:
            return Move(DRAW)
        self._scout = "done"
        self.visited -= self._toured
        return Move(RECYCLE)

    def _solve_until_some(self) -> None:
        """Solve the worlds; while none is solved, again with twice the budget, up to
        ``boost`` times it (class docstring)."""
        boost = 1
        while True:
            self._solve_worlds(self.max_nodes * boost)
            if any(s.tail for s in self.worlds) or 2 * boost > self.boost:
                break
            boost *= 2

    def _start(self, obs: Observation) -> Move | None:
        """The scout's move if it is scouting; else the worlds brought in step with ``obs``
        (drawn at the first decision) and None."""
        m = self._scouting(obs)
        if m is not None:
            return m
        if self.worlds is None:
            self.worlds = [self._new_world(obs) for _ in range(self.samples)]
        else:
            self._follow(obs)
        return None

    def _choose(self, obs: Observation) -> Move | None:
        m = self._start(obs)
        if m is not None:
            return m
        self._solve_until_some()
        # most votes first; among equals, the move of the world sampled first (most_common is
        # stable, and the worlds' order depends on the seed and the observations only)
        votes = Counter(s.tail[0] for s in self.worlds if s.tail)
        view = obs.placeholder()
        for token, _ in votes.most_common():
            m = parse_move(token)
            if view.why_illegal(m) is not None:  # the worlds agree with the view: a bug if so
                raise AssertionError(f"a sampled world's move {token} is not legal at the table")
            if self._fresh(obs, m):
                return m
        self.fallbacks += 1
        return self.fallback._choose(obs)


def _view_id(game: Game, stock_seen) -> tuple:
    """The position as the player sees it, slot by slot (not canonical: the columns keep their
    numbers, so that the rest of a plan made from it still names the right columns)."""
    v = observe(game, stock_seen).layout
    return (tuple(map(tuple, v.columns)), tuple(v.face_down), tuple(v.stock), tuple(v.waste),
            tuple(c if c is not None else -2 for c in v.cells), tuple(v.foundations), v.pass_number)


def _reveals(game: Game, stock_seen, move: Move) -> tuple[bool, tuple[bool, ...]]:
    """Apply ``move`` to ``game``: does it show the player a card not seen before (a face-down
    card turns, or a draw turns a stock card never seen)?  And the stock-seen flags after it."""
    down, stock = sum(game.face_down), len(game.stock)
    game.apply(move)
    drawn = stock - len(game.stock) if move.kind == DRAW else 0
    shown = sum(game.face_down) < down or not all(stock_seen[:drawn])
    return shown, stock_seen_after(stock_seen, move, len(game.stock))


@dataclass
class _Action:
    """A candidate of :class:`ActionHopPolicy`: the moves up to and including the next move that
    shows a card (``tokens``, from the plan of the first world that proposed it), and the
    worlds whose own plan goes that way (``voters``: index -> where in its plan the action ends)."""

    tokens: list[str]
    voters: dict = field(default_factory=dict)


class ActionHopPolicy(HopPolicy):
    """Hindsight optimisation scored per action (as in Yoon, Fern & Givan's HOP and lonelybot's
    player), on the worlds of :class:`HopPolicy`.

    Between two moves that show a card, nothing new is learnt, so a decision is taken only
    there: the *actions* are the ways to the next such move, as the plans of the sampled
    worlds find them -- each solved world's plan, cut after its first move that shows a card
    (or whole, when it shows none).  Two plans that reach the same position as the player
    sees it and then play the same showing move are one action.  Each action is scored by
    the worlds in which it keeps the game won: a world whose own plan is the action counts
    at once; every other solved world is solved again after the action's moves, with
    ``max_nodes`` nodes.  The action that wins most worlds is played, move by move, without
    deciding again until its last move has shown the card (ties: most plans, then the world
    sampled first).  Worlds that no solve won count as lost for every action, so they are not
    solved again: they change no score's order.  Worlds that are the same card for card are
    solved once per action.

    The scoring stops early without changing the choice: the actions are scored in order of
    their plans (most first), and an action is left as soon as its losses show it cannot
    beat the best so far.

    ``widen`` (0: off) looks beyond the plans where the choice is contested: when the best
    of the proposed actions loses some solved world, every action of at most ``widen``
    moves that no plan proposed -- up to ``widen - 1`` moves that show nothing (each to a
    position not visited, each position once, nearest first), then a move that shows a card
    -- is scored the same way, and played if it keeps strictly more worlds won.  The plans
    propose what one solver found first in each world, so they share their first action
    in most decisions (1.7 actions a decision on klondike-3, one alone in 56 %); a way they
    all miss is never tried without this.  Where the best proposed action keeps every solved
    world won nothing can beat it, and the widening costs nothing.

    Compared with :class:`HopPolicy`, which plays the first move most plans start with,
    this asks of each way forward how many worlds it keeps winnable -- the quantity HOP
    estimates -- instead of counting which way one solver happened to take in each world.
    """

    name = "hop-action"

    def __init__(self, rules: Rules, widen: int = DEFAULT_WIDEN, **kw):
        super().__init__(rules, **kw)
        if widen < 0:
            raise ValueError("widen must be at least 0")
        self.widen = widen
        self.queue: list[str] = []  # the rest of the action being played
        self.decisions = 0          # actions chosen
        self.scored = 0             # worlds solved again after an action

    def params(self) -> dict:
        p = super().params()
        if self.widen != DEFAULT_WIDEN:
            p["widen"] = self.widen
        return p

    def _actions(self, obs: Observation) -> dict:
        """The actions the solved worlds' plans propose: view id + showing move -> _Action."""
        actions: dict = {}
        seen0 = _stock_seen(obs.layout)
        for k, s in enumerate(self.worlds):
            if not s.tail:
                continue
            g, seen = Game(self.rules, s.world.to_layout(), check=False), seen0
            end = len(s.tail)
            for j, token in enumerate(s.tail):
                before = seen
                shown, seen = _reveals(g, seen, parse_move(token))
                if shown or j == end - 1:
                    end = j + 1
                    g.undo()  # the view is the one the action's last move is played from
                    seen = before
                    break
            key = (_view_id(g, seen), s.tail[end - 1])
            actions.setdefault(key, _Action(s.tail[:end])).voters[k] = end
        return actions

    def _wider(self, obs: Observation, known: dict) -> list[_Action]:
        """The actions of at most ``widen`` moves that are not in ``known`` (class docstring),
        nearest first; ``known`` gets their keys."""
        found: list[_Action] = []
        been = {obs.key()}
        level = [([], obs.placeholder().to_layout(), _stock_seen(obs.layout))]
        for depth in range(self.widen):
            deeper = []
            for path, layout, seen in level:
                g = Game(self.rules, layout, check=False)
                vid = _view_id(g, seen)
                for m in g.legal_moves():
                    shown, after = _reveals(g, seen, m)
                    if shown:
                        key = (vid, str(m))
                        if key not in known:
                            known[key] = a = _Action(path + [str(m)])
                            found.append(a)
                    elif depth + 1 < self.widen:
                        k = observe(g, after).key()
                        if k not in been and k not in self.visited:
                            been.add(k)
                            deeper.append((path + [str(m)], g.to_layout(), after))
                    g.undo()
            level = deeper
        return found

    def _score(self, a: _Action, solved: list[int], cards: dict, best_wins: int):
        """The worlds ``a`` keeps won (count, and the plans of those not voting for it), or None
        as soon as its losses show it cannot beat ``best_wins``."""
        wins, losses, plans, same = len(a.voters), 0, {}, {}
        for k in solved:
            if k in a.voters:
                continue
            if len(solved) - losses <= best_wins:
                return None  # cannot beat the best any more
            if cards[k] in same:  # the same world card for card (late in a game, most are): solved once
                plan = same[cards[k]]
            else:
                plan = same[cards[k]] = self._after(self.worlds[k], a.tokens)
            if plan is None:
                losses += 1
            else:
                wins += 1
                plans[k] = plan
        return wins, plans

    def _after(self, s: _Sample, tokens: list[str]) -> list[str] | None:
        """A plan of world ``s`` that starts with ``tokens`` (legal in every world: they move
        cards in view only), or None if the solve after them finds none within ``max_nodes``."""
        g = Game(self.rules, s.world.to_layout(), check=False, undo=False)
        for token in tokens:
            g.apply(token)
        if g.is_won():
            return list(tokens)
        r = self._solve(g.to_layout(), self.max_nodes)
        self.scored += 1
        return list(tokens) + list(r.moves) if r.solved else None

    def _choose(self, obs: Observation) -> Move | None:
        m = self._start(obs)
        if m is not None:
            return m
        if self.queue:
            m = parse_move(self.queue.pop(0))
            if obs.placeholder().why_illegal(m) is None and self._fresh(obs, m):
                return m
            self.queue = []  # cannot happen with a loop-free plan; decide afresh if it does
        self._solve_until_some()
        actions = self._actions(obs)
        if not actions:
            self.fallbacks += 1
            return self.fallback._choose(obs)
        order = sorted(actions.values(), key=lambda a: (-len(a.voters), min(a.voters)))
        solved = [k for k, s in enumerate(self.worlds) if s.tail]
        best, best_wins, best_plans = None, -1, {}
        cards = {k: tuple(_flat(self.worlds[k].world.to_layout())) for k in solved}
        for a in order:
            scored = self._score(a, solved, cards, best_wins)
            if scored is not None and scored[0] > best_wins:
                best, (best_wins, best_plans) = a, scored
        if self.widen and best_wins < len(solved):  # contested: look beyond the plans (class docstring)
            for a in self._wider(obs, actions):
                scored = self._score(a, solved, cards, best_wins)
                if scored is not None and scored[0] > best_wins:
                    best, (best_wins, best_plans) = a, scored
                    if best_wins == len(solved):
                        break
        self.decisions += 1
        # every world now carries a plan that starts with the action to be played, or none
        for k, s in enumerate(self.worlds):
            if k in best.voters:
                s.tail = best.tokens + s.tail[best.voters[k]:]
            elif k in best_plans:
                s.tail = best_plans[k]
            elif s.tail:
                s.tail, s.tried = None, self.max_nodes  # lost after the action: solved again after the next card
        self.queue = best.tokens[1:]
        m = parse_move(best.tokens[0])
        if not self._fresh(obs, m):
            self.queue = []
            self.fallbacks += 1
            return self.fallback._choose(obs)
        return m


POLICIES = {p.name: p for p in (HopPolicy, ActionHopPolicy, RulesPolicy)}


def make_policy(name: str, rules: Rules, *, samples: int = DEFAULT_SAMPLES, max_nodes: int = DEFAULT_MAX_NODES,
                seed: int = DEFAULT_SEED, scout: bool = False, boost: int = DEFAULT_BOOST,
                widen: int = DEFAULT_WIDEN) -> Policy:
    """The policy called ``name`` (``hop``, ``hop-action`` or ``rules``); ``rules`` ignores the
    sampling settings and ``hop`` ``widen`` (a setting of ``hop-action`` only)."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
    kw = dict(samples=samples, max_nodes=max_nodes, seed=seed, scout=scout, boost=boost)
    if issubclass(POLICIES[name], ActionHopPolicy):
        return POLICIES[name](rules, widen=widen, **kw)
    if issubclass(POLICIES[name], HopPolicy):
        return POLICIES[name](rules, **kw)
    return POLICIES[name](rules)


@dataclass(frozen=True)
class PlaySettings:
    """What a player sweep plays with (``sweep --play``): the policy and its settings.

    Its :attr:`label` goes into every row (the ``policy`` column), and the rows' rules
    fingerprint is :meth:`fingerprint`, the rules' fingerprint combined with the label:
    games of one policy and settings never mix with another's, nor with the solver's rows,
    in a folder or a reader."""

    policy: str = "hop-action"
    samples: int = DEFAULT_SAMPLES
    max_nodes: int = DEFAULT_MAX_NODES
    seed: int = DEFAULT_SEED
    max_moves: int = 0  # 0: DEFAULT_MAX_MOVES (below)
    scout: int | None = None  # 1: look through the stock first (HopPolicy._scouting); None: the default,
    #                           on for the sampling players (DEFAULT_SCOUT), off for the others
    boost: int = DEFAULT_BOOST  # HopPolicy: budget multiple at most, when no world is solved
    widen: int = DEFAULT_WIDEN  # ActionHopPolicy: longest action scored that no plan proposed (0: none)

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; choose one of {', '.join(POLICIES)}")
        if self.scout is None:
            object.__setattr__(self, "scout", DEFAULT_SCOUT if self.sampling else 0)
        for name, least in (("samples", 1), ("max_nodes", 1), ("max_moves", 0), ("boost", 1), ("widen", 0)):
            if getattr(self, name) < least:
                raise ValueError(f"{name} must be at least {least}")
        if self.scout not in (0, 1):
            raise ValueError("scout is 0 or 1")
        for name, default in (("scout", 0), ("boost", DEFAULT_BOOST)):
            if getattr(self, name) != default and not self.sampling:
                raise ValueError(f"{name} is a setting of the sampling players, not of {self.policy}")
        if self.widen != DEFAULT_WIDEN and not issubclass(POLICIES[self.policy], ActionHopPolicy):
            raise ValueError(f"widen is a setting of hop-action, not of {self.policy}")
        if not self.max_moves:
            object.__setattr__(self, "max_moves", DEFAULT_MAX_MOVES)

    @property
    def sampling(self) -> bool:
        """Does the policy sample worlds (and so take samples, max_nodes, seed, scout, boost)?"""
        return issubclass(POLICIES[self.policy], HopPolicy)

    @property
    def label(self) -> str:
        """``hop samples=10 max_nodes=2000 seed=0 max_moves=5000``, ``hop-action ... scout=1``,
        ``rules max_moves=5000`` (``scout=1`` only when on, ``boost=N`` and ``widen=N`` only when
        not the default, so older labels stay as they were)."""
        if self.sampling:
            return (f"{self.policy} samples={self.samples} max_nodes={self.max_nodes} seed={self.seed} "
                    f"max_moves={self.max_moves}" + (" scout=1" if self.scout else "")
                    + (f" boost={self.boost}" if self.boost != DEFAULT_BOOST else "")
                    + (f" widen={self.widen}" if self.widen != DEFAULT_WIDEN else ""))
        return f"{self.policy} max_moves={self.max_moves}"

    @classmethod
    def from_label(cls, label: str) -> "PlaySettings":
        """The settings a :attr:`label` names (what a row's ``policy`` column holds); a label
        without ``scout=1`` is a player without the scout."""
        policy, *fields = label.split()
        kw = {"scout": 0, **{k: int(v) for k, v in (f.split("=", 1) for f in fields)}}
        return cls(policy, **kw)

    def options(self) -> str:
        """The ``sweep`` options that play with these settings: ``--play hop --samples 10 ...``."""
        if self.sampling:
            return (f"--play {self.policy} --samples {self.samples} --max-nodes {self.max_nodes} "
                    f"--seed {self.seed} --max-moves {self.max_moves} " + ("--scout" if self.scout else "--no-scout")
                    + (f" --boost {self.boost}" if self.boost != DEFAULT_BOOST else "")
                    + (f" --widen {self.widen}" if self.widen != DEFAULT_WIDEN else ""))
        return f"--play {self.policy} --max-moves {self.max_moves}"

    def fingerprint(self, rules: Rules) -> str:
        import hashlib

        return hashlib.sha256(f"{rules.fingerprint()}|{self.label}".encode()).hexdigest()[:12]

    def make_policy(self, rules: Rules) -> Policy:
        return make_policy(self.policy, rules, samples=self.samples, max_nodes=self.max_nodes, seed=self.seed,
                           scout=bool(self.scout), boost=self.boost, widen=self.widen)


# ---- one game --------------------------------------------------------------------------------
DEFAULT_MAX_MOVES = 5_000


@dataclass
class GameRecord:
    """How one game went.  ``end`` is ``won``, ``no move`` (the policy found no move to a
    position not visited yet), ``move limit`` or ``stopped`` (``play``'s ``stop``)."""

    rules: Rules
    layout: Layout
    policy: str
    params: dict
    moves: list[str]
    won: bool
    end: str
    unseen_face_down: int   # at the end: face-down cards never turned
    unseen_stock: int       # ...and stock cards never seen
    seconds: float
    stats: dict = field(default_factory=dict)

    @property
    def never_seen(self) -> int:
        return self.unseen_face_down + self.unseen_stock

    def solution(self, deal: int | None = None) -> dict | None:
        """The SPEC §4 solution JSON of a won game (what ``harpsolve verify`` reads), else None."""
        if not self.won:
            return None
        from .reference import replay
        from .solver import SolveResult

        rep = replay(self.rules, self.layout, self.moves)
        score = rep.score if self.rules.scoring == "easy-harp" else None
        return SolveResult(self.rules.name, deal, self.rules, self.layout, "solved", moves=list(self.moves),
                           score=score, nodes=self.stats.get("nodes", 0), seconds=self.seconds,
                           engine=f"player {self.policy}").to_dict()

    def to_dict(self, deal: int | None = None) -> dict:
        return {"variant": self.rules.name, "rules": self.rules.label, "deal": deal, "policy": self.policy,
                "params": dict(self.params), "won": self.won, "end": self.end, "moves_played": len(self.moves),
                "moves": list(self.moves), "never_seen": self.never_seen,
                "unseen_face_down": self.unseen_face_down, "unseen_stock": self.unseen_stock,
                "seconds": round(self.seconds, 6), **self.stats, "solution": self.solution(deal)}


def play(rules: Rules, layout: Layout, policy: Policy, max_moves: int = DEFAULT_MAX_MOVES,
         stop=None) -> GameRecord:
    """Play one game of ``layout`` with ``policy``: the policy sees observations only.
    ``stop`` (a callable, asked before every move) ends the game early when it says so
    (end ``stopped``: the rollout engine's budget, search/engine.py)."""
    t0 = time.perf_counter()
    table = Table(rules, layout)
    end = "move limit"
    while True:
        if table.won:
            end = "won"
            break
        if table.played >= max_moves:
            break
        if stop is not None and stop():
            end = "stopped"
            break
        move = policy.choose(table.observation())
        if move is None:
            end = "no move"
            break
        table.play(move)
    seconds = time.perf_counter() - t0
    obs = table.observation()
    stats = {k: getattr(policy, k) for k in ("nodes", "solves", "fallbacks") if hasattr(policy, k)}
    return GameRecord(rules, layout, policy.name, policy.params(), table.moves, table.won, end,
                      obs.unseen_face_down, obs.unseen_stock, seconds, stats)
