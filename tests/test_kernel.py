"""The numba kernel against the reference engine.

In primitive mode (single stock taps, no automatic moves, no pruning) the
kernel must list exactly the reference engine's legal moves and reach the
same positions, move after move, on random deals and random endgames.
Packing round-trips, and the canonical fingerprint is blind to exactly the
symmetries the state module documents.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harpsolve import movegen as mg
from harpsolve.deals import deal_layout
from harpsolve.layout import Layout
from harpsolve.reference import Game
from harpsolve.rules import VARIANTS, get_rules
from harpsolve.solution import move_tokens
from harpsolve.state import fingerprint, kernel_params, pack, unpack

from positions import endgame, primitive_params, random_walk

ALL = list(VARIANTS)
GOLDEN = Path(__file__).parent / "golden" / "perft.json"


def kernel_moves(st_, p) -> dict[str, int]:
    out = np.zeros(mg.MAX_MOVES, np.int64)
    scores = np.zeros(mg.MAX_MOVES, np.int32)
    n = mg._gen(st_, p, out, scores, np.zeros(mg.GEN_WORK, np.int64))
    assert n >= 0
    moves = {}
    for m in out[:n]:
        toks = move_tokens(st_, int(m), p)
        assert len(toks) == 1, toks
        assert toks[0] not in moves, f"kernel lists {toks[0]} twice"
        moves[toks[0]] = int(m)
    return moves


def ref_key(rules, st_):
    return Game(rules, unpack(st_, rules), check=False).key()


def walk_both(rules, layout, seed, steps):
    game = Game(rules, layout)
    p = primitive_params(rules)
    s = pack(layout, rules)
    rng = random.Random(seed)
    for _ in range(steps):
        ref = sorted(str(m) for m in game.legal_moves())
        km = kernel_moves(s, p)
        assert sorted(km) == ref
        if not ref:
            return
        tok = rng.choice(ref)
        game.apply(tok)
        mg._apply(s, np.int64(km[tok]), p)
        assert ref_key(rules, s) == game.key(), f"positions differ after {tok}"
        assert mg._won(s, p) == game.is_won()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), number=st.integers(1, 999_999), seed=st.integers(0, 2**32))
def test_kernel_matches_reference_from_deals(variant, number, seed):
    rules = get_rules(variant)
    walk_both(rules, deal_layout(rules, number), seed, 30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), seed=st.integers(0, 2**32), left=st.integers(4, 30),
       takeback=st.booleans())
def test_kernel_matches_reference_from_endgames(variant, seed, left, takeback):
    rules = get_rules(variant, {"takeback": takeback})
    layout = endgame(rules, random.Random(seed), left)
    walk_both(rules, layout, seed, 25)


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(ALL), number=st.integers(1, 999_999), seed=st.integers(0, 2**32))
def test_pack_unpack_round_trip(variant, number, seed):
    rules = get_rules(variant)
    layout = deal_layout(rules, number)
    assert unpack(pack(layout, rules), rules) == layout
    # and after random play (the reference engine's own position)
    g = Game(rules, layout)
    for tok in random_walk(rules, layout, random.Random(seed), 20):
        g.apply(tok)
    after = g.to_layout()
    again = unpack(pack(after, rules), rules)
    assert Game(rules, again, check=False).key() == g.key()


def _permuted(layout: Layout, rng: random.Random) -> Layout:
    order = list(range(len(layout.columns)))
    rng.shuffle(order)
    cells = list(layout.cells)
    rng.shuffle(cells)
    found = list(layout.foundations)
    rng.shuffle(found)
    return Layout([layout.columns[i] for i in order], [layout.face_down[i] for i in order],
                  layout.stock, layout.waste, cells, found, layout.pass_number)


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(ALL), seed=st.integers(0, 2**32), left=st.integers(6, 40))
def test_fingerprint_is_blind_to_symmetries(variant, seed, left):
    rules = get_rules(variant)
    rng = random.Random(seed)
    layout = endgame(rules, rng, left)
    p = kernel_params(rules)
    other = _permuted(layout, rng)
    assert fingerprint(pack(layout, rules), p) == fingerprint(pack(other, rules), p)


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(ALL), seed=st.integers(0, 2**32))
def test_fingerprint_tells_positions_apart(variant, seed):
    rules = get_rules(variant)
    rng = random.Random(seed)
    layout = endgame(rules, rng, 30)
    p = kernel_params(rules)
    g = Game(rules, layout)
    key0 = g.key()
    moves = []
    for m in g.legal_moves():
        if str(m) in ("s>w", "w>s"):
            continue  # only the talon boundary moves: invisible with a free stock
        g.apply(m)
        if g.key() != key0:  # a whole column moved sideways is the same position
            moves.append(m)
        g.undo()
    if not moves:
        return
    g.apply(rng.choice(moves))
    assert fingerprint(pack(layout, rules), p) != fingerprint(pack(g.to_layout(), rules), p)


def test_talon_order_matters_only_without_a_free_stock():
    for variant, free in (("easy-harp", True), ("klondike-1", True), ("klondike-3", False), ("harp", False)):
        rules = get_rules(variant)
        layout = deal_layout(rules, 7)
        p = kernel_params(rules)
        shuffled = Layout(layout.columns, layout.face_down, list(reversed(layout.stock)), [], layout.cells)
        same = fingerprint(pack(layout, rules), p) == fingerprint(pack(shuffled, rules), p)
        assert same == free, variant


# ---- perft: positions reachable within k moves, both engines, pinned -------------
PERFT_DEALS = {v: [1, 2] for v in ALL}
PERFT_DEPTH = {"bakers-game": 3, "klondike-1": 6, "klondike-3": 6}


def perft_kernel(rules, layout, depth) -> list[int]:
    p = primitive_params(rules)
    s0 = pack(layout, rules)
    seen = {fingerprint(s0, p)}
    frontier = [s0]
    counts = []
    for _ in range(depth):
        nxt = []
        for s in frontier:
            for m in kernel_moves(s, p).values():
                c = s.copy()
                mg._apply(c, np.int64(m), p)
                f = fingerprint(c, p)
                if f not in seen:
                    seen.add(f)
                    nxt.append(c)
        frontier = nxt
        counts.append(len(seen))
    return counts


def perft_reference(rules, layout, depth) -> list[int]:
    g0 = Game(rules, layout)
    seen = {g0.key()}
    frontier = [layout]
    counts = []
    for _ in range(depth):
        nxt = []
        for lay in frontier:
            g = Game(rules, lay, check=False)
            for m in g.legal_moves():
                g.apply(m)
                k = g.key()
                if k not in seen:
                    seen.add(k)
                    nxt.append(g.to_layout())
                g.undo()
        frontier = nxt
        counts.append(len(seen))
    return counts


def fits(s, p, card: int, t: int, first_empty: int) -> bool:
    """May a single ``card`` go onto column t of packed state ``s`` (its top, or t empty)?
    The card-by-card check that movegen._targets replaces, from the kernel's own rules."""
    tl = int(s[mg.O_LEN + t])
    if tl == 0:
        return bool((p[mg.P_EMPTY_ANY] or card % 13 == 12) and mg._empty_targets_ok(t, first_empty, p[mg.P_PRUNE]))
    return bool(mg._builds(np.int64(card), np.int64(s[mg.O_COLS + mg.MAXLEN * t + tl - 1]), p[mg.P_BUILD_SUIT]))


