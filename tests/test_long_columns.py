"""Every column the rules allow fits the packed state: a column holds at most the cards
under its top run plus a 13-card run (state.column_room), deals hold at most MAX_DEALT
cards a column, and what does not fit is refused in one line."""
from __future__ import annotations

import random
from collections import Counter

from click.testing import CliRunner

from harpsolve.cards import make_card
from harpsolve.cli import main
from harpsolve.deals import deal_layout
from harpsolve.layout import Layout
from harpsolve.reference import Game, replay
from harpsolve.rules import MAX_DEALT, VARIANTS, get_rules
from harpsolve.solver import solve
from harpsolve.state import MAXLEN, column_room, pack, unpack


def test_no_column_outgrows_its_room_in_random_play():
    rng = random.Random(5)
    for variant in VARIANTS:
        rules = get_rules(variant)
        for deal in (1, 2):
            layout = deal_layout(rules, deal)
            rooms = [column_room(c, d) for c, d in zip(layout.columns, layout.face_down)]
            assert max(rooms) <= MAXLEN
            g = Game(rules, layout)
            for _ in range(400):
                moves = g.legal_moves()
                if not moves:
                    break
                g.apply(rng.choice(moves))
                for i, (col, fd) in enumerate(zip(g.columns, g.face_down)):
                    assert len(col) <= column_room(col, fd) <= rooms[i], (variant, deal, i)


def _tall(variant, face_down, seed=1):
    """A layout of ``variant`` whose first column is ``face_down`` cards under a K..A run
    (alternating colours), every other column one card, the rest in the stock."""
    rules = get_rules(variant)
    run = [make_card(r, 3 if (13 - r) % 2 == 0 else 2) for r in range(13, 0, -1)]
    pool = Counter({c: rules.decks for c in range(52)})
    pool.subtract(run)
    rest = sorted(pool.elements())
    random.Random(seed).shuffle(rest)
    down, rest = rest[:face_down], rest[face_down:]
    cols = [down + run] + [[rest.pop()] for _ in range(rules.n_columns - 1)]
    return rules, Layout(cols, [face_down] + [0] * (rules.n_columns - 1), stock=rest, waste=[], cells=[],
                         foundations=[]).validate(rules)


def test_the_tallest_columns_a_deal_can_reach_load_and_solve():
    # harp: 8 face-down cards under a K..A run (21 cards; refused before); klondike-3 (afree
    # runs there): 19 face-down cards under a K..A run, the whole state's 32
    for variant, down in (("harp", 8), ("klondike-3", MAX_DEALT - 1)):
        rules, layout = _tall(variant, down)
        assert len(layout.columns[0]) == down + 13 and column_room(layout.columns[0], down) == down + 13
        assert unpack(pack(layout, rules), rules) == layout
        r = solve(rules, layout=layout, max_nodes=50_000)
        assert r.status in ("solved", "unsolvable", "unknown")
        if r.solved:
            assert replay(rules, layout, r.moves).won


def test_rules_dealing_a_column_the_state_cannot_hold_are_refused_in_one_line():
    res = CliRunner().invoke(main, ["solve", "klondike-1", "1", "--rule", f"columns={MAX_DEALT}",
                                    "--max-nodes", "20000"])
    assert res.exit_code in (0, 10, 11), res.output  # solved, unsolvable or unknown: no traceback (exit 1)
    res = CliRunner().invoke(main, ["solve", "klondike-1", "1", "--rule", f"columns={MAX_DEALT + 1}"])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"at most {MAX_DEALT} cards dealt to a column" in lines[0]


def test_a_layout_column_beyond_the_state_is_refused_in_one_line(tmp_path):
    rules, layout = _tall("harp", MAXLEN - 12)  # one card too many under the run
    path = tmp_path / "tall.json"
    path.write_text(layout.to_json())
    res = CliRunner().invoke(main, ["solve", "harp", "--layout", str(path)])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"could grow to {MAXLEN + 1} cards" in lines[0]
