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
