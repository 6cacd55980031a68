"""Random positions for the kernel and search tests (not a test module).

``endgame(rules, rng, left)`` deals a position in which about ``left`` cards
are still in play and the rest are on the foundations: small enough that an
unpruned search exhausts it in milliseconds, varied enough to hit every move
kind (talon, cells, take-backs, king runs, empty columns).
"""
from __future__ import annotations

import random

import numpy as np

from harpsolve.cards import make_card
from harpsolve.layout import Layout
from harpsolve.reference import Game, replay
from harpsolve.rules import Rules, builds_on, get_rules
from harpsolve.search.engine import PROOFS, SCHEDULES
from harpsolve.solver import solve
from harpsolve.state import kernel_params, pack


def endgame(rules: Rules, rng: random.Random, left: int, stock_share: float = 0.5) -> Layout:
    """A valid position with about ``left`` cards in play (the highest ranks of each suit),
    at most ``stock_share`` of them in the stock."""
    places = [(s, k) for s in range(4) for k in range(rules.decks)]
    heights = {pl: 13 for pl in places}
    in_play = []
    while len(in_play) < left:
        pl = rng.choice(places)
        if heights[pl] == 0:
            continue
        in_play.append(make_card(heights[pl], pl[0]))
        heights[pl] -= 1
    rng.shuffle(in_play)
    stock, cells = [], [None] * rules.cells
    if rules.draw:
        n = rng.randint(0, int(len(in_play) * stock_share))
        stock, in_play = in_play[:n], in_play[n:]
    for k in range(rules.cells):
        if in_play and rng.random() < 0.3:
            cells[k] = in_play.pop()
    cols = [[] for _ in range(rules.n_columns)]
    down = [0] * rules.n_columns
    for card in in_play:
        cols[rng.randrange(rules.n_columns)].append(card)
    if rules.face_down != "none":
        # face-up part must be built: everything under the top is face down
        # unless it happens to build
        for i, col in enumerate(cols):
            if not col:
                continue
            j = len(col) - 1
            while j > 0 and builds_on(rules, col[j], col[j - 1]) and rng.random() < 0.8:
                j -= 1
            down[i] = j
    foundations = [make_card(h, s) for (s, _k), h in heights.items() if h]
    return Layout(cols, down, stock=stock, cells=cells, foundations=foundations).validate(rules)


def random_walk(rules: Rules, layout: Layout, rng: random.Random, steps: int) -> list[str]:
    """Tokens of a random legal move sequence from ``layout`` (reference engine)."""
    g = Game(rules, layout)
    out = []
    for _ in range(steps):
        moves = g.legal_moves()
        if not moves:
            break
        m = rng.choice(moves)
        g.apply(m)
        out.append(str(m))
    return out


def primitive_params(rules: Rules) -> np.ndarray:
    """Kernel switches for one-to-one comparison with the reference engine."""
    return kernel_params(rules, compound=False, auto=False, prune=False, exact_key=True)


def packed(rules: Rules, layout: Layout) -> np.ndarray:
    return pack(layout, rules)


def deadlock_candidate(rules: Rules, rng: random.Random, lowest_rank: int, stock_share: float = 0.0) -> Layout:
    """Every card of rank >= ``lowest_rank`` in play, every column non-empty; a share
    ``stock_share`` of the cards in the stock (none by default).

    Kings that cannot reach an empty column and queens buried under them are
    the usual way such a position locks up; the exhaustive search decides.
    """
    cards_ = [make_card(r, s) for s in range(4) for r in range(lowest_rank, 14) for _ in range(rules.decks)]
    rng.shuffle(cards_)
    n = rules.n_columns
    k = min(int(len(cards_) * stock_share), len(cards_) - n) if rules.draw else 0
    stock, cards_ = cards_[:k], cards_[k:]
    if len(cards_) < n:
        raise ValueError("not enough cards to fill every column")
    cols = [[c] for c in cards_[:n]]
    for c in cards_[n:]:
        cols[rng.randrange(n)].append(c)
    down = [len(col) - 1 if rules.face_down != "none" else 0 for col in cols]
    foundations = [make_card(lowest_rank - 1, s) for s in range(4) for _ in range(rules.decks)] if lowest_rank > 1 else []
    cells = [None] * rules.cells
    return Layout(cols, down, stock=stock, cells=cells, foundations=foundations).validate(rules)


def solutions_only_wins(algorithm: str, variants, seed: int, left: int, max_nodes: int) -> int:
    """Solve an endgame of ``left`` cards per variant (seeds ``seed``, ``seed + 1``...) with
    a solutions-only ``algorithm``; check that each status is solved or unknown and each win
    names the algorithm's engine and replays; return how many were won."""
    won = 0
    for k, variant in enumerate(variants):
        rules = get_rules(variant)
        layout = endgame(rules, random.Random(seed + k), left)
        r = solve(rules, layout=layout, algorithm=algorithm, max_nodes=max_nodes)
        assert r.status in ("solved", "unknown"), (variant, r.status)
        if r.solved:
            won += 1
            # the engine that won is one of the schedule's rows that may find solutions
            finders = {e.engine for e in SCHEDULES[algorithm].entries if e.concludes != PROOFS}
            assert r.engine.split(" ")[0] in finders and replay(rules, layout, r.moves).won
    return won
