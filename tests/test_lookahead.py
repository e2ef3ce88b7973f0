"""Lookahead (compiler/runtime/lookahead.py): what a tile placement would do to the scores, without
making it.  The greedy agent skips every move `scores_may_change` calls quiet, so a quiet move must
leave every score as it is, `completes` must leave the game exactly as it was (the order of its
cells too: legal_actions lists them in that order), and the agent must choose what trying every
move would choose.  Run on base with each bundled module (rules/*.tess), so a module that adds a
new way to score is held to it."""
from __future__ import annotations

import copy
import random

import pytest

from tessera.play.agents import GreedyAgent, _places_figure
from tessera.compiler.build import load_engine
from tessera.compiler.runtime.core import fields_of
from tessera.dsl.loader import require_rule_set
from tessera.dsl.family import Family
from tessera.dsl.model import BUNDLED_RULES
from tessera.dsl.parser import parse

def _tile_game(path) -> bool:
    """Is the module a tile game's (its statements all the tile family's)?  Parsed, not loaded: this runs
    at every collection."""
    return all(Family.of_statement(i).name == "tiles" for i in parse(path.read_text(encoding="utf-8"), str(path)).items)


# the tile game's modules (the card game, rules/card.tess, is a game of its own: tests/test_cards.py)
MODULES = sorted(p.stem for p in BUNDLED_RULES.glob("*.tess")
                 if p.stem != "base" and _tile_game(p))
SETS = [["base"], *(["base", m] for m in MODULES)]


# a component's slots that are not the game's state: the figure-options memo and the fit tables by edge
# code are the rule set's, shared by every game of it (runtime/board.py), and what each holds is a pure
# function of its key (the fit tables are filled as tiles are first listed); `cell_of`, each cell by its
# integer (geometry.KEY), only grows, shared by a board's clones; `solo`, whether a merge may add to a root's
# set of cells in place, is how the board keeps them, not what it holds (a clone turns it off for good)
SHARED = {"memo", "fits", "cell_of", "solo"}


def _state(g) -> dict:
    """Everything a game holds, dict order included; union-find as the root of each segment."""
    memo = {id(o): o for os in g.R.ORIENT for o in os}

    def ordered(x):
        if isinstance(x, dict):
            return [(k, ordered(v)) for k, v in x.items()]
        if isinstance(x, (list, tuple)):
            return [ordered(v) for v in x]
        slots = getattr(type(x), "__slots__", None)
        if slots and hasattr(x, "clone"):  # a component of the game (runtime/rounds.py's Rounds): its slots
            return [type(x).__name__, [(s, ordered(getattr(x, s, None))) for s in slots if s not in SHARED]]
        return x

    d = {k: v for k, v in fields_of(g).items() if k not in ("R", "Rd", "rng", "parent")}  # Rd: vars(R)
    d["roots"] = [g.board.find(i) for i in range(len(g.board.parent))]
    return ordered(copy.deepcopy(d, memo))


def _positions(names, games=1, seed=3):
    """Positions of random games (every move of a few games), with their legal actions."""
    rs = require_rule_set(names)
    eng = load_engine(rs)
    for gi in range(games):
        g = eng.new_game(2, seed + gi)
        rng = random.Random(gi)
        while not g.ended:
            acts = g.legal_actions()
            if not acts:
                break
            yield g, acts
            g.apply_action(acts[rng.randrange(len(acts))])


@pytest.mark.slow
@pytest.mark.parametrize("names", SETS, ids=["+".join(s) for s in SETS])
def test_a_quiet_move_changes_no_score_and_asking_changes_nothing(names):
    quiet = tried = 0
    for g, acts in _positions(names):
        before = _state(g)
        cache: dict = {}
        for a in acts:
            may = g.scores_may_change(a, cache)
            if isinstance(a[0], tuple) and a[2] is None and any(g.bag.decks) and g.prisoners.pending is None:
                h = g.clone()
                done = sum(h.board.completed_count)
                h.apply_action(a)
                if sum(h.board.completed_count) != done:
                    assert g.completes(a[0], a[1]), (names, g.turn, a)
                elif not g.R.SCORE_JOIN:
                    assert not g.completes(a[0], a[1]), (names, g.turn, a)
            if not may:
                quiet += 1
                h = g.clone()
                h.apply_action(a)
                assert h.returns() == g.returns(), (names, g.turn, a)
            tried += 1
        assert _state(g) == before, (names, g.turn)
    assert quiet > tried // 4  # most moves are quiet: the shortcut is worth having


