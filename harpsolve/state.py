"""The packed search state, its canonical fingerprint, and the kernel's rules vector.

A state is one flat ``uint8`` array of ``STATE_BYTES`` bytes, so the search
can keep a stack of them in one 2-D array and make a child with a single row
copy.  Card bytes hold a card kind 0..51 (``cards.py``); ``EMPTY`` (255)
marks an empty cell.

Byte layout (offsets are the module constants)::

    offset  size  field
    ------  ----  --------------------------------------------------------------
    0       10    LEN[c]      cards in column c (face-down + face-up)
    10      10    DOWN[c]     face-down cards at the bottom of column c
    20       8    FOUND[p]    height of foundation place p (0..13);
                              place p = suit * decks + k holds suit p // decks
    28       8    CELL[k]     card in free cell k, or 255
    36       1    TLEN        cards in stock + waste (the "talon")
    37       1    TPTR        waste size: waste = TALON[0:TPTR] (top = TALON[TPTR-1]),
                              stock = TALON[TPTR:TLEN] (next drawn = TALON[TPTR])
    38       1    RECYCLES    waste-to-stock turns done (saturates at 255)
    39       1    OBLIG       c+1 when the next move must put a card on column c's top
                              (a card just played there from the talon with draw 1
                              and unlimited passes; see movegen), else 0
    40       1    (spare)
    41     104    TALON[i]    stock and waste as one sequence, in draw order
    145      7    (spare)
    152    320    COL[c, i]   column c, bottom (i = 0) to top (i = LEN-1),
                              at offset 152 + 32 * c + i
    ------  ----
    472 bytes

Why one talon sequence: drawing and recycling never reorder cards, they
only move the waste/stock boundary, so (sequence, boundary) is the whole
story and a card played from the waste is deleted in place.

Canonical form (what the transposition table keys on) makes symmetric
states one state:

* the two copies of a card are one kind (the encoding never tells them apart);
* columns are an unordered multiset: each column is hashed on its own and the
  column hashes are *summed*, so any permutation of columns gives the same key;
* the places of one suit are an unordered set: heights are sorted per suit;
* free cells are an unordered set: card hashes are summed;
* with draw 1 and unlimited passes every stock/waste card can be brought to
  the top at no cost, so the talon is keyed as a multiset (its order and the
  waste/stock boundary do not matter); otherwise the sequence and boundary
  are in, and with limited passes so are the recycles used.

The fingerprint is two 64-bit hashes computed with different mixers (128
bits).  A false "already seen" needs both to collide: for a search storing
``n`` states the chance is about ``n**2 / 2**129``, below 1e-20 for
n = 10**9, so a proof of unsolvability is wrong with probability
negligible next to hardware faults.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .cards import rank_of
from .config import JIT_NORC
from .layout import Layout
from .rules import MAX_DEALT, Rules

NCOL_MAX = 10
MAXLEN = MAX_DEALT + 12  # 32: a dealt column but its top card, under a 13-card run (column_room)
TALON_MAX = 104
CELLS_MAX = 8
PLACES_MAX = 8
EMPTY = 255

O_LEN = 0
O_DOWN = 10
O_FOUND = 20
O_CELL = 28
O_TLEN = 36
O_TPTR = 37
O_RECYC = 38
O_OBLIG = 39
O_TALON = 41
O_COLS = 152
STATE_BYTES = O_COLS + NCOL_MAX * MAXLEN  # 472

# ---- the kernel's rules vector (int64), built by kernel_params ---------------
P_NCOL, P_DECKS, P_DRAW, P_PASSES, P_BUILD_SUIT, P_RUNS, P_KING_RUNS, P_EMPTY_ANY, \
    P_CELLS, P_TAKEBACK, P_COMPOUND, P_AUTO, P_PRUNE, P_EXACT_KEY, P_HEUR, P_AGGRESSIVE, P_DOMINANCE, \
    P_REACH, P_CUTS, P_DEAD_END, P_ALWAYS_HOME, P_MERGE_COLOURS, P_NOISE, P_SEED, P_W0 = range(25)
# P_CUTS: bit set of the proved cuts in use (movegen).  P_DEAD_END: the DFS
# runs the delete-relaxation dead-end test on new states (search/relax.py).
# P_ALWAYS_HOME, P_MERGE_COLOURS: streamliners -- only for finding solutions,
# never for a proof.  P_NOISE, P_SEED, P_W0 .. P_W0 + N_WEIGHTS - 1: the move
# order of the "features" heuristic (search/restarts.py).
N_WEIGHTS = 10
P_SIZE = P_W0 + N_WEIGHTS

# The bits of P_CUTS: proved cuts, each with its proof beside its code and a
# prune-on/off differential test in tests/test_cuts.py.
CUT_KELLER = 1     # Keller's safe foundation rule, one rank bolder (movegen._safe)
CUT_SAFE_PLAY = 2  # never take back a card that is safe (movegen._gen)
CUT_PARTIAL = 4    # reserved: the partial-run rule (not proved here with take-back; unused)
CUT_PURE = 8       # draw > 1, unlimited passes: the pure stock positions are one key (_stock_key)
ALL_CUTS = CUT_KELLER | CUT_SAFE_PLAY | CUT_PURE


def kernel_params(rules: Rules, *, compound: bool = True, auto: bool = True, prune: bool = True,
                  exact_key: bool = False, heuristic: int = 0, aggressive: bool = False,
                  dominance: bool = False, always_home: bool = False, merge_colours: bool = False,
                  weights=None, noise: int = 0, seed: int = 0, cuts: int = 0) -> np.ndarray:
    """Translate a rules record (plus search switches) into the kernel's vector.

    ``compound``: stock moves are "play talon card i" (draws and recycles
    folded in) instead of single ``s>w``/``w>s`` steps.  ``auto``: safe
    foundation moves are made without branching.  ``prune``: drop moves that
    provably lead to a state equal to one already generated.  ``exact_key``:
    keep the waste/stock boundary and recycles in the key even where they do
    not matter (used when counting positions exactly, as the reference does).
    ``aggressive``: also drop moves that are very rarely needed but not
    proved unnecessary (see movegen); only for finding solutions, never
    for a proof of unsolvability.  ``dominance``: where it applies
    (:func:`stock_dominance`), leave the stock position out of the key; the
    depth-first search then keeps the best position seen per key (dfs.py).
    ``always_home``, ``merge_colours``: the streamliners of search/restarts.py
    (every card that can go home goes at once; the two suits of a colour are
    one suit in the key) -- solution finding only, never a proof.
    ``weights`` (up to N_WEIGHTS ints), ``noise``, ``seed``: the move order of
    the "features" heuristic (search/dfs.py, ``H_FEATURES``).
    ``cuts``: a bit set of the proved cuts (``CUT_*``, ``ALL_CUTS``).
    """
    # filled as a list and converted once: numpy's item assignment costs ~0.2 us an item,
    # and the restarts and beams make a vector a run (~9 a deal)
    p = [0] * P_SIZE
    p[P_NCOL] = rules.n_columns
    p[P_DECKS] = rules.decks
    p[P_DRAW] = rules.draw
    p[P_PASSES] = rules.passes
    p[P_BUILD_SUIT] = int(rules.build == "suit")
    p[P_RUNS] = int(rules.column_moves == "runs")
    p[P_KING_RUNS] = rules.king_runs
    p[P_EMPTY_ANY] = int(rules.empty == "any")
    p[P_CELLS] = rules.cells
    p[P_TAKEBACK] = rules.takeback
    p[P_COMPOUND] = compound
    p[P_AUTO] = auto
    p[P_PRUNE] = prune
    p[P_EXACT_KEY] = exact_key
    p[P_HEUR] = heuristic
    p[P_AGGRESSIVE] = aggressive
    p[P_DOMINANCE] = int(dominance and stock_dominance(rules, compound=compound, prune=prune, exact_key=exact_key))
    p[P_ALWAYS_HOME] = always_home
    p[P_MERGE_COLOURS] = merge_colours
    p[P_NOISE] = noise
    p[P_SEED] = seed
    if weights is not None:
        if len(weights) > N_WEIGHTS:
            raise ValueError(f"at most {N_WEIGHTS} weights")
        p[P_W0:P_W0 + len(weights)] = [int(w) for w in weights]
    if cuts & ~ALL_CUTS:
        raise ValueError(f"unknown cut bits {cuts & ~ALL_CUTS:#x}")
    p[P_CUTS] = cuts
    return np.array(p, np.int64)


def stock_dominance(rules: Rules, *, compound: bool = True, prune: bool = True, exact_key: bool = False) -> bool:
    """Does the stock-position dominance of dfs.py hold for these rules and switches?

    Only with draw 1 and a pass limit: with draw 1 every card from the waste
    boundary on is one compound move away, so an earlier boundary (or fewer
    passes used) can do whatever a later one can.  With draw 3 the reachable
    cards depend on the boundary modulo 3, and with unlimited passes the
    boundary is not in the key at all.
    """
    return bool(rules.draw == 1 and rules.passes > 0 and compound and prune and not exact_key)


class StateError(ValueError):
    """A layout that does not fit the packed state (a column that could outgrow MAXLEN)."""


def column_room(col, fd: int) -> int:
    """The most cards column ``col`` (``fd`` of them face down) can ever hold.

    Cards only ever go onto a column one rank below its top card (or into it when
    it is empty), so above the cards under the column's top run (each one rank
    below the last, face up) there is never more than one descending run: at
    most 13 cards, K..A.  The cards under the top run can only leave.  So the
    column holds at most (cards under its top run) + 13, whatever the suits.

    >>> column_room([], 0), column_room([12, 11, 10], 2), column_room([5, 38, 24], 0)
    (13, 15, 14)
    """
    up = col[fd:]
    run = 1 if up else 0
    while run < len(up) and rank_of(up[-run - 1]) == rank_of(up[-run]) + 1:
        run += 1
    return len(col) - run + 13


def pack(layout: Layout, rules: Rules) -> np.ndarray:
    """Layout -> packed state (the layout must already be validated)."""
    st = np.zeros(STATE_BYTES, np.uint8)
    st[O_CELL:O_CELL + CELLS_MAX] = EMPTY
    if rules.n_columns > NCOL_MAX:
        raise StateError(f"at most {NCOL_MAX} columns")
    for c, (col, fd) in enumerate(zip(layout.columns, layout.face_down)):
        room = column_room(col, fd)
        if room > MAXLEN:
            raise StateError(
                f"column {c + 1} could grow to {room} cards ({room - 13} under its top run, then a 13-card run); "
                f"the solver's state holds {MAXLEN}: no deal of at most {MAX_DEALT} cards a column reaches this")
        st[O_LEN + c] = len(col)
        st[O_DOWN + c] = fd
        st[O_COLS + MAXLEN * c:O_COLS + MAXLEN * c + len(col)] = col
    for k, card in enumerate(layout.cells):
        if card is not None:
            st[O_CELL + k] = card
    talon = list(layout.waste) + list(layout.stock)
    st[O_TLEN] = len(talon)
    st[O_TPTR] = len(layout.waste)
    st[O_TALON:O_TALON + len(talon)] = talon
    st[O_RECYC] = layout.pass_number - 1
    for top in layout.foundations:
        suit, height = top // 13, top % 13 + 1
        for k in range(rules.decks):
            place = suit * rules.decks + k
            if st[O_FOUND + place] == 0:
                st[O_FOUND + place] = height
                break
    return st


def unpack(st: np.ndarray, rules: Rules) -> Layout:
    """Packed state -> Layout (face-down counts, waste and pass number included)."""
    cols, down = [], []
    for c in range(rules.n_columns):
        n = int(st[O_LEN + c])
        cols.append([int(x) for x in st[O_COLS + MAXLEN * c:O_COLS + MAXLEN * c + n]])
        down.append(int(st[O_DOWN + c]))
    tlen, tptr = int(st[O_TLEN]), int(st[O_TPTR])
    talon = [int(x) for x in st[O_TALON:O_TALON + tlen]]
    cells = [None if st[O_CELL + k] == EMPTY else int(st[O_CELL + k]) for k in range(rules.cells)]
    found = []
    for place in range(rules.n_foundations):
        h = int(st[O_FOUND + place])
        if h:
            found.append((place // rules.decks) * 13 + h - 1)
    return Layout(cols, down, talon[tptr:], talon[:tptr], cells, found, int(st[O_RECYC]) + 1)


# ---- fingerprint ---------------------------------------------------------------
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_M3 = np.uint64(0xFF51AFD7ED558CCD)
_M4 = np.uint64(0xC4CEB9FE1A85EC53)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S33 = np.uint64(33)
_S8 = np.uint64(8)


@njit(**JIT_NORC)
def _copy_state(dst, src):
    """``dst[:] = src`` for two states.  Why a loop: numba compiles the slice assignment of
    one uint8 row to another into a generic broadcasting copy, ~230 ns for a state's 472
    bytes, where this loop is vectorised, ~10 ns (measured); the searches copy a state for
    every child they make or order."""
    for k in range(dst.shape[0]):
        dst[k] = src[k]


@njit(**JIT_NORC)
def _mix_a(z):
    # SplitMix64 finaliser
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(**JIT_NORC)
def _mix_b(z):
    # MurmurHash3 fmix64: a different mixer, so the two halves fail independently
    z = (z ^ (z >> _S33)) * _M3
    z = (z ^ (z >> _S33)) * _M4
    return z ^ (z >> _S33)


# The streamliner of Blake & Gent §5.5 (P_MERGE_COLOURS): positions that differ only by
# swapping the two suits of a colour share a fingerprint -- spades are read as clubs, hearts
# as diamonds (_MERGED_CARD, bytes that are not cards unchanged), and each colour's
# foundation heights as a sorted set across its places (_finish_merged).  Unsound (the suits
# are not interchangeable: their cards sit in different places), so a search with it may
# only ever report a solution it found (search/restarts.py).  The fingerprint reads the
# cards through the map rather than hashing a merged copy: a kernel compiled without
# reference counting (config.JIT_NORC) may not allocate one.
_MERGED_SUIT = np.array([0, 1, 1, 0], np.int64)  # clubs/spades -> clubs, diamonds/hearts -> diamonds
_MERGED_CARD = np.array([_MERGED_SUIT[b // 13] * 13 + b % 13 if b < 52 else b for b in range(256)], np.uint8)


@njit(**JIT_NORC)
def _seq_hash(st, start, n, head, merge):
    """Hash ``head`` then bytes st[start:start+n], 8 bytes per mixing round, both mixers;
    with ``merge`` each byte (a card) as _MERGED_CARD writes it."""
    ha = _mix_a(np.uint64(head) + _GOLD)
    hb = _mix_b(np.uint64(head) ^ _M1)
    word = np.uint64(0)
    k = 0
    for i in range(n):
        b = st[start + i]
        if merge:
            b = _MERGED_CARD[b]
        word = (word << _S8) | np.uint64(b + 1)
        k += 1
        if k == 8:
            ha = _mix_a(ha ^ word)
            hb = _mix_b(hb + word)
            word = np.uint64(0)
            k = 0
    if k:
        ha = _mix_a(ha ^ word)
        hb = _mix_b(hb + word)
    return ha, hb


@njit(**JIT_NORC)
def _stock_key(st, p):
    """The waste size as the key sees it.

    With CUT_PURE, draw d > 1 and unlimited passes, every *pure* waste size
    (a multiple of d, or the whole talon dealt) is keyed as the whole talon,
    as lonelybot and Solvitaire do.  Proof: from a waste size w that is a
    multiple of d, taps deal to the end (w, w+d, ..., then the rest), and from
    the end a recycle and taps reach every multiple of d; draws and recycles
    change nothing else and passes are unlimited (the recycles are not in the
    key), so all pure waste sizes reach one another by stock moves alone and
    a position is winnable from one iff from all.  The compound moves agree:
    from any pure w the reachable talon cards are those at indices i with
    i + 1 a multiple of d, and the last one, and playing card i leaves waste
    size i whatever w was (movegen._talon_route, _talon_take).  Other waste
    sizes reach different cards and keep their own key.
    """
    tptr = np.int64(st[O_TPTR])
    tlen = np.int64(st[O_TLEN])
    if (p[P_CUTS] & CUT_PURE) and p[P_DRAW] > 1 and p[P_PASSES] == 0 and not p[P_EXACT_KEY]:
        if tptr % p[P_DRAW] == 0:
            return tlen
    return tptr


@njit(**JIT_NORC)
def _column_hash(st, c, merge):
    """Column ``c``'s part of the key (two uint64): its cards, face-down count and length,
    and whether the next move is owed to it (OBLIG); ``merge``: P_MERGE_COLOURS."""
    n = np.int64(st[O_LEN + c])
    head = np.int64(st[O_DOWN + c]) * 64 + n + 7
    if st[O_OBLIG] == c + 1:
        head += 1 << 20
    return _seq_hash(st, O_COLS + MAXLEN * c, n, head, merge)


# The talon's hash.  Its cards, bottom first, each read as a fixed random word W (through
# _MERGED_CARD under P_MERGE_COLOURS), make a polynomial in an odd constant:
#     raw = sum_j W[c_j] * A**j  (mod 2**64),  j = 0 .. tlen - 1
# one in each half (A, B and their words differ, so the halves fail independently), with
# A = B = 1 where the order does not matter (_free_talon: a multiset).  The waste size and
# the recycles, where the key has them, are mixed in at the end (_talon_finish).  Why a
# polynomial: the talon only ever loses cards, and a talon that lost card i has
#     raw' = P[i] + (raw - P[i+1]) * A**-1,   P[k] = sum_{j<k} W[c_j] * A**j
# so from its parent's prefix sums (_talon_prefix, once a parent) a beam keys each child's
# talon in a few operations instead of hashing up to 104 cards again (harp's talon changes
# in nine children in ten: benchmarks/README.md, thirtieth session).  Collisions: two talons
# of the same length that differ are equal in a half only if sum_j (W[c_j] - W[c'_j]) A**j
# = 0 mod 2**64; the W are the mixers' outputs (SplitMix64, fmix64), and with A = 3 mod 4,
# A**m - 1 has at most a few factors of two for the lengths here, so that is a 64-bit
# coincidence up to a few bits, as for any of the fingerprint's mixers; the 128-bit
# fingerprint's other parts are mixed on top (_mix_cells).
_TA = np.uint64(0xC2B2AE3D27D4EB4F)
_TB = np.uint64(0x94D049BB133111EB)
_TA_INV = np.uint64(pow(int(_TA), -1, 1 << 64))
_TB_INV = np.uint64(pow(int(_TB), -1, 1 << 64))


# The words: the fingerprint's own mixers (their Python bodies, on arrays: no compile at import).
_TW_A = _mix_a.py_func(np.arange(256, dtype=np.uint64) + np.uint64(3000) + _GOLD)
_TW_B = _mix_b.py_func(np.arange(256, dtype=np.uint64) + np.uint64(7000) + _GOLD)


@njit(**JIT_NORC)
def _talon_bases(p):
    """The talon polynomial's constants and their inverses: (A, A**-1, B, B**-1)."""
    if _free_talon(p) and not p[P_EXACT_KEY]:
        one = np.uint64(1)
        return one, one, one, one
    return _TA, _TA_INV, _TB, _TB_INV


