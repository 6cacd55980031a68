"""The lock test: cards that can only leave their column for a foundation that cannot get there.

A proof of unsolvability at the root, as the dead-end test (search/relax.py) is, but for a
deadlock that test cannot see: it pretends that a card once available stays available, and
here the cards are available -- only never all at the same time.

Endless-harp deal 35423 (and big-harp's, the same layout) is the example this test was written
for.  The four red jacks are in the tableau, and the four black queens too, each beneath a red
jack (t5 ``AS QS JH``, t7 ``3D 8H 2C QS JH``, t9 ``... QC 8S KH QC JD``), face down.  A red jack
goes on a black queen, on its foundation, or nowhere (an empty column takes kings only, there
are no cells).  So until a red jack goes home, no black queen is ever uncovered, no red jack
leaves its place, and neither does any card beneath one: 8H (both copies), 8D and 6D (one copy
each), AS (one copy), 8S (both) are frozen.  Then hearts stop at 7; one spade foundation
only can start, and it stops at 7; diamonds need the stock's 8D, the 6D of t5 under a 7S and a
7D of t10 under the other 7S.  When that 8D goes home, both 7S have left their places and lie
somewhere: on the one spade foundation (room for one 7S) or on a red 8 in the tableau (the only
red 8 not frozen is that 8D, which must be bare to go home) -- one 7S too many.  So no red
foundation reaches 10, no red jack ever moves, and the deal is lost.  No line of any search
was needed, and none would have been enough: the solver had spent more than a billion nodes on
the deal without an answer (results/NOTES.md).

The test, in general (rules with empty columns for kings only and no cells):

1. *A lock.*  A rank r (2 .. queen) and a set S of suits; L is every tableau card of rank r
   and a suit in S, and the *bases* are every card that one of them builds on (rules.builds_on).
   The lock holds when L is not empty, every base lies in the tableau beneath a card of L, and
   the cards beneath each card of L cannot move with it (face down, or only single cards move).
   Then, in any line of play, until the first card of rank r and a suit in S goes home: no base
   is ever a column top, so no card of L can go onto one; a card of L cannot go to an empty
   column (not a king) or a cell (none), and cannot be carried by a card beneath it; so the
   cards of L and everything beneath them -- the frozen cards F -- stay where they are.  Call
   that stretch of play W.  The first card home of rank r in a suit s of S needs a foundation of
   s at height r during W.
2. *Ceilings.*  During W a card of F never goes home.  With the copies of each kind that may go
   home (``homeable``: not in F, nor shown never to go home by step 3), the m-th highest
   foundation of suit s can hold rank j only if m homeable copies of each rank up to j exist:
   ``ceiling(s, m)``, an upper bound on that foundation's height during W.
3. *Displacement.*  Suppose a homeable copy c of rank k and suit s goes home at a time t during
   W, onto a foundation P of height k.  P then holds one homeable copy of each rank below k.
   Where all homeable copies of such a rank lie in one column, every card above the highest of
   them has left its place by t (the copy that went home was a column top when it went); so
   has every card above c in its column.  None of those *displaced* cards went back to the stock
   (nothing does), and none that is not a king lies in an empty column; each lies on a
   foundation or on a card it builds on.  Such a base is not frozen below L (face down, or
   covered, all of W), not c (bare at t), and not the only homeable copy of a rank P needs (on
   P at t).  Each base holds one card, each foundation one card of each rank.  So for any set of
   suits S', the displaced cards of rank j and a suit in S' each need a place of their own, among
   the cards any of them builds on (less those just excluded) and the foundations of a suit in
   S' whose ceiling passes j.  More cards than places means no such placing exists (Hall's
   condition of a matching, checked on a family of subsets: one violation is enough).
   Then c never goes home during W: it leaves ``homeable``, the ceilings fall, and
   step 3 runs again until nothing changes (every conclusion holds for all of W, so each round
   is sound given the ones before).
4. If every suit of S then has a ceiling below r, no card of rank r in S ever goes home, W never
   ends, and the cards of L (there is at least one) never reach their foundations: the position
   is lost.  The proof names the kinds of L: ``lock: JD JH``.

Cards already home count as homeable copies lying nowhere (no card above them), and as bases
(take-back may bring them down): both make the test answer less often, never wrongly.  Kings are
never counted as displaced (an empty column may take them).  The talon's order, its passes and
take-back play no part: every card outside the tableau is counted as free to be anywhere.
tests/test_lock.py compares the test with the complete search on random small positions built
to lock up, and checks that it never fires on a position along a won line.
"""
from __future__ import annotations

from itertools import combinations

from ..cards import card_text
from ..layout import Layout
from ..rules import Rules, builds_on

# where a card lies: a column index >= 0, or one of these
_TALON, _HOME = -1, -2


def applies(rules: Rules) -> bool:
    """Does the argument hold under ``rules``: empty columns for kings only, no cells (else a
    card of L could leave without a base)?"""
    return rules.empty == "king" and not rules.cells


