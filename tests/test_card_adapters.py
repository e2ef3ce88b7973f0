"""The card game (rulebook 001) in OpenSpiel and PettingZoo: an imperfect-information game whose
information states and observations show a player their own hand only (CARD-DEAL-1: "каждый
игрок должен держать их так, что бы мог видеть карты только он сам")."""
from __future__ import annotations

import copy
import random

import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test, seed_test

from tessera.adapters import openspiel_cards as O
from tessera.adapters.pettingzoo_cards import env

pytestmark = [pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")]


@pytest.mark.slow  # whole games to the deck's end (CARD-END-1)
@pytest.mark.parametrize("players", [2, 5])
def test_openspiel_random_sim_test(players):
    game = O.load("card", players)
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def _play_into(state, moves: int, seed: int = 0):
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(outcomes, probs)[0])
    for _ in range(moves):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_the_shuffle_is_chance_with_the_cards_odds():
    state = O.load("card", 2).new_initial_state()
    odds = dict(state.chance_outcomes())
    codec = state.get_game().codec
    assert odds[codec.index["red.animal"]] == pytest.approx(9 / 130)
    assert odds[codec.index["dragon"]] == pytest.approx(2 / 130)
    assert codec.index["blank"] not in odds  # set aside, never dealt


def test_information_state_shows_only_the_players_own_hand():
    """Another hand swapped with a card of the deck: the player's information state and observation
    (string and tensor) do not change; the other player's do."""
    game = O.load("card", 3)
    state = _play_into(game.new_initial_state(), 4, seed=2)
    other = copy.deepcopy(state)
    g = other.engine_game()
    i = next(i for i, c in enumerate(g.deck) if c not in g.hands[1])
    g.hands[1][0], g.deck[i] = g.deck[i], g.hands[1][0]
    assert state.information_state_string(0) == other.information_state_string(0)
    assert state.observation_string(0) == other.observation_string(0)
    assert np.array_equal(state.information_state_tensor(0), other.information_state_tensor(0))
    assert np.array_equal(state.observation_tensor(0), other.observation_tensor(0))
    assert state.information_state_string(1) != other.information_state_string(1)
    assert not np.array_equal(state.information_state_tensor(1), other.information_state_tensor(1))


def test_a_face_down_card_is_known_to_its_player_only():
    game = O.load("card", 2)
    state = _play_into(game.new_initial_state(), 0, seed=5)
    g = state.engine_game()
    while g.phase != "play":
        state.apply_action(state.legal_actions()[0])
    me = g.current
    play = next(a for a in state.legal_actions() if game.codec.decode(a).KIND == "play")
    card, row = game.codec.decode(play)[1:]
    state.apply_action(play)
    assert g.rows[row][-1][1]  # the first card of the row this round: face down (CARD-TURN-1)
    assert f"play {card} {row}" in state.information_state_string(me)
    assert f"play ? {row}" in state.information_state_string(1 - me)
    assert f"play {card} {row}" not in state.information_state_string(1 - me)


@pytest.mark.filterwarnings("error")  # a vector in a Box, the mask in the info: no warning
def test_pettingzoo_api_test():
    e = env(players=3)
    api_test(e, num_cycles=200)
    assert e.observation_space("player_0").shape == (e.observer.size,)


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_pettingzoo_dict_observation_on_request():
    e = env(players=2, observation="dict")
    e.reset(seed=2)
    obs, _, _, _, info = e.last()
    assert obs["action_mask"].sum() == len(e.codec.legal(e.game)) > 0 and "action_mask" not in info
    api_test(e, num_cycles=20)


def test_pettingzoo_seed_test():
    seed_test(lambda: env(players=2), num_cycles=20)


def test_pettingzoo_observation_hides_other_hands():
    e = env(players=2)
    e.reset(seed=3)
    g = e.game
    while g.phase != "play":  # set-up jokers laid first
        e.step(next(iter(e._legal)))
    obs0 = e.observe("player_0").copy()
    i = next(i for i, c in enumerate(g.deck) if c not in g.hands[1])
    g.hands[1][0], g.deck[i] = g.deck[i], g.hands[1][0]
    assert np.array_equal(obs0, e.observe("player_0"))


def test_pettingzoo_rewards_add_up_to_the_scores():
    e = env(players=4)
    e.reset(seed=7)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] += reward
        e.step(None if terminated or truncated else e.action_space(agent).sample(info["action_mask"]))
    assert [total[a] for a in e.possible_agents] == [float(s) for s in e.game.scores]