def walked(variant: str, number: int, seed: int, steps: int):
    """The rules and the packed position after a random walk of ``steps`` moves from deal
    ``number``, played by the reference engine."""
    rules = get_rules(variant)
    layout = deal_layout(rules, number)
    game = Game(rules, layout)
    for tok in random_walk(rules, layout, random.Random(seed), steps):
        game.apply(tok)
    return rules, pack(game.to_layout(), rules)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), number=st.integers(1, 999_999), seed=st.integers(0, 2**32),
       steps=st.integers(0, 80), prune=st.booleans())
def test_target_sets_are_the_cards_that_fit(variant, number, seed, steps, prune):
    """movegen._targets (the bit sets that replace a card-by-card check in move generation)
    holds, for every column, exactly the cards that fit it -- empty columns included -- and
    their union."""
    rules, s = walked(variant, number, seed, steps)
    p = kernel_params(rules, prune=prune)
    ncol = rules.n_columns
    first_empty = next((c for c in range(ncol) if s[mg.O_LEN + c] == 0), -1)
    want = np.zeros(ncol, np.int64)
    union = int(mg._targets(s, p, first_empty, want))
    for card in range(52):
        fits_t = [fits(s, p, card, t, first_empty) for t in range(ncol)]
        assert [bool(int(want[t]) >> card & 1) for t in range(ncol)] == fits_t, (card, variant)
        assert bool(union >> card & 1) == any(fits_t)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), number=st.integers(1, 999_999), seed=st.integers(0, 2**32),
       steps=st.integers(0, 200))
