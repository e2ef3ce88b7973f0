"""The card game (rulebook 001) as a PettingZoo AEC environment; needs the `rl` extra.

    from tessera.adapters.pettingzoo_cards import env
    e = env(players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(info["action_mask"])
        e.step(action)

Actions are `tessera.adapters.cardgame.CardCodec`'s numbers (`Discrete(size)`).  An agent's
observation is what that player may see (`CardObserver` with their own face-down cards): their
own hand, never another's; face-down cards only those they laid; chests by size: a float32
vector in a `Box`, with the mask in `infos[agent]["action_mask"]` (what `last()` answers as its
info) and `env.action_mask(agent)`; with `observation="dict"` the older `{"observation": vector,
"action_mask": int8 vector}`.  A step's
reward is each player's score change (scores change when a round's claims are taken and at
the end), so an agent's rewards add up to its final score.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..dsl.family import CARDS, Family

from .aec import ScoreEnv
from .cardgame import CardCodec, CardObserver


def env(**kwargs) -> "CardEnv":
    return CardEnv(**kwargs)


class CardEnv(ScoreEnv):
    metadata = {"name": "tessera_cards_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules=("card",), players: int = 2, search=(), render_mode: str | None = None,
                 observation: str = "vector"):
        super().__init__(rules, players, search, render_mode)
        self.codec = CardCodec(self.engine)
        self.observer = CardObserver(self.codec, players, private=True)
        if observation not in ("vector", "dict"):
            raise ValueError(f"observation {observation!r}: 'vector' (the default) or 'dict' (vector and mask)")
        self.mask_in_info = observation == "vector"
        vector = spaces.Box(0.0, 1.0, (self.observer.size,), dtype=np.float32)
        self._agents(players, vector if self.mask_in_info else spaces.Dict({
            "observation": vector,
            "action_mask": spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
        }))

    def _check_rules(self) -> None:
        if Family.of_rules(self.engine.rules) is not CARDS:
            raise ValueError(f"{'+'.join(self.rules)} is not a card game: use tessera.adapters.pettingzoo")

    def observe(self, agent):
        p = self.possible_agents.index(agent)
        vector = self.observer.set_from(self.game, p).copy()
        return vector if self.mask_in_info else {"observation": vector, "action_mask": self.action_mask(agent)}

    def _render_text(self, g, scores: str) -> str:
        if g.ended:
            return f"game over after round {g.round} ({g.why[0] if g.why else 'ended'}): {scores}"
        return f"round {g.round}, {self.agent_selection} to move ({len(g.deck)} cards in the deck): {scores}"