# -- OpenSpiel's conventions for imperfect information (issue 37) ------------------------------
def test_no_argument_strings_are_the_current_player_s():
    game = O.load("card", 3)
    state = _play_into(game.new_initial_state(), 5, seed=4)
    me = state.current_player()
    assert state.information_state_string() == state.information_state_string(me)
    assert state.observation_string() == state.observation_string(me)
    assert state.information_state_string() != state.information_state_string((me + 1) % 3)


def _unseen(g, me):
    return sorted(g.deck + [c for q in range(g.n) if q != me for c in g.hands[q]]
                  + [e[0] for es in g.rows.values() for e in es if isinstance(e, list) and e[1] and e[2] not in (None, me)])


@pytest.mark.parametrize("players, moves", [(2, 40), (3, 25)])
def test_resample_keeps_the_information_state_and_deals_the_unseen_anew(players, moves):
    """What the mover has seen stays (their hands, every open card, the "?" of the others' face-down
    cards); the deck's rest, the other hands and the others' face-down cards are dealt anew.  The
    resampled state's history is rewritten to match: it pickles, replays to the same information
    state, and plays on."""
    import pickle

    game = O.load("card", players)
    state = _play_into(game.new_initial_state(), moves, seed=players)
    me = state.current_player()
    g = state.engine_game()
    seen = state.information_state_string(me)
    differs = 0
    for k in range(8):
        r = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert r.information_state_string(me) == seen
        assert np.array_equal(r.information_state_tensor(me), state.information_state_tensor(me))
        h = r.engine_game()
        assert h.hands[me] == g.hands[me] and h.piles == g.piles and h.chests == g.chests
        assert _unseen(h, me) == _unseen(g, me)  # the same cards, dealt anew
        differs += any(h.hands[q] != g.hands[q] for q in range(players) if q != me)
        back = pickle.loads(pickle.dumps(r))
        assert back.information_state_string(me) == seen
        assert back.engine_game().hands == h.hands and back.engine_game().scores == h.scores
        _play_into(r, 3, seed=k)  # it plays on
    assert differs >= 6  # the other hands were dealt anew (8 draws of 6+ unseen cards each)
    assert state.information_state_string(me) == seen  # the original is untouched


def test_resample_deals_another_players_face_down_cards_anew():
    """A face-down card of another player, still in its row, is unseen: resampling may change it,
    and the record of that play with it; the mover's own face-down card never changes."""
    game = O.load("card", 2)
    state = _play_into(game.new_initial_state(), 0, seed=9)
    g = state.engine_game()
    while g.phase != "play":
        state.apply_action(state.legal_actions()[0])
    first = g.current
    play = next(a for a in state.legal_actions() if game.codec.decode(a).KIND == "play")
    state.apply_action(play)  # face down (the row's first card this round)
    row = game.codec.decode(play)[2]
    mine = next(a for a in state.legal_actions() if game.codec.decode(a).KIND == "play"
                and game.codec.decode(a)[2] != row)
    state.apply_action(mine)  # the second player's own face-down card in another row
    other, me = first, 1 - first
    assert state.current_player() == other
    theirs = g.rows[row][-1][0]
    changed = 0
    for _ in range(12):
        r = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        h = r.engine_game()
        assert h.rows[game.codec.decode(mine)[2]][-1][0] == game.codec.decode(mine)[1]
        changed += h.rows[row][-1][0] != theirs
        assert r.information_state_string(me) == state.information_state_string(me)
    assert changed >= 6


@pytest.mark.slow
def test_ismcts_plays_card_games_against_random():
    """OpenSpiel's ISMCTSBot (which asserts that every resampled state has the mover's information
    state) plays two 2-player games to the deck's end against a random player, one from each seat."""
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = O.load("card", 2)
    rng = np.random.RandomState(3)
    for seat in (0, 1):
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=3,
                               random_state=rng, max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES)
        other = UniformRandomBot(1 - seat, rng)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            elif state.current_player() == seat:
                state.apply_action(int(bot.step(state)))
            else:
                state.apply_action(other.step(state))
        g = state.engine_game()
        assert g.round == 10 and len(g.deck) == 0  # the deck's end (CARD-END-1)
        assert sum(state.returns()) == pytest.approx(0.0)