def classes_hold(g, acts, label) -> int:
    """`score_classes`' contract at one position, each move tried in full on a clone: None only for a
    move that changes no score and nothing that stands (outposts, prisoners), moves with one key change
    the scores, what stands and what the same player may do next alike.  Returns how many moves shared
    a key with an earlier one."""
    keys = g.score_classes(acts)
    assert len(keys) == len(acts)
    if not isinstance(acts, list):  # legal_actions' Moves, read from its blocks: the keys of the same moves as a list
        assert keys == g.score_classes(list(acts)), (label, g.turn)
    seen, twins = {}, 0
    for a, k in zip(acts, keys):
        h = g.clone()
        h.apply_action(a)
        got = (h.returns(), h.standing_points(),
               sorted(map(repr, h.legal_actions())) if not h.ended and h.current_player() == g.current_player() else None)
        if k is None:
            assert got[:2] == (g.returns(), g.standing_points()), (label, g.turn, a)
        elif k in seen:
            twins += 1
            assert got == seen[k], (label, g.turn, a, k)
        else:
            seen[k] = got
    return twins


@pytest.mark.slow
@pytest.mark.parametrize("names", SETS, ids=["+".join(s) for s in SETS])
def test_equal_score_classes_change_the_scores_alike(names):
    """`score_classes`: None only for a move that leaves every score as it is; moves with one key change
    every score by the same amounts (the figure on a feature the tile does not complete is not scored
    this turn); and asking changes nothing."""
    twins = 0
    for g, acts in _positions(names):
        before = _state(g)
        twins += classes_hold(g, acts, names)
        assert _state(g) == before, (names, g.turn)
    if g.R.QUICK_COMPLETE is not None and not (g.R.SCORE_PUT or g.R.CAPTURES or g.R.OUTPOST_PUTS or g.R.SCORE_JOIN):
        assert twins > 0  # some moves are tried once for two: the shortcut is used


@pytest.mark.parametrize("names", SETS, ids=["+".join(s) for s in SETS])
def test_completion_read_from_the_board_is_what_placing_the_tile_finds(names):
    """BASE-ROAD-1, BASE-CITY-1, BASE-CLOISTER-1: where the rules' `complete` conditions are `open == 0`
    and `neighbours == 8` (QUICK_COMPLETE), the lookahead reads from the board which features a
    placement completes, and (BARN-SCORE-2) whether it joins fields with farmers and a barn; it must
    say what placing the tile and asking the conditions says, feature by feature."""
    checked = completed = 0
    quick = None
    for g, acts in _positions(names, games=2):
        quick = g.R.QUICK_COMPLETE is not None
        if not quick or not isinstance(acts[0][0], tuple) or g.prisoners.pending is not None:
            continue
        for cell, rot in {(a[0], a[1]) for a in acts if len(a) == 3 and isinstance(a[0], tuple)}:
            any_, local = g._completion(cell, rot)
            assert any_ == g.completes(cell, rot), (names, g.turn, cell, rot)
            h = g.clone()
            h.apply_action((cell, rot, None))
            base = h.board.tiles[cell][1]
            o = g.orientation(rot)
            done = {i for i in range(len(o.kinds)) if h.board.done[h.board.find(base + i)]}
            assert local == done, (names, g.turn, cell, rot)
            checked += 1
            completed += any_
    if names in (["base"], ["base", "river"], ["base", "abbot"], ["base", "barn"]):
        assert quick  # these rules' conditions are all read from the board (the barn's joins too)
    if quick:
        assert checked > 100 and completed > 0


def _value(g):
    return [a + b for a, b in zip(g.returns(), g.standing_points())]


def _brute_gain(g, acts, me, before, depth):
    """(best action, its gain) by trying every action: own value's change minus the best opponent's,
    a move after which `me` decides again worth its best follow-up (`depth` deep), figure first on ties."""
    best, best_key = acts[0], None
    for a in acts:
        h = g.clone()
        h.apply_action(a)
        nxt = h.legal_actions() if depth > 0 and not h.is_terminal() and h.decides(me) else []
        if a.KIND == "ransom" and nxt and any(x.KIND == "place" for x in acts) and _value(h) == _value(g) \
                and [x for x in nxt if x.KIND != "ransom"] == [x for x in acts if x.KIND != "ransom"]:
            continue  # TOWER-RANSOM-1: a ransom before the tile that opens no move and moves no value is left out
        if nxt:
            gain = _brute_gain(h, nxt, me, before, depth - 1)[1]
        else:
            after = _value(h)
            gain = after[me] - before[me] - max((after[p] - before[p] for p in range(len(after)) if p != me), default=0)
        k = (gain, _places_figure(a))
        if best_key is None or k > best_key:
            best, best_key = a, k
    return best, best_key[0]


