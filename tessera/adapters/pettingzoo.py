"""A PettingZoo AEC environment for any rule set (docs/engine.md, "PettingZoo").

    from tessera.adapters.pettingzoo import env
    e = env(rules=["base", "river", "abbot"], players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Actions are the stable numbers of `compiler.actions.ActionCodec` (`Discrete(size)`);
the observation is `{"observation": float32 vector (tessera.adapters.observation),
"action_mask": int8 vector}`, or with `observation="planes"` a float32 array (C, H, W)
in a `Box` (`Observer.set_planes`) with the mask in `infos[agent]["action_mask"]`
(what `last()` answers as its info) and `env.action_mask(agent)`.  A step's reward is each player's score change, so an
agent's rewards add up to its final score.  Needs the `rl` extra.
"""
from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from compiler.actions import ActionCodec
from compiler.replay import engine_for
from .observation import Observer, board_text


def env(**kwargs) -> "TesseraEnv":
    return TesseraEnv(**kwargs)


class TesseraEnv(AECEnv):
    metadata = {"name": "tessera_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules=("base",), players: int = 2, radius: int | None = None, view: int | None = None,
                 search=(), render_mode: str | None = None, observation: str = "dict"):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' (text) is offered")
        self.render_mode = render_mode
        self.rules = [rules] if isinstance(rules, str) else list(rules)
        self.engine = engine_for(self.rules, list(search))
        lo, hi = self.engine.rules.PLAYERS
        if not lo <= players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")
        self.codec = ActionCodec(self.engine, radius)
        self.observer = Observer(self.codec, players, view)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        if observation not in ("dict", "planes"):
            raise ValueError(f"observation {observation!r}: 'dict' (flat vector and mask) or 'planes'")
        self.planes = observation == "planes"
        if self.planes:  # a standard Box of planes; the mask goes in the info (infos[agent]["action_mask"])
            obs = spaces.Box(0.0, self.observer.planes_high(), dtype=np.float32)
        else:
            obs = spaces.Dict({
                "observation": spaces.Box(0.0, self.observer.high, dtype=np.float32),
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
        self._after_move()

    def _after_move(self):
        g = self.game
        if g.is_terminal():
            self.terminations = {a: True for a in self.agents}
            self._legal = {}
        else:
            self.agent_selection = self.possible_agents[g.current_player()]

    def action_mask(self, agent) -> np.ndarray:
        """int8 of `codec.size`: 1 at the numbers `agent` may play now (all 0 for the others)."""
        mask = np.zeros(self.codec.size, np.int8)
        if self.agent_selection == agent and not self.game.is_terminal():
            mask[list(self._legal)] = 1
        return mask

    def observe(self, agent):
        p = self.possible_agents.index(agent)
        if self.planes:
            return self.observer.set_planes(self.game, p)
        return {"observation": self.observer.set_from(self.game, p).copy(), "action_mask": self.action_mask(agent)}

    def last(self, observe=True):
        if self.planes:  # the mask of the agent to act, where PettingZoo's tests and wrappers look for it
            agent = self.agent_selection
            self.infos[agent] = {**self.infos.get(agent, {}), "action_mask": self.action_mask(agent)}
        return super().last(observe)

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
        self._legal = self.codec.legal(g)  # a tile that cannot be placed without a discard rule ends the game
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(g.scores[i] - before[i]) for i, a in enumerate(self.possible_agents)}
        self._after_move()
        if g.is_terminal():
            self.agent_selection = self.possible_agents[(self.possible_agents.index(agent) + 1) % len(self.agents)]
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
        if g.is_terminal():
            head = f"game over: {scores}"
        else:
            head = f"{self.agent_selection} to place tile {self.codec.drawn_tile(g)} ({g.tiles_left()} left): {scores}"
        return head + "\n" + board_text(g, self.codec.centre, self.observer.view)

    def close(self):
        pass
