"""Beam search: a solution finder that keeps the best ``width`` positions of each depth.

A depth-first search commits to its first child and spends its budget under
it; on the single-card games that is where it fails (issue 11: the deals the
restarts leave unknown are mostly winnable, since the same deals are won
once runs may move).  A beam keeps the ``width`` best children of a whole
depth, by the restarts' feature keys (search/dfs.py ``_feature_key``), and
so follows many lines at the same pace; Bjarnason, Tadepalli & Fern (2007)
found Klondike solutions with searches of this kind that depth-first search
misses.  Measured (benchmarks/README, sixteenth session, bench_beam.py):
beams of 16-1 024 win 19 of 20 easy-harp deals, 20 of 20 harp deals and 11
of 12 big-harp deals that the portfolio had left unknown (easy-harp at up
to 4 000 000 nodes), most in well under a million children.

Solutions only: the beam drops all but ``width`` positions of each depth, so
running out of positions proves nothing.  A table of every position ever
made (the transposition table of search/tt.py, fingerprints only) keeps the
beam from coming back to a position by another line.  A found line is a
kernel path from the root, like the depth-first search's, and is shortened,
turned into tokens and replayed by the reference engine like any other.

The kernel runs in slices (``node_slice`` children a call) and keeps all of
its state in the caller's arrays, so a schedule can pause and resume it: the
children are made in the same order either way, and a search sliced any way
finds the same line in the same nodes as one run in one call (tested).

Arrays: ``cur`` the positions of the current depth (``ctr[C_NCUR]`` of them);
``ckey``/``cpar``/``cmove``/``csig`` the children kept so far (their key,
their parent's index in ``cur``, the move, their stock signature), cut down to
the ``width`` best (STOCK_CAP) whenever they fill up and at the end of a depth; ``hpar``/``hmove`` the history, one
entry per position ever kept, depth ``d``'s entries from ``hstart[d]``: the
index of its parent in depth ``d - 1`` and the move that made it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import JIT_NORC
from ..movegen import GEN_WORK, MAX_MOVES, _apply, _auto, _auto_child, _gen, _won
from ..state import (
    ALL_CUTS, HS_SIZE, NCOL_MAX, O_DOWN, O_FOUND, O_OBLIG, O_RECYC, O_TLEN, O_TPTR, PLACES_MAX, STATE_BYTES, _copy_state,
    _fingerprint, _fingerprint_from, TALON_MAX, _summarise_hash, _talon_prefix,
)
from .dfs import FS_SIZE, _child_key_from, _summarise_features
from .settings import next_slice
from .tt import _ahead, _claim, _slots

# kernel return codes
B_SOLVED, B_EMPTY, B_PAUSED, B_DEPTH, B_GROW, B_HISTORY, B_STALLED = range(7)
_ENDED = {B_EMPTY: "empty", B_DEPTH: "depth", B_STALLED: "stalled"}  # final codes, as advance says them
# counters (int64 array ``ctr``); C_STALL is a setting (STALL_DEPTHS, 0: off), C_BEST and
# C_BEST_DEPTH the best progress (``_progress``) of a depth's kept positions so far and the
# depth that first had it (kept only while the rule is on)
C_DEPTH, C_PARENT, C_MOVE, C_NCAND, C_NCUR, C_NODES, C_STORED, C_PATHLEN, C_DROPPED, C_STALL, C_BEST, \
    C_BEST_DEPTH, C_SIZE = range(13)

# Children made and fingerprinted before their claims (``_beam``): a batch's table misses
# overlap.  32 of them (15 KB) stay in the first-level cache beside the parent; most parents
# have fewer children.
KIDS = 32
MAX_DEPTH = 4096          # deepest line in kernel moves (an easy-harp win is a few hundred)
# The runs of the engine (search/engine.py, Beam): rounds of the game's weight sets
# (``sets_for``: SETS or STOCK_SETS, indices of search/restarts.py's WEIGHT_SETS), the width
# growing 2**GROWTH-fold from round to round up to MAX_WIDTH, each run at most RUN_NODES children per unit of width (a
# beam that has not won by then wanders: lines of thousands of moves shuffling cards).
# First width 4 rather than 16 (sixteenth session, the Beam engine alone on every 48th
# easy-harp deal the table left unknown, 2 000 000 nodes, and every 2 000th harp one, 500 000,
# two samples of each: 166 of 174 won against 160, the mean nodes of the harp runs 104-127 k
# against 119-165 k); 8 and doubling widths were no better; 2 000 children per unit of width
# cut harp's runs before their lines could end (0 of 47 won).
# The sets: 10 (face-up cards lying on hidden ones weighed as set 2 does, blockers and buried
# pairs as set 3 does), then 2 and 3 (nineteenth session, with STOCK_CAP; they had been 3, 2,
# 6).  Width 16 alone, easy-harp 1-300: set 3 won 218, 2 216, 6 215, 10 256, the three of
# (3, 2, 6) 276 together, of (10, 2, 3) 284; harp 1-200: 117, 124, 85, 126; 171 and 180
# together; at width 4, easy-harp: 103 (set 3), 137 (set 10).  In the portfolio (a /tmp
# script, solve with the old sets and the new, deal by deal, 2 000 000 nodes): easy-harp
# 1-1 000 every 2nd mean nodes 14 962 -> 11 451, mean 16.4 -> 12.6 ms; 5 001-6 000 every 2nd
# 16 579 -> 10 316, 15.6 -> 11.0 ms (deals the sets were not chosen on); harp 1-300 every 3rd
# 161 354 -> 104 294, 121 -> 81 ms; 10 001-10 600 every 3rd 2 / 0 unknown, 140 605 -> 93 479,
# 105 -> 72 ms, median 44 -> 23 ms; 5 001-5 300 every 3rd 0 / 1 unknown, median 51 -> 32 ms.
# Where runs move without a pass limit (only ``--algorithm beam`` runs beams there) about
# even: endless-harp 1-300 every 3rd, beams alone, mean nodes 14 853 -> 17 189.
SETS = (10, 2, 3)
# Where draw 3 meets a pass limit (big-harp) the beams' own sets: sets 3 and 2 with cards
# left in stock and waste as dear as hidden ones (talon weight 8 for 0-1) and a recycle twice
# as dear (64 for 32), then set 2 (nineteenth session, /tmp experiments, beams of width 16
# alone with STOCK_CAP, 60 big-harp deals of 40 001-78 640 the table left unknown at 200 000
# nodes: set 3 won 27, with talon 8 31, with talon 8 and recycles 64 42, 96 37; set 2 31,
# with both 35; the three of STOCK_SETS together 53, of SETS about 46-50).  A draw of 3 under a
# pass limit reaches only every third card in a pass, so a card left in the talon may never
# come out again; with draw 1 (harp) the same weights lose (harp 1-200, width 16, set 3: 117
# won, 38 with talon 8, 106 with recycles 64), and without a pass limit (endless-harp
# 1-300, width 4: 244 / 196 won; klondike-3 1-200, width 16: 116 / 97).
STOCK_SETS = (8, 9, 2)
FIRST_WIDTH = 4
GROWTH = 2                # the width doubles GROWTH times from one round to the next
MAX_WIDTH = 4096
RUN_NODES = 8000
CANDIDATES = 16           # children kept (per unit of width) before a depth is cut down
NODE_SLICE = 100_000      # children a kernel call makes: the clock is read between calls
# A beam keeps at most STOCK_CAP children of each stock signature (recycles, cards in stock
# and waste, waste size) before it keeps a second one of any (nineteenth session).  By key
# alone the best children of a depth are mostly one stock position with its tableau shuffled
# a little: where the stock decides (a pass limit, draw 3) the whole beam then shares one
# early choice of which stock cards to take and dies with it -- of 40 big-harp deals the
# portfolio left unknown at 200 000 nodes, 25 beams of width 64 ended with every line dead.
# Kept apart by stock signature, the lines take the stock in different ways.  Measured
# (/tmp experiments, beams alone, one weight set a row, by key alone / STOCK_CAP 1; the
# deals the tables left unknown): big-harp 40 deals, width 64: 9 -> 34 won (set 5), 8 -> 32
# (set 3); width 16: 3 -> 16, 5 -> 19; width 4: 4 -> 8, 2 -> 6; harp 40 deals, width 64 set
# 3: 19 -> 30, width 16 set 2: 3 -> 14; easy-harp deals 1-200, width 16 set 3: 122 -> 140,
# width 4: 58 -> 69; endless-harp 1-200 width 16: 179 -> 186.  Caps of 2, 4 and 16 won
# less (big-harp width 16: 13-15 at 2; width 64: 23-28 at 4, 12-16 at 16); signatures with
# the hidden-card count or the stock's cards themselves no more.  Solutions only, as every beam: which lines a
# beam keeps is a choice of where to look, not a cut.
STOCK_CAP = 1
INITIAL_TABLE = 1 << 14
INITIAL_HISTORY = 1 << 14
# A beam's table starts at TABLE_PER_WIDTH slots a unit of width (a power of two, at least
# INITIAL_TABLE): a wide beam makes hundreds of thousands of children, and growing its table
# from 16 384 slots by doubling rehashed every entry again and again (2.5 % of harp's time in
# cProfile).  Thirtieth session, bench_ab.py, every 500th deal of 1-100 000, before / after:
# harp mean 45.93 / 44.52 ms (0.969), big-harp 83.32 / 81.00 (0.972), easy-harp 8.30 / 7.95
# (0.959); the same nodes.  (A fixed 65 536 for every width: harp 0.973.)
TABLE_PER_WIDTH = 1 << 12
_NO_PAYLOAD = np.zeros(0, np.int64)  # a beam's table keeps fingerprints only (tt._rehash)


# A run ends early ("stalled") when the best progress of the positions it keeps (``_progress``:
# cards on foundations, less cards face down and cards in stock and waste) has not grown for
# STALL_DEPTHS depths -- where draw 3 meets a pass limit (``stall_for``).  There a losing beam
# has used the stock up in a way that leads nowhere and then wanders to its node cap (RUN_NODES),
# shuffling cards between columns: big-harp's losing runs reached depths 440-670 where its
# winning runs end at a median depth of 108 (fortieth session, /tmp scripts, every 250th deal
# of big-harp 1-100 000 at 20 000 000 nodes; the best progress read between slices of a
# depth).  Of 168 winning runs, the longest stretch without progress was 4 depths at the
# median, 50 at the 90th percentile, 283 at most (a beam of 256 that won at depth 389 after
# two stretches of ~130 depths); 101 losing runs ran to their cap, and an end 20-60 depths
# after their last progress would have saved 57-65 % of their children.  The kernel's rule
# against none, interleaved deal by deal (benchmarks/bench_ab.py, and /tmp scripts with the
# constant set per solve; both sweeps' cores busy with other sweeps, so ratios, not times):
# - big-harp 41-100 000 every 500th (200 deals), 20 000 000 nodes, at 40: mean 144.1 ->
#   114.3 ms (0.793), median 27.2 -> 26.7 ms, mean nodes 174 558 -> 118 402, none unknown;
# - 57-100 000 every 250th (400 deals) at 0 / 20 / 30 / 40 / 60: mean 87.5 / 68.2 / 68.0 /
#   69.3 / 64.7 ms, none unknown;
# - 60 deals the sweep of 817 856-999 999 had solved in over a second (47 by beams of 256), at
#   0 / 30 / 40 / 60: mean 2.87 / 1.83 / 1.93 / 2.15 s; one deal (824959, won by a beam of 256
#   at 5.7 M nodes) unknown at 20 000 000 with the rule: its winning run had the two long
#   stretches above, and with the runs cheaper the beams' 6 000 000 (RUNS_BEAM_TOTAL) went on
#   wider runs instead, which lost;
# - 24 deals that sweep's arrangement-free engine had solved after 3.8-20 M nodes and 8 it had
#   left unknown (solved at 50 000 000), in two halves, at 0 / 40: mean 6.86 -> 3.15 s and
#   8.05 -> 6.34 s, **unknown 8 -> 4**: the beams now reach width 1 024 within their 6 000 000
#   nodes and win there (RUNS_BEAM_TOTAL at 12 000 000 with the rule: 5 unknown, mean 3.68 and
#   5.18 s).
# Where only single cards move the rule costs: wins there come after long reorganisations of
# the columns, which do not count as progress (the same /tmp emulation, harp 101-100 000 every
# 500th at 10 000 000 nodes: mean 1.029 at 40 and at 80; easy-harp every 250th 1.031 / 1.007,
# more nodes), so it is off there (``stall_for``).  Solutions only, as every beam: where a run
# ends is a choice of where to look, not a cut; a stalled run is no verdict and the next run
# starts (engine.Beam).
STALL_DEPTHS = 40


def stock_decides(rules) -> bool:
    """Does draw 3 meet a pass limit (big-harp)?  There a card passed by in the talon may never
    come out again, and the beams take their own weight sets (``sets_for``) and end their runs
    when they stall (``stall_for``); by rules fields."""
    return rules.passes > 0 and rules.draw > 1


def stall_for(rules) -> int:
    """The beams' STALL_DEPTHS in a game: where ``stock_decides``, else 0 (no early end)."""
    return STALL_DEPTHS if stock_decides(rules) else 0


