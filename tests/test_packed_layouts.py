"""The packed layouts are pinned: the state's bytes, a move's bits and a table entry, each
against the diagram drawn in its module's docstring, so the comment cannot drift from the code."""
from __future__ import annotations

import re

import numpy as np

from harpsolve import movegen as mg
from harpsolve import state as S
from harpsolve.deals import deal_layout
from harpsolve.rules import get_rules
from harpsolve.search import tt

# the state docstring's field names -> (offset constant, bytes)
STATE_FIELDS = {
    "LEN[c]": (S.O_LEN, S.NCOL_MAX), "DOWN[c]": (S.O_DOWN, S.NCOL_MAX), "FOUND[p]": (S.O_FOUND, S.PLACES_MAX),
    "CELL[k]": (S.O_CELL, S.CELLS_MAX), "TLEN": (S.O_TLEN, 1), "TPTR": (S.O_TPTR, 1), "RECYCLES": (S.O_RECYC, 1),
    "OBLIG": (S.O_OBLIG, 1), "TALON[i]": (S.O_TALON, S.TALON_MAX), "COL[c,": (S.O_COLS, S.NCOL_MAX * S.MAXLEN),
}


def _state_diagram():
    rows = re.findall(r"^\s{4}(\d+)\s+(\d+)\s{4}(\S+)", S.__doc__, re.M)
    return [(int(o), int(n), name) for o, n, name in rows]


def test_state_bytes_are_the_diagram():
    rows = _state_diagram()
    named = {name: (o, n) for o, n, name in rows if not name.startswith("(")}
    assert named == STATE_FIELDS
    # the rows tile the state with no gap and no overlap, spare bytes included
    end = 0
    for o, n, _ in rows:
        assert o == end
        end = o + n
    assert end == S.STATE_BYTES == 472
    assert f"{S.STATE_BYTES} bytes" in S.__doc__


def test_pack_writes_where_the_diagram_says():
    rules = get_rules("big-harp")
    layout = deal_layout(rules, 3)
    st = S.pack(layout, rules)
    assert st.dtype == np.uint8
    for c, (col, fd) in enumerate(zip(layout.columns, layout.face_down)):
        assert st[S.O_LEN + c] == len(col) and st[S.O_DOWN + c] == fd
        assert list(st[S.O_COLS + S.MAXLEN * c:S.O_COLS + S.MAXLEN * c + len(col)]) == list(col)
    talon = list(layout.waste) + list(layout.stock)
    assert st[S.O_TLEN] == len(talon) and st[S.O_TPTR] == len(layout.waste)
    assert list(st[S.O_TALON:S.O_TALON + len(talon)]) == talon
    assert list(st[S.O_CELL:S.O_CELL + S.CELLS_MAX]) == [S.EMPTY] * S.CELLS_MAX


def test_move_bits_are_the_diagram():
    fields = {name: (int(lo), int(hi)) for lo, hi, name in
              re.findall(r"bits\s+(\d+)\.\.(\d+)\s+(kind|a|b|n)\b", mg.__doc__)}
    assert fields == {"kind": (24, 27), "a": (16, 23), "b": (8, 15), "n": (0, 7)}
    getters = {"kind": mg._kind, "a": mg._a, "b": mg._b, "n": mg._n}
    for name, (lo, hi) in fields.items():
        top = (1 << (hi - lo + 1)) - 1
        values = {**dict(kind=1, a=2, b=3, n=4), name: top}
        m = mg._mk(values["kind"], values["a"], values["b"], values["n"])
        assert (int(m) >> lo) & top == top, name
        assert {k: int(g(m)) for k, g in getters.items()} == values
    kinds = [v for k, v in vars(mg).items() if k.startswith("M_") and isinstance(v, int)]
    assert max(kinds) < 16, "every move kind fits its 4 bits"


def test_table_entry_is_the_diagram():
    assert tt.ENTRY_BYTES == 16 and "16 bytes" in tt.__doc__
    t = tt.new_table(8)
    assert t.nbytes == 8 * tt.ENTRY_BYTES and tt._slots(t) == 8
    h1, h2 = np.uint64(0), np.uint64(13)    # an even first half: bit 0 is forced to 1
    slot = tt._claim(t, h1, h2)
    assert slot == -1 - 5                   # new, in its home slot: the low bits of the second half (13 & 7)
    assert t[10] == 1 and t[11] == 13       # the two halves side by side: one cache line a probe
    assert t.reshape(8, 2)[5].tolist() == [1, 13]
    assert tt._claim(t, h1, h2) == 5        # found again
    assert tt._claim(t, np.uint64(2), h2) == -1 - 6   # same home slot, next one along
    assert tt._claim(t, np.uint64(4), np.uint64(15)) == -1 - 7
    assert tt._claim(t, np.uint64(6), np.uint64(15)) == -1 - 0   # past the last slot: wraps to 0
    tt._clear(t, 0)
    assert t[0] == 0 and t[1] == 0 and tt._claim(t, np.uint64(6), np.uint64(15)) == -1 - 0


def test_a_grown_transposition_table_holds_every_entry_and_its_payload():
    """``tt._rehash``: after doublings every fingerprint is found again, with its payload."""
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 2**63, size=(40, 2), dtype=np.int64).astype(np.uint64)
    t, tv = tt.new_table(64), tt.new_payload(64)
    for i, (h1, h2) in enumerate(keys):
        s = tt._claim(t, h1, h2)
        assert s < 0
        tv[-1 - s] = 1000 + i
    for size in (128, 256):
        grown, gv = tt.new_table(size), tt.new_payload(size)
        tt._rehash(t, tv, grown, gv)
        t, tv = grown, gv
    assert np.count_nonzero(t[0::2]) == len(keys)
    for i, (h1, h2) in enumerate(keys):
        s = tt._claim(t, h1, h2)
        assert s >= 0 and tv[s] == 1000 + i
