"""A greedy player against a random one on the base game (docs/engine.md)."""
import random

from tessera.replay.actions import ActionCodec
from tessera.compiler.build import load_engine
from tessera.dsl.loader import require_rule_set

engine = load_engine(require_rule_set(["base"]))
codec, rng, totals = ActionCodec(engine), random.Random(0), [0, 0]


def value(g, action, me):  # my lead over the best other player if the game ended after `action`
    h = g.clone()
    h.apply_action(action)
    h.finish()
    return h.scores[me] - max(s for p, s in enumerate(h.scores) if p != me)


for seed in range(6):
    g = engine.new_game(players=2, seed=seed)
    while not g.is_terminal() and (legal := codec.legal(g)):
        me = g.current_player()
        pick = max(legal, key=lambda n: value(g, legal[n], me)) if me == 0 else rng.choice(list(legal))
        g.apply_action(legal[pick])
    totals = [t + s for t, s in zip(totals, g.returns())]
print(f"greedy {totals[0]} random {totals[1]} over 6 games")