@njit(**JIT_NORC)
def _progress(st):
    """How far ``st`` is along (``STALL_DEPTHS``): cards on the foundations, less the cards
    face down and the cards in stock and waste (unused places and columns count 0)."""
    v = np.int64(0)
    for f in range(PLACES_MAX):
        v += np.int64(st[O_FOUND + f])
    for c in range(NCOL_MAX):
        v -= np.int64(st[O_DOWN + c])
    return v - np.int64(st[O_TLEN])


def sets_for(rules) -> tuple[int, ...]:
    """The weight sets of a game's beams, by rules fields: STOCK_SETS where draw 3 meets a
    pass limit, SETS elsewhere."""
    return STOCK_SETS if stock_decides(rules) else SETS


# Every game's beams start at FIRST_WIDTH.  Where draw 3 meets a pass limit (STOCK_SETS) they
# started at width 16 from the twenty-third session to the fortieth: a beam of 4 rarely kept a
# line that took the stock well (bench_portfolio_sim.py ``collect`` on big-harp 60 001-100 000
# every 400th, every run alone: the width-4 runs won 30, 25 and 15 of the 100 deals, the first
# width-16 run 79).  Since the beams there split runs only to free a card for home
# (``aggressive_for``) the narrow runs win again: /tmp A/B script, each deal solved in turn
# from width 4 and from 16, 20 000 000 nodes, two sweeps beside it (forty-first session):
# big-harp every 250th of 7-100 000 mean nodes 32 002 -> 25 785, mean time 0.863, median
# 17.7 -> 9.3 ms; every 250th of 100-100 000 (deals not looked at before) 24 260 -> 17 512,
# 0.790, median 18.0 -> 9.0 ms; the 53 deals of every 25th of 1-100 000 whose beams had made
# over 1 000 000 children 1.014; none unknown in any.  benchmarks/bench_ab.py big-harp
# 1-50000/25 and 50001-100000/25 (2 000 deals each, the two side by side, nothing else
# running), 20 000 000 nodes: mean 23.15 -> 19.29 ms (0.833) and 18.22 -> 14.58 ms (0.800),
# median 11.3 -> 6.2 and 11.1 -> 6.0 ms, none unknown.
def runs_for(rules):
    """A game's beam runs (``runs``): the game's weight sets (``sets_for``), by rules fields."""
    return runs(sets_for(rules))