@njit(**JIT_NORC)
def _talon_word(st, i, merge):
    """Talon card ``i``'s byte as the polynomial reads it (merged under P_MERGE_COLOURS)."""
    b = st[O_TALON + i]
    return _MERGED_CARD[b] if merge else b


@njit(**JIT_NORC)
def _talon_raw(st, p):
    """The talon's two polynomials (Horner's rule, top card first)."""
    a, _, b, _ = _talon_bases(p)
    merge = p[P_MERGE_COLOURS] != 0
    ra = np.uint64(0)
    rb = np.uint64(0)
    for i in range(np.int64(st[O_TLEN]) - 1, -1, -1):
        w = _talon_word(st, i, merge)
        ra = ra * a + _TW_A[w]
        rb = rb * b + _TW_B[w]
    return ra, rb


@njit(**JIT_NORC)
def _talon_head(st, p):
    """What the talon's hash adds to its cards: the length, and the waste size and recycles
    where they matter."""
    tlen = np.int64(st[O_TLEN])
    thead = tlen
    # under stock dominance the boundary and recycles are the table's payload instead (dfs.py)
    if p[P_EXACT_KEY] or not (_free_talon(p) or p[P_DOMINANCE]):
        thead = thead * 256 + _stock_key(st, p)
    if p[P_EXACT_KEY] or (p[P_PASSES] > 0 and not p[P_DOMINANCE]):
        thead = thead * 256 + np.int64(st[O_RECYC])
    return thead