def _brute_greedy(g, acts):
    """The greedy choice by trying every action (value: score and what stands, runtime/lookahead.py)."""
    me = g.current_player()
    return _brute_gain(g, acts, me, _value(g), GreedyAgent.FOLLOW)[0]


def _agrees_with_trying_every_move(g, until=None, look=None):
    """Play greedy in `g` to the end (or past turn `until`), asserting at each decision that it
    chooses what trying every move chooses; `look(g, acts)` is called before each move is played."""
    agent = GreedyAgent()
    while not g.ended and (until is None or g.turn <= until):
        acts = g.legal_actions()
        if not acts:
            break
        mine = agent.choose(g, acts)
        assert mine == _brute_greedy(g, acts), g.turn
        if look is not None:
            look(g, acts)
        g.apply_action(mine)


GREEDY_SETS = [["base"], ["base", "barn"], ["base", "tower"], ["rules/variants/big_cities.tess"], ["base", "king_robber"],
               ["base", "siege"], ["base", "barn", "tower"]]


@pytest.mark.slow
@pytest.mark.parametrize("names", GREEDY_SETS, ids=["base", "barn", "tower", "big_cities", "king_robber", "siege",
                                                    "barn+tower"])
def test_greedy_chooses_what_trying_every_move_chooses(names):
    """BARN-SCORE-1: a barn scores as it is put, with nothing completed: the greedy agent tries it."""
    _agrees_with_trying_every_move(load_engine(require_rule_set(names)).new_game(2, 11))


def test_a_condition_the_board_cannot_answer_places_the_tile(tmp_path):
    """A house rule whose road completes only when closed *and* 3 tiles long (`tiles` is not read from
    the board's edges): the lookahead places the tile to know, and the greedy player still chooses
    what trying every move chooses."""
    f = tmp_path / "long_roads.tess"
    f.write_text('module long_roads "Long roads"\nextends base\n'
                 'override complete road when open == 0 and tiles >= 3 [BASE-ROAD-1]\n', encoding="utf-8")
    eng = load_engine(require_rule_set([str(f)]))
    g = eng.new_game(2, 5)
    assert g.R.QUICK_COMPLETE is None
    assert load_engine(require_rule_set(["base"])).new_game(2, 5).R.QUICK_COMPLETE is not None
    _agrees_with_trying_every_move(g)


def _greedy_positions(names, seed, games=1):
    """Positions of greedy games (where the shortcuts of issue 27 come into play), with their actions."""
    eng = load_engine(require_rule_set(names))
    agent = GreedyAgent()
    for gi in range(games):
        g = eng.new_game(2, seed + gi)
        while not g.ended:
            acts = g.legal_actions()
            if not acts:
                break
            yield g, acts
            g.apply_action(agent.choose(g, acts))


@pytest.mark.slow
@pytest.mark.parametrize("names", [["base", "tower"], ["base", "siege"]], ids=["tower", "siege"])
def test_a_sum_key_adds_the_tiles_change_and_what_follows_the_put(names):
    """TOWER-CAPTURE-1, SIEGE-OUTPOST-2: `score_classes` says a move's change is the sum of its tile's
    alone and of what follows its figure's putting (a capture decision, an outpost decision) -- so a
    two-player greedy game tries the tile once and the decision once.  Trying the three says so: the
    move's gain is the tile's plus that of a move with the decision's key whose tile changes nothing."""
    added = 0
    for g, acts in _greedy_positions(names, 11):
        keys = g.score_classes(acts)
        me = g.current_player()
        before = _value(g)
        seen = set()
        for a, k in zip(acts, keys):
            if not (type(k) is tuple and k and k[0] == "sum") or k in seen:
                continue
            seen.add(k)
            _, tile_key, tile_move, more_key = k
            assert tile_move in acts and keys[acts.index(tile_move)] == tile_key
            alone = [b for b, kb in zip(acts, keys) if kb == more_key]
            if not alone:
                continue
            gain = _brute_gain(g, [a], me, before, GreedyAgent.FOLLOW)[1]
            tile = _brute_gain(g, [tile_move], me, before, GreedyAgent.FOLLOW)[1]
            more = _brute_gain(g, [alone[0]], me, before, GreedyAgent.FOLLOW)[1]
            assert gain == tile + more, (names, g.turn, a, k)
            added += 1
    assert added > 0  # the rules offer such moves and the shortcut is used