def runs(sets=SETS):
    """The engine's runs in order (search/engine.py, Beam), endless: (width, weight set, round)
    -- the round (1-based) seeds the noisy weight sets (restarts.run_params)."""
    rnd = 0
    while True:
        width = min(FIRST_WIDTH << (GROWTH * rnd), MAX_WIDTH)
        for k in sets:
            yield width, k, rnd + 1
        rnd += 1


# Where runs move, a beam splits a built run only when the card it uncovers can go home next
# (movegen's aggressive rule, ``P_AGGRESSIVE``: Blake & Gent's partial-run rule, which their
# Appendix B proves for one or several decks without take-back; here it is not a cut at all,
# only a choice of where to look, so no proof is owed).  Moving part of a run elsewhere
# is half of a big-harp position's moves and hardly ever part of a win: the beams spent their
# children on shuffles of the columns.  /tmp A/B script (forty-first session), the same deals
# solved in turn with and without the rule in the beams, 20 000 000 nodes: big-harp 7-100 000
# every 250th (400 deals) mean 81.8 -> 17.6 ms (0.216), median 15.1 -> 10.3 ms, mean nodes
# 171 437 -> 32 002; the 53 deals of every 25th of 1-100 000 whose beams had made over
# 1 000 000 children, mean 2.38 -> 0.27 s (0.112), unknown 2 -> 0.  Where single cards move
# the rule is different (a card leaves a face-up card only if that card can move on) and
# buys little or loses: harp 101-100 000 every 500th at 10 000 000 nodes 0.976, easy-harp
# 3-100 000 every 250th at 2 000 000 nodes 1.063 with one deal unknown more; so it is on by
# rules field (``aggressive_for``).  (The game without take-back, tried the same way as a
# stronger game whose lines are lines of this one: big-harp 0.789 alone, no better with the
# rule; harp 3.49.)
def aggressive_for(rules) -> bool:
    """Do the beams of a game use movegen's aggressive rule?  Where runs move."""
    return rules.column_moves == "runs"


