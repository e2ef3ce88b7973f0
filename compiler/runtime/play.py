"""Random play: the one random player of the toolchain (simulate, play_random, the engine check)."""
import random

from .game import Game


def random_moves(g, seed, before=None, after=None):
    """Play game g to its end with uniformly random legal moves (every legal action listed
    each turn), chosen by a generator seeded from `seed` -- the one random player of the
    toolchain: `simulate`, `play_random` and the engine check all play through it.

    before(g, action) is called before each move; after(g) after it (a true result stops)."""
    rng = random.Random(seed * 7919 + 17)
    while not g.ended:
        acts = g.legal_actions()
        if not acts:
            g.finish()
            break
        a = acts[rng.randrange(len(acts))]
        if before is not None:
            before(g, a)
        g.apply_action(a)
        if after is not None and after(g):
            break
    return g


def play_random(rules, players=2, seed=0, names=None):
    """One game of uniformly random legal moves: the bag and the moves seeded by `seed`."""
    return random_moves(Game(rules, players, seed, names), seed)