@pytest.mark.slow
def test_a_sum_after_another_move_of_the_turn_counts_that_move_once():
    """SIEGE-ATTACK-1: after the player removes a figure from an attacked outpost, the placement that
    follows is looked at from there; a sum key's two parts, each tried from there, both hold that
    removal's change, so it must count once (seed 17, turn 47 chose another removal when it counted
    twice).  Greedy chooses what trying every move chooses, the whole game long."""
    _agrees_with_trying_every_move(load_engine(require_rule_set(["base", "siege"])).new_game(2, 17), until=47)


@pytest.mark.slow
def test_greedy_does_not_look_at_the_next_players_hidden_tile():
    """SIEGE-ADVANCE-1: the symbols of a drawn siege tile are played when the game is next asked
    who decides; a move tried on a clone must not ask it once the turn has passed, or its value
    holds what the hidden next tile brings.  Seed 12, turn 51: the next tile (siege.V) brought the
    mover 3 points whatever it did, every move it tried showed them and the moves it did not try
    (nothing changes) did not, so greedy chose another placement than trying every move chooses.
    Now the two agree the whole game long, and no move's gain holds the next tile's symbols."""
    checked = []

    def at_turn_51(g, acts):
        if g.turn == 51:
            me = g.current_player()
            h = g.clone()
            h.apply_action(acts[0])
            assert h.R.TILES[h.bag.drawn].name == "siege.V" and h.R.TILES[h.bag.drawn].symbols
            assert not h.decides(me) and _value(h) == _value(g)  # the next tile's symbols are still unplayed
            checked.append(g.turn)

    g = load_engine(require_rule_set(["base", "siege"])).new_game(2, 12)
    _agrees_with_trying_every_move(g, look=at_turn_51)
    assert checked == [51] and g.turn > 51


@pytest.mark.parametrize("names", [["base", "tower"], ["base", "siege"]], ids=["tower", "siege"])
def test_the_towers_and_the_sieges_moves_are_read_from_the_board(names):
    """Issue 27: on the Tower a floor with nothing in range shares its tile's key, a floor on another
    tower is keyed by that tower (its captures), a floor on a new tower by its cell; the last tile's
    placement shares its key with a follower on a tower; and moves of both modules are sums (above).
    Each kind of key comes up in a greedy game, and equal keys change the scores alike
    (`test_equal_score_classes_change_the_scores_alike` holds them to it on random positions)."""
    kinds = set()
    for g, acts in _greedy_positions(names, 11):
        for a, k in zip(acts, g.score_classes(acts)):
            if type(k) is tuple and k and type(k[0]) is str:
                kinds.add(k[0])
    if names[1] == "tower":
        assert {"capture", "capture here", "last", "sum"} <= kinds, kinds
    else:
        assert {"outpost", "sum"} <= kinds, kinds


@pytest.mark.parametrize("names", [["base"], ["base", "river", "abbot", "barn", "king_robber", "tower", "siege"]],
                         ids="+".join)
def test_merges_grow_a_solo_boards_sets_in_place_and_never_a_clones(names):
    """A board never cloned merges a feature's cells into the root's own set (Board.union, `solo`); once
    cloned, original and clone share those sets and a merge makes a new one.  So: at every turn each root's
    set is exactly the cells of its segments, no two roots hold one set of two cells or more, and a clone
    taken mid-game still holds, after the original has played on, what it held when it was taken."""
    eng = load_engine(require_rule_set(names))
    for seed in (3, 4):
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        clone = kept = None
        turn = 0
        while not g.ended:
            acts = g.legal_actions()
            if not acts:
                break
            g.apply_action(acts[rng.randrange(len(acts))])
            turn += 1
            b = g.board
            roots = {}
            for s in range(len(b.parent)):
                roots.setdefault(b.find(s), set()).add(b.seg_cell[s])
            assert {r: b.cells[r] for r in roots} == roots, (names, seed, turn)
            big = [id(b.cells[r]) for r in roots if len(b.cells[r]) > 1]
            assert len(big) == len(set(big)), (names, seed, turn)
            if turn == 25:
                assert b.solo
                clone = g.clone()
                assert not b.solo and not clone.board.solo
                kept = [None if c is None else frozenset(c) for c in clone.board.cells]
        assert turn > 25 and [None if c is None else frozenset(c) for c in clone.board.cells] == kept
