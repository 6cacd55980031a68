"""Playing without peeking (harpsolve/player.py): what the player sees, that it sees
nothing more, that its won games are wins, and the ``play`` command."""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from dataclasses import replace

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harpsolve.cli import main
from harpsolve.deals import deal_layout
from harpsolve.layout import Layout
from harpsolve.player import (POLICIES, UNSEEN, ActionHopPolicy, HopPolicy, PlaySettings, Table, _flat, _Sample,
                              make_policy, play)
from harpsolve.reference import DRAW, RECYCLE, Game, Move, load_solution, replay
from harpsolve.rules import get_rules

from positions import endgame

# hop with budgets small enough for the test suite; endgames of ~30 cards solve within them
SMALL = dict(samples=3, max_nodes=1_500)
VARIANTS = ["easy-harp", "klondike-1", "klondike-3", "endless-harp", "harp"]


def _hidden_slots(game: Game):
    """(where, index) of every card a player has not seen at the start of a game from a layout:
    the face-down cards and the whole stock (a layout's stock counts as unseen)."""
    out = [(("col", i), k) for i, fd in enumerate(game.face_down) for k in range(fd)]
    return out + [(("stock", 0), k) for k in range(len(game.stock))]


def _card(layout: Layout, slot) -> int:
    (area, i), k = slot
    return layout.columns[i][k] if area == "col" else layout.stock[k]


# ---- the observation ---------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_observation_hides_exactly_the_unseen_cards(variant):
    rules = get_rules(variant)
    layout = deal_layout(rules, 7)
    table = Table(rules, layout)
    obs = table.observation()
    hidden = _hidden_slots(Game(rules, layout))
    for slot in hidden:
        assert _card(obs.layout, slot) == UNSEEN
    # every other card is shown as it is, and the unseen multiset is the hidden cards' one
    shown = [c for col in obs.layout.columns for c in col] + obs.layout.stock
    true = [c for col in layout.columns for c in col] + layout.stock
    assert sum(c == UNSEEN for c in shown) == len(hidden)
    assert all(s == UNSEEN or s == t for s, t in zip(shown, true))
    assert Counter(obs.unseen) == Counter(_card(layout, slot) for slot in hidden)
    assert (obs.unseen_face_down, obs.unseen_stock) == (sum(layout.face_down), len(layout.stock))
    # what the policies rely on: the moves legal in the view are those of the true position
    for _ in range(40):
        legal = obs.legal_moves()
        assert legal == table._game.legal_moves()
        table.play(legal[len(legal) // 2])
        obs = table.observation()


def test_drawn_cards_stay_seen_and_turned_cards_show():
    """Draw 3 shows the three cards turned; after a whole pass, the recycled stock is all seen."""
    rules = get_rules("klondike-3")
    layout = deal_layout(rules, 11)
    table = Table(rules, layout)
    table.play("s>w")
    obs = table.observation()
    assert obs.layout.waste == layout.stock[:3]
    assert obs.layout.stock == [UNSEEN] * (len(layout.stock) - 3)
    assert len(obs.unseen) == sum(layout.face_down) + len(layout.stock) - 3
    while table.observation().layout.stock:
        table.play("s>w")
    table.play("w>s")
    obs = table.observation()
    assert obs.layout.stock == layout.stock  # every card of it was turned once, and w>s keeps the order
    assert len(obs.unseen) == sum(layout.face_down) == obs.unseen_face_down


def test_a_turned_face_down_card_shows():
    rules = get_rules("klondike-1")
    cards = Layout.from_text("t1: QS | KH\nt2: KS\nt3:\nt4:\nt5:\nt6:\nt7:\nfoundations: KC KD QH JS")
    table = Table(rules, cards)
    assert table.observation().layout.columns[0] == [UNSEEN, cards.columns[0][1]]
    table.play("t1>f")
    assert table.observation().layout.columns[0] == [cards.columns[0][0]]
    assert table.observation().unseen == ()


# ---- never peeks ------------------------------------------------------------------------------
def _swapped(rules, layout, rng) -> Layout | None:
    """``layout`` with two unseen cards of different kinds exchanged (None if there are none)."""
    game = Game(rules, layout)
    hidden = _hidden_slots(game)
    pairs = [(a, b) for a in hidden for b in hidden if _card(layout, a) < _card(layout, b)]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    other = Layout.from_dict(layout.to_dict())
    ca, cb = _card(layout, a), _card(layout, b)
    for slot, card in ((a, cb), (b, ca)):
        (area, i), k = slot
        (other.columns[i] if area == "col" else other.stock)[k] = card
    return other.validate(rules)


def _moves_until_they_differ(rules, one, two, policy_one, policy_two, steps):
    """Play both positions side by side while the two tables look the same to the player;
    return the pairs of moves chosen (they must agree while the views do)."""
    a, b = Table(rules, one), Table(rules, two)
    chosen = []
    for _ in range(steps):
        oa, ob = a.observation(), b.observation()
        if oa != ob or a.won:
            break
        ma, mb = policy_one.choose(oa), policy_two.choose(ob)
        chosen.append((ma, mb))
        if ma != mb or ma is None:
            break
        a.play(ma)
        b.play(mb)
    return chosen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6), left=st.integers(18, 40),
       policy=st.sampled_from(["hop", "hop-action", "hop-action widen=2", "rules"]), scout=st.booleans())