@njit(**JIT_NORC)
def _talon_finish(ra, rb, thead):
    return _mix_a(ra ^ _mix_a(np.uint64(thead) + _GOLD)), _mix_b(rb + _mix_b(np.uint64(thead) ^ _M1))


@njit(**JIT_NORC)
def _talon_hash(st, p):
    """The talon's part of the key (two uint64): its cards in order (as a set where the order
    does not matter), plus the waste size and recycles where they matter."""
    ra, rb = _talon_raw(st, p)
    return _talon_finish(ra, rb, _talon_head(st, p))


@njit(**JIT_NORC)
def _talon_prefix(st, p, pre):
    """``pre[0, k]``, ``pre[1, k]``: the two polynomials' sums over talon cards 0..k-1, for
    k = 0..tlen (``pre[:, tlen]`` is the whole talon's): what ``_fingerprint_from`` needs to
    key a child's talon from its parent's."""
    a, _, b, _ = _talon_bases(p)
    merge = p[P_MERGE_COLOURS] != 0
    pa = np.uint64(1)
    pb = np.uint64(1)
    pre[0, 0] = 0
    pre[1, 0] = 0
    for i in range(np.int64(st[O_TLEN])):
        w = _talon_word(st, i, merge)
        pre[0, i + 1] = pre[0, i] + _TW_A[w] * pa
        pre[1, i + 1] = pre[1, i] + _TW_B[w] * pb
        pa *= a
        pb *= b


