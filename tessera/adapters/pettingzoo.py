"""A PettingZoo AEC environment for any rule set (docs/engine.md, "PettingZoo").

    from tessera.adapters.pettingzoo import env
    e = env(rules=["base", "river", "abbot"], players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(info["action_mask"])
        e.step(action)

Actions are the numbers of `tessera.replay.actions.ActionCodec` with a window that follows the
board (`follow=True`: cells relative to the centre of the placed tiles' bounding box; `radius`
defaults to one that fits the rule set, docs/engine.md section 6).  A board that outgrows the
window ends the episode as truncated (every agent), with the reason in `infos[agent]["truncated"]`:
never silently, never as a terminated game.  `Discrete(size)`;
the observation is a float32 array (C, H, W) in a `Box` (`Observer.set_planes`) with the
mask in `infos[agent]["action_mask"]` (what `last()` answers as its info) and
`env.action_mask(agent)`; with `observation="dict"` it is the older `{"observation": float32
vector (tessera.adapters.observation), "action_mask": int8 vector}` (PettingZoo's `api_test`
then warns that it is not a NumPy array in a standard space).  A step's reward is each player's score change, so an
agent's rewards add up to its final score.  Needs the `rl` extra.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..replay.actions import ActionCodec
from .aec import ScoreEnv
from .observation import Observer, board_text


def env(**kwargs) -> "TesseraEnv":
    return TesseraEnv(**kwargs)


class TesseraEnv(ScoreEnv):
    metadata = {"name": "tessera_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules=("base",), players: int = 2, radius: int | None = None, view: int | None = None,
                 search=(), render_mode: str | None = None, observation: str = "planes"):
        super().__init__(rules, players, search, render_mode)
        self.codec = ActionCodec(self.engine, radius, follow=True)  # a window that follows the board
        self.observer = Observer(self.codec, players, view)
        if observation not in ("dict", "planes"):
            raise ValueError(f"observation {observation!r}: 'planes' (the default) or 'dict' (flat vector and mask)")
        self.planes = self.mask_in_info = observation == "planes"
        if self.planes:  # a standard Box of planes; the mask goes in the info (infos[agent]["action_mask"])
            obs = spaces.Box(0.0, self.observer.planes_high(), dtype=np.float32)
        else:
            obs = spaces.Dict({
                "observation": spaces.Box(0.0, self.observer.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
            })
        self._agents(players, obs)

    def observe(self, agent):
        p = self.possible_agents.index(agent)
        if self.planes:
            return self.observer.set_planes(self.game, p)
        return {"observation": self.observer.set_from(self.game, p).copy(), "action_mask": self.action_mask(agent)}

    def _render_text(self, g, scores: str) -> str:
        if g.is_terminal():
            head = f"game over: {scores}"
        else:
            head = f"{self.agent_selection} to place tile {self.codec.drawn_tile(g)} ({g.tiles_left()} left): {scores}"
        return head + "\n" + board_text(g, self.codec.window_centre(g), self.observer.view)
