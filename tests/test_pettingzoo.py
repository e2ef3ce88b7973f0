"""tessera.adapters.pettingzoo: PettingZoo's own API and seed tests, for the base
game and for base + river + abbot, and a whole game whose rewards add up to the scores."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pettingzoo.test import api_test, seed_test

from tessera.adapters.pettingzoo import env

RULE_SETS = [["base"], ["base", "river", "abbot"], ["base", "tower"]]
# PettingZoo's own classic games with action masks get these warnings too (a dict observation)
pytestmark = [pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "+".join(r))
def test_pettingzoo_api_test(rules):
    api_test(env(rules=rules), num_cycles=100)  # play_test runs a whole game (about 72 moves) inside


@pytest.mark.parametrize("rules", RULE_SETS[:2], ids=lambda r: "+".join(r))  # the Tower's 5.8M-action mask is slow here
def test_pettingzoo_seed_test(rules):
    seed_test(lambda: env(rules=rules), num_cycles=10)


def test_rewards_add_up_to_the_scores_and_the_start_tile_is_seen():
    e = env(rules=["base"], players=3)
    e.reset(seed=5)
    obs, *_ = e.last()
    board = e.observer.dict["board"]
    v = e.observer.view
    e.observer.set_from(e.game, 0)
    assert board[0, v, v] == 1 and board[0].sum() == 1  # only the start tile lies (BASE-SETUP-1)
    assert obs["observation"].dtype == np.float32 and obs["observation"].sum() > 0
    assert obs["action_mask"].sum() == len(e.game.legal_actions())
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
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
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
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.engine.rules.MODULES == ("base", "big_cities")


def test_a_small_view_keeps_the_api_and_shrinks_the_observation():
    small, full = env(rules=["base"], view=12), env(rules=["base"])
    planes = small.observer.planes
    assert small.observer.dict["board"].shape == (planes, 25, 25)
    assert small.observation_space("player_0")["observation"].shape[0] < full.observation_space("player_0")["observation"].shape[0]
    api_test(small, num_cycles=100)