def lock(rules: Rules, layout: Layout, displace: bool = True) -> str | None:
    """The proof (``"lock: JD JH"``) that ``layout`` cannot be won, or None (proves nothing).
    ``displace=False`` leaves out step 3 (for the tests: what it adds)."""
    if not applies(rules):
        return None
    cards = []          # (kind, column or _TALON/_HOME, index in the column)
    for c, col in enumerate(layout.columns):
        cards.extend((k, c, i) for i, k in enumerate(col))
    cards.extend((k, _TALON, 0) for k in list(layout.stock) + list(layout.waste))
    for top in layout.foundations:
        cards.extend((top - top % 13 + j, _HOME, 0) for j in range(top % 13 + 1))
    by_kind = [[] for _ in range(52)]
    for n, (k, _, _) in enumerate(cards):
        by_kind[k].append(n)
    tops = {}           # rank -> {column: highest index of a card of that rank}
    for c, col in enumerate(layout.columns):
        for i, k in enumerate(col):
            tops.setdefault(k % 13, {})[c] = i
    for r in range(1, 12):
        if not _may_lock(cards, by_kind, tops.get(r, {}), r):
            continue
        for size in range(1, 5):
            for suits in combinations(range(4), size):
                frozen = _frozen(rules, layout, cards, by_kind, r, suits)
                if frozen is not None and _locked(rules, layout, cards, by_kind, frozen, r, suits, displace):
                    return "lock: " + " ".join(card_text(s * 13 + r) for s in suits)
    return None


def _may_lock(cards, by_kind, above, r) -> bool:
    """A quick necessary condition for a lock of rank ``r`` (most positions stop here): some
    kind of rank r + 1 lies wholly in the tableau, each copy beneath a card of rank r (``above``:
    column -> highest index of a card of rank r)."""
    for b in range(4):
        copies = by_kind[b * 13 + r + 1]
        if copies and all(cards[n][1] >= 0 and cards[n][2] < above.get(cards[n][1], -1) for n in copies):
            return True
    return False


def _frozen(rules, layout, cards, by_kind, r, suits):
    """Step 1: the frozen cards (ids) of the lock of rank ``r`` (0-based) in ``suits``, or None
    when there is no lock."""
    top = {}            # column -> highest index of a card of L
    for s in suits:
        for n in by_kind[s * 13 + r]:
            _, c, i = cards[n]
            if c >= 0:
                top[c] = max(top.get(c, -1), i)
    if not top:
        return None
    carried = rules.column_moves == "runs" or rules.king_runs
    if carried and any(i > layout.face_down[c] for c, i in top.items()):
        return None     # a face-up card beneath a card of L could carry it away
    for s in suits:
        for b in range(4):
            base = b * 13 + r + 1
            if not builds_on(rules, s * 13 + r, base):
                continue
            for n in by_kind[base]:
                _, c, i = cards[n]
                if c < 0 or i >= top.get(c, -1):
                    return None
    return {n for n, (_, c, i) in enumerate(cards) if c >= 0 and i <= top.get(c, -1)}


def _locked(rules, layout, cards, by_kind, frozen, r, suits, displace=True) -> bool:
    """Steps 2-4: does no foundation of a suit in ``suits`` ever reach height ``r``?"""
    decks = rules.decks
    # frozen cards strictly beneath a card of L: face down or covered all of W, never a base
    buried = {n for n in frozen if cards[n][0] % 13 != r or cards[n][0] // 13 not in suits}
    homeable = [[n for n in by_kind[k] if n not in frozen] for k in range(52)]

    def ceilings():
        out = []
        for s in range(4):
            row = []
            for m in range(1, decks + 1):
                h = 0
                while h < 13 and len(homeable[s * 13 + h]) >= m:
                    h += 1
                row.append(h)
            out.append(row)
        return out

    ceil = ceilings()
    changed = True
    while displace and changed and not all(ceil[s][0] < r for s in suits):
        changed = False
        for s in range(4):
            for k in range(ceil[s][0]):
                for n in list(homeable[s * 13 + k]):
                    if not _can_go_home(rules, layout, cards, by_kind, homeable, buried, ceil, n):
                        homeable[s * 13 + k].remove(n)
                        changed = True
            if changed:
                ceil = ceilings()
    return all(ceil[s][0] < r for s in suits)


def _can_go_home(rules, layout, cards, by_kind, homeable, buried, ceil, n) -> bool:
    """Step 3 for copy ``n``: False when its going home would leave a displaced card nowhere."""
    k, c, i = cards[n]
    s, rank = k // 13, k % 13
    displaced = set()   # (column, index): places whose original card has left
    forced = set()      # ids that lie on P at t
    for j in range(rank):
        copies = homeable[s * 13 + j]
        if len(copies) == 1:
            forced.add(copies[0])
        cols = {cards[m][1] for m in copies}
        if len(cols) == 1 and min(cols) >= 0:
            col = min(cols)
            hi = max(cards[m][2] for m in copies)
            displaced.update((col, x) for x in range(hi + 1, len(layout.columns[col])))
    if c >= 0:
        displaced.update((c, x) for x in range(i + 1, len(layout.columns[c])))
    count = [[0] * 4 for _ in range(13)]
    for col, x in displaced:
        kind = layout.columns[col][x]
        if kind % 13 != 12:
            count[kind % 13][kind // 13] += 1
    for j in range(12):
        present = [t for t in range(4) if count[j][t]]
        for size in range(1, len(present) + 1):
            for subset in combinations(present, size):
                need = sum(count[j][t] for t in subset)
                room = sum(1 for t in subset for m in range(rules.decks) if ceil[t][m] > j)
                if need <= room:
                    continue
                bases = set()
                for t in subset:
                    for b in range(4):
                        base = b * 13 + j + 1
                        if builds_on(rules, t * 13 + j, base):
                            bases.update(m for m in by_kind[base] if m != n and m not in buried and m not in forced)
                if need > room + len(bases):
                    return False
    return True