def run_params(rules, ws: int, rnd: int, cuts: int = ALL_CUTS) -> np.ndarray:
    """The kernel vector of a beam run: weight set ``ws`` of round ``rnd``
    (restarts.run_params), with the aggressive rule where ``aggressive_for``."""
    from . import restarts

    return restarts.run_params(rules, ws, rnd, streamlined=False, cuts=cuts, aggressive=aggressive_for(rules))


def new_run(rules, root, width: int, ws: int, rnd: int, cuts: int = ALL_CUTS) -> "BeamSearch":
    """One of the engine's runs (search/engine.py, Beam) from the packed ``root``: a beam of
    ``width`` under ``run_params`` with the game's stall rule (``stall_for``); its kernel
    vector is the search's ``p``."""
    return BeamSearch(root, run_params(rules, ws, rnd, cuts), width, stall=stall_for(rules))


# Solutions through stronger games (the ``beam-stronger`` row of the beam schedule,
# search/engine.py ``BeamStronger``), the mirror of the proofs through weaker games
# (search/relax.py): a game that allows fewer moves than the real one, every one of them a move
# of the real game (``relax._includes``), has lines that are lines of the real game, the same
# tokens from the same layout; its win is the real game's, replayed there by the solver like
# any other.  Where the stock has no pass limit (endless-harp, easy-harp, klondike) those games
# are the same one with the family's pass limits, STRONGER_PASSES: big-harp's 3 and harp's 4
# (endless-harp with 3 passes is big-harp).  Beams of them take the stock in another way --
# a card passed by may never come out again, so the beams keep lines apart by recycles used
# and, under draw 3, weigh the talon (STOCK_SETS) and end the runs that stall -- and win deals
# the real game's own beams lose.  Forty-second session (benchmarks/README.md), the Beam engine
# alone on the overridden rules at 40 000 000 nodes, on the deals the tables had left unknown
# after 50 000 000 (easy-harp) and 200 000 000 (endless-harp 90511) nodes of their own beams:
# 3 passes won easy-harp 110376 (16 M nodes), 238854 (25 M) and 327018 (0.4 M) and endless-
# harp 90511 (15 M); 4 passes easy-harp 110376 (0.4 M), 150333 (10.7 M), 327018 (0.5 M) and
# 90511 (15 M); 2 and 5 passes nothing more (320948 and 772686 lost in all four).  Solutions
# only: a stronger game losing says nothing.
STRONGER_PASSES = (3, 4)


