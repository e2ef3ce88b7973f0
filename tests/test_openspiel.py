"""tessera.adapters.openspiel: OpenSpiel's own consistency checks for Python games
(random simulation with clone and serialization round-trips), the tile draw as a
chance node with the rulebook's odds, Siege's decisions by players whose turn it is
not, and OpenSpiel's MCTS bot playing whole games."""
from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from tessera.replay.actions import ActionCodec, legal_actions
from tessera.replay.tiles import engine_for
from tessera.adapters import openspiel as O

ALL = "base+river+abbot+king_robber+barn+tower+siege+refcard"


@pytest.mark.parametrize("rules", ["base", "base+river+abbot", "base+tower", "base+siege",
                                   ALL])  # every module: 820,627 actions at its default window
@pytest.mark.slow
def test_openspiel_random_sim_test(rules):
    game = pyspiel.load_game(f"tessera(rules={rules},players=2)")
    # OpenSpiel's checks: legal-action masks, clone == original, serialize/deserialize,
    # observation tensors of the declared size, returns zero-sum and within the bounds
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def _odds_by_name(state):
    out: dict[str, float] = {}
    for t, p in state.chance_outcomes():
        name = state.engine_game().tile_name(t)
        out[name] = out.get(name, 0.0) + p
    return out


def test_first_draw_has_the_odds_of_the_base_bag():
    state = O.load("base").new_initial_state()
    assert state.is_chance_node()
    odds = _odds_by_name(state)
    # BASE-COMP-1: 72 tiles, one D is the start tile, so 71 in the bag: V9, U8, D 4-1
    assert odds["V"] == pytest.approx(9 / 71)
    assert odds["U"] == pytest.approx(8 / 71)
    assert odds["D"] == pytest.approx(3 / 71)
    assert sum(odds.values()) == pytest.approx(1.0) and len(odds) == 24


def test_the_lake_is_drawn_last():
    # RIVER-COMP-1 / RIVER-SETUP-1: 12 river tiles, the source is the start tile, the lake lies under the stack
    state = O.load(["base", "river"]).new_initial_state()
    rng = np.random.RandomState(3)
    draws = 0
    while draws < 10:
        if state.is_chance_node():
            odds = _odds_by_name(state)
            left = 10 - draws  # river tiles other than the source and the lake still in the stack
            assert "river.lake" not in odds and all(n.startswith("river.") for n in odds)
            assert all(abs(p * left - round(p * left)) < 1e-9 for p in odds.values())
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            draws += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    while not state.is_chance_node():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert _odds_by_name(state) == {"river.lake": 1.0}