def test_never_peeks(variant, seed, left, policy, scout):
    """Two positions that differ only in cards the player has not seen get the same moves,
    with the same seed, until one of those cards is revealed."""
    rules = get_rules(variant)
    rng = random.Random(seed)
    one = endgame(rules, rng, left)
    two = _swapped(rules, one, rng)
    if two is None:
        return
    assert Table(rules, one).observation() == Table(rules, two).observation()
    policy, *widen = policy.split(" widen=")
    extra = dict(scout=scout) if policy != "rules" else {}
    extra.update(widen=int(widen[0])) if widen else None
    p1, p2 = (make_policy(policy, rules, seed=seed, **SMALL, **extra) for _ in range(2))
    chosen = _moves_until_they_differ(rules, one, two, p1, p2, steps=60)
    assert chosen, "the views were equal, so a first move was chosen"
    assert all(ma == mb for ma, mb in chosen)


class _Peeking(HopPolicy):
    """A cheat, to show that the check above catches one: every sampled world is the true position."""

    def __init__(self, rules, table, **kw):
        super().__init__(rules, **kw)
        self.table = table

    def _new_world(self, obs):
        return _Sample(Game(self.rules, self.table._game.to_layout()))


def test_the_never_peeks_check_catches_a_peeking_player():
    rules = get_rules("klondike-1")
    caught = 0
    for seed in range(6):
        rng = random.Random(seed)
        one = endgame(rules, rng, 45)  # enough hidden cards that knowing them changes the play
        two = _swapped(rules, one, rng)
        a, b = Table(rules, one), Table(rules, two)
        # the cheat reads its own table (tables are fresh per game in _moves_until_they_differ,
        # so it is handed tables of the same two positions: the same hidden cards)
        p1, p2 = _Peeking(rules, a, **SMALL), _Peeking(rules, b, **SMALL)
        chosen = _moves_until_they_differ(rules, one, two, p1, p2, steps=60)
        caught += any(ma != mb for ma, mb in chosen)
    assert caught > 0


# ---- won games are wins -------------------------------------------------------------------------
@pytest.mark.parametrize("policy,extra", [("hop", {}), ("hop-action", {}), ("hop-action", {"widen": 2}),
                                          ("rules", {})])
def test_every_won_game_replays_to_a_win(policy, extra):
    won = 0
    for k, variant in enumerate(VARIANTS * 2):
        rules = get_rules(variant)
        layout = endgame(rules, random.Random(k), 26)
        record = play(rules, layout, make_policy(policy, rules, seed=k, **SMALL, **extra))
        rep = replay(rules, layout, record.moves)
        assert rep.ok, rep.error
        assert rep.won == record.won == (record.end == "won")
        if record.won:
            won += 1
            assert record.never_seen == 0
            sol = record.solution(None)
            assert replay(rules, Layout.from_dict(sol["layout"]), sol["moves"]).won
    assert won >= 3, "too few wins to check anything"


def test_hop_uses_its_samples():
    """The sampling player decides by its solved worlds (not only by the rules fallback), and
    wins endgames the rules player gives up more often than not is no claim here: only that
    the solver runs and its votes are played."""
    rules = get_rules("klondike-3")
    policy = HopPolicy(rules, **SMALL)
    record = play(rules, endgame(rules, random.Random(3), 30), policy)
    assert policy.solves > 0
    assert policy.fallbacks < len(record.moves)


