"""What the two PettingZoo AEC environments share (pettingzoo.py for the tile games,
pettingzoo_cards.py for the card game): the rule set and its player range, one agent per
seat, reset from a seed, a step's reward as each player's score change, the action mask, the
`ansi` render's mode check and scores.  Both engines' games answer `is_terminal()`,
`current_player()`, `scores`, `legal` through the codec and `apply_action`.  Needs the `rl` extra.
"""
from __future__ import annotations

import operator
import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..replay.actions import WindowExceeded
from ..replay.tiles import engine_for


class ScoreEnv(AECEnv):
    """A subclass makes `self.codec` and `self.observer`, then calls `_agents(players, obs)`; it
    writes `observe` and `_render_text`, and sets `mask_in_info` False when its observation is a
    dict that holds the mask itself."""

    mask_in_info = True

    def __init__(self, rules, players: int, search, render_mode: str | None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' (text) is offered")
        self.render_mode = render_mode
        self.rules = [rules] if isinstance(rules, str) else list(rules)
        self.engine = engine_for(self.rules, list(search))
        self._check_rules()
        lo, hi = self.engine.rules.PLAYERS
        if not lo <= players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")

    def _check_rules(self) -> None:
        """Raise ValueError if this environment does not play `self.engine`'s rules."""

    def _agents(self, players: int, obs) -> None:
        self.possible_agents = [f"player_{i}" for i in range(players)]
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
        self._next_legal()
        self._after_move()

    def _next_legal(self) -> None:
        """The numbered legal moves of the game as it stands; a board that outgrew a following window
        (WindowExceeded) leaves none and marks the episode truncated, with the reason."""
        self.truncated_by = None
        try:
            self._legal = self.codec.legal(self.game)  # a tile that cannot be placed without a discard rule ends the game
        except WindowExceeded as e:
            self._legal = {}
            self.truncated_by = e.reason

    def _after_move(self):
        g = self.game
        if self.truncated_by is not None:  # never a terminal state: the game did not end, the window did
            self.truncations = {a: True for a in self.agents}
            for a in self.agents:
                self.infos[a] = {**self.infos.get(a, {}), "truncated": self.truncated_by}
            self.agent_selection = self.possible_agents[g.current_player()]
        elif g.is_terminal():
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

    def last(self, observe=True):
        if self.mask_in_info:  # the mask of the agent to act, where PettingZoo's tests and wrappers look for it
            agent = self.agent_selection
            self.infos[agent] = {**self.infos.get(agent, {}), "action_mask": self.action_mask(agent)}
        return super().last(observe)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        n = self._action_number(agent, action)
        if n not in self._legal:
            raise ValueError(f"{agent}: action {n} is not legal now ({self.codec.describe(n)})")
        g = self.game
        before = list(g.scores)
        g.apply_action(self._legal[n])
        self._next_legal()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(g.scores[i] - before[i]) for i, a in enumerate(self.possible_agents)}
        self._after_move()
        if g.is_terminal():
            self.agent_selection = self.possible_agents[(self.possible_agents.index(agent) + 1) % len(self.agents)]
        self._accumulate_rewards()

    def _action_number(self, agent, action) -> int:
        """The action as a whole number of the action space, else ValueError (12.9 is not 12, NaN no number)."""
        try:
            n = None if isinstance(action, (bool, np.bool_)) else operator.index(action)
        except TypeError:
            n = None
        if n is None:
            raise ValueError(f"{agent}: action {action!r} is not a whole number (actions are 0..{self.codec.size - 1})")
        if not 0 <= n < self.codec.size:
            raise ValueError(f"{agent}: action {n} is out of range (actions are 0..{self.codec.size - 1})")
        return n

    def render(self):
        """The game as text (`render_mode="ansi"`): returned, never printed (PettingZoo's convention)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        g = self.game
        return self._render_text(g, ", ".join(f"{a} {s}" for a, s in zip(self.possible_agents, g.scores)))

    def _render_text(self, g, scores: str) -> str:
        raise NotImplementedError

    def close(self):
        pass