def test_place_mask_is_the_cards_a_place_takes(variant, number, seed, steps):
    """movegen._place_mask (the bit set that lets move generation pass over talon cards that
    fit nowhere) holds exactly the cards _found_place finds a place for."""
    rules, s = walked(variant, number, seed, steps)
    p = kernel_params(rules)
    mask = int(mg._place_mask(s, p))
    assert [bool(mask >> card & 1) for card in range(52)] == [
        mg._found_place(s, np.int64(card), p) >= 0 for card in range(52)]
    assert mask >> 52 == 0


def plain_auto(s, p) -> list[int]:
    """The card-by-card ``_auto`` that movegen._auto_mask replaces: every column top, cell and
    (draw 1 without stock dominance) talon card tested with _found_place and _safe in turn,
    until a pass moves nothing.  Plays on ``s``; returns the moves."""
    moves = []

    def home(card):
        return mg._found_place(s, np.int64(card), p) >= 0 and mg._safe(s, np.int64(card), p)

    def play(m):
        mg._apply(s, np.int64(m), p)
        moves.append(m)

    if not p[mg.P_AUTO]:
        return moves
    changed = True
    while changed:
        changed = False
        for c in range(int(p[mg.P_NCOL])):
            card = int(mg._top(s, c))
            if card >= 0 and home(card):
                play(int(mg._mk(mg.M_COL_FOUND, c, 0, 0)))
                changed = True
        for k in range(int(p[mg.P_CELLS])):
            card = int(s[mg.O_CELL + k])
            if card != mg.EMPTY and home(card):
                play(int(mg._mk(mg.M_CELL_FOUND, k, 0, 0)))
                changed = True
        if p[mg.P_DRAW] == 1 and not p[mg.P_DOMINANCE]:
            limited = p[mg.P_PASSES] != 0
            lo = int(s[mg.O_TPTR]) - 1 if limited else 0
            i = lo if limited else int(s[mg.O_TLEN]) - 1
            while i >= lo and i >= 0:
                if home(int(s[mg.O_TALON + i])):
                    play(int(mg._mk(mg.M_TALON_FOUND, i, 0, 0)))
                    changed = True
                    if limited:
                        break
                i -= 1
    return moves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), seed=st.integers(0, 2**32), left=st.integers(4, 52),
       takeback=st.booleans(), keller=st.booleans(), always_home=st.booleans(), dominance=st.booleans())
def test_auto_moves_by_mask_are_the_card_by_card_ones(variant, seed, left, takeback, keller, always_home,
                                                      dominance):
    """movegen._auto, which tests the cards by the bit set of ``_auto_mask``, makes the plain
    card-by-card version's moves in the same order and leaves the same position; the mask holds
    exactly the cards with a place that takes them and safe there."""
    rules = get_rules(variant, {"takeback": takeback})
    s = pack(endgame(rules, random.Random(seed), left), rules)
    p = kernel_params(rules, dominance=dominance, always_home=always_home,
                     cuts=mg.CUT_SAFE_PLAY | (mg.CUT_KELLER if keller else 0))
    mask = int(mg._auto_mask(s, p))
    for card in range(52):
        want = mg._found_place(s, np.int64(card), p) >= 0 and mg._safe(s, np.int64(card), p)
        assert bool(mask >> card & 1) == want, card
    a, b = s.copy(), s.copy()
    out = np.zeros(256, np.int64)
    n = mg._auto(a, p, out)
    assert [int(m) for m in out[:n]] == plain_auto(b, p)
    assert np.array_equal(a, b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(ALL), number=st.integers(1, 999_999), seed=st.integers(0, 2**32),
       steps=st.integers(0, 200), left=st.integers(0, 52), dominance=st.booleans())