@njit(**JIT_NORC)
def _talon_from(child, parent, p, pre):
    """``_talon_hash(child, p)`` from the parent's prefix sums ``pre`` (``_talon_prefix``), for
    a child whose talon is the parent's (its waste size or recycles may differ) or the parent's
    less one card; any other child: hashed in full.

    The lost card: the first index where the two talons differ, or the parent's last card.
    That is a card whose removal leaves the child's talon even if another copy of the same card
    was taken: the cards from the one taken up to that index are all equal."""
    ct = np.int64(child[O_TLEN])
    pt = np.int64(parent[O_TLEN])
    if ct == pt:
        return _talon_finish(pre[0, pt], pre[1, pt], _talon_head(child, p))
    if ct != pt - 1:
        return _talon_hash(child, p)
    i = 0
    while i < ct and child[O_TALON + i] == parent[O_TALON + i]:
        i += 1
    _, ainv, _, binv = _talon_bases(p)
    ra = pre[0, i] + (pre[0, pt] - pre[0, i + 1]) * ainv
    rb = pre[1, i] + (pre[1, pt] - pre[1, i + 1]) * binv
    return _talon_finish(ra, rb, _talon_head(child, p))


@njit(**JIT_NORC)
def _free_talon(p):
    return p[P_DRAW] == 1 and p[P_PASSES] == 0