def test_hop_action_scores_actions_by_the_worlds_they_keep_won():
    """hop-action decides at the moves that show a card: it plays whole actions, scores them
    by solving worlds again after them, and its game replays to a win."""
    rules = get_rules("klondike-1")
    policy = ActionHopPolicy(rules, **SMALL)
    layout = endgame(rules, random.Random(5), 30)
    record = play(rules, layout, policy)
    assert policy.decisions > 0 and policy.solves > 0
    assert policy.decisions <= len(record.moves)
    assert replay(rules, layout, record.moves).ok


def _shows(rules, layout, tokens) -> list[bool]:
    """For each move of ``tokens`` played at a table of ``layout``: does it show a card?"""
    table, out = Table(rules, layout), []
    for token in tokens:
        before = len(table.observation().unseen)
        table.play(token)
        out.append(len(table.observation().unseen) < before)
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6), left=st.integers(20, 50))
def test_widening_finds_the_short_ways_to_a_card_shown(variant, seed, left):
    """hop-action's widening (``widen=N``): every action of at most N moves whose last move, and
    only that one, shows a card; with N = 1 exactly the legal moves that show one; none twice,
    none already known."""
    rules = get_rules(variant)
    layout = endgame(rules, random.Random(seed), left)
    obs = Table(rules, layout).observation()
    one = ActionHopPolicy(rules, **SMALL, widen=1)._wider(obs, {})
    showing = {str(m) for m in obs.legal_moves() if _shows(rules, layout, [str(m)]) == [True]}
    assert sorted(a.tokens[0] for a in one) == sorted(showing) and all(len(a.tokens) == 1 for a in one)
    two = ActionHopPolicy(rules, **SMALL, widen=2)._wider(obs, {})
    for a in two:
        assert _shows(rules, layout, a.tokens) == [False] * (len(a.tokens) - 1) + [True]
    assert {tuple(a.tokens) for a in one} <= {tuple(a.tokens) for a in two}
    assert len({tuple(a.tokens) for a in two}) == len(two)
    known: dict = {}
    policy = ActionHopPolicy(rules, **SMALL, widen=2)
    assert len(policy._wider(obs, known)) == len(known) == len(two)
    assert policy._wider(obs, known) == []


