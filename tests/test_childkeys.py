"""The children's fingerprints, feature keys and column features computed column by column from
the parent's (state._fingerprint_from, with and without the parent's talon prefix sums
state._talon_prefix; search/dfs._child_key_from, _features_from) equal the full computations, for every child of positions along random walks in every variant and under every key
switch."""
from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from harpsolve.deals import deal_layout
from harpsolve.movegen import GEN_WORK, MAX_MOVES, _apply, _auto, _gen
from harpsolve.rules import VARIANTS, get_rules
from harpsolve.search.dfs import (
    FS_SIZE, H_FEATURES, H_WEIGHTED, _child_key, _child_key_from, _features_from, _summarise_features,
)
from harpsolve.state import (
    ALL_CUTS, HS_SIZE, N_WEIGHTS, O_OBLIG, P_NCOL, TALON_MAX, _fingerprint, _fingerprint_from, _summarise_hash,
    _talon_prefix,
    kernel_params, pack,
)

from positions import endgame


def _check_children(st_, hs, p, rng):
    """Compare every child of ``st_`` (whose hashes ``hs`` came down the walk, as in the
    depth-first search's stack); return one child and its hashes to walk on (or None)."""
    moves = np.zeros(MAX_MOVES, np.int64)
    scores = np.zeros(MAX_MOVES, np.int32)
    buf = np.zeros(256, np.int64)
    fs = np.zeros(FS_SIZE, np.int64)
    n = _gen(st_, p, moves, scores, np.zeros(GEN_WORK, np.int64))
    _summarise_features(st_, p, fs)
    pre = np.zeros((2, TALON_MAX + 1), np.uint64)
    _talon_prefix(st_, p, pre)
    nopre = np.zeros((2, 0), np.uint64)
    children = []
    for m in moves[:max(n, 0)]:
        child = st_.copy()
        _apply(child, m, p)
        if child[O_OBLIG] == 0:
            _auto(child, p, buf)
        out = np.zeros(HS_SIZE, np.uint64)
        assert _fingerprint_from(child, st_, p, hs, out, nopre) == _fingerprint(child, p)
        viapre = np.zeros(HS_SIZE, np.uint64)
        assert _fingerprint_from(child, st_, p, hs, viapre, pre) == _fingerprint(child, p)
        assert (viapre == out).all()
        mine = np.zeros(HS_SIZE, np.uint64)  # the child's own hashes, for its children
        _summarise_hash(child, p, mine)
        ncol = p[P_NCOL]
        assert (out[:2 * ncol] == mine[:2 * ncol]).all() and (out[-2:] == mine[-2:]).all()
        assert _child_key_from(child, st_, m, p, fs) == _child_key(child, m, p)
        got, full = np.zeros(FS_SIZE, np.int64), np.zeros(FS_SIZE, np.int64)
        _features_from(child, st_, p, fs, got)  # the child's own features, for its children
        _summarise_features(child, p, full)
        assert (got == full).all()
        children.append((child, out))
    return rng.choice(children) if children else (None, None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(VARIANTS)), deal=st.integers(1, 999_999), seed=st.integers(0, 2**32),
       steps=st.integers(1, 120), dominance=st.booleans(), exact_key=st.booleans(), merge=st.booleans(),
       features=st.booleans(), noise=st.sampled_from([0, 0, 5]), endgame_left=st.sampled_from([0, 0, 6, 14]),
       cuts=st.sampled_from([0, ALL_CUTS]), auto=st.sampled_from([True, True, False]))
def test_children_keys_column_by_column(variant, deal, seed, steps, dominance, exact_key, merge, features, noise,
                                        endgame_left, cuts, auto):
    rng = random.Random(seed)
    rules = get_rules(variant)
    layout = endgame(rules, rng, endgame_left) if endgame_left else deal_layout(rules, deal)
    weights = [rng.randint(-8, 16) for _ in range(N_WEIGHTS)]
    p = kernel_params(rules, heuristic=H_FEATURES if features else H_WEIGHTED, dominance=dominance, auto=auto,
                      exact_key=exact_key, merge_colours=merge, always_home=merge, weights=weights, noise=noise,
                      seed=seed % 1000, cuts=cuts)
    st_ = pack(layout, rules)
    _auto(st_, p, np.zeros(256, np.int64))
    hs = np.zeros(HS_SIZE, np.uint64)
    _summarise_hash(st_, p, hs)
    for _ in range(steps):
        st_, hs = _check_children(st_, hs, p, rng)
        if st_ is None:
            break


@settings(max_examples=80, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), cards=st.lists(st.integers(0, 5), min_size=1, max_size=40),
       data=st.data(), merge=st.booleans(), exact_key=st.booleans())
def test_a_talon_less_one_card_is_keyed_from_the_parent_s_prefix_sums(variant, cards, data, merge, exact_key):
    """state._talon_from: removing any card of a talon -- few distinct cards, so copies of one card
    often lie side by side and the first difference is not where the card was taken -- or only
    moving the waste, gives the talon hash of the child hashed in full."""
    from harpsolve.state import O_TALON, O_TLEN, O_TPTR, _talon_from, _talon_hash

    rules = get_rules(variant)
    p = kernel_params(rules, exact_key=exact_key, merge_colours=merge, always_home=merge)
    parent = pack(deal_layout(rules, 1), rules)
    talon = [c * 9 % 52 for c in cards]  # six cards of all four suits, often repeated
    parent[O_TALON:O_TALON + len(talon)] = talon
    parent[O_TLEN] = len(talon)
    parent[O_TPTR] = data.draw(st.integers(0, len(talon)))
    pre = np.zeros((2, TALON_MAX + 1), np.uint64)
    _talon_prefix(parent, p, pre)
    k = data.draw(st.integers(0, len(talon) - 1))
    child = parent.copy()
    rest = talon[:k] + talon[k + 1:]
    child[O_TALON:O_TALON + len(talon)] = rest + [0]
    child[O_TLEN] = len(rest)
    child[O_TPTR] = k
    assert _talon_from(child, parent, p, pre) == _talon_hash(child, p)
    moved = parent.copy()  # the same cards, another waste size
    moved[O_TPTR] = data.draw(st.integers(0, len(talon)))
    assert _talon_from(moved, parent, p, pre) == _talon_hash(moved, p)
    if len(talon) >= 2:  # two cards fewer: hashed in full
        two = parent.copy()
        two[O_TLEN] = len(talon) - 2
        assert _talon_from(two, parent, p, pre) == _talon_hash(two, p)