@njit(**JIT_NORC)
def _finish_key(st, p, ca, cb, ta, tb):
    """The fingerprint from the column sums and the talon's part, with the foundations
    (heights sorted per suit: the places of a suit are interchangeable) and the cells (an
    unordered set: a sum of card hashes)."""
    decks = p[P_DECKS]
    merge = p[P_MERGE_COLOURS] != 0
    if merge:
        return _finish_merged(st, p, ca, cb, ta, tb)
    fcode = np.uint64(0)
    for s in range(4):
        if decks == 1:
            fcode = fcode * np.uint64(14) + np.uint64(st[O_FOUND + s])
        else:
            x = np.int64(st[O_FOUND + 2 * s])
            y = np.int64(st[O_FOUND + 2 * s + 1])
            if x < y:
                x, y = y, x
            fcode = fcode * np.uint64(196) + np.uint64(x * 14 + y)
    return _mix_cells(st, p, ca, cb, ta, tb, fcode, False)


@njit(**JIT_NORC)
def _mix_cells(st, p, ca, cb, ta, tb, fcode, merge):
    """The fingerprint from the column sums, the talon's part, the foundations' code and the
    cells (an unordered set: a sum of card hashes; ``merge``: read through _MERGED_CARD)."""
    cella = np.uint64(0)
    cellb = np.uint64(0)
    for k in range(p[P_CELLS]):
        card = st[O_CELL + k]
        if card != EMPTY:
            if merge:
                card = _MERGED_CARD[card]
            cella += _mix_a(np.uint64(card) + np.uint64(1000))
            cellb += _mix_b(np.uint64(card) + np.uint64(2000))
    h1 = _mix_a(_mix_a(_mix_a(ca ^ fcode) + ta) ^ cella)
    h2 = _mix_b(_mix_b(_mix_b(cb + fcode) ^ tb) + cellb)
    return h1, h2