# ---- the stock scout --------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["klondike-3", "klondike-1", "easy-harp"])
def test_the_scout_turns_the_stock_once_and_comes_back(variant):
    """With the scout on, the first moves draw the whole stock and turn the waste over: the
    position is then the deal itself again, with every stock card seen."""
    rules = get_rules(variant)
    layout = deal_layout(rules, 3)
    table = Table(rules, layout)
    policy = HopPolicy(rules, **SMALL, scout=True)
    draws = -(-len(layout.stock) // rules.draw)
    for _ in range(draws):
        assert str(policy.choose(table.observation())) == "s>w"
        table.play("s>w")
    assert str(policy.choose(table.observation())) == "w>s"
    table.play("w>s")
    after = table._game.to_layout()
    # the same position; only the pass counter moved on, and with unlimited passes it counts for nothing
    assert rules.passes == 0 and after.pass_number == layout.pass_number + 1
    assert replace(after, pass_number=layout.pass_number) == Game(rules, layout).to_layout()
    obs = table.observation()
    assert obs.layout.stock == layout.stock and obs.unseen_stock == 0
    assert policy._scouting(obs) is None  # done: the next decision is the worlds'
    # the tour is forgotten: drawing the stock to its end with nothing played is open again
    policy.visited.add(obs.key())  # what choose() does with the position it decides in
    for _ in range(draws):
        assert policy._fresh(obs, Move(DRAW))
        table.play("s>w")
        obs = table.observation()
        policy.visited.add(obs.key())
    assert not policy._fresh(obs, Move(RECYCLE))  # ... and the start, once seen again, stays visited


def test_no_scout_where_it_would_cost_something():
    """A pass limit (a turn of the stock spends a pass) or a waste already showing (the recycled
    stock would not come back in its order): no scouting."""
    rules = get_rules("harp")
    obs = Table(rules, deal_layout(rules, 3)).observation()
    assert HopPolicy(rules, **SMALL, scout=True)._scouting(obs) is None
    rules = get_rules("klondike-1")
    table = Table(rules, deal_layout(rules, 3))
    table.play("s>w")
    assert HopPolicy(rules, **SMALL, scout=True)._scouting(table.observation()) is None


@pytest.mark.parametrize("command", ["play", "sweep"])
def test_the_sampling_options_state_the_players_defaults(command):
    """play and sweep --play share their sampling options; the defaults their help states are the
    player's (written out there so that the command line starts without loading the player)."""
    from harpsolve import player

    params = {p.name: p for p in main.commands[command].params}
    for name, default in (("samples", player.DEFAULT_SAMPLES), ("seed", player.DEFAULT_SEED),
                          ("boost", player.DEFAULT_BOOST), ("widen", player.DEFAULT_WIDEN),
                          ("scout", "on" if player.DEFAULT_SCOUT else "off")):
        assert params[name].help.endswith(f"[default: {default}]."), (name, params[name].help)


def test_the_command_line_knows_every_policy():
    from harpsolve.cli import POLICY_NAMES, SAMPLING_POLICIES

    assert set(POLICY_NAMES) == set(POLICIES)
    assert {p for p in POLICIES if PlaySettings(p).sampling} == set(SAMPLING_POLICIES)


@pytest.mark.parametrize("settings", [PlaySettings("hop", scout=1), PlaySettings("hop-action"),
                                      PlaySettings("hop-action", samples=4, scout=1),
                                      PlaySettings("hop-action", boost=1), PlaySettings("hop", scout=1, boost=4),
                                      PlaySettings("hop-action", widen=2), PlaySettings("hop-action", boost=2, widen=1)])
def test_scout_and_hop_action_labels_name_their_settings(settings):
    assert PlaySettings.from_label(settings.label) == settings
    assert ("scout=1" in settings.label) == bool(settings.scout) == ("--scout" in settings.options())
    # the default boost is left out, so that the labels of older rows stay what they were
    assert ("boost=" in settings.label) == (settings.boost != 16) == ("--boost" in settings.options())
    assert settings.make_policy(get_rules("klondike-1")).boost == settings.boost
    # widen likewise (0, the default, is left out)
    assert ("widen=" in settings.label) == (settings.widen != 0) == ("--widen" in settings.options())
    assert getattr(settings.make_policy(get_rules("klondike-1")), "widen", 0) == settings.widen
    with pytest.raises(ValueError):
        PlaySettings("hop", widen=1)
    with pytest.raises(ValueError):
        PlaySettings("hop-action", widen=-1)
    with pytest.raises(ValueError):
        PlaySettings("rules", scout=1)
    with pytest.raises(ValueError):
        PlaySettings("rules", boost=2)
    with pytest.raises(ValueError):
        PlaySettings("hop", boost=0)


def test_the_scout_is_on_by_default_for_the_sampling_players_only():
    assert PlaySettings("hop-action").scout == PlaySettings("hop").scout == 1
    assert PlaySettings("rules").scout == 0
    # rows written before the scout was the default name no scout: they were played without it
    old = PlaySettings.from_label("hop-action samples=40 max_nodes=2000 seed=0 max_moves=5000")
    assert old.scout == 0 and old.label == "hop-action samples=40 max_nodes=2000 seed=0 max_moves=5000"
    assert old.options().endswith("--no-scout") and PlaySettings("hop").options().endswith("--scout")
    r = _run(["play", "klondike-1", "4", "--samples", "2", "--max-nodes", "300", "--no-scout", "--max-moves", "3",
              "--json"])
    assert r.exit_code in (0, 12) and "scout" not in json.loads(r.output)["params"], r.output


@pytest.mark.parametrize("boost,budgets", [(16, [100, 200, 400, 800, 1600]), (5, [100, 200, 400]), (1, [100])])
def test_boost_bounds_the_retries_when_no_world_is_solved(boost, budgets, monkeypatch):
    """While no world has a plan, the worlds are solved again with twice the budget, up to
    ``boost`` times it, and no further."""
    rules = get_rules("klondike-1")
    policy = HopPolicy(rules, samples=2, max_nodes=100, boost=boost)
    policy.worlds = []
    tried = []
    monkeypatch.setattr(policy, "_solve_worlds", tried.append)
    policy._solve_until_some()
    assert tried == budgets


# ---- the command ------------------------------------------------------------------------------
def _run(args):
    return CliRunner().invoke(main, args)


def test_play_prints_a_game_record():
    r = _run(["play", "klondike-1", "4", "--policy", "rules"])
    assert r.exit_code in (0, 12), r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("klondike-1 deal 4 (")
    assert lines[1] == "player rules"
    assert lines[2].startswith("won in ") or lines[2].startswith("not won after ")
    assert lines[3].startswith("at the end: ")
    assert "moves:" in lines
    moves = " ".join(lines[lines.index("moves:") + 1:]).split()
    assert replay(get_rules("klondike-1"), deal_layout(get_rules("klondike-1"), 4), moves).ok


def test_play_json_solution_verifies(tmp_path):
    rules = get_rules("klondike-1")
    # an endgame the sampling player wins (checked below: the test fails if it does not)
    layout = endgame(rules, random.Random(1), 22)
    path = tmp_path / "position.json"
    path.write_text(json.dumps({"variant": "klondike-1", "layout": layout.to_dict()}))
    r = _run(["play", "--layout", str(path), "--samples", "3", "--max-nodes", "1500", "--seed", "2", "--json"])
    record = json.loads(r.output)
    assert record["won"] and r.exit_code == 0
    # hop-action is the default policy, with the scout on
    assert record["policy"] == "hop-action"
    assert record["params"] == {"samples": 3, "max_nodes": 1500, "seed": 2, "scout": 1}
    assert record["moves_played"] == len(record["moves"]) == len(record["solution"]["moves"])
    sol = tmp_path / "solution.json"
    sol.write_text(json.dumps(record["solution"]))
    v = _run(["verify", str(sol)])
    assert v.exit_code == 0 and v.output.startswith("won in "), v.output
    assert load_solution(sol)[2] == record["moves"]


@pytest.mark.parametrize("args,words", [
    (["play", "no-such-game", "1"], "no-such-game"),
    (["play", "easy-harp", "0"], "deal number"),
    (["play", "easy-harp", "1", "--samples", "0"], "--samples"),
    (["play", "easy-harp", "1", "--max-nodes", "-5"], "--max-nodes"),
    (["play", "easy-harp", "1", "--policy", "rules", "--seed", "3"], "--seed"),
    (["play", "easy-harp", "1", "--policy", "rules", "--scout"], "--scout"),
    (["play", "easy-harp", "1", "--policy", "rules", "--no-scout"], "--scout"),
    (["play", "easy-harp", "1", "--policy", "rules", "--boost", "2"], "--boost"),
    (["play", "easy-harp", "1", "--boost", "0"], "--boost"),
    (["play", "easy-harp", "1", "--policy", "hop", "--widen", "1"], "--widen"),
    (["play", "easy-harp", "1", "--widen", "-1"], "--widen"),
    (["play", "easy-harp"], "give a deal to play"),
    (["play", "easy-harp", "1", "--max-moves", "0"], "--max-moves"),
])
def test_play_bad_input_is_one_line(args, words):
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert words in r.output


def test_play_bad_layout_file_is_one_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("t1: KS KS KS\n")
    r = _run(["play", "easy-harp", "--layout", str(path)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1


# ---- repaired worlds stay uniform ------------------------------------------------------------
@pytest.mark.parametrize("variant,text", [
    # two copies of QH and of KH unseen: the revealed card has a twin among the unseen
    ("easy-harp", "t1: QH KH | QS\nt2: KS\nt3:\nt4:\nt5:\nt6:\nt7:\nt8:\nt9:\nstock: QH KH\n"
                  "foundations: KC KC KD KD JH JH JS KS"),
    ("klondike-1", "t1: QH | KS\nt2:\nt3:\nt4:\nt5:\nt6:\nt7:\nstock: KH QS\nfoundations: KC KD JH JS"),
], ids=["two-decks", "one-deck"])
def test_a_repaired_world_is_a_uniform_completion(variant, text):
    """HopPolicy keeps a world that a reveal contradicts by swapping the revealed card in; the
    worlds so made must be uniform over the completions of the new view, as fresh draws are."""
    rules = get_rules(variant)
    table = Table(rules, Layout.from_text(text).validate(rules))
    before = table.observation()
    table.play("s>w")
    after = table.observation()
    hop = HopPolicy(rules, seed=1)
    rng = random.Random(2)
    slots = [k for k, c in enumerate(after.flat()) if c == UNSEEN]
    counts = Counter()
    trials = 3000
    for _ in range(trials):
        world = Game(rules, before.sample(rng), check=False)
        world.apply("s>w")
        layout = world.to_layout()
        if not after.admits(layout):
            layout = hop._repair(after, layout)
        assert after.admits(layout)
        cards = _flat(layout)
        counts[tuple(cards[k] for k in slots)] += 1
    arrangements = len(set(itertools.permutations(after.unseen)))
    assert len(counts) == arrangements
    expected = trials / arrangements
    spread = 6 * (trials * (1 / arrangements) * (1 - 1 / arrangements)) ** 0.5  # six standard deviations
    assert all(abs(n - expected) < spread for n in counts.values()), counts