def stronger_games(rules) -> list:
    """The games whose beams the ``beam-stronger`` row runs: ``rules`` with each of
    STRONGER_PASSES passes where the stock has no pass limit; none where it has one or there is
    no stock."""
    from ..rules import with_overrides

    if not rules.unlimited_passes or rules.draw == 0:
        return []
    return [with_overrides(rules, {"passes": n}) for n in STRONGER_PASSES]


@njit(**JIT_NORC)
def _stock_sig(st):
    """Where the stock stands in ``st``: recycles used, cards in stock and waste, the
    waste size (bit layout: recycles << 16 | talon length << 8 | waste size; each < 256)."""
    return (np.int64(st[O_RECYC]) << 16) | (np.int64(st[O_TLEN]) << 8) | np.int64(st[O_TPTR])


# _select orders children by one int64 each, key * ORDER_SHIFT + index: unique, so any sort
# gives the (key, index) order, and partial selections are exact.  The index needs
# log2(CANDIDATES * width) bits (BeamSearch checks the width), the key the rest: feature keys
# are far below 2**42.
ORDER_BITS = 21
ORDER_SHIFT = np.int64(1) << ORDER_BITS


@njit(**JIT_NORC)
def _sift_down(h, i, n):
    """Restore the max-heap h[:n] below position ``i``."""
    x = h[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and h[c + 1] > h[c]:
            c += 1
        if h[c] <= x:
            break
        h[i] = h[c]
        i = c
    h[i] = x


@njit(**JIT_NORC)
def _smallest(vals, n, m, out, start, h):
    """Write the indices of the ``m`` smallest of ``vals[:n]`` (unique _select order values,
    each ending in its child's index), in increasing order, into ``out[start:]``.

    A max-heap of the m best so far (``h``, scratch), then heapsort: O(n log m), no
    allocation and no recursion (the beam kernel is compiled without reference counting,
    config.JIT_NORC)."""
    if m <= 0:
        return
    for t in range(m):
        h[t] = vals[t]
    for i in range(m // 2 - 1, -1, -1):
        _sift_down(h, i, m)
    for t in range(m, n):
        if vals[t] < h[0]:
            h[0] = vals[t]
            _sift_down(h, 0, m)
    for e in range(m - 1, 0, -1):
        x = h[0]
        h[0] = h[e]
        h[e] = x
        _sift_down(h, 0, e)
    for t in range(m):
        out[start + t] = h[t] & (ORDER_SHIFT - 1)


def select_scratch(ncand: int) -> np.ndarray:
    """``_select``'s working space for ``ncand`` candidates (its layout: SEL_PARTS slices
    of ``ncand`` then two signature tables of ``_sig_table_size(ncand)``)."""
    return np.zeros(SEL_PARTS * ncand + 2 * _sig_table_size(ncand), np.int64)


SEL_PARTS = 6  # order values, the uncrowded's, the crowded's, the kept order, heap, slots


@njit(**JIT_NORC)
def _sig_table_size(nc):
    """Slots of the signature table for ``nc`` children: a power of two, at least 16 and 2 nc."""
    size = 16
    while size < 2 * nc:
        size *= 2
    return size


@njit(**JIT_NORC)
def _signature_slots(csig, nc, slot, tsig):
    """Number the distinct stock signatures of the first ``nc`` children into ``slot``, by a
    small open-addressing table (``tsig``, scratch); returns how many numbers there may be."""
    size = _sig_table_size(nc)
    bits = 4
    while (1 << bits) < size:
        bits += 1
    mask = size - 1
    for j in range(size):
        tsig[j] = -1  # no signature is negative
    for i in range(nc):
        j = np.int64((np.uint64(csig[i]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)) & mask
        while tsig[j] != -1 and tsig[j] != csig[i]:
            j = (j + 1) & mask
        tsig[j] = csig[i]
        slot[i] = j
    return size


@njit(**JIT_NORC)
def _select(ckey, cpar, cmove, csig, nc, keep, cap, sel):
    """Move the ``keep`` best of the first ``nc`` children to the front, in increasing key
    order (ties: the earlier child first); returns how many are kept.  ``sel``: scratch
    (``select_scratch``).

    With ``cap`` > 0 a child is "crowded" when ``cap`` children of the same stock signature
    (``csig``) have smaller keys (or the same key, earlier); the uncrowded come first, the
    crowded fill what is left, each group in key order (see STOCK_CAP).

    Cost: the children of a depth are selected every CANDIDATES * width of them, so this is
    per child what the beam pays besides making and keying it.  With cap 0 or 1 no sort of
    all of them: a heap finds the kept ones in order (``_smallest``); with cap 1 the
    uncrowded children are the best of each signature, found in one pass with a small hash
    table.  (Twentieth session, the partition-and-sort form of this against the three stable
    sorts it replaced, 16 * width random keys in 2 000 values and 50 signatures, cap 1, a
    /tmp script: width 4 58 -> 37 ns a child, 64 105 -> 10 ns, 1 024 203 -> 12 ns.)"""
    N = ckey.shape[0]
    v = sel[:N]
    fv = sel[N:2 * N]
    cv = sel[2 * N:3 * N]
    order = sel[3 * N:4 * N]
    h = sel[4 * N:5 * N]
    slot = sel[5 * N:6 * N]
    T = _sig_table_size(N)
    tsig = sel[SEL_PARTS * N:SEL_PARTS * N + T]
    tab = sel[SEL_PARTS * N + T:SEL_PARTS * N + 2 * T]
    for i in range(nc):
        v[i] = ckey[i] * ORDER_SHIFT + i
    k = min(nc, keep)
    if cap == 0 or nc <= keep:
        _smallest(v, nc, k, order, 0, h)
    else:
        nslots = _signature_slots(csig, nc, slot, tsig)
        nf = 0
        ncr = 0
        if cap == 1:
            # the uncrowded children are each signature's best: one pass, no sort of them all
            best = tab
            for j in range(nslots):
                best[j] = np.iinfo(np.int64).max
            for i in range(nc):
                best[slot[i]] = min(best[slot[i]], v[i])
            for i in range(nc):
                if v[i] == best[slot[i]]:
                    fv[nf] = v[i]
                    nf += 1
                else:
                    cv[ncr] = v[i]
                    ncr += 1
        else:
            seen = tab
            for j in range(nslots):
                seen[j] = 0
            _smallest(v, nc, nc, order, 0, h)  # every child, in order
            for t in range(nc):
                i = order[t]
                seen[slot[i]] += 1
                if seen[slot[i]] <= cap:
                    fv[nf] = v[i]
                    nf += 1
                else:
                    cv[ncr] = v[i]
                    ncr += 1
        _smallest(fv, nf, min(nf, k), order, 0, h)
        if nf < k:
            _smallest(cv, ncr, k - nf, order, nf, h)
    for arr in (ckey, cpar, cmove, csig):
        for t in range(k):
            h[t] = arr[order[t]]
        for t in range(k):
            arr[t] = h[t]
    return k


@njit(**JIT_NORC)
def _beam(cur, nxt, ckey, cpar, cmove, csig, cap, hstart, hpar, hmove, path, t, ctr, p, node_slice,
          moves, scores, work, autobuf, kids, kh, hs2, pre, fs, sel):
    """Search on for at most ``node_slice`` children; returns a B_* code.  B_GROW: the
    table is half full (double it and call again); B_HISTORY: the history arrays are full
    (the same).  On B_SOLVED the line is ``path[:ctr[C_PATHLEN]]``.

    Scratch, from the caller (the kernel allocates nothing: it is compiled without reference
    counting, config.JIT_NORC): ``moves``/``scores`` a parent's moves, ``work`` _gen's working
    space, ``autobuf`` the automatic moves', ``kids``/``kh`` a batch of children being made and
    their fingerprints, ``hs2`` the parent's hashes and the
    child's, ``pre`` the parent's talon prefix sums (state._talon_prefix: a child's talon keyed in a few
    operations) and ``fs`` the parent's features (its children's keys cost only the columns that
    change), ``sel`` _select's.

    A parent's children are made in batches of up to ``kids.shape[0]``: first every child of
    the batch is made and fingerprinted and its table slot prefetched (tt._ahead), then the
    batch is claimed and kept in order.  The table outgrows the caches, and a claim was a miss
    for most children, one after another; a batch's misses overlap.  The same events in the
    same order as making and claiming one child at a time: a batch never runs past the
    slice's nodes; a child counts as a node when its turn to be claimed comes, so a pause for
    a full table (B_GROW) before it leaves it unmade, to be made again by the next call; a won
    child ends the batch and wins at its turn."""
    width = cur.shape[0]
    hs = hs2[0]
    hs_child = hs2[1]
    batch = kids.shape[0]
    d = ctr[C_DEPTH]
    i = ctr[C_PARENT]
    j = ctr[C_MOVE]
    nc = ctr[C_NCAND]
    ncur = ctr[C_NCUR]
    nodes = ctr[C_NODES]
    stored = ctr[C_STORED]
    limit = nodes + node_slice
    half = _slots(t) // 2
    code = B_DEPTH
    while d < MAX_DEPTH:
        while i < ncur:
            n = _gen(cur[i], p, moves, scores, work)
            _summarise_hash(cur[i], p, hs)
            _talon_prefix(cur[i], p, pre)
            _summarise_features(cur[i], p, fs)
            home = np.int64(-1)  # the parent's _auto_mask, found when a child first needs it
            while j < n:
                e = min(n, j + batch, j + (limit - nodes))
                if e <= j:
                    code = B_PAUSED
                    break
                j0 = j
                won = n
                for k in range(j0, e):
                    child = kids[k - j0]
                    _copy_state(child, cur[i])
                    _apply(child, moves[k], p)
                    if child[O_OBLIG] == 0:
                        home = _auto_child(child, cur[i], p, autobuf, home)
                    if _won(child, p):
                        won = k
                        e = k + 1
                        break
                    h1, h2 = _fingerprint_from(child, cur[i], p, hs, hs_child, pre)
                    kh[k - j0, 0] = h1
                    kh[k - j0, 1] = h2
                    _ahead(t, h2)
                for k in range(j0, e):
                    if stored >= half:
                        code = B_GROW
                        break
                    j = k + 1
                    nodes += 1
                    m = moves[k]
                    if k == won:
                        path[d] = m
                        slot = i
                        for r in range(d, 0, -1):
                            h = hstart[r] + slot
                            path[r - 1] = hmove[h]
                            slot = hpar[h]
                        ctr[C_PATHLEN] = d + 1
                        ctr[C_NODES] = nodes
                        ctr[C_STORED] = stored
                        ctr[C_DEPTH] = d
                        return B_SOLVED
                    if _claim(t, kh[k - j0, 0], kh[k - j0, 1]) >= 0:
                        continue
                    stored += 1
                    if nc == ckey.shape[0]:
                        nc = _select(ckey, cpar, cmove, csig, nc, width, cap, sel)
                        ctr[C_DROPPED] = 1
                    child = kids[k - j0]
                    ckey[nc] = _child_key_from(child, cur[i], m, p, fs)
                    cpar[nc] = i
                    cmove[nc] = m
                    csig[nc] = _stock_sig(child)
                    nc += 1
                if code == B_GROW:
                    break
            if j < n:
                break  # paused or the table is full: go on from (i, j) next call
            i += 1
            j = 0
        if i < ncur:
            break
        if nc == 0:
            code = B_EMPTY
            break
        keep = min(nc, width)
        if nc > keep:
            ctr[C_DROPPED] = 1
        if hstart[d + 1] + keep > hpar.shape[0]:
            code = B_HISTORY
            break
        ncur = _select(ckey, cpar, cmove, csig, nc, keep, cap, sel)
        h = hstart[d + 1]
        for k in range(ncur):
            _copy_state(nxt[k], cur[cpar[k]])
            _apply(nxt[k], cmove[k], p)
            if nxt[k][O_OBLIG] == 0:
                _auto(nxt[k], p, autobuf)
            hpar[h + k] = cpar[k]
            hmove[h + k] = cmove[k]
        for k in range(ncur):
            _copy_state(cur[k], nxt[k])
        d += 1
        hstart[d + 1] = h + ncur
        i = 0
        j = 0
        nc = 0
        if ctr[C_STALL] > 0:  # the stall rule (STALL_DEPTHS): the depth's best progress
            best = _progress(cur[0])
            for k in range(1, ncur):
                best = max(best, _progress(cur[k]))
            if best > ctr[C_BEST]:
                ctr[C_BEST] = best
                ctr[C_BEST_DEPTH] = d
            elif d - ctr[C_BEST_DEPTH] >= ctr[C_STALL]:
                code = B_STALLED
                break
    ctr[C_DEPTH] = d
    ctr[C_PARENT] = i
    ctr[C_MOVE] = j
    ctr[C_NCAND] = nc
    ctr[C_NCUR] = ncur
    ctr[C_NODES] = nodes
    ctr[C_STORED] = stored
    return code


class BeamSearch:
    """One beam search of ``width`` from the packed ``root`` under the kernel vector ``p``
    (whose heuristic orders the children: search/dfs.py ``_child_key``), run in slices.
    ``cap``: how many children of one stock signature a depth keeps before the crowded ones
    (STOCK_CAP; 0 = by key alone).  ``stall``: end the run after that many depths without
    progress (STALL_DEPTHS, ``stall_for``; 0 = never)."""

    def __init__(self, root: np.ndarray, p: np.ndarray, width: int, cap: int = STOCK_CAP, stall: int = 0):
        from .. import movegen as mg
        from .tt import new_table

        if CANDIDATES * width > ORDER_SHIFT:
            raise ValueError(f"a beam is at most {ORDER_SHIFT // CANDIDATES} wide")
        self.p, self.width = p, width
        start = root.copy()
        mg._auto(start, p, np.zeros(256, np.int64))
        self.cur = np.zeros((width, STATE_BYTES), np.uint8)
        self.nxt = np.zeros((width, STATE_BYTES), np.uint8)
        self.cur[0] = start
        self.ckey = np.zeros(CANDIDATES * width, np.int64)
        self.cpar = np.zeros(CANDIDATES * width, np.int64)
        self.cmove = np.zeros(CANDIDATES * width, np.int64)
        self.csig = np.zeros(CANDIDATES * width, np.int64)
        # the kernel's scratch (_beam's docstring)
        self.scratch = (np.zeros(MAX_MOVES, np.int64), np.zeros(MAX_MOVES, np.int32), np.zeros(GEN_WORK, np.int64), np.zeros(256, np.int64),
                        np.zeros((KIDS, STATE_BYTES), np.uint8), np.zeros((KIDS, 2), np.uint64),
                        np.zeros((2, HS_SIZE), np.uint64), np.zeros((2, TALON_MAX + 1), np.uint64),
                        np.zeros(FS_SIZE, np.int64),
                        select_scratch(CANDIDATES * width))
        self.cap = cap
        self.hstart = np.zeros(MAX_DEPTH + 2, np.int64)
        self.hstart[1] = 1  # depth 0 is the root, entry 0
        self.hpar = np.zeros(INITIAL_HISTORY, np.int32)
        self.hmove = np.zeros(INITIAL_HISTORY, np.int64)
        self.path = np.zeros(MAX_DEPTH + 1, np.int64)
        self.t = new_table(max(INITIAL_TABLE, 1 << (TABLE_PER_WIDTH * width - 1).bit_length()))
        h1, h2 = _fingerprint(start, p)
        _claim(self.t, np.uint64(h1), np.uint64(h2))
        self.ctr = np.zeros(C_SIZE, np.int64)
        self.ctr[C_NCUR] = 1
        self.ctr[C_STORED] = 1
        self.ctr[C_STALL] = stall
        self.ctr[C_BEST] = _progress(start)
        self.final = ("solved", "") if mg._won(start, p) else None

    @property
    def nodes(self) -> int:
        return int(self.ctr[C_NODES])

    @property
    def states(self) -> int:
        return int(self.ctr[C_STORED])

    @property
    def depth(self) -> int:
        return int(self.ctr[C_DEPTH])

    @property
    def dropped(self) -> bool:
        """Has the beam left out a position it made?  If not, and every line ended, it has
        made every position reachable from the root: a wider beam would do the same again."""
        return bool(self.ctr[C_DROPPED])

    def nbytes(self) -> int:
        return (self.t.nbytes + self.hpar.nbytes + self.hmove.nbytes + self.cur.nbytes
                + self.nxt.nbytes + 4 * self.ckey.nbytes + sum(a.nbytes for a in self.scratch))

    def advance(self, nodes: int = 0, deadline: float | None = None, reserve=None):
        """Search on for at most ``nodes`` more children (0 = no limit) or until ``deadline``.
        Returns (status, why): ("solved", ""), ("ended", "empty" | "depth" | "stalled" | "memory") -- final
        -- or (None, "nodes" | "time"): paused, call again."""
        import time

        from .tt import _rehash, new_table

        if self.final is not None:
            return self.final
        ctr = self.ctr
        stop = int(ctr[C_NODES]) + nodes if nodes else None
        while True:
            n = next_slice(int(ctr[C_NODES]), stop, deadline is not None, NODE_SLICE)
            if n == 0:
                return None, "nodes"
            code = _beam(self.cur, self.nxt, self.ckey, self.cpar, self.cmove, self.csig, self.cap, self.hstart,
                         self.hpar, self.hmove, self.path, self.t, ctr, self.p, n, *self.scratch)
            if code == B_GROW or code == B_HISTORY:
                grow = self.t.nbytes if code == B_GROW else self.hpar.nbytes + self.hmove.nbytes
                if reserve is not None and not reserve(self.nbytes() + grow):
                    self.final = ("ended", "memory")
                    return self.final
                if code == B_GROW:
                    old, size = self.t, 2 * _slots(self.t)
                    self.t = new_table(size)
                    _rehash(old, _NO_PAYLOAD, self.t, _NO_PAYLOAD)
                else:
                    self.hpar = np.concatenate([self.hpar, np.zeros_like(self.hpar)])
                    self.hmove = np.concatenate([self.hmove, np.zeros_like(self.hmove)])
                continue
            if code == B_SOLVED:
                self.final = ("solved", "")
                return self.final
            if code in _ENDED:
                self.final = ("ended", _ENDED[code])
                return self.final
            if deadline is not None and time.perf_counter() > deadline:
                return None, "time"

    def line(self) -> list[int]:
        """The kernel moves from the root to the won position (after "solved")."""
        return [int(m) for m in self.path[:int(self.ctr[C_PATHLEN])]]