@njit(**JIT_NORC)
def _cswap(a, b):
    return (a, b) if a <= b else (b, a)


@njit(**JIT_NORC)
def _finish_merged(st, p, ca, cb, ta, tb):
    """``_finish_key`` under P_MERGE_COLOURS: each colour's foundation heights (its two suits'
    places, suits s and 3 - s) as a sorted tuple, by a sorting network of four."""
    decks = p[P_DECKS]
    fcode = np.uint64(0)
    for colour in range(2):
        s0 = colour
        s1 = 3 - colour
        a = np.int64(st[O_FOUND + s0 * decks])
        c = np.int64(st[O_FOUND + s1 * decks])
        if decks == 1:
            a, c = _cswap(a, c)
            fcode = fcode * np.uint64(196) + np.uint64(a * 14 + c)
            continue
        b = np.int64(st[O_FOUND + s0 * decks + 1])
        d = np.int64(st[O_FOUND + s1 * decks + 1])
        a, b = _cswap(a, b)
        c, d = _cswap(c, d)
        a, c = _cswap(a, c)
        b, d = _cswap(b, d)
        b, c = _cswap(b, c)
        fcode = fcode * np.uint64(38416) + np.uint64(((a * 14 + b) * 14 + c) * 14 + d)
    return _mix_cells(st, p, ca, cb, ta, tb, fcode, True)


