"""The card game (rulebook 001) as a PettingZoo AEC environment; needs the `rl` extra.

    from tessera.adapters.pettingzoo_cards import env
    e = env(players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Actions are `tessera.adapters.cardgame.CardCodec`'s numbers (`Discrete(size)`).  An agent's
observation is what that player may see (`CardObserver` with their own face-down cards): their
own hand, never another's; face-down cards only those they laid; chests by size.  A step's
reward is each player's score change (scores change when a round's claims are taken and at
the end), so an agent's rewards add up to its final score.
"""
from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from compiler.replay import engine_for
from .cardgame import CardCodec, CardObserver


def env(**kwargs) -> "CardEnv":
    return CardEnv(**kwargs)


class CardEnv(AECEnv):
    metadata = {"name": "tessera_cards_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules=("card",), players: int = 2, search=(), render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' (text) is offered")
        self.render_mode = render_mode
        self.rules = [rules] if isinstance(rules, str) else list(rules)
        self.engine = engine_for(self.rules, list(search))
        if getattr(self.engine.rules, "FAMILY", "tiles") != "cards":
            raise ValueError(f"{'+'.join(self.rules)} is not a card game: use tessera.adapters.pettingzoo")
        lo, hi = self.engine.rules.PLAYERS
        if not lo <= players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")
        self.codec = CardCodec(self.engine)
        self.observer = CardObserver(self.codec, players, private=True)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        obs = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.observer.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.codec.size) for a in self.possible_agents}
        self._seeds = random.Random()
        self.game = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._seeds = random.Random(seed)
        self.game = self.engine.new_game(len(self.possible_agents), self._seeds.randrange(2 ** 31))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._legal = self.codec.legal(self.game)
        self.agent_selection = self.possible_agents[self.game.current]

    def observe(self, agent):
        p = self.possible_agents.index(agent)
        mask = np.zeros(self.codec.size, np.int8)
        if self.agent_selection == agent and not self.game.ended:
            mask[list(self._legal)] = 1
        return {"observation": self.observer.set_from(self.game, p).copy(), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        n = int(action)
        if n not in self._legal:
            raise ValueError(f"{agent}: action {n} is not legal now ({self.codec.describe(n)})")
        g = self.game
        before = list(g.scores)
        g.apply_action(self._legal[n])
        self._legal = self.codec.legal(g)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(g.scores[i] - before[i]) for i, a in enumerate(self.possible_agents)}
        if g.ended:
            self.terminations = {a: True for a in self.agents}
            self._legal = {}
            self.agent_selection = self.possible_agents[(self.possible_agents.index(agent) + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[g.current]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        g = self.game
        scores = ", ".join(f"{a} {s}" for a, s in zip(self.possible_agents, g.scores))
        if g.ended:
            return f"game over: {scores}"
        return f"round {g.round}, {self.agent_selection} to move ({len(g.deck)} cards in the deck): {scores}"

    def close(self):
        pass
