"""tessera.adapters.pettingzoo: PettingZoo's own API and seed tests, for the base
game, base + river + abbot, the Tower, Siege and every module, a whole game whose
rewards add up to the scores, and a Siege game whose removals are the right agent's.  The
default observation is planes in a Box with the mask in the info: PettingZoo's tests give no
warning on it (warnings are errors here); `observation="dict"` is the older dict."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from pettingzoo.test import api_test, seed_test

from tessera.replay.actions import legal_actions
from tessera.adapters.pettingzoo import env

RULE_SETS = [["base"], ["base", "river", "abbot"], ["base", "tower"], ["base", "siege"]]
ALL = ["base", "river", "abbot", "king_robber", "barn", "tower", "siege", "refcard"]
NO_WARNING = pytest.mark.filterwarnings("error")  # the default environment draws no warning from PettingZoo's tests


@NO_WARNING
@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "+".join(r))
def test_pettingzoo_api_test(rules):
    api_test(env(rules=rules), num_cycles=100)  # play_test runs a whole game (about 72 moves) inside


@NO_WARNING
@pytest.mark.slow
def test_pettingzoo_api_test_every_module():
    api_test(env(rules=ALL), num_cycles=100)  # 820,627 actions at its default window


@pytest.mark.parametrize("rules", [RULE_SETS[0], RULE_SETS[1], RULE_SETS[3]],  # the Tower's 5.8M-action mask is slow here
                         ids=lambda r: "+".join(r))
@pytest.mark.slow
@NO_WARNING
def test_pettingzoo_seed_test(rules):
    seed_test(lambda: env(rules=rules), num_cycles=10)


@NO_WARNING
def test_rewards_add_up_to_the_scores_and_the_start_tile_is_seen():
    e = env(rules=["base"], players=3)
    e.reset(seed=5)
    obs, _, _, _, info = e.last()
    v = e.observer.view
    assert obs.shape == e.observer.planes_shape and obs.dtype == np.float32
    assert obs[0, v, v] == 1 and obs[0].sum() == 1  # only the start tile lies (BASE-SETUP-1)
    assert info["action_mask"].sum() == len(e.game.legal_actions())
    assert (info["action_mask"] == e.action_mask("player_0")).all()
    total = {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(5)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] += reward
        if terminated:
            e.step(None)
            continue
        if agent != e.agent_selection:
            raise AssertionError("agent_iter and agent_selection disagree")
        e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    scores = dict(zip(e.possible_agents, e.game.scores))
    assert total == {a: float(s) for a, s in scores.items()}
    assert max(scores.values()) > 0


def test_an_illegal_action_is_refused_with_its_meaning():
    e = env(rules=["base"])
    e.reset(seed=0)
    with pytest.raises(ValueError, match="not legal now.*discard"):
        e.step(e.codec.size - 1)


def test_a_house_rule_file_is_an_environment_too():
    # rules/variants/big_cities.tess: 3 points per city tile instead of 2 (BASE-CITY-2 overridden)
    path = Path(__file__).resolve().parent.parent / "rules" / "variants" / "big_cities.tess"
    e = env(rules=[str(path)], players=2)
    e.reset(seed=3)
    *_, info = e.last()
    e.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert e.engine.rules.MODULES == ("base", "big_cities")


@NO_WARNING
def test_a_small_view_keeps_the_api_and_shrinks_the_observation():
    small, full = env(rules=["base"], view=12), env(rules=["base"])
    planes = small.observer.planes
    assert small.observer.dict["board"].shape == (planes, 25, 25)
    assert small.observation_space("player_0").shape[1:] == (25, 25)
    assert full.observation_space("player_0").shape[1:] == (27, 27)  # the default window: radius 13 for base
    api_test(small, num_cycles=100)


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_the_dict_observation_is_still_there_on_request():
    # what PettingZoo's own classic games give (and warn about): the flat vector and the mask together
    e = env(rules=["base"], radius=8, observation="dict")
    e.reset(seed=1)
    obs, _, _, _, info = e.last()
    assert set(obs) == {"observation", "action_mask"} and "action_mask" not in info
    assert obs["observation"].shape == e.observer.high.shape
    assert obs["action_mask"].sum() == len(e.codec.legal(e.game)) > 0
    api_test(e, num_cycles=20)
    with pytest.raises(ValueError, match="'planes' .* or 'dict'"):
        env(rules=["base"], observation="flat")


def test_a_siege_game_through_pettingzoo_ends_with_the_engines_scores():
    # SIEGE-ATTACK-1: the players with no follower on an attacked outpost remove a figure "по черзі за
    # годинниковою стрілкою, починаючи з активного гравця": agent_selection names the one removing,
    # who need not be the player whose turn it is; an agent's rewards add up to its final score
    e = env(rules=["base", "siege"], view=12)
    e.reset(seed=2)
    engine_seed = json.loads(e.game.to_json())["seed"]  # tessera-state/1: the bag's order
    g = e.engine.new_game(players=2, seed=engine_seed)
    codec = e.codec  # numbers relative to the board's window: the same board gives the same numbers
    rng = random.Random(0)
    moves = []  # played on the engine itself first: (number, who decides, whose turn)
    while not g.is_terminal() and (acts := legal_actions(g)):
        a = rng.choice(acts)
        moves.append((codec.encode(g, a), g.current_player(), g.current))
        g.apply_action(a)
    assert any(decides != turn for _, decides, turn in moves)  # removals by the other player happen
    total = {a: 0.0 for a in e.possible_agents}
    i = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] += reward
        if terminated:
            e.step(None)
            continue
        number, decides, _ = moves[i]
        assert agent == f"player_{decides}", i
        assert info["action_mask"][number] == 1
        e.step(number)
        i += 1
    assert i == len(moves)
    assert e.game.scores == g.scores and e.game.outposts_by_name() == g.outposts_by_name()
    assert total == {f"player_{p}": float(s) for p, s in enumerate(g.scores)}