@njit(**JIT_NORC)
def _fingerprint(st, p):
    """The 128-bit canonical fingerprint (two uint64) of state ``st``."""
    # columns: an unordered multiset -> sum of per-column hashes
    ca = np.uint64(0)
    cb = np.uint64(0)
    merge = p[P_MERGE_COLOURS] != 0
    for c in range(p[P_NCOL]):
        ha, hb = _column_hash(st, c, merge)
        ca += ha
        cb += hb
    ta, tb = _talon_hash(st, p)
    return _finish_key(st, p, ca, cb, ta, tb)


# ---- the fingerprints of one position's children, column by column ----------
# A child differs from its parent in few columns: one move takes cards off the top of one
# column and puts them on the top of another (or on a foundation or a cell, or takes them
# from the talon, a foundation or a cell), and the automatic moves then take cards off
# column tops to the foundations and turn a column's top card.  So a column of the child
# whose length and face-down count equal the parent's holds the parent's cards: cards added
# to a top and taken off it again leave it as it was, and any net change moves the length.
# The OBLIG mark is in a column's hash; it comes and goes only with a card put on that
# column (so with its length), and is compared as well since that costs nothing.  The talon only ever loses cards
# (drawing and recycling move the boundary), so an equal talon length means the same
# cards.  Such columns and such a talon keep the parent's hashes (tests/test_childkeys.py
# checks every child of random positions against the full fingerprint).
# HS layout (uint64): HS[2c], HS[2c + 1] column c's hashes; HS[2 NCOL_MAX], HS[2 NCOL_MAX + 1]
# the talon's.
HS_SIZE = 2 * NCOL_MAX + 2


