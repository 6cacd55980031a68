"""From the search's compound moves to SPEC §4 move tokens.

The search plays stock cards directly and makes safe foundation moves without
branching; a printed solution must spell out every tap on the stock, every
recycle and every automatic move.  This module replays the search's path on
packed states with the same kernels the search used, and writes one token
per single legal move.  The reference engine (``reference.py``) then judges
the tokens on its own.
"""
from __future__ import annotations

import numpy as np

from . import movegen as mg
from .cards import card_text
from .state import O_OBLIG, O_FOUND, O_RECYC, O_TLEN, O_TPTR, P_DECKS, P_DRAW, P_PASSES


def _route_tokens(st: np.ndarray, i: int, p: np.ndarray) -> list[str]:
    d1, rec, d2 = mg._talon_route(int(st[O_TLEN]), int(st[O_TPTR]), int(st[O_RECYC]),
                                  int(p[P_DRAW]), int(p[P_PASSES]), i)
    if d1 < 0:
        raise AssertionError(f"talon card {i} is not reachable")  # a kernel bug, never input
    return ["s>w"] * d1 + (["w>s"] + ["s>w"] * d2 if rec else [])


def move_tokens(st: np.ndarray, m: int, p: np.ndarray) -> list[str]:
    """The tokens of kernel move ``m`` made from state ``st`` (not modified)."""
    kind, a, b, n = int(mg._kind(m)), int(mg._a(m)), int(mg._b(m)), int(mg._n(m))
    if kind == mg.M_COL_FOUND:
        return [f"t{a + 1}>f"]
    if kind == mg.M_TALON_FOUND:
        return _route_tokens(st, a, p) + ["w>f"]
    if kind == mg.M_TALON_COL:
        return _route_tokens(st, a, p) + [f"w>t{b + 1}"]
    if kind == mg.M_COL_COL:
        return [f"t{a + 1}>t{b + 1}" + (f"*{n}" if n > 1 else "")]
    if kind == mg.M_FOUND_COL:
        card = (a // int(p[P_DECKS])) * 13 + int(st[O_FOUND + a]) - 1
        return [f"f>t{b + 1}:{card_text(card)}"]
    if kind == mg.M_COL_CELL:
        return [f"t{a + 1}>c{b + 1}"]
    if kind == mg.M_CELL_COL:
        return [f"c{a + 1}>t{b + 1}"]
    if kind == mg.M_CELL_FOUND:
        return [f"c{a + 1}>f"]
    if kind == mg.M_DRAW:
        return ["s>w"]
    if kind == mg.M_RECYCLE:
        return ["w>s"]
    raise AssertionError(f"unknown move kind {kind}")


def _play(st: np.ndarray, m: int, p: np.ndarray, out: list[str]) -> None:
    out.extend(move_tokens(st, m, p))
    mg._apply(st, np.int64(m), p)


def _play_auto(st: np.ndarray, p: np.ndarray, out: list[str]) -> None:
    """Make the automatic moves the search made here, writing their tokens."""
    if st[O_OBLIG]:
        return  # the search makes none while a talon card waits for its payoff
    buf = np.zeros(256, np.int64)
    n = mg._auto(st.copy(), p, buf)
    for m in buf[:n]:
        _play(st, int(m), p, out)


def path_tokens(root: np.ndarray, path: list[int], p: np.ndarray) -> list[str]:
    """Tokens of the search's path from the (pre-automatic-move) root state."""
    st = root.copy()
    out: list[str] = []
    _play_auto(st, p, out)
    for m in path:
        _play(st, m, p, out)
        _play_auto(st, p, out)
    return out