def test_auto_of_a_child_from_its_parents_mask(variant, number, seed, steps, left, dominance):
    """movegen._auto_child, which reuses the parent's ``_auto_mask`` when a move left the
    foundations as they were, makes ``_auto``'s moves and position for every child of random
    positions (walks from a deal, and endgames, where cards go home)."""
    rules, walk = walked(variant, number, seed, steps)
    for s in (walk, pack(endgame(rules, random.Random(seed), max(left, 4)), rules)):
        p = kernel_params(rules, dominance=dominance)
        home = mg._auto_mask(s, p)
        moves = np.zeros(mg.MAX_MOVES, np.int64)
        n = mg._gen(s, p, moves, np.zeros(mg.MAX_MOVES, np.int32), np.zeros(mg.GEN_WORK, np.int64))
        for m in moves[:n]:
            a = s.copy()
            mg._apply(a, m, p)
            b = a.copy()
            out_a, out_b = np.zeros(256, np.int64), np.zeros(256, np.int64)
            mg._auto(a, p, out_a)
            for known in (home, -1):  # the parent's mask found, or not yet
                b2 = b.copy()
                out_b = np.zeros(256, np.int64)
                assert mg._auto_child(b2, s, p, out_b, known) in (home, -1)
                assert np.array_equal(out_a, out_b)  # the same moves (a move is never 0)
                assert np.array_equal(a, b2)


def test_target_sets_on_empty_columns():
    """The empty-column case, which random walks rarely reach: a king fits the first empty
    column (every empty one without pruning), other ranks only where any card may go."""
    for variant in ("easy-harp", "bakers-game"):
        rules = get_rules(variant)
        s = pack(deal_layout(rules, 1), rules)
        s[mg.O_LEN + 1] = s[mg.O_LEN + 3] = 0
        s[mg.O_DOWN + 1] = s[mg.O_DOWN + 3] = 0
        for prune in (True, False):
            p = kernel_params(rules, prune=prune)
            want = np.zeros(rules.n_columns, np.int64)
            mg._targets(s, p, 1, want)
            for t in (1, 3):
                for card in (12, 25, 0, 30):
                    assert bool(int(want[t]) >> card & 1) == fits(s, p, card, t, 1)
            assert int(want[1]) >> 12 & 1 and (int(want[3]) >> 12 & 1) == (not prune)


def compute_perft() -> dict:
    out = {}
    for v in ALL:
        rules = get_rules(v)
        out[v] = {str(n): perft_kernel(rules, deal_layout(rules, n), PERFT_DEPTH.get(v, 5))
                  for n in PERFT_DEALS[v]}
    return out


@pytest.mark.parametrize("variant", ALL)
def test_perft_golden_counts_both_engines(variant):
    golden = json.loads(GOLDEN.read_text())[variant]
    rules = get_rules(variant)
    for n in PERFT_DEALS[variant]:
        depth = PERFT_DEPTH.get(variant, 5)
        layout = deal_layout(rules, n)
        k = perft_kernel(rules, layout, depth)
        assert k == golden[str(n)], f"kernel perft changed for {variant} deal {n}"
        assert perft_reference(rules, layout, depth) == k


if __name__ == "__main__":  # regenerate the golden file: python tests/test_kernel.py
    GOLDEN.write_text(json.dumps(compute_perft(), indent=1) + "\n")
    print("wrote", GOLDEN)
