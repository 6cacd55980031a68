"""The children's fingerprints, feature keys and column features computed column by column from
the parent's (state._fingerprint_from, search/dfs._child_key_from, _features_from) equal the full
computations, for every child of positions along random walks in every variant and under every key
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
    ALL_CUTS, HS_SIZE, N_WEIGHTS, O_OBLIG, P_NCOL, _fingerprint, _fingerprint_from, _summarise_hash,
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
    children = []
    for m in moves[:max(n, 0)]:
        child = st_.copy()
        _apply(child, m, p)
        if child[O_OBLIG] == 0:
            _auto(child, p, buf)
        out = np.zeros(HS_SIZE, np.uint64)
        assert _fingerprint_from(child, st_, p, hs, out) == _fingerprint(child, p)
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