def test_serialized_state_plays_on_identically():
    game = O.load("base+abbot", players=3)
    state = game.new_initial_state()
    rng = np.random.RandomState(7)
    for _ in range(41):  # ends on a decision node with a tile drawn
        O.random_step(state, rng)
    copy = game.deserialize_state(state.serialize())
    clone = state.clone()
    assert str(copy) == str(state) == str(clone)
    assert copy.legal_actions() == state.legal_actions() == clone.legal_actions()
    a = state.legal_actions()[len(state.legal_actions()) // 2]
    for s in (state, copy, clone):
        s.apply_action(a)
    assert str(copy) == str(state) == str(clone)
    assert copy.engine_game().scores == state.engine_game().scores


@pytest.mark.slow
@pytest.mark.parametrize("evaluator,simulations", [("rollout", 3), ("score", 10)])
def test_mcts_bot_plays_whole_games(evaluator, simulations):
    game = O.load("base")
    result = O.mcts_vs_random(game, games=2, simulations=simulations, seed=1, evaluator=evaluator)
    assert result["games"] == 2 and result["wins"] + result["ties"] + result["losses"] == 2
    assert result["mcts_mean_score"] > 0


def test_returns_are_zero_sum_shares_of_the_win():
    game = O.load("base", players=3)
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    while not state.is_terminal():
        assert state.returns() == [0.0, 0.0, 0.0]
        O.random_step(state, rng)
    scores = state.engine_game().scores
    top = max(scores)
    k = scores.count(top)
    assert state.returns() == [(3 - k) / k if s == top else -1.0 for s in scores]
    assert sum(state.returns()) == 0


def direct_siege_game(seed: int):
    """A 2-player base+siege game played on the engine itself (its own draws, uniformly random
    legal tuples): the game and, per move, (the drawn tile, the move's number, who decides, whose turn)."""
    eng = engine_for(["base", "siege"], [])
    codec = ActionCodec(eng, follow=True)  # the adapter's numbering: a window that follows the board
    g = eng.new_game(players=2, seed=seed)
    rng = random.Random(seed)
    moves = []
    while not g.is_terminal() and (acts := legal_actions(g)):
        a = rng.choice(acts)
        moves.append((g.bag.drawn, codec.encode(g, a), g.current_player(), g.current))
        g.apply_action(a)
    return g, moves


@pytest.mark.slow
def test_a_siege_game_through_openspiel_ends_with_the_engines_scores():
    # SIEGE-ATTACK-1: an attacked outpost's removals are decided "по черзі за годинниковою стрілкою,
    # починаючи з активного гравця" -- OpenSpiel's current player is the one who removes, not the
    # player whose turn it is; the catapults a drawn tile brings (SIEGE-ADVANCE-1) come after the
    # chance node that draws it
    g, moves = direct_siege_game(1)  # not the adapter's seed 0: its chance nodes name tiles the engine did not draw
    assert any(decides != turn for _, _, decides, turn in moves)  # removals by the other player happen
    state = O.load("base+siege", view=12).new_initial_state()
    i = 0
    while not state.is_terminal():
        state.observation_tensor(0)  # seen at chance nodes too: it must not play a tile not yet drawn
        if state.is_chance_node():
            tile = moves[i][0]
            assert dict(state.chance_outcomes()).get(tile, 0) > 0
            state.apply_action(tile)
            continue
        _, number, decides, _ = moves[i]
        assert state.current_player() == decides, i
        assert number in state.legal_actions()
        state.apply_action(number)
        i += 1
    assert i == len(moves)
    assert state.engine_game().scores == g.scores
    assert state.engine_game().outposts_by_name() == g.outposts_by_name()
    top = max(g.scores)
    assert state.returns() == [(2 - g.scores.count(top)) / g.scores.count(top) if s == top else -1.0 for s in g.scores]


def test_siege_draws_bring_their_catapults_after_the_chance_node():
    game = O.load("base+siege")
    R = game.engine.rules  # tile numbers are the order of rules.TILES
    state = game.new_initial_state()
    odds = _odds_by_name(state)
    # BASE-COMP-1: 72 tiles, the start tile replaced by the fortress landscape (SIEGE-SETUP-1): 71;
    # SIEGE-COMP-1: 18 land tiles, 17 of them with siege symbols and the river tile, which stays in
    # the box without the River (the rule file's stated assumption): 71 + 17 = 88 in the bag
    assert sum(odds.values()) == pytest.approx(1.0) and odds["V"] == pytest.approx(9 / 88)
    with_symbols = sum(p for name, p in odds.items() if R.TILES[R.TILE_IDS[name][0]].symbols)
    assert with_symbols == pytest.approx(17 / 88)
    # SIEGE-ADVANCE-1: drawing a tile with the knights symbol puts a catapult on the knights outpost
    # before the tile is placed; it is no chance outcome of its own (the active player places next)
    knights = state.clone()
    knights.apply_action(R.TILE_IDS["siege.E"][0])
    assert knights.current_player() == 0 and not knights.is_chance_node()
    assert knights.engine_game().outposts_by_name()["knights"]["catapults"] == 1
    # a "?" (siege.H): the active player chooses the outpost, one move for each of the three
    question = state.clone()
    question.apply_action(R.TILE_IDS["siege.H"][0])
    assert question.current_player() == 0
    assert [question.action_to_string(0, a) for a in question.legal_actions()] == [
        f'the "?" catapult goes on {name}' for name in ("knights", "travellers", "monks")]
    question.apply_action(question.legal_actions()[2])
    assert question.engine_game().outposts_by_name()["monks"]["catapults"] == 1 and not question.is_chance_node()


def test_a_state_saved_while_the_other_player_removes_plays_on_identically():
    # SIEGE-ATTACK-1: saved (OpenSpiel's serialize: the engine's tessera-state/1 and the drawn tile)
    # and cloned while the player whose turn it is not must remove a figure
    _, moves = direct_siege_game(1)
    game = O.load("base+siege", view=12)
    state = game.new_initial_state()
    i = 0
    while True:
        if state.is_chance_node():
            state.apply_action(moves[i][0])
            continue
        if moves[i][2] != moves[i][3]:
            break
        state.apply_action(moves[i][1])
        i += 1
    copy, clone = game.deserialize_state(state.serialize()), state.clone()
    for s in (copy, clone):
        assert s.current_player() == state.current_player() == moves[i][2]
        assert s.legal_actions() == state.legal_actions() and str(s) == str(state)
        assert "remove own follower" in s.action_to_string(s.current_player(), s.legal_actions()[0])
    for s in (state, copy, clone):
        for _, number, _, _ in moves[i:i + 3]:
            if s.is_chance_node():
                break
            s.apply_action(number)
    assert str(copy) == str(state) == str(clone)
    assert copy.engine_game().scores == state.engine_game().scores
