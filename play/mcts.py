"""The search player `mcts:N` (play/agents.py builds it): N short, informed simulations per move.

The first `mcts:N` (until issue 27's ladder) played random games to the end from each move; a
random game scores like a random player, 30-40 points a game on base against greedy's 84, so a
playout said little about a move and mcts:100 lost to greedy 10 games of 12.  This one keeps the
information-set sampling and the UCB1 bandit and changes what a simulation is worth:

- **a value of a position** that the rules themselves give: each player's score were the game to
  end now (a clone of the game, `finish()`: the final scoring of what is unfinished, fields
  included) plus what stands for it by the rules (`standing_points()`: prisoners, outposts) -- or,
  in a game that scores later than its moves, `projected_returns()` (the card game);
- **a prior**: every legal move is tried once on a clone and ranked by the mover's value minus the
  best opponent's after it; the search starts from that ranking (one virtual visit per move with
  that reward) and widens progressively, `WIDEN + sqrt(visits)` moves in play, best-ranked first,
  so a small budget is spent on the moves that are worth looking at;
- **a simulation**: the hidden order of the bag reordered at random (`shuffle_bag`: a player
  cannot see it; single-observer information-set sampling, Cowling, Powley & Whitehouse 2012), the
  move applied, then `DEPTH` rounds of every player playing greedy (the `greedy` player's own
  `choose`; `DEEP_DEPTH` rounds from `DEEP_FROM` simulations a move on: with two rounds for both,
  mcts:64 won 55.5% of 200 games against mcts:16 on base, the extra simulations buying little;
  looking further is what the larger budget buys, docs/simulate.md's ladder), then the value of
  the position reached (the final scores, if the game ended): the reward is a logistic of how
  much the mover's lead over the best opponent changed from the position searched,
  `1 / (1 + exp(-(lead - lead_now) / SCALE))` (a lead kept is worth 0.5).

The move played is the one of best mean reward among those simulated (the prior counted as one
visit; ties: the more simulated, the better prior, the engine's order).  Both replaced, for the
ladder's top step, a logistic of the lead itself and the move simulated most often: a player 10-20
points ahead or behind saw rewards whose differences between moves were hundredths, far below
UCB1's exploration term, so the visits spread almost evenly over the moves in play and "most
simulated" was close to a random pick among them -- the more so the larger the budget, which
widens to more moves (docs/simulate.md's ladder has the measurements).
Every random choice comes from the agent's seed, so a game is the same on every run.
"""
from __future__ import annotations

import math
import random


def position_value(game) -> list[float]:
    """Per player, what the position is worth by the rules: its score were the game to end now plus
    what stands for it (`standing_points()`), or `projected_returns()` where the engine offers it."""
    if hasattr(game, "projected_returns"):
        return list(game.projected_returns())
    h = game.clone()
    h.finish()
    v = list(h.returns())
    if hasattr(h, "standing_points"):
        v = [a + b for a, b in zip(v, h.standing_points())]
    return v


def lead(values, p: int) -> float:
    """Player p's value minus the best other player's (its value alone in a one-player game)."""
    others = [v for q, v in enumerate(values) if q != p]
    return values[p] - max(others) if others else values[p]


class MCTSAgent:
    """Information-set Monte Carlo search: a UCB1 bandit over the mover's moves, widened in the order
    of a one-move prior, each simulation a determinization, the move, `DEPTH` rounds of greedy play
    and the rules' value of the position reached."""

    C = 0.25  # UCB1 exploration constant (rewards in [0, 1])
    SCALE = 8.0  # points of lead that make a reward of 0.73 (logistic)
    DEPTH = 2  # rounds of greedy play after the move, each player one turn a round
    DEEP_FROM, DEEP_DEPTH = 64, 4  # from 64 simulations a move on, each simulation plays 4 rounds
    WIDEN = 2  # moves in play before any simulation: WIDEN + sqrt(simulations so far)

    def __init__(self, seed: int, playouts: int, policy):
        """`policy`: the player of the simulations' rounds and the prior (agents.py gives greedy)."""
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.name = f"mcts:{playouts}"
        self.policy = policy
        self.depth = self.DEEP_DEPTH if playouts >= self.DEEP_FROM else self.DEPTH
        self.base = 0.0  # the mover's lead in the position searched (`choose`): rewards are its change
        self.last = None  # the last search's statistics per legal move: prior, visits, reward (sum), sims

    def _reward(self, values, p: int) -> float:
        x = (lead(values, p) - self.base) / self.SCALE
        if x < -60:
            return 0.0
        return 1.0 / (1.0 + math.exp(-x))

    def choose(self, game, actions):
        if len(actions) == 1:
            return actions[0]
        me = game.current_player()
        n = len(actions)
        self.base = lead(position_value(game), me)
        prior = []
        for a in actions:
            g = game.clone()
            g.apply_action(a)
            prior.append(self._reward(position_value(g), me))
        order = sorted(range(n), key=lambda i: -prior[i])  # stable: the engine's order among equals
        visits = [1] * n  # the prior counts as one visit
        reward = prior[:]
        sims = [0] * n
        rng = self.rng
        for t in range(self.playouts):
            k = min(n, self.WIDEN + int(math.sqrt(t)))
            total = sum(visits[i] for i in order[:k])
            log_total = math.log(total)
            best, best_v = order[0], -1.0
            for i in order[:k]:
                v = reward[i] / visits[i] + self.C * math.sqrt(log_total / visits[i])
                if v > best_v:
                    best, best_v = i, v
            reward[best] += self._simulate(game, actions[best], me, rng)
            visits[best] += 1
            sims[best] += 1
        self.last = {"prior": prior, "visits": visits, "reward": reward, "sims": sims}  # for inspection
        # the best mean reward among the moves simulated (the prior counted as one visit); ties: the more
        # simulated, the better prior, the engine's order
        return actions[max(range(n), key=lambda i: (sims[i] > 0, reward[i] / visits[i], sims[i], prior[i], -i))]

    def _simulate(self, game, action, me, rng) -> float:
        g = game.clone()
        g.shuffle_bag(rng)  # one order of the tiles this player cannot see
        g.apply_action(action)
        plies = self.depth * len(g.returns())
        turn = g.turn if hasattr(g, "turn") else None
        steps = 0
        while not g.is_terminal():
            if turn is not None:  # rounds counted in the rules' turns (a turn may hold several decisions)
                if g.turn - turn >= plies:
                    break
            elif steps >= plies:
                break
            acts = g.legal_actions()
            if not acts:
                g.finish()
                break
            g.apply_action(self.policy.choose(g, acts))
            steps += 1
        if g.is_terminal():
            return self._reward(list(g.returns()), me)
        return self._reward(position_value(g), me)