@njit(**JIT_NORC)
def _summarise_hash(st, p, hs):
    """Write the parent ``st``'s column and talon hashes into ``hs`` (HS layout)."""
    merge = p[P_MERGE_COLOURS] != 0
    for c in range(p[P_NCOL]):
        hs[2 * c], hs[2 * c + 1] = _column_hash(st, c, merge)
    hs[2 * NCOL_MAX], hs[2 * NCOL_MAX + 1] = _talon_hash(st, p)


@njit(**JIT_NORC)
def _same_column(child, parent, c):
    return (child[O_LEN + c] == parent[O_LEN + c] and child[O_DOWN + c] == parent[O_DOWN + c]
            and (child[O_OBLIG] == c + 1) == (parent[O_OBLIG] == c + 1))


@njit(**JIT_NORC)
def _fingerprint_from(child, parent, p, hs, out, pre):
    """``_fingerprint(child, p)`` for a child of ``parent`` (one move and its automatic
    moves), from the parent's hashes ``hs`` (``_summarise_hash``): only the columns and the
    talon that changed are hashed again -- the talon from the parent's prefix sums ``pre``
    (``_talon_prefix``) if the caller keeps them (a beam: once a parent), else in full
    (``pre`` with no columns: the depth-first searches).  Writes the child's own hashes into
    ``out`` (HS layout), for its children in turn."""
    merge = p[P_MERGE_COLOURS] != 0
    ca = np.uint64(0)
    cb = np.uint64(0)
    for c in range(p[P_NCOL]):
        if _same_column(child, parent, c):
            out[2 * c], out[2 * c + 1] = hs[2 * c], hs[2 * c + 1]
        else:
            out[2 * c], out[2 * c + 1] = _column_hash(child, c, merge)
        ca += out[2 * c]
        cb += out[2 * c + 1]
    t = 2 * NCOL_MAX
    if child[O_TLEN] == parent[O_TLEN] and (
            (_free_talon(p) and not p[P_EXACT_KEY])
            or (child[O_TPTR] == parent[O_TPTR] and child[O_RECYC] == parent[O_RECYC])):
        out[t], out[t + 1] = hs[t], hs[t + 1]
    elif pre.shape[1] > 0:
        out[t], out[t + 1] = _talon_from(child, parent, p, pre)
    else:
        out[t], out[t + 1] = _talon_hash(child, p)
    return _finish_key(child, p, ca, cb, out[t], out[t + 1])


def fingerprint(st: np.ndarray, params: np.ndarray) -> tuple[int, int]:
    a, b = _fingerprint(st, params)
    return int(a), int(b)
